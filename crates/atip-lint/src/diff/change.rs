//! The vocabulary of a diff: change kinds with the reference differ's ids and their
//! categories, how much an effects change matters, and one change.

use std::fmt;

use atip_core::diagnostic::JsonPath;
use serde::Serialize;
use serde_json::Value;

/// Whether a change breaks existing callers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Category {
    /// Calls that worked may now fail or mean something else.
    Breaking,
    /// Additions and relaxations: calls that worked still do.
    NonBreaking,
    /// The declared side effects changed: the policy may decide differently.
    Effects,
}

/// How much an effects change matters to a policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Impact {
    /// Network, duration, cost estimate.
    Low,
    /// Reversibility, idempotency, subprocesses, files, interaction.
    Medium,
    /// Destructiveness and billing.
    High,
}

macro_rules! change_kinds {
    ($($variant:ident => $id:literal, $category:ident;)*) => {
        /// The kind of one change, named with the reference differ's change ids
        /// (`subprocess-changed` is this crate's own: the reference does not compare
        /// `subprocess`).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
        #[serde(rename_all = "kebab-case")]
        pub enum ChangeKind {
            $(
                #[doc = concat!("`", $id, "`")]
                $variant,
            )*
        }

        impl ChangeKind {
            /// Every kind, breaking ones first.
            pub const ALL: &'static [ChangeKind] = &[$(ChangeKind::$variant),*];

            /// The change id, e.g. `command-removed`.
            pub const fn id(self) -> &'static str {
                match self {
                    $(ChangeKind::$variant => $id,)*
                }
            }

            /// Breaking, non-breaking or effects.
            pub const fn category(self) -> Category {
                match self {
                    $(ChangeKind::$variant => Category::$category,)*
                }
            }
        }
    };
}

change_kinds! {
    CommandRemoved => "command-removed", Breaking;
    RequiredArgumentAdded => "required-argument-added", Breaking;
    RequiredOptionAdded => "required-option-added", Breaking;
    TypeMadeStricter => "type-made-stricter", Breaking;
    EnumValuesRemoved => "enum-values-removed", Breaking;
    ArgumentRemoved => "argument-removed", Breaking;
    OptionRemoved => "option-removed", Breaking;
    OptionFlagsChanged => "option-flags-changed", Breaking;
    ArgumentMadeRequired => "argument-made-required", Breaking;
    OptionMadeRequired => "option-made-required", Breaking;
    CommandAdded => "command-added", NonBreaking;
    OptionalArgumentAdded => "optional-argument-added", NonBreaking;
    OptionalOptionAdded => "optional-option-added", NonBreaking;
    TypeRelaxed => "type-relaxed", NonBreaking;
    EnumValuesAdded => "enum-values-added", NonBreaking;
    DescriptionChanged => "description-changed", NonBreaking;
    DefaultValueChanged => "default-value-changed", NonBreaking;
    ExamplesChanged => "examples-changed", NonBreaking;
    ArgumentMadeOptional => "argument-made-optional", NonBreaking;
    OptionMadeOptional => "option-made-optional", NonBreaking;
    HomepageChanged => "homepage-changed", NonBreaking;
    VersionChanged => "version-changed", NonBreaking;
    PatternsChanged => "patterns-changed", NonBreaking;
    DestructiveAdded => "destructive-added", Effects;
    DestructiveRemoved => "destructive-removed", Effects;
    ReversibleChanged => "reversible-changed", Effects;
    IdempotentChanged => "idempotent-changed", Effects;
    NetworkChanged => "network-changed", Effects;
    SubprocessChanged => "subprocess-changed", Effects;
    FilesystemChanged => "filesystem-changed", Effects;
    CostChanged => "cost-changed", Effects;
    InteractiveChanged => "interactive-changed", Effects;
    DurationChanged => "duration-changed", Effects;
}

impl fmt::Display for ChangeKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// One change.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Change {
    /// What changed.
    pub kind: ChangeKind,
    /// Breaking, non-breaking or effects (the kind's).
    pub category: Category,
    /// For effects changes, how much it matters.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub impact: Option<Impact>,
    /// Where, in the new document (in the old one for what was removed), e.g.
    /// `$.commands.deploy.arguments[0]`.
    #[serde(serialize_with = "display")]
    pub path: JsonPath,
    /// What changed, naming the command and parameter.
    pub message: String,
    /// The old value, when there was one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old: Option<Value>,
    /// The new value, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new: Option<Value>,
}

fn display<S: serde::Serializer>(path: &JsonPath, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(path)
}

impl fmt::Display for Change {
    /// `BREAKING command-removed $.commands.deploy: command `deploy` was removed`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let label = match (self.category, self.impact) {
            (Category::Breaking, _) => "BREAKING".to_owned(),
            (Category::NonBreaking, _) => "non-breaking".to_owned(),
            (Category::Effects, Some(i)) => format!("effects ({})", impact_name(i)),
            (Category::Effects, None) => "effects".to_owned(),
        };
        write!(f, "{label} {} {}: {}", self.kind, self.path, self.message)
    }
}

fn impact_name(i: Impact) -> &'static str {
    match i {
        Impact::Low => "low",
        Impact::Medium => "medium",
        Impact::High => "high",
    }
}
