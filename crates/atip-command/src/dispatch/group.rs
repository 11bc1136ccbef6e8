//! [`ToolGroup`]: several commands as one tool with an `action` parameter (spec §8.2 rule 3,
//! strategy B).

use std::fmt;

use serde_json::{Map, Value};

use atip_core::effects::{Effects, Text};
use atip_core::shared::Shared;
use atip_core::tool::{ParamSpec, ToolSpec, ValueKind};

use super::call::{DispatchError, Problem, ToolCall};
use super::check::expected;

/// Several commands compiled into one tool whose required `action` parameter selects the
/// command (spec §8.2 rule 3, strategy B); [`ToolGroup::resolve`] maps a call back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolGroup {
    spec: ToolSpec,
    actions: Vec<(String, ToolSpec)>,
    /// Per action (same order): parameters renamed in the group, as (group name, command's
    /// name).
    renames: Vec<Vec<(Shared<str>, Shared<str>)>>,
}

/// Why commands cannot be grouped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupError {
    /// What conflicts.
    pub message: String,
}

impl fmt::Display for GroupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for GroupError {}

impl ToolGroup {
    /// Groups `actions` (action value, command spec) into one tool named `name`.
    ///
    /// A parameter shared by several commands appears once. When two commands have a
    /// parameter of the same name that differs (kind, list-ness or allowed values), the later
    /// command's is renamed `{name}_{action}` (`limit_close`), as is a command's own `action`
    /// parameter (`action_{action}`): [`ToolGroup::renamed`] lists them and
    /// [`ToolGroup::resolve`] maps them back. In the grouped schema only `action` is required
    /// (what else is required depends on the action and is checked on dispatch); effects are
    /// merged conservatively over the commands, so the flags warn about the riskiest action.
    ///
    /// # Errors
    ///
    /// [`GroupError`] for no commands or duplicate actions.
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        actions: impl IntoIterator<Item = (String, ToolSpec)>,
    ) -> Result<Self, GroupError> {
        let name = name.into();
        let actions: Vec<(String, ToolSpec)> = actions.into_iter().collect();
        if actions.is_empty() {
            return Err(GroupError {
                message: format!("group `{name}` has no commands"),
            });
        }
        let mut params: Vec<(ParamSpec, Vec<String>)> = Vec::new();
        let mut renames: Vec<Vec<(Shared<str>, Shared<str>)>> = Vec::with_capacity(actions.len());
        let mut seen_actions: Vec<&str> = Vec::new();
        for (action, spec) in &actions {
            if seen_actions.contains(&action.as_str()) {
                return Err(GroupError {
                    message: format!("group `{name}`: action {action:?} appears twice"),
                });
            }
            seen_actions.push(action);
            let mut renamed = Vec::new();
            for p in spec.params.iter() {
                let fits = |q: &ParamSpec| {
                    q.kind == p.kind && q.multiple == p.multiple && q.values == p.values
                };
                let clash =
                    p.name == "action" || params.iter().any(|(q, _)| q.name == p.name && !fits(q));
                if !clash {
                    match params.iter_mut().find(|(q, _)| q.name == p.name) {
                        Some((_, users)) => users.push(action.clone()),
                        None => params.push((p.clone(), vec![action.clone()])),
                    }
                    continue;
                }
                // A name of its own for this action: `limit_close`, then `limit_close_2`, ….
                let base = format!("{}_{}", p.name, atip_core::names::param_name(action));
                let mut unique = base.clone();
                let mut n = 2;
                while unique == "action" || params.iter().any(|(q, _)| q.name == unique) {
                    unique = format!("{base}_{n}");
                    n += 1;
                }
                let mut q = p.clone();
                let unique = Shared::from(unique);
                q.name = unique.clone();
                renamed.push((unique, p.name.clone()));
                params.push((q, vec![action.clone()]));
            }
            renames.push(renamed);
        }
        let mut union = vec![ParamSpec {
            name: Shared::Static("action"),
            description: Text::Borrowed("Which command to run"),
            kind: ValueKind::Enum,
            required: true,
            multiple: false,
            values: Some(std::borrow::Cow::Owned(
                actions
                    .iter()
                    .map(|(a, _)| Text::Owned(a.clone()))
                    .collect(),
            )),
            default: None,
            argv: atip_core::ArgvForm::Argument(Text::Borrowed("action")),
            global: false,
            effects: None,
        }];
        for (mut p, users) in params {
            let note = format!("(actions: {})", users.join(", "));
            p.description = Text::Owned(if p.description.trim().is_empty() {
                note
            } else {
                format!("{} {note}", p.description.trim())
            });
            p.required = false;
            union.push(p);
        }
        let effects = actions
            .iter()
            .fold(Effects::UNKNOWN, |acc, (_, s)| acc.merged_with(&s.effects));
        let first = &actions[0].1;
        let path: Vec<Text> = common_prefix(actions.iter().map(|(_, s)| &s.path[..]));
        let title = first
            .title
            .split(' ')
            .take(path.len() + 1)
            .collect::<Vec<_>>()
            .join(" ");
        let spec = ToolSpec {
            name: Text::Owned(name),
            title: Text::Owned(title),
            path: std::borrow::Cow::Owned(path),
            description: Text::Owned(description.into()),
            effects,
            params: std::borrow::Cow::Owned(union),
        };
        Ok(ToolGroup {
            spec,
            actions,
            renames,
        })
    }

    /// Parameters renamed in the group because commands disagree on them: (action, the
    /// group's name, the command's own name), e.g. `("close", "limit_close", "limit")`.
    pub fn renamed(&self) -> Vec<(&str, &str, &str)> {
        self.actions
            .iter()
            .zip(&self.renames)
            .flat_map(|((action, _), r)| {
                r.iter()
                    .map(move |(group, own)| (action.as_str(), group.as_ref(), own.as_ref()))
            })
            .collect()
    }

    /// Groups the commands of `tools` below `path` (e.g. `["pr"]` for every `gh pr …`). Each
    /// action is the rest of the command's path joined with spaces (`"create"`,
    /// `"deploy-key add"`); the command standing for the group itself (a `""` child) gets the
    /// group's last segment.
    ///
    /// # Errors
    ///
    /// As [`ToolGroup::new`]; also when no command lies below `path`.
    pub fn from_path(
        tools: &[ToolSpec],
        path: &[&str],
        name: impl Into<String>,
        description: impl Into<String>,
    ) -> Result<Self, GroupError> {
        let members = tools
            .iter()
            .filter(|t| t.path.len() >= path.len() && t.path.iter().zip(path).all(|(a, b)| a == b))
            .map(|t| {
                let rest: Vec<&str> = t.path[path.len()..].iter().map(|s| s.as_ref()).collect();
                let action = if rest.is_empty() {
                    path.last().copied().unwrap_or_default().to_owned()
                } else {
                    rest.join(" ")
                };
                (action, t.clone())
            });
        ToolGroup::new(name, description, members)
    }

    /// The grouped tool, for [`atip_core::providers::tool_definition`].
    pub fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    /// The actions and the commands they select.
    pub fn actions(&self) -> &[(String, ToolSpec)] {
        &self.actions
    }

    /// Turns a call of the grouped tool into a call of the command its `action` selects:
    /// `action` removed, `null`s of other actions' parameters dropped. The result goes to the
    /// normal dispatch, which checks the remaining arguments.
    ///
    /// # Errors
    ///
    /// [`DispatchError`] for a missing or unknown action, and for non-null parameters that
    /// belong to other actions or to none.
    pub fn resolve(&self, call: &ToolCall) -> Result<ToolCall, DispatchError> {
        if call.name != self.spec.name {
            return Err(DispatchError::unknown_tool(
                call,
                &[self.spec.name.as_ref()],
            ));
        }
        let args = call.checked_arguments()?;
        let action_param = &self.spec.params[0];
        let action = match args.get("action") {
            Some(Value::String(a)) => match self.actions.iter().find(|(name, _)| name == a) {
                Some(found) => found,
                None => {
                    return Err(DispatchError::new(
                        call,
                        vec![Problem::NotAllowed {
                            param: "action".into(),
                            allowed: self.actions.iter().map(|(a, _)| a.clone()).collect(),
                            found: atip_core::diagnostic::describe(&Value::String(a.clone())),
                        }],
                    ))
                }
            },
            None | Some(Value::Null) => {
                return Err(DispatchError::new(
                    call,
                    vec![Problem::Missing {
                        param: "action".into(),
                        expected: expected(action_param),
                    }],
                ))
            }
            Some(other) => {
                return Err(DispatchError::new(
                    call,
                    vec![Problem::WrongType {
                        param: "action".into(),
                        expected: expected(action_param),
                        found: atip_core::diagnostic::describe(other),
                    }],
                ))
            }
        };
        let (action_name, target) = action;
        let renames = self
            .actions
            .iter()
            .position(|(a, _)| a == action_name)
            .map_or(&[][..], |i| &self.renames[i][..]);
        let mut problems = Vec::new();
        let mut rest = Map::new();
        for (k, v) in args {
            if k == "action" {
                continue;
            }
            // This action's renamed parameters go back to their own names; its original names
            // that were renamed belong to other actions in the group.
            if let Some((_, own)) = renames.iter().find(|(group, _)| group == k) {
                rest.insert(own.to_string(), v.clone());
            } else if target.param(k).is_some() && !renames.iter().any(|(_, own)| own == k) {
                rest.insert(k.clone(), v.clone());
            } else if v.is_null() {
                continue;
            } else if self.spec.param(k).is_some() {
                problems.push(Problem::NotForAction {
                    param: k.clone(),
                    action: action_name.clone(),
                });
            } else {
                problems.push(Problem::UnknownParameter { param: k.clone() });
            }
        }
        if !problems.is_empty() {
            return Err(DispatchError::new(call, problems));
        }
        Ok(ToolCall {
            id: call.id.clone(),
            name: target.name.to_string(),
            arguments: Ok(rest),
            thought_signature: call.thought_signature.clone(),
        })
    }
}

fn common_prefix<'a>(paths: impl Iterator<Item = &'a [Text]>) -> Vec<Text> {
    let mut prefix: Option<Vec<Text>> = None;
    for p in paths {
        prefix = Some(match prefix {
            None => p.to_vec(),
            Some(cur) => cur
                .into_iter()
                .zip(p.iter())
                .take_while(|(a, b)| a == *b)
                .map(|(a, _)| a)
                .collect(),
        });
    }
    prefix.unwrap_or_default()
}
