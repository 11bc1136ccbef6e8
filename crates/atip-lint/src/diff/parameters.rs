//! Changes of arguments and options, matched by name: added, removed, made required or
//! optional, flags dropped, and type, enumeration, description and default.

use std::collections::BTreeSet;

use atip_core::diagnostic::JsonPath;
use atip_core::model::{ArgumentSpec, EnumValue, OptionSpec, ParamType};
use serde_json::Value;

use super::change::ChangeKind;
use super::differ::Differ;

impl Differ {
    pub(super) fn arguments(
        &mut self,
        old: &[ArgumentSpec],
        new: &[ArgumentSpec],
        at: &JsonPath,
        who: &str,
    ) {
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

    pub(super) fn options(
        &mut self,
        old: &[OptionSpec],
        new: &[OptionSpec],
        at: &JsonPath,
        what: &str,
    ) {
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
    pub(super) fn param(
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
