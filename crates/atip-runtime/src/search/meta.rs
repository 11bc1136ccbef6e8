//! Progressive disclosure: the three meta-tools (search, describe, run) that stand for every
//! command of a large tool.

use serde_json::Value;

use super::{Searchable, ToolIndex};
use crate::command::dispatch::{Dispatch, DispatchError, Problem, ToolCall, ToolSet};
use crate::command::ToolResult;
use crate::effects::Text;
use crate::providers::Provider;
use crate::tool::{ArgvForm, ParamSpec, ToolSpec, ValueKind};
use crate::{Effects, Invocation};

/// Progressive disclosure: three meta-tools stand for every command of `inner` — search the
/// commands (`search_commands {query, top?}`), describe one (`describe_command {name}`: its full
/// schema and safety flags), run one (`run_command {name, arguments}`). Searching and describing
/// are answered without running anything ([`ToolSet::answer`]); running goes through the
/// inner tools' dispatch and then, like any call, the runner's policy, confirmation and sandbox.
/// Policies are checked against the inner commands ([`Dispatch::commands`]).
///
/// ```
/// # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/atip/gh.json");
/// use atip_runtime::search::MetaTools;
/// use atip_runtime::{agent::TurnDriver, Dispatch, Document, LoadedCommands, Mode, Provider, Runner};
/// let doc = Document::from_path(path.as_ref(), Mode::Strict, &Default::default())?;
/// let meta = MetaTools::new(LoadedCommands::new(doc, None));
/// assert_eq!(meta.specs().len(), 3);
/// let driver = TurnDriver::new(Provider::Anthropic, meta, Runner::new());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct MetaTools<D> {
    inner: D,
    index: ToolIndex,
    specs: [ToolSpec; 3],
}

/// Names of the meta-tools.
pub const SEARCH: &str = "search_commands";
/// See [`SEARCH`].
pub const DESCRIBE: &str = "describe_command";
/// See [`SEARCH`].
pub const RUN: &str = "run_command";

/// Searching and describing read only the index: no files, no network, nothing destroyed.
const READ_NOTHING: Effects = Effects::UNKNOWN
    .with_filesystem(crate::FilesystemEffects {
        read: Some(false),
        write: Some(false),
        delete: Some(false),
        paths: None,
    })
    .with_network(false)
    .with_subprocess(false)
    .with_idempotent(true)
    .with_reversible(true)
    .with_destructive(false);

/// Results a search returns when the model does not say.
const DEFAULT_TOP: usize = 10;

impl<D: Searchable> MetaTools<D> {
    /// Meta-tools over `inner`, whose commands are indexed now ([`Searchable::search_index`]:
    /// for loaded metadata, with each command's examples and its parents' descriptions).
    pub fn new(inner: D) -> Self {
        let index = inner.search_index();
        let tool = inner
            .specs()
            .first()
            .map(|s| s.title.split(' ').next().unwrap_or("").to_owned())
            .unwrap_or_default();
        let count = inner.specs().len();
        let specs = [
            meta_spec(
                SEARCH,
                format!(
                    "Search the {count} commands of `{tool}` by what they do; returns the best \
                     matches, each with its name and a one-line description. Then call \
                     {DESCRIBE} for the parameters, and {RUN} to run it."
                ),
                READ_NOTHING,
                vec![
                    param(
                        "query",
                        "What the command should do, in a few words",
                        ValueKind::String,
                        true,
                    ),
                    param(
                        "top",
                        "How many results (default 10)",
                        ValueKind::Integer,
                        false,
                    ),
                ],
            ),
            meta_spec(
                DESCRIBE,
                format!(
                    "The full description of one `{tool}` command found with {SEARCH}: its \
                     parameters as JSON Schema and its safety flags."
                ),
                READ_NOTHING,
                vec![param(
                    "name",
                    "The command's name, as search_commands gives it",
                    ValueKind::String,
                    true,
                )],
            ),
            meta_spec(
                RUN,
                format!(
                    "Run one `{tool}` command: its name and its arguments as described by \
                     {DESCRIBE}. Destructive commands may need a person's confirmation."
                ),
                Effects::UNKNOWN,
                vec![
                    param("name", "The command's name", ValueKind::String, true),
                    param(
                        "arguments",
                        "The command's arguments as a JSON object text, e.g. {\"limit\": 5}",
                        ValueKind::String,
                        true,
                    ),
                ],
            ),
        ];
        MetaTools {
            inner,
            index,
            specs,
        }
    }
}

