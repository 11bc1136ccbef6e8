//! [`ToolSpec`]: what a model sees of one command — its flattened name, description, effects
//! and parameters — independent of any provider.
//!
//! It is built from a [`FlatCommand`] at run time and emitted as a `const` by the generator
//! (`<PrCreate as Command>::TOOL`), so provider schemas ([`crate::providers`]), argument
//! checking (`atip_runtime::dispatch`) and the safety prompt (`atip_runtime::prompt`) work the same on
//! generated code and on metadata loaded while running.

use std::borrow::Cow;

use serde::Serialize;

use crate::effects::{Effects, Text, TextList};
use crate::flatten::FlatCommand;
use crate::model::ParamType;

/// One tool as a model sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolSpec {
    /// Flattened, provider-valid name (`gh_pr_create`).
    pub name: Text,
    /// Human-readable title: the command line without options (`gh pr create`).
    pub title: Text,
    /// Subcommand path (`["pr", "create"]`).
    pub path: TextList,
    /// The command's description, without safety flags.
    pub description: Text,
    /// Merged effects.
    pub effects: Effects,
    /// Parameters: arguments in declaration order, then options in argv order.
    pub params: Cow<'static, [ParamSpec]>,
}

/// One parameter of a [`ToolSpec`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ParamSpec {
    /// Provider-valid parameter name (`dry_run`).
    pub name: Text,
    /// The parameter's description.
    pub description: Text,
    /// What a value is.
    pub kind: ValueKind,
    /// Must be given. Booleans never are: absent means `false`.
    pub required: bool,
    /// Takes a list of values (variadic or `array`).
    pub multiple: bool,
    /// Allowed values: the enumeration of an [`ValueKind::Enum`], or the `enum` list of an
    /// integer or number parameter, as text. `None` when anything of the kind goes.
    pub values: Option<TextList>,
    /// The tool's default when left out, as text (`open`, `30`).
    pub default: Option<Text>,
}

/// The kind of one value of a parameter (spec §3.7, enumerations resolved).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ValueKind {
    /// Any string (`string`, `array` items, `enum` without a list).
    String,
    /// A whole number (`integer`), 64-bit signed.
    Integer,
    /// A finite number (`number`).
    Number,
    /// `true` or `false` (`boolean`).
    Boolean,
    /// A file path (`file`).
    File,
    /// A directory path (`directory`).
    Directory,
    /// An absolute URL (`url`).
    Url,
    /// One of [`ParamSpec::values`].
    Enum,
}

impl ValueKind {
    /// The JSON type of a value (spec §8.2 rule 4: paths and URLs are strings).
    pub const fn json_type(self) -> &'static str {
        match self {
            ValueKind::Integer => "integer",
            ValueKind::Number => "number",
            ValueKind::Boolean => "boolean",
            _ => "string",
        }
    }

    /// The hint that tells a model the expected format, for kinds JSON types do not express.
    pub const fn format_hint(self) -> Option<&'static str> {
        match self {
            ValueKind::File => Some("file path"),
            ValueKind::Directory => Some("directory path"),
            ValueKind::Url => Some("URL"),
            _ => None,
        }
    }
}

impl ToolSpec {
    /// The spec of a flattened command of tool `tool` (its `name`, used in the title).
    pub fn from_flat(tool: &str, cmd: &FlatCommand) -> ToolSpec {
        let title = std::iter::once(tool)
            .chain(cmd.path.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" ");
        ToolSpec {
            name: Cow::Owned(cmd.name.clone()),
            title: Cow::Owned(title),
            path: Cow::Owned(cmd.path.iter().cloned().map(Cow::Owned).collect()),
            description: Cow::Owned(cmd.description.clone()),
            effects: cmd.effects.clone(),
            params: Cow::Owned(
                cmd.params()
                    .map(|p| {
                        let kind = match (&p.enum_values, p.ty) {
                            (Some(_), _) => ValueKind::Enum,
                            (None, ParamType::Integer) => ValueKind::Integer,
                            (None, ParamType::Number) => ValueKind::Number,
                            (None, ParamType::Boolean) => ValueKind::Boolean,
                            (None, ParamType::File) => ValueKind::File,
                            (None, ParamType::Directory) => ValueKind::Directory,
                            (None, ParamType::Url) => ValueKind::Url,
                            (None, _) => ValueKind::String,
                        };
                        let values = p.enum_values.clone().or_else(|| {
                            (!p.listed_values.is_empty()
                                && matches!(kind, ValueKind::Integer | ValueKind::Number))
                            .then(|| p.listed_values.clone())
                        });
                        ParamSpec {
                            name: Cow::Owned(p.name.clone()),
                            description: Cow::Owned(p.description.clone()),
                            kind,
                            required: p.required && kind != ValueKind::Boolean,
                            multiple: p.multiple,
                            values: values
                                .map(|v| Cow::Owned(v.into_iter().map(Cow::Owned).collect())),
                            default: p.default.as_ref().map(|d| {
                                Cow::Owned(match &**d {
                                    serde_json::Value::String(s) => s.clone(),
                                    other => other.to_string(),
                                })
                            }),
                        }
                    })
                    .collect(),
            ),
        }
    }

    /// The parameter called `name`.
    pub fn param(&self, name: &str) -> Option<&ParamSpec> {
        self.params.iter().find(|p| p.name == name)
    }
}
