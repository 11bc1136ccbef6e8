//! What changed between two versions of a tool's ATIP metadata, and what that means for the
//! agents that call it.
//!
//! Commands are matched by name at each level, arguments and options by `name`. Each change
//! has a [`ChangeKind`] (the reference differ's change ids), a [`Category`] and, for effects,
//! an [`Impact`]. Effects are compared as each command declares them (not merged), like the
//! reference; an undeclared field differs from a declared one (unknown is not `false`).

use std::collections::BTreeSet;
use std::fmt;

use atip_core::diagnostic::JsonPath;
use atip_core::effects::Effects;
use atip_core::model::{ArgumentSpec, CommandSpec, DocumentTree, EnumValue, OptionSpec, ParamType};
use atip_core::{LoadError, LoadOptions};
use indexmap::IndexMap;
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

/// The semantic-version bump a change set calls for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Bump {
    /// Nothing changed.
    None,
    /// Only low- or medium-impact effects changed.
    Patch,
    /// Additions, relaxations, descriptions, or a high-impact effects change.
    Minor,
    /// Something breaking.
    Major,
}

impl Bump {
    /// `major`, `minor`, `patch` or `none`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Bump::None => "none",
            Bump::Patch => "patch",
            Bump::Minor => "minor",
            Bump::Major => "major",
        }
    }
}

/// Every change between two documents and the bump they call for.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DiffReport {
    /// The changes: the tool's own fields, then commands (removed, added, then changed, at
    /// each level), then global options, then the tool's effects.
    pub changes: Vec<Change>,
    /// The recommended bump: `major` for any breaking change; else `minor` for a high-impact
    /// effects change or any non-breaking change other than `version-changed` (the version
    /// is the outcome of the bump, not a reason for one); else `patch` for effects changes;
    /// else `none`.
    pub semver: Bump,
}

impl DiffReport {
    /// Whether any change is breaking (`atip diff` then exits with status 1).
    pub fn is_breaking(&self) -> bool {
        self.semver == Bump::Major
    }

    /// How many changes are in `category`.
    pub fn count(&self, category: Category) -> usize {
        self.changes
            .iter()
            .filter(|c| c.category == category)
            .count()
    }

    /// The changes of one kind.
    pub fn of_kind(&self, kind: ChangeKind) -> impl Iterator<Item = &Change> {
        self.changes.iter().filter(move |c| c.kind == kind)
    }
}

/// Why two texts could not be compared.
#[derive(Debug, Clone, PartialEq)]
pub struct DiffError {
    /// `"old"` or `"new"`.
    pub side: &'static str,
    /// Every problem of that document (strict load).
    pub error: LoadError,
}

impl fmt::Display for DiffError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the {} document is not valid ATIP: {}",
            self.side, self.error
        )
    }
}

impl std::error::Error for DiffError {}

/// Loads both texts (strictly, as `atip check`; `old_name`/`new_name` name them in
/// diagnostics) and compares them.
///
/// # Errors
///
/// [`DiffError`] for the first document that does not load.
pub fn diff_texts(
    old: &str,
    old_name: &str,
    new: &str,
    new_name: &str,
) -> Result<DiffReport, DiffError> {
    let load = |text: &str, name: &str, side| {
        atip_core::load(text, &LoadOptions::strict().with_file(name))
            .map(|l| l.tool)
            .map_err(|error| DiffError { side, error })
    };
    let old = load(old, old_name, "old")?;
    let new = load(new, new_name, "new")?;
    Ok(diff(&old, &new))
}

