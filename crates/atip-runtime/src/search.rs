//! Finding the right commands among thousands: an offline BM25 index over each command's
//! path, flattened name, description and parameters ([`ToolIndex`]), the best subset for a
//! query under a provider's limits ([`ToolIndex::select_for`]), and progressive disclosure
//! ([`MetaTools`]): three tools — search the commands, describe one, run one — that stand for
//! every command of a large tool, for the turn driver and the MCP server alike.
//!
//! Ranking is Okapi BM25 from the `bm25` crate (English stemming and stop words, Unicode
//! normalisation). Names are split at `_` and `-` before indexing, so `ec2_describe-instances`
//! matches "describe instances"; the command path counts twice, as a person's query names the
//! command more often than it quotes its description.
//!
//! ```
//! use atip_runtime::search::ToolIndex;
//! use atip_runtime::{Document, RuntimeTool, Mode, Provider};
//! # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/atip/gh.json");
//! let doc = Document::from_path(path.as_ref(), Mode::Strict, &Default::default())?;
//! let gh = RuntimeTool::new(doc, None);
//! let index = ToolIndex::new(gh.specs());
//! let best = index.search("merge a pull request", 3);
//! assert_eq!(gh.specs()[best[0].index].title, "gh pr merge");
//! let subset = index.select_for("pull requests", Provider::OpenAi); // ≤ 20, ≤ 128
//! assert!(!subset.is_empty() && subset.len() <= 20);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use bm25::{Document, Language, SearchEngine, SearchEngineBuilder};
use serde_json::Value;

use crate::command::dispatch::{Dispatch, DispatchError, Problem, ToolCall};
use crate::providers::Provider;
use crate::tool::{ArgvForm, ParamSpec, ToolSpec, ValueKind};
use crate::wire::ToolResult;
use crate::{Effects, Invocation, Text};

/// Commands [`ToolIndex::select_for`] returns at most, within the provider's own limit: enough
/// for a task, few enough to leave the model its context.
pub const SELECT_DEFAULT: usize = 20;

/// A BM25 index over commands, built once ([`ToolIndex::new`]: about 40 µs per command).
pub struct ToolIndex {
    engine: SearchEngine<u32>,
    len: usize,
}

/// One search result: the command's position in the slice the index was built from, and its
/// BM25 score (higher is better; only positive scores are returned).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit {
    /// Position in the specs given to [`ToolIndex::new`].
    pub index: usize,
    /// BM25 score.
    pub score: f32,
}

impl ToolIndex {
    /// Indexes `specs`, in order.
    pub fn new<'a>(specs: impl IntoIterator<Item = &'a ToolSpec>) -> Self {
        Self::with_examples(specs.into_iter().map(|s| (s, &[][..])))
    }

    /// Indexes `specs` with each command's examples (ATIP `examples`: invocations such as
    /// `gh pr create --fill`), whose words find the command too. For loaded metadata:
    /// [`ToolIndex::for_tool`].
    pub fn with_examples<'a>(
        entries: impl IntoIterator<Item = (&'a ToolSpec, &'a [String])>,
    ) -> Self {
        let documents: Vec<Document<u32>> = entries
            .into_iter()
            .enumerate()
            .map(|(i, (spec, examples))| {
                let mut text = text_of(spec);
                for e in examples {
                    text.push('\n');
                    text.push_str(&words(e));
                }
                Document::new(u32::try_from(i).unwrap_or(u32::MAX), text)
            })
            .collect();
        let len = documents.len();
        let engine =
            SearchEngineBuilder::<u32>::with_documents(Language::English, documents).build();
        ToolIndex { engine, len }
    }

    /// The commands of loaded metadata with their examples, in [`crate::RuntimeTool::specs`]
    /// order.
    pub fn for_tool(tool: &crate::RuntimeTool) -> Self {
        Self::for_tools(std::slice::from_ref(tool))
    }

    /// [`ToolIndex::for_tool`] over several tools, one after the other: positions count
    /// through every tool's specs in turn.
    pub fn for_tools(tools: &[crate::RuntimeTool]) -> Self {
        Self::with_examples(tools.iter().flat_map(|t| {
            t.specs()
                .iter()
                .zip(t.document().commands.iter().map(|c| &c.examples[..]))
        }))
    }

    /// How many commands are indexed.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether nothing is indexed.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The `top` commands that best match `query`, best first; ties keep index order.
    pub fn search(&self, query: &str, top: usize) -> Vec<Hit> {
        let mut hits: Vec<Hit> = self
            .engine
            .search(query, top)
            .into_iter()
            .filter(|r| r.score > 0.0)
            .map(|r| Hit {
                index: r.document.id as usize,
                score: r.score,
            })
            .collect();
        hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.index.cmp(&b.index)));
        hits
    }

    /// The best subset for `query` that `provider` takes in one request: at most
    /// [`SELECT_DEFAULT`] commands, fewer when the provider's tool limit
    /// ([`crate::limits::Limits::max_tools`]) is lower; positions, best first.
    pub fn select_for(&self, query: &str, provider: Provider) -> Vec<usize> {
        let limit = provider
            .max_tools()
            .map_or(SELECT_DEFAULT, |max| max.min(SELECT_DEFAULT));
        self.search(query, limit)
            .into_iter()
            .map(|h| h.index)
            .collect()
    }
}

