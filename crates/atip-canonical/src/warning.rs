//! What a conversion reports: features a target cannot express, repairs of the input, and the
//! errors that stop it.

use std::fmt;

use super::schema::Repair;
use super::Format;
use atip_core::providers::Provider;

/// A feature of the source definition that the target format cannot express, where it was and
/// what became of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeatureLoss {
    /// What could not be expressed.
    pub feature: Feature,
    /// JSON pointer (RFC 6901) into the source definition (or into the input array, when the
    /// input held several) where the feature occurred.
    pub pointer: String,
    /// The source format; `None` for a tool built in code.
    pub from: Option<Format>,
    /// The target provider; `None` for an ATIP document (`mcp_to_atip`).
    pub to: Option<Provider>,
    /// What the conversion did instead.
    pub resolution: Resolution,
}

/// The kinds of feature a conversion can lose.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Feature {
    /// A JSON Schema keyword: `$ref`, `$defs`, `oneOf`, `allOf`, `not`, `const`, `default`,
    /// `minLength`, `additionalProperties`, an unknown keyword, ….
    Keyword(String),
    /// A `type` listing several types (`["string", "null"]`).
    TypeUnion,
    /// A field of the definition outside its schemas: `title`, `annotations`, `outputSchema`,
    /// `strict`, `icons`, `input_examples`, ….
    Field(String),
    /// The tool's name, which the target's naming rule does not allow.
    Name,
    /// The whole tool, which the target cannot call: for ATIP, a tool with a required
    /// parameter it cannot type (the pointer is that parameter's), or one listed more than
    /// once (the pointer is each listing's name).
    Tool,
}

impl fmt::Display for Feature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Feature::Keyword(k) => write!(f, "`{}`", shown(k)),
            Feature::TypeUnion => f.write_str("a type union"),
            Feature::Field(k) => write!(f, "the field `{}`", shown(k)),
            Feature::Name => f.write_str("the name"),
            Feature::Tool => f.write_str("the tool"),
        }
    }
}

/// What a conversion did with a feature the target cannot express.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolution {
    /// A `$ref` was replaced by a copy of the schema it points to; the meaning is kept.
    Inlined,
    /// Expressed another way; the text says how, and what is no longer enforced if anything.
    Rewritten(String),
    /// Moved into the description as text: the model can read it, the provider does not
    /// enforce it.
    Described,
    /// Removed.
    Dropped,
}

impl fmt::Display for Resolution {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Resolution::Inlined => f.write_str("inlined"),
            Resolution::Rewritten(how) => write!(f, "rewritten {how}"),
            Resolution::Described => f.write_str("moved into the description (not enforced)"),
            Resolution::Dropped => f.write_str("dropped"),
        }
    }
}

impl fmt::Display for FeatureLoss {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {}, {} to {}: {}",
            shown_pointer(&self.pointer),
            self.feature,
            self.from.map_or("canonical", Format::as_str),
            self.to.map_or("atip", Provider::as_str),
            self.resolution
        )
    }
}

/// One line of what a conversion reports besides its result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Warning {
    /// A feature the target cannot express.
    Loss(FeatureLoss),
    /// Something in the input that its format does not allow, repaired to the closest valid
    /// form. The pointer is into the input.
    Repaired {
        /// The input's format.
        format: Format,
        /// What was wrong and what was done.
        repair: Repair,
    },
}

impl Warning {
    pub(crate) fn loss(
        feature: Feature,
        pointer: String,
        from: Option<Format>,
        to: Option<Provider>,
        resolution: Resolution,
    ) -> Warning {
        Warning::Loss(FeatureLoss {
            feature,
            pointer,
            from,
            to,
            resolution,
        })
    }

    /// The JSON pointer the warning is about.
    pub fn pointer(&self) -> &str {
        match self {
            Warning::Loss(l) => &l.pointer,
            Warning::Repaired { repair, .. } => &repair.pointer,
        }
    }

    /// The feature lost, if this is a loss.
    pub fn as_loss(&self) -> Option<&FeatureLoss> {
        match self {
            Warning::Loss(l) => Some(l),
            Warning::Repaired { .. } => None,
        }
    }
}

impl fmt::Display for Warning {
    /// One line, the JSON pointer first.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Warning::Loss(l) => l.fmt(f),
            Warning::Repaired { format, repair } => write!(
                f,
                "{}: {} in the {} input; {}",
                shown_pointer(&repair.pointer),
                repair.problem,
                format.as_str(),
                repair.fix
            ),
        }
    }
}

/// Why a conversion could not be done.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConvertError {
    /// The input is not a tool definition of the format it was read as.
    Invalid {
        /// The format it was read as.
        format: Format,
        /// JSON pointer to the offending place in the input.
        pointer: String,
        /// What is wrong, and a hint when the input looks like another format.
        reason: String,
    },
}

impl ConvertError {
    pub(crate) fn invalid(format: Format, pointer: &str, reason: impl Into<String>) -> Self {
        ConvertError::Invalid {
            format,
            pointer: pointer.to_owned(),
            reason: reason.into(),
        }
    }
}

impl fmt::Display for ConvertError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConvertError::Invalid {
                format,
                pointer,
                reason,
            } => write!(
                f,
                "{}: not a valid {} tool definition: {reason}",
                shown_pointer(pointer),
                format.as_str()
            ),
        }
    }
}

impl std::error::Error for ConvertError {}

/// A pointer as a message line shows it: the root `""` as `(root)`, control characters (a
/// hostile name's terminal escapes) as `\u{…}`.
fn shown_pointer(p: &str) -> std::borrow::Cow<'_, str> {
    if p.is_empty() {
        return "(root)".into();
    }
    shown(p)
}

/// Text from an input as a message line shows it: control characters escaped as Rust writes
/// them (`\u{1b}`, `\n`).
fn shown(p: &str) -> std::borrow::Cow<'_, str> {
    if !p.chars().any(char::is_control) {
        return p.into();
    }
    let mut out = String::with_capacity(p.len() + 8);
    for c in p.chars() {
        if c.is_control() {
            out.extend(c.escape_debug());
        } else {
            out.push(c);
        }
    }
    out.into()
}

#[cfg(test)]
mod tests {
    #[test]
    fn control_characters_in_a_pointer_are_escaped() {
        assert_eq!(super::shown_pointer(""), "(root)");
        assert_eq!(super::shown_pointer("/a/b"), "/a/b");
        assert_eq!(
            super::shown_pointer("/tools/0/\u{1b}]0;x\u{7}"),
            "/tools/0/\\u{1b}]0;x\\u{7}"
        );
    }
}
