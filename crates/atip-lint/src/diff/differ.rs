//! The differ: the changes found so far, how each is recorded (kind, category, impact), and
//! the walk over commands matched by name at each level.

use atip_core::diagnostic::JsonPath;
use atip_core::model::CommandSpec;
use indexmap::IndexMap;
use serde_json::Value;

use super::change::{Change, ChangeKind, Impact};

/// The changes found so far.
#[derive(Default)]
pub(super) struct Differ {
    pub(super) changes: Vec<Change>,
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
    pub(super) fn push(
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

    pub(super) fn effect(
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

    pub(super) fn changed_text(&mut self, path: JsonPath, message: &str, old: &str, new: &str) {
        self.push(
            ChangeKind::DescriptionChanged,
            path,
            message.to_owned(),
            Some(Value::from(old)),
            Some(Value::from(new)),
        );
    }

    pub(super) fn commands(
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

    pub(super) fn command(
        &mut self,
        old: &CommandSpec,
        new: &CommandSpec,
        at: &JsonPath,
        path: &[&str],
    ) {
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
}
