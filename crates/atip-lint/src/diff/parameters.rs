//! Changes of arguments and options, matched by name: added, removed, made required or
//! optional, flags dropped, and type, enumeration, description and default.

use std::collections::BTreeSet;

use atip_core::diagnostic::JsonPath;
use atip_core::model::{ArgumentSpec, EnumValue, OptionSpec, ParamType};
use serde_json::Value;

use super::change::ChangeKind;
use super::differ::Differ;

/// Type, enumeration, description and default of one argument or option, as
/// [`Differ::param`] compares them.
type Fields<'a> = (
    ParamType,
    &'a Option<Vec<EnumValue>>,
    &'a String,
    &'a Option<Value>,
);

/// The change kinds of one list kind (arguments or options).
struct Kinds {
    removed: ChangeKind,
    required_added: ChangeKind,
    optional_added: ChangeKind,
    made_required: ChangeKind,
    made_optional: ChangeKind,
}

/// An argument or an option as [`Differ::parameters`] walks it: its name, whether it is
/// required, its change kinds and how its messages name it. `context` is the `who` (of an
/// argument) or `what` (an option) given to the walk.
trait Parameter {
    const KINDS: Kinds;
    fn name(&self) -> &str;
    fn required(&self) -> bool;
    /// The parameter in a message about it: "argument `x` of …", "option of … `x`".
    fn label(&self, context: &str) -> String;
    /// The message for a parameter that was added; `word` is "required" or "optional".
    fn added(&self, word: &str, context: &str) -> String;
    fn fields(&self) -> Fields<'_>;
    /// Changes only this kind has, after the change of `required` and before [`Differ::param`].
    fn own_changes(_d: &mut Differ, _old: &Self, _new: &Self, _at: &JsonPath, _label: &str) {}
}

impl Parameter for ArgumentSpec {
    const KINDS: Kinds = Kinds {
        removed: ChangeKind::ArgumentRemoved,
        required_added: ChangeKind::RequiredArgumentAdded,
        optional_added: ChangeKind::OptionalArgumentAdded,
        made_required: ChangeKind::ArgumentMadeRequired,
        made_optional: ChangeKind::ArgumentMadeOptional,
    };
    fn name(&self) -> &str {
        &self.name
    }
    fn required(&self) -> bool {
        self.is_required()
    }
    fn label(&self, who: &str) -> String {
        format!("argument `{}` of {who}", self.name)
    }
    fn added(&self, word: &str, who: &str) -> String {
        format!("{word} argument `{}` was added to {who}", self.name)
    }
    fn fields(&self) -> Fields<'_> {
        (self.ty, &self.enum_values, &self.description, &self.default)
    }
}

impl Parameter for OptionSpec {
    const KINDS: Kinds = Kinds {
        removed: ChangeKind::OptionRemoved,
        required_added: ChangeKind::RequiredOptionAdded,
        optional_added: ChangeKind::OptionalOptionAdded,
        made_required: ChangeKind::OptionMadeRequired,
        made_optional: ChangeKind::OptionMadeOptional,
    };
    fn name(&self) -> &str {
        &self.name
    }
    fn required(&self) -> bool {
        self.is_required()
    }
    fn label(&self, what: &str) -> String {
        format!("{what} `{}`", self.name)
    }
    fn added(&self, word: &str, what: &str) -> String {
        format!("{word} {what} `{}` was added", self.name)
    }
    fn fields(&self) -> Fields<'_> {
        (self.ty, &self.enum_values, &self.description, &self.default)
    }
    /// Flags the new option no longer takes.
    fn own_changes(d: &mut Differ, o: &Self, n: &Self, p: &JsonPath, label: &str) {
        let removed: Vec<&String> = o.flags.iter().filter(|f| !n.flags.contains(f)).collect();
        if !removed.is_empty() {
            d.push(
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
    }
}

impl Differ {
    pub(super) fn arguments(
        &mut self,
        old: &[ArgumentSpec],
        new: &[ArgumentSpec],
        at: &JsonPath,
        who: &str,
    ) {
        self.parameters(old, new, at, who);
    }

    pub(super) fn options(
        &mut self,
        old: &[OptionSpec],
        new: &[OptionSpec],
        at: &JsonPath,
        what: &str,
    ) {
        self.parameters(old, new, at, what);
    }

    /// Arguments or options matched by name: removed, added (required or optional), made
    /// required or optional, then what the kind alone has and [`Differ::param`].
    fn parameters<P: Parameter>(&mut self, old: &[P], new: &[P], at: &JsonPath, context: &str) {
        let kinds = P::KINDS;
        let find = |list: &[P], name: &str| list.iter().position(|a| a.name() == name);
        for (i, o) in old.iter().enumerate() {
            if find(new, o.name()).is_none() {
                self.push(
                    kinds.removed,
                    at.index(i),
                    format!("{} was removed", o.label(context)),
                    None,
                    None,
                );
            }
        }
        for (i, n) in new.iter().enumerate() {
            if find(old, n.name()).is_none() {
                let (kind, word) = if n.required() {
                    (kinds.required_added, "required")
                } else {
                    (kinds.optional_added, "optional")
                };
                self.push(kind, at.index(i), n.added(word, context), None, None);
            }
        }
        for o in old {
            let Some(i) = find(new, o.name()) else {
                continue;
            };
            let n = &new[i];
            let p = at.index(i);
            let label = o.label(context);
            match (o.required(), n.required()) {
                (false, true) => self.push(
                    kinds.made_required,
                    p.key("required"),
                    format!("{label} is now required"),
                    None,
                    None,
                ),
                (true, false) => self.push(
                    kinds.made_optional,
                    p.key("required"),
                    format!("{label} is now optional"),
                    None,
                    None,
                ),
                _ => {}
            }
            P::own_changes(self, o, n, &p, &label);
            self.param(&label, &p, o.fields(), n.fields());
        }
    }

    /// Type, enumeration, description and default of one argument or option.
    pub(super) fn param(&mut self, label: &str, at: &JsonPath, old: Fields<'_>, new: Fields<'_>) {
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