/// Compares two documents.
pub fn diff(old: &DocumentTree, new: &DocumentTree) -> DiffReport {
    let mut d = Differ::default();
    let root = JsonPath::root();
    if old.version != new.version {
        d.push(
            ChangeKind::VersionChanged,
            root.key("version"),
            format!(
                "version changed from `{}` to `{}`",
                old.version, new.version
            ),
            Some(Value::from(old.version.as_str())),
            Some(Value::from(new.version.as_str())),
        );
    }
    if old.description != new.description {
        d.changed_text(
            root.key("description"),
            "the tool's description changed",
            &old.description,
            &new.description,
        );
    }
    if old.homepage != new.homepage {
        d.push(
            ChangeKind::HomepageChanged,
            root.key("homepage"),
            "homepage changed".to_owned(),
            old.homepage.as_deref().map(Value::from),
            new.homepage.as_deref().map(Value::from),
        );
    }
    if old.patterns != new.patterns {
        d.push(
            ChangeKind::PatternsChanged,
            root.key("patterns"),
            "patterns changed".to_owned(),
            None,
            None,
        );
    }
    d.commands(&old.commands, &new.commands, &root, &[]);
    d.options(
        &old.global_options,
        &new.global_options,
        &root.key("globalOptions"),
        "global option",
    );
    if old.effects.is_some() || new.effects.is_some() {
        d.effects(
            old.effects.as_ref(),
            new.effects.as_ref(),
            &root.key("effects"),
            "the tool",
        );
    }
    let changes = d.changes;
    let semver = if changes.iter().any(|c| c.category == Category::Breaking) {
        Bump::Major
    } else if changes.iter().any(|c| {
        c.impact == Some(Impact::High)
            || (c.category == Category::NonBreaking && c.kind != ChangeKind::VersionChanged)
    }) {
        Bump::Minor
    } else if changes.iter().any(|c| c.category == Category::Effects) {
        Bump::Patch
    } else {
        Bump::None
    };
    DiffReport { changes, semver }
}

#[derive(Default)]
struct Differ {
    changes: Vec<Change>,
}

/// `a b c` for a command path, `the tool` for none.
fn shown(path: &[&str]) -> String {
    let words: Vec<&str> = path.iter().copied().filter(|p| !p.is_empty()).collect();
    if words.is_empty() {
        "the tool".to_owned()
    } else {
        format!("`{}`", words.join(" "))
    }
}

impl Differ {
    fn push(
        &mut self,
        kind: ChangeKind,
        path: JsonPath,
        message: String,
        old: Option<Value>,
        new: Option<Value>,
    ) {
        self.changes.push(Change {
            kind,
            category: kind.category(),
            impact: None,
            path,
            message,
            old,
            new,
        });
    }

    fn effect(
        &mut self,
        kind: ChangeKind,
        impact: Impact,
        path: JsonPath,
        message: String,
        old: Option<Value>,
        new: Option<Value>,
    ) {
        self.push(kind, path, message, old, new);
        if let Some(last) = self.changes.last_mut() {
            last.impact = Some(impact);
        }
    }

    fn changed_text(&mut self, path: JsonPath, message: &str, old: &str, new: &str) {
        self.push(
            ChangeKind::DescriptionChanged,
            path,
            message.to_owned(),
            Some(Value::from(old)),
            Some(Value::from(new)),
        );
    }

    fn commands(
        &mut self,
        old: &IndexMap<String, CommandSpec>,
        new: &IndexMap<String, CommandSpec>,
        at: &JsonPath,
        parents: &[&str],
    ) {
        let here = at.key("commands");
        for name in old.keys().filter(|n| !new.contains_key(*n)) {
            let mut path = parents.to_vec();
            path.push(name);
            self.push(
                ChangeKind::CommandRemoved,
                here.key(name),
                format!("command {} was removed", shown(&path)),
                None,
                None,
            );
        }
        for name in new.keys().filter(|n| !old.contains_key(*n)) {
            let mut path = parents.to_vec();
            path.push(name);
            self.push(
                ChangeKind::CommandAdded,
                here.key(name),
                format!("command {} was added", shown(&path)),
                None,
                None,
            );
        }
        for (name, o) in old {
            if let Some(n) = new.get(name) {
                let mut path = parents.to_vec();
                path.push(name);
                self.command(o, n, &here.key(name), &path);
            }
        }
    }