impl<D: Dispatch> MetaTools<D> {
    /// The tools the meta-tools stand for.
    pub fn inner(&self) -> &D {
        &self.inner
    }

    /// The index over the inner commands.
    pub fn index(&self) -> &ToolIndex {
        &self.index
    }

    fn find(&self, name: &str) -> Result<&ToolSpec, String> {
        let specs = self.inner.specs();
        match specs.iter().find(|s| s.name == name) {
            Some(s) => Ok(s),
            None => {
                let names: Vec<&str> = specs.iter().map(|s| s.name.as_ref()).collect();
                Err(match atip_core::diagnostic::nearest(name, &names) {
                    Some(near) => format!("no command `{name}`; did you mean `{near}`?"),
                    None => format!("no command `{name}`; find one with {SEARCH}"),
                })
            }
        }
    }

    fn search_answer(&self, call: &ToolCall) -> ToolResult {
        let args = match call.checked_arguments() {
            Ok(a) => a,
            Err(e) => return ToolResult::error(e.to_string()),
        };
        let Some(query) = args.get("query").and_then(Value::as_str) else {
            return ToolResult::error(format!(
                "{SEARCH}: parameter `query` (a string) is required"
            ));
        };
        let top = args
            .get("top")
            .and_then(Value::as_u64)
            .map_or(DEFAULT_TOP, |t| (t as usize).clamp(1, 50));
        let specs = self.inner.specs();
        let hits = self.index.search(query, top);
        if hits.is_empty() {
            return ToolResult::ok(format!("no command matches {query:?}; try other words"));
        }
        let lines: Vec<String> = hits
            .iter()
            .map(|h| {
                let s = specs[h.index];
                let first = s.description.lines().next().unwrap_or("").trim();
                // The flags as the tool's definition shows them (parameters' risks named).
                let flags = crate::providers::tool_safety_flags(s);
                if flags.is_empty() {
                    format!("{} — {}: {first}", s.name, s.title)
                } else {
                    format!("{} — {}: {first} [{}]", s.name, s.title, flags.join(" | "))
                }
            })
            .collect();
        ToolResult::ok(lines.join("\n"))
    }

    fn describe_answer(&self, call: &ToolCall) -> ToolResult {
        let name = call
            .checked_arguments()
            .ok()
            .and_then(|a| a.get("name").and_then(Value::as_str).map(str::to_owned));
        let Some(name) = name else {
            return ToolResult::error(format!(
                "{DESCRIBE}: parameter `name` (a string) is required"
            ));
        };
        match self.find(&name) {
            Ok(spec) => {
                ToolResult::ok(crate::providers::tool_definition(spec, Provider::Mcp).to_string())
            }
            Err(e) => ToolResult::error(e),
        }
    }
}

fn meta_spec(
    name: &'static str,
    description: String,
    effects: Effects,
    params: Vec<ParamSpec>,
) -> ToolSpec {
    ToolSpec {
        name: Text::Borrowed(name),
        title: Text::Borrowed(name),
        path: std::borrow::Cow::Owned(Vec::new()),
        description: Text::Owned(description),
        effects,
        params: std::borrow::Cow::Owned(params),
    }
}

fn param(
    name: &'static str,
    description: &'static str,
    kind: ValueKind,
    required: bool,
) -> ParamSpec {
    ParamSpec {
        name: crate::Shared::Static(name),
        description: Text::Borrowed(description),
        kind,
        required,
        multiple: false,
        values: None,
        default: None,
        argv: ArgvForm::Argument(Text::Borrowed(name)),
        global: false,
        effects: None,
    }
}

impl<D: Dispatch> ToolSet for MetaTools<D> {
    fn answer(&self, call: &ToolCall) -> Option<ToolResult> {
        match call.name.as_str() {
            SEARCH => Some(self.search_answer(call)),
            DESCRIBE => Some(self.describe_answer(call)),
            _ => None,
        }
    }
}