impl std::fmt::Debug for ToolIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolIndex").field("len", &self.len).finish()
    }
}

/// `s` with `_` and `-` as spaces, so that the parts of `describe-instances` are words.
fn words(s: &str) -> String {
    s.replace(['_', '-'], " ")
}

/// The text a command is found by.
fn text_of(spec: &ToolSpec) -> String {
    let mut text = String::with_capacity(spec.description.len() + 128);
    // The path twice: the strongest signal.
    for _ in 0..2 {
        text.push_str(&words(&spec.title));
        text.push('\n');
    }
    text.push_str(&words(&spec.name));
    text.push('\n');
    text.push_str(&spec.description);
    for p in spec.params.iter() {
        text.push('\n');
        text.push_str(&words(&p.name));
        text.push(' ');
        text.push_str(&p.description);
    }
    text
}

/// Progressive disclosure: three meta-tools stand for every command of `inner` — search the
/// commands (`search_commands {query, top?}`), describe one (`describe_command {name}`: its full
/// schema and safety flags), run one (`run_command {name, arguments}`). Searching and describing
/// are answered without running anything ([`Dispatch::answer`]); running goes through the
/// inner tools' dispatch and then, like any call, the runner's policy, confirmation and sandbox.
/// Policies are checked against the inner commands ([`Dispatch::commands`]).
///
/// ```
/// # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/atip/gh.json");
/// use atip_runtime::search::MetaTools;
/// use atip_runtime::{agent::TurnDriver, Dispatch, Document, RuntimeTool, Mode, Provider, Runner};
/// let doc = Document::from_path(path.as_ref(), Mode::Strict, &Default::default())?;
/// let meta = MetaTools::new(RuntimeTool::new(doc, None));
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

impl<D: Dispatch> MetaTools<D> {
    /// Meta-tools over `inner`, whose commands are indexed now.
    pub fn new(inner: D) -> Self {
        let index = ToolIndex::new(inner.specs());
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
                let flags = crate::providers::safety_flags(&s.effects);
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
    }
}

impl<D: Dispatch> Dispatch for MetaTools<D> {
    fn specs(&self) -> Vec<&ToolSpec> {
        self.specs.iter().collect()
    }

    fn commands(&self) -> Vec<&ToolSpec> {
        self.inner.commands()
    }

    fn answer(&self, call: &ToolCall) -> Option<ToolResult> {
        match call.name.as_str() {
            SEARCH => Some(self.search_answer(call)),
            DESCRIBE => Some(self.describe_answer(call)),
            _ => None,
        }
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
    fn examples_make_a_command_findable_by_their_words() {
        let text = r#"{"atip": {"version": "0.6"}, "name": "ship", "version": "1",
          "description": "Ships", "commands": {
            "up": {"description": "Bring the service up",
                   "examples": ["ship up --canary  # roll out to a canary first"]},
            "down": {"description": "Take the service down"}}}"#;
        let doc = crate::Document::parse(text, &crate::LoadOptions::strict(), &Default::default())
            .unwrap();
        let tool = crate::RuntimeTool::new(doc, None);
        assert!(ToolIndex::new(tool.specs())
            .search("canary rollout", 2)
            .is_empty());
        let hits = ToolIndex::for_tool(&tool).search("canary rollout", 2);
        assert_eq!(hits.len(), 1);
        assert_eq!(tool.specs()[hits[0].index].name, "ship_up");
    }

    #[test]
    fn an_empty_index_or_query_finds_nothing_without_panicking() {
        let none: Vec<&ToolSpec> = Vec::new();
        let index = ToolIndex::new(none);
        assert!(index.is_empty());
        assert!(index.search("anything", 5).is_empty());
        assert!(index.select_for("", Provider::OpenAi).is_empty());
        let meta = MetaTools::new(Vec::<crate::RuntimeTool>::new());
        let call = ToolCall::new(None, SEARCH, serde_json::Map::new());
        let answer = meta.answer(&call).unwrap();
        assert!(answer.is_error && answer.content.contains("`query`"));
    }
}