    fn command(&mut self, old: &CommandSpec, new: &CommandSpec, at: &JsonPath, path: &[&str]) {
        let who = shown(path);
        if old.description != new.description {
            self.changed_text(
                at.key("description"),
                &format!("description of {who} changed"),
                &old.description,
                &new.description,
            );
        }
        self.commands(&old.commands, &new.commands, at, path);
        self.arguments(&old.arguments, &new.arguments, &at.key("arguments"), &who);
        self.options(
            &old.options,
            &new.options,
            &at.key("options"),
            &format!("option of {who}"),
        );
        if old.effects.is_some() || new.effects.is_some() {
            self.effects(
                old.effects.as_ref(),
                new.effects.as_ref(),
                &at.key("effects"),
                &who,
            );
        }
        if old.examples != new.examples {
            self.push(
                ChangeKind::ExamplesChanged,
                at.key("examples"),
                format!("examples of {who} changed"),
                None,
                None,
            );
        }
    }

    fn arguments(&mut self, old: &[ArgumentSpec], new: &[ArgumentSpec], at: &JsonPath, who: &str) {
        let find = |list: &[ArgumentSpec], name: &str| list.iter().position(|a| a.name == name);
        for (i, o) in old.iter().enumerate() {
            if find(new, &o.name).is_none() {
                self.push(
                    ChangeKind::ArgumentRemoved,
                    at.index(i),
                    format!("argument `{}` of {who} was removed", o.name),
                    None,
                    None,
                );
            }
        }
        for (i, n) in new.iter().enumerate() {
            if find(old, &n.name).is_none() {
                let (kind, word) = if n.is_required() {
                    (ChangeKind::RequiredArgumentAdded, "required")
                } else {
                    (ChangeKind::OptionalArgumentAdded, "optional")
                };
                self.push(
                    kind,
                    at.index(i),
                    format!("{word} argument `{}` was added to {who}", n.name),
                    None,
                    None,
                );
            }
        }
        for o in old {
            let Some(i) = find(new, &o.name) else {
                continue;
            };
            let n = &new[i];
            let p = at.index(i);
            let label = format!("argument `{}` of {who}", o.name);
            match (o.is_required(), n.is_required()) {
                (false, true) => self.push(
                    ChangeKind::ArgumentMadeRequired,
                    p.key("required"),
                    format!("{label} is now required"),
                    None,
                    None,
                ),
                (true, false) => self.push(
                    ChangeKind::ArgumentMadeOptional,
                    p.key("required"),
                    format!("{label} is now optional"),
                    None,
                    None,
                ),
                _ => {}
            }
            self.param(
                &label,
                &p,
                (o.ty, &o.enum_values, &o.description, &o.default),
                (n.ty, &n.enum_values, &n.description, &n.default),
            );
        }
    }