impl<D: Dispatch> Dispatch for MetaTools<D> {
    fn specs(&self) -> Vec<&ToolSpec> {
        self.specs.iter().collect()
    }

    fn commands(&self) -> Vec<&ToolSpec> {
        self.inner.commands()
    }

    fn command_invocation(&self, call: &ToolCall) -> Result<Invocation, DispatchError> {
        self.inner.command_invocation(call)
    }

    /// `run_command` only: the inner command's invocation, with the call's id.
    fn invocation(&self, call: &ToolCall) -> Result<Invocation, DispatchError> {
        if call.name != RUN {
            let names = [SEARCH, DESCRIBE, RUN];
            return Err(DispatchError::unknown_tool(call, &names));
        }
        let args = call.checked_arguments()?;
        let invalid =
            |message: String| DispatchError::new(call, vec![Problem::InvalidArguments { message }]);
        let Some(name) = args.get("name").and_then(Value::as_str) else {
            return Err(invalid(format!(
                "{RUN}: parameter `name` (a string) is required"
            )));
        };
        let arguments = match args.get("arguments") {
            Some(Value::Object(m)) => m.clone(),
            Some(Value::String(text)) if text.trim().is_empty() => serde_json::Map::new(),
            Some(Value::String(text)) => match serde_json::from_str::<Value>(text) {
                Ok(Value::Object(m)) => m,
                _ => {
                    return Err(invalid(format!(
                        "{RUN}: `arguments` must be a JSON object text, found {text:?}"
                    )))
                }
            },
            None | Some(Value::Null) => serde_json::Map::new(),
            Some(other) => {
                return Err(invalid(format!(
                    "{RUN}: `arguments` must be a JSON object text, found {other}"
                )))
            }
        };
        if let Err(e) = self.find(name) {
            return Err(invalid(format!("{RUN}: {e}")));
        }
        let inner = ToolCall::new(call.id.clone(), name, arguments);
        self.inner.invocation(&inner)
    }
}

impl<D> std::fmt::Debug for MetaTools<D> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MetaTools")
            .field("commands", &self.index.len())
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_search_without_a_query_over_no_commands_is_an_error_not_a_panic() {
        let meta = MetaTools::new(Vec::<crate::LoadedCommands>::new());
        let call = ToolCall::new(None, SEARCH, serde_json::Map::new());
        let answer = meta.answer(&call).unwrap();
        assert!(answer.is_error && answer.content.contains("`query`"));
    }

    /// The search meta-tool over loaded metadata uses the same index as `atip search`
    /// ([`ToolIndex::for_tool`]): a command is found by its examples' words and its parents'
    /// descriptions, not only by its own spec's.
    #[test]
    fn the_search_meta_tool_finds_commands_by_examples_and_parents() {
        let text = r#"{"atip": {"version": "0.6"}, "name": "ship", "version": "1",
          "description": "Ships", "commands": {
            "up": {"description": "Bring the service up",
                   "examples": ["ship up --canary  # roll out to a canary first"]},
            "queue": {"description": "Durable message queues for workers", "commands": {
              "purge": {"description": "Remove every item"}}},
            "down": {"description": "Take the service down"}}}"#;
        let load = || {
            let doc =
                crate::Document::parse(text, &crate::LoadOptions::strict(), &Default::default())
                    .unwrap();
            crate::LoadedCommands::new(doc, None)
        };
        let search = |meta: &dyn ToolSet, query: &str| {
            let mut args = serde_json::Map::new();
            args.insert("query".into(), query.into());
            let result = meta.answer(&ToolCall::new(None, SEARCH, args)).unwrap();
            assert!(!result.is_error, "{}", result.content);
            result.content
        };
        let one = MetaTools::new(load());
        let several = MetaTools::new(vec![load()]);
        for meta in [&one as &dyn ToolSet, &several] {
            assert!(search(meta, "canary rollout").contains("ship_up"));
            assert!(search(meta, "durable message queues").contains("ship_queue_purge"));
        }
    }
}