    fn options(&mut self, old: &[OptionSpec], new: &[OptionSpec], at: &JsonPath, what: &str) {
        let find = |list: &[OptionSpec], name: &str| list.iter().position(|a| a.name == name);
        for (i, o) in old.iter().enumerate() {
            if find(new, &o.name).is_none() {
                self.push(
                    ChangeKind::OptionRemoved,
                    at.index(i),
                    format!("{what} `{}` was removed", o.name),
                    None,
                    None,
                );
            }
        }
        for (i, n) in new.iter().enumerate() {
            if find(old, &n.name).is_none() {
                let (kind, word) = if n.is_required() {
                    (ChangeKind::RequiredOptionAdded, "required")
                } else {
                    (ChangeKind::OptionalOptionAdded, "optional")
                };
                self.push(
                    kind,
                    at.index(i),
                    format!("{word} {what} `{}` was added", n.name),
                    None,
                    None,
                );
            }
        }
        for o in old {
            let Some(i) = find(new, &o.name) else {
                continue;
            };
            let n = &new[i];
            let p = at.index(i);
            let label = format!("{what} `{}`", o.name);
            match (o.is_required(), n.is_required()) {
                (false, true) => self.push(
                    ChangeKind::OptionMadeRequired,
                    p.key("required"),
                    format!("{label} is now required"),
                    None,
                    None,
                ),
                (true, false) => self.push(
                    ChangeKind::OptionMadeOptional,
                    p.key("required"),
                    format!("{label} is now optional"),
                    None,
                    None,
                ),
                _ => {}
            }
            let removed: Vec<&String> = o.flags.iter().filter(|f| !n.flags.contains(f)).collect();
            if !removed.is_empty() {
                self.push(
                    ChangeKind::OptionFlagsChanged,
                    p.key("flags"),
                    format!(
                        "{label} no longer takes {}",
                        removed
                            .iter()
                            .map(|f| format!("`{f}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                    Some(Value::from(o.flags.clone())),
                    Some(Value::from(n.flags.clone())),
                );
            }
            self.param(
                &label,
                &p,
                (o.ty, &o.enum_values, &o.description, &o.default),
                (n.ty, &n.enum_values, &n.description, &n.default),
            );
        }
    }

    /// Type, enumeration, description and default of one argument or option.
    #[allow(clippy::type_complexity)]
    fn param(
        &mut self,
        label: &str,
        at: &JsonPath,
        old: (ParamType, &Option<Vec<EnumValue>>, &String, &Option<Value>),
        new: (ParamType, &Option<Vec<EnumValue>>, &String, &Option<Value>),
    ) {
        let (ot, oe, od, odef) = old;
        let (nt, ne, nd, ndef) = new;
        if ot != nt {
            let kind = if relaxes_to(nt, ot) {
                Some((ChangeKind::TypeMadeStricter, "stricter"))
            } else if relaxes_to(ot, nt) {
                Some((ChangeKind::TypeRelaxed, "relaxed"))
            } else {
                None
            };
            // Unrelated types (say integer to boolean) are neither, as in the reference.
            if let Some((kind, word)) = kind {
                self.push(
                    kind,
                    at.key("type"),
                    format!(
                        "type of {label} changed from `{}` to `{}` ({word})",
                        ot.as_str(),
                        nt.as_str()
                    ),
                    Some(Value::from(ot.as_str())),
                    Some(Value::from(nt.as_str())),
                );
            }
        }
        if oe.is_some() || ne.is_some() {
            let texts = |e: &Option<Vec<EnumValue>>| -> Vec<String> {
                let mut seen = BTreeSet::new();
                e.iter()
                    .flatten()
                    .map(EnumValue::as_text)
                    .filter(|t| seen.insert(t.clone()))
                    .collect()
            };
            let (o, n) = (texts(oe), texts(ne));
            let removed: Vec<&String> = o.iter().filter(|v| !n.contains(v)).collect();
            let added: Vec<&String> = n.iter().filter(|v| !o.contains(v)).collect();
            if !removed.is_empty() {
                self.push(
                    ChangeKind::EnumValuesRemoved,
                    at.key("enum"),
                    format!("{label} no longer accepts {}", quoted(&removed)),
                    Some(Value::from(
                        removed.iter().map(|s| s.as_str()).collect::<Vec<_>>(),
                    )),
                    None,
                );
            }
            if !added.is_empty() {
                self.push(
                    ChangeKind::EnumValuesAdded,
                    at.key("enum"),
                    format!("{label} also accepts {}", quoted(&added)),
                    None,
                    Some(Value::from(
                        added.iter().map(|s| s.as_str()).collect::<Vec<_>>(),
                    )),
                );
            }
        }
        if od != nd {
            self.changed_text(
                at.key("description"),
                &format!("description of {label} changed"),
                od,
                nd,
            );
        }
        if odef != ndef {
            self.push(
                ChangeKind::DefaultValueChanged,
                at.key("default"),
                format!("default of {label} changed"),
                odef.clone(),
                ndef.clone(),
            );
        }
    }

    fn effects(&mut self, old: Option<&Effects>, new: Option<&Effects>, at: &JsonPath, who: &str) {
        let unknown = Effects::UNKNOWN;
        let (o, n) = (old.unwrap_or(&unknown), new.unwrap_or(&unknown));
        let b = |v: Option<bool>| v.map(Value::Bool);
        if o.destructive != n.destructive {
            if n.destructive == Some(true) {
                self.effect(
                    ChangeKind::DestructiveAdded,
                    Impact::High,
                    at.key("destructive"),
                    format!("{who} is now declared destructive: calls need confirmation"),
                    b(o.destructive),
                    b(n.destructive),
                );
            } else if o.destructive == Some(true) {
                self.effect(
                    ChangeKind::DestructiveRemoved,
                    Impact::High,
                    at.key("destructive"),
                    format!("{who} is no longer declared destructive"),
                    b(o.destructive),
                    b(n.destructive),
                );
            }
        }
        let flags = [
            (
                ChangeKind::ReversibleChanged,
                Impact::Medium,
                "reversible",
                o.reversible,
                n.reversible,
            ),
            (
                ChangeKind::IdempotentChanged,
                Impact::Medium,
                "idempotent",
                o.idempotent,
                n.idempotent,
            ),
            (
                ChangeKind::NetworkChanged,
                Impact::Low,
                "network",
                o.network,
                n.network,
            ),
            (
                ChangeKind::SubprocessChanged,
                Impact::Medium,
                "subprocess",
                o.subprocess,
                n.subprocess,
            ),
        ];
        for (kind, impact, field, ov, nv) in flags {
            if ov != nv {
                self.effect(
                    kind,
                    impact,
                    at.key(field),
                    format!(
                        "`{field}` of {who} changed from {} to {}",
                        word(ov),
                        word(nv)
                    ),
                    b(ov),
                    b(nv),
                );
            }
        }
        let json = |v: &dyn erased::ToValue| v.to_value();
        if o.filesystem != n.filesystem {
            self.effect(
                ChangeKind::FilesystemChanged,
                Impact::Medium,
                at.key("filesystem"),
                format!("filesystem effects of {who} changed"),
                json(&o.filesystem),
                json(&n.filesystem),
            );
        }
        if o.interactive != n.interactive {
            self.effect(
                ChangeKind::InteractiveChanged,
                Impact::Medium,
                at.key("interactive"),
                format!("interactive effects of {who} changed"),
                json(&o.interactive),
                json(&n.interactive),
            );
        }
        if o.billable() != n.billable() {
            self.effect(
                ChangeKind::CostChanged,
                Impact::High,
                at.key("cost").key("billable"),
                format!(
                    "`cost.billable` of {who} changed from {} to {}",
                    word(o.billable()),
                    word(n.billable())
                ),
                b(o.billable()),
                b(n.billable()),
            );
        }
        if o.cost_estimate() != n.cost_estimate() {
            let est = |e: Option<atip_core::CostEstimate>| e.map(|e| Value::from(e.as_str()));
            self.effect(
                ChangeKind::CostChanged,
                Impact::Low,
                at.key("cost").key("estimate"),
                format!("`cost.estimate` of {who} changed"),
                est(o.cost_estimate()),
                est(n.cost_estimate()),
            );
        }
        if o.duration != n.duration {
            self.effect(
                ChangeKind::DurationChanged,
                Impact::Low,
                at.key("duration"),
                format!("duration of {who} changed"),
                json(&o.duration),
                json(&n.duration),
            );
        }
    }
}

/// A declared boolean as text: `true`, `false` or `undeclared`.
fn word(v: Option<bool>) -> &'static str {
    match v {
        Some(true) => "true",
        Some(false) => "false",
        None => "undeclared",
    }
}

fn quoted(values: &[&String]) -> String {
    values
        .iter()
        .map(|v| format!("`{v}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Whether every value of `strict` is a value of `loose` (the reference's coercions: an enum
/// is a string, an integer a number, paths and URLs strings).
fn relaxes_to(strict: ParamType, loose: ParamType) -> bool {
    use ParamType as T;
    matches!(
        (strict, loose),
        (T::Enum | T::File | T::Directory | T::Url, T::String) | (T::Integer, T::Number)
    )
}

/// Effects sub-objects as JSON, for [`Change::old`] and [`Change::new`].
mod erased {
    use serde_json::Value;

    pub trait ToValue {
        fn to_value(&self) -> Option<Value>;
    }

    impl<T: serde::Serialize> ToValue for Option<T> {
        fn to_value(&self) -> Option<Value> {
            self.as_ref().and_then(|v| serde_json::to_value(v).ok())
        }
    }
}
