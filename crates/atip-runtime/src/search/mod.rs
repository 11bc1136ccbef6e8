//! Finding the right commands among thousands: an offline BM25 index over each command's
//! path, flattened name, description and parameters ([`ToolIndex`]), the best subset for a
//! query under a provider's limits ([`ToolIndex::select_for`]), and progressive disclosure
//! ([`MetaTools`]): three tools — search the commands, describe one, run one — that stand for
//! every command of a large tool, for the turn driver and the MCP server alike.
//!
//! Ranking is Okapi BM25 (tokens, English stemming and stop words from the `bm25` crate) over
//! two fields scored apart and added with weights, a small BM25F:
//!
//! * the command's **name**: its path (`s3api list-buckets`, the service and the verb first),
//!   split at `_` and `-`, so `ec2_describe-instances` matches "describe instances". It weighs
//!   [`NAME_WEIGHT`] times the body, as a person's query names the command more often than it
//!   quotes its description;
//! * the **body**: the command's description, its own parameters (not the global options every
//!   command shares), its examples and, for loaded metadata ([`ToolIndex::for_tool`]), the
//!   first sentences of its parents' descriptions — the service's own words ("a fully managed
//!   NoSQL database service") find the service's commands.
//!
//! A person says "stop my virtual machine", "who am I", "tear down the stack", where the
//! metadata says `stop-instances`, `get-caller-identity`, `delete-stack`: the query is expanded
//! at search time with the words of a table of verb and noun synonyms ([`synonyms`]) at a lower
//! weight ([`SYNONYM_WEIGHT`]), so the index holds only the commands' own words.
//!
//! ```
//! use atip_runtime::search::ToolIndex;
//! use atip_runtime::{Document, LoadedCommands, Mode, Provider};
//! # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/atip/gh.json");
//! let doc = Document::from_path(path.as_ref(), Mode::Strict, &Default::default())?;
//! let gh = LoadedCommands::new(doc, None);
//! let index = ToolIndex::new(gh.specs());
//! let best = index.search("merge a pull request", 3);
//! assert_eq!(gh.specs()[best[0].index].title, "gh pr merge");
//! let subset = index.select_for("pull requests", Provider::OpenAi); // ≤ 20, ≤ 128
//! assert!(!subset.is_empty() && subset.len() <= 20);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod meta;
pub mod synonyms;
mod terms;

use bm25::{DefaultTokenizer, Language};
use terms::{terms, Entry, Vocabulary};

pub use meta::{MetaTools, DESCRIBE, RUN, SEARCH};

use crate::command::dispatch::{CommandSet, Dispatch, GeneratedCommands};
use crate::LoadedCommands;

/// A tool set the search meta-tool can index ([`MetaTools::new`]): by default the words of its
/// specs ([`ToolIndex::new`]); loaded metadata adds each command's examples and its parents'
/// descriptions ([`ToolIndex::for_tools`]), as `atip search` does. A type of your own that
/// implements [`Dispatch`] opts in with `impl Searchable for MyTools {}`.
pub trait Searchable: Dispatch {
    /// The index over [`Dispatch::specs`], in their order.
    fn search_index(&self) -> ToolIndex {
        ToolIndex::new(self.specs())
    }
}

impl Searchable for LoadedCommands {
    fn search_index(&self) -> ToolIndex {
        ToolIndex::for_tool(self)
    }
}

impl Searchable for [LoadedCommands] {
    fn search_index(&self) -> ToolIndex {
        ToolIndex::for_tools(self)
    }
}

impl Searchable for Vec<LoadedCommands> {
    fn search_index(&self) -> ToolIndex {
        ToolIndex::for_tools(self)
    }
}

impl<C: CommandSet> Searchable for GeneratedCommands<C> {}

use crate::providers::Provider;
use crate::tool::ToolSpec;

/// Commands [`ToolIndex::select_for`] returns at most, within the provider's own limit: enough
/// for a task, few enough to leave the model its context.
pub const SELECT_DEFAULT: usize = 20;

/// How much a query word found in a command's name (its path) counts against the same word in
/// its body (description, parameters, examples, parents' descriptions).
pub const NAME_WEIGHT: f32 = 2.5;

/// How much a word the query was expanded with ([`synonyms::expand`]) counts against a word of
/// the query itself.
pub const SYNONYM_WEIGHT: f32 = 0.5;

/// A BM25 index over commands, built once ([`ToolIndex::for_tool`]: about 30 µs per command
/// of the real aws metadata, whose descriptions are long; a query takes well under 1 ms).
pub struct ToolIndex {
    /// The name field, then the body.
    fields: [Field; 2],
    tokenizer: DefaultTokenizer,
    len: usize,
}

/// One field of every command, indexed on its own: for each term, the commands that have it
/// with their BM25 term weights (`k1` 1.2, `b` 0.75).
#[derive(PartialEq)]
struct Field {
    weight: f32,
    postings: foldhash::HashMap<u32, Vec<(u32, f32)>>,
}

/// BM25's term-frequency saturation.
const K1: f32 = 1.2;
/// BM25's length normalisation.
const B: f32 = 0.75;

impl Field {
    /// The field over `docs`, each the terms of one command's text in order.
    fn new(weight: f32, docs: Vec<Vec<u32>>) -> Field {
        let total: usize = docs.iter().map(Vec::len).sum();
        let avgdl = (total as f32 / docs.len().max(1) as f32).max(1.0);
        let mut postings: foldhash::HashMap<u32, Vec<(u32, f32)>> = Default::default();
        for (doc, mut tokens) in docs.into_iter().enumerate() {
            let len = tokens.len() as f32;
            tokens.sort_unstable();
            let doc = u32::try_from(doc).unwrap_or(u32::MAX);
            for run in tokens.chunk_by(|a, b| a == b) {
                let tf = run.len() as f32;
                let value = tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * len / avgdl));
                postings.entry(run[0]).or_default().push((doc, value));
            }
        }
        Field { weight, postings }
    }
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
        Self::build(
            entries
                .into_iter()
                .map(|(spec, examples)| Entry::of_spec(spec, examples)),
        )
    }

    fn build<'a>(entries: impl Iterator<Item = Entry<'a>>) -> Self {
        let tokenizer = DefaultTokenizer::new(Language::English);
        let mut vocabulary = Vocabulary::new(&tokenizer);
        for entry in entries {
            vocabulary.add(&entry);
        }
        let (names, bodies) = vocabulary.into_fields();
        ToolIndex {
            len: names.len(),
            fields: [Field::new(NAME_WEIGHT, names), Field::new(1.0, bodies)],
            tokenizer,
        }
    }

    /// The commands of loaded metadata with their examples and their parents' descriptions (the
    /// service's, for `aws s3api list-buckets`), in [`crate::LoadedCommands::specs`] order. The
    /// words are read from the loaded document: the commands' specs are not built for it.
    pub fn for_tool(tool: &crate::LoadedCommands) -> Self {
        Self::for_tools(std::slice::from_ref(tool))
    }

    /// [`ToolIndex::for_tool`] over several tools, one after the other: positions count
    /// through every tool's specs in turn.
    pub fn for_tools(tools: &[crate::LoadedCommands]) -> Self {
        Self::build(tools.iter().flat_map(|t| {
            let doc = t.document();
            doc.commands.iter().map(|c| Entry::of_command(&doc.tool, c))
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

    /// The `top` commands that best match `query`, best first; ties keep index order. The
    /// query's own words count fully, the words of its synonyms ([`synonyms::expand`]) at
    /// [`SYNONYM_WEIGHT`].
    pub fn search(&self, query: &str, top: usize) -> Vec<Hit> {
        if self.len == 0 || top == 0 {
            return Vec::new();
        }
        let once = |text: &str| {
            let mut t = terms(&self.tokenizer, text);
            t.sort_unstable();
            t.dedup();
            t
        };
        let mut terms: Vec<(u32, f32)> = once(query).into_iter().map(|t| (t, 1.0)).collect();
        for t in once(&synonyms::expand(query)) {
            if !terms.iter().any(|&(q, _)| q == t) {
                terms.push((t, SYNONYM_WEIGHT));
            }
        }
        let n = self.len as f32;
        let mut scores = vec![0f32; self.len];
        for (term, weight) in terms {
            for f in &self.fields {
                let Some(postings) = f.postings.get(&term) else {
                    continue;
                };
                let df = postings.len() as f32;
                let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
                let w = weight * f.weight * idf;
                for &(doc, value) in postings {
                    scores[doc as usize] += w * value;
                }
            }
        }
        let mut hits: Vec<Hit> = scores
            .into_iter()
            .enumerate()
            .filter(|&(_, score)| score > 0.0)
            .map(|(index, score)| Hit { index, score })
            .collect();
        hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.index.cmp(&b.index)));
        hits.truncate(top);
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

#[cfg(test)]
mod tests {
    use super::*;
    use bm25::{TokenEmbedder, Tokenizer};

    #[test]
    fn examples_make_a_command_findable_by_their_words() {
        let text = r#"{"atip": {"version": "0.6"}, "name": "ship", "version": "1",
          "description": "Ships", "commands": {
            "up": {"description": "Bring the service up",
                   "examples": ["ship up --canary  # roll out to a canary first"]},
            "down": {"description": "Take the service down"}}}"#;
        let doc = crate::Document::parse(text, &crate::LoadOptions::strict(), &Default::default())
            .unwrap();
        let tool = crate::LoadedCommands::new(doc, None);
        assert!(ToolIndex::new(tool.specs())
            .search("canary rollout", 2)
            .is_empty());
        let hits = ToolIndex::for_tool(&tool).search("canary rollout", 2);
        assert_eq!(hits.len(), 1);
        assert_eq!(tool.specs()[hits[0].index].name, "ship_up");
    }

    /// Checks, for each command of `path` in order, that the terms an index is built from are
    /// those of its whole texts: the body (remembered texts copied, each word stemmed once)
    /// has the terms of [`terms::body_text`], the name those of the spec's title split at `_`
    /// and `-`; and that the entry read from the document has the words of the command's
    /// spec. Returns how many commands were checked.
    fn entries_have_the_terms_of_their_whole_texts(
        path: &std::path::Path,
        mode: crate::Mode,
    ) -> usize {
        let tokenizer = DefaultTokenizer::new(Language::English);
        let mut vocabulary = Vocabulary::new(&tokenizer);
        let doc = crate::Document::from_path(path, mode, &Default::default()).unwrap();
        let tool = crate::LoadedCommands::new(doc, None);
        let doc = tool.document();
        let last = |v: &Vocabulary| {
            let (names, bodies) = v.fields();
            (names.last().cloned(), bodies.last().cloned())
        };
        for (spec, c) in tool.specs().iter().zip(&doc.commands) {
            let entry = Entry::of_command(&doc.tool, c);
            let of_spec = Entry::of_spec(spec, &c.examples);
            assert_eq!(entry.description, of_spec.description, "{}", spec.name);
            assert_eq!(entry.params, of_spec.params, "{}", spec.name);
            let whole_name = terms(&tokenizer, &terms::words(&spec.title));
            let whole = terms(&tokenizer, &terms::body_text(&entry));
            assert!(!whole.is_empty());
            vocabulary.add(&entry);
            let (name, body) = last(&vocabulary);
            assert_eq!(name.as_ref(), Some(&whole_name), "{}", spec.name);
            assert_eq!(body.as_ref(), Some(&whole), "{}", spec.name);
            // Met again, every text and word is known: the same terms, nothing new kept. (The
            // entry read from the spec has the same words; its name is one piece, the title.)
            let known = vocabulary.known_words();
            vocabulary.add(&Entry {
                parents: entry.parents.clone(),
                ..Entry::of_spec(spec, &c.examples)
            });
            assert_eq!(last(&vocabulary), (Some(whole_name), Some(whole)));
            assert_eq!(vocabulary.known_words(), known);
        }
        doc.commands.len()
    }

    /// The index of a loaded tool, read from its document, is the one its specs give with the
    /// same examples and parents.
    #[test]
    fn an_index_read_from_the_document_is_the_index_of_its_specs() {
        let examples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/atip");
        for file in ["gh.json", "git.json", "fig-ls.json"] {
            let path = examples.join(file);
            let doc = crate::Document::from_path(&path, crate::Mode::Strict, &Default::default())
                .unwrap();
            let tool = crate::LoadedCommands::new(doc, None);
            let doc = tool.document();
            let of_specs =
                ToolIndex::build(tool.specs().iter().zip(&doc.commands).map(|(s, c)| Entry {
                    parents: Entry::of_command(&doc.tool, c).parents,
                    ..Entry::of_spec(s, &c.examples)
                }));
            let read = ToolIndex::for_tool(&tool);
            assert_eq!(read.len, tool.specs().len(), "{file}");
            assert!(read.fields == of_specs.fields, "{file}");
        }
    }

    #[test]
    fn a_body_tokenized_word_by_word_has_the_terms_of_its_whole_text() {
        let examples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/atip");
        let checked: usize = ["gh.json", "git.json"]
            .iter()
            .map(|f| {
                entries_have_the_terms_of_their_whole_texts(&examples.join(f), crate::Mode::Strict)
            })
            .sum();
        assert!(checked > 20, "{checked}");
    }

    #[test]
    #[ignore = "needs ../shared"]
    fn the_real_aws_bodies_tokenize_word_by_word_as_whole_texts() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../../shared/corpus/atip/scale/aws-mid.json");
        assert!(path.is_file(), "{} is missing", path.display());
        assert_eq!(
            entries_have_the_terms_of_their_whole_texts(&path, crate::Mode::Lenient),
            819
        );
    }

    /// Word by word, a description has the terms the tokenizer gives the whole of it: for
    /// every description of the real aws metadata, parameters' included.
    #[test]
    #[ignore = "needs ../shared"]
    fn word_by_word_terms_are_the_tokenizer_s_terms_of_the_whole_text() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../../shared/corpus/atip/scale/aws-mid.json");
        assert!(path.is_file(), "{} is missing", path.display());
        let tokenizer = DefaultTokenizer::new(Language::English);
        let doc =
            crate::Document::from_path(&path, crate::Mode::Lenient, &Default::default()).unwrap();
        let tool = crate::LoadedCommands::new(doc, None);
        let mut differ = Vec::new();
        let mut checked = 0;
        for spec in tool.specs() {
            let texts = std::iter::once(&*spec.description)
                .chain(spec.params.iter().map(|p| &*p.description));
            for text in texts {
                checked += 1;
                let whole: Vec<u32> = tokenizer
                    .tokenize(text)
                    .iter()
                    .map(|t| <u32 as TokenEmbedder>::embed(t))
                    .collect();
                if terms(&tokenizer, text) != whole {
                    differ.push(text.to_owned());
                }
            }
        }
        assert!(checked > 10_000, "{checked}");
        assert!(
            differ.is_empty(),
            "{} of {checked} differ: {:?}",
            differ.len(),
            &differ[..differ.len().min(3)]
        );
    }

    #[test]
    fn an_empty_index_or_query_finds_nothing_without_panicking() {
        let none: Vec<&ToolSpec> = Vec::new();
        let index = ToolIndex::new(none);
        assert!(index.is_empty());
        assert!(index.search("anything", 5).is_empty());
        assert!(index.select_for("", Provider::OpenAi).is_empty());
    }

    /// Build and query time over the real aws metadata (`../shared`, 819 commands); run in
    /// release mode: `cargo test -p atip-runtime --features search --lib --release speed --
    /// --ignored --nocapture`.
    #[test]
    #[ignore = "needs ../shared"]
    fn speed_over_the_real_aws_metadata() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../../shared/corpus/atip/scale/aws-mid.json");
        assert!(path.is_file(), "{} is missing", path.display());
        let doc =
            crate::Document::from_path(&path, crate::Mode::Lenient, &Default::default()).unwrap();
        let tool = crate::LoadedCommands::new(doc, None);
        let start = std::time::Instant::now();
        let runs = 5;
        for _ in 1..runs {
            ToolIndex::for_tool(&tool);
        }
        let index = ToolIndex::for_tool(&tool);
        let build = start.elapsed() / runs;
        let queries = [
            "which account am I logged into",
            "stop my virtual machine",
            "delete the old database",
            "who can read this bucket",
            "send a message to the queue",
        ];
        let start = std::time::Instant::now();
        let rounds = 200;
        for _ in 0..rounds {
            for q in queries {
                assert!(!index.search(q, 10).is_empty());
            }
        }
        let query = start.elapsed() / (rounds * queries.len() as u32);
        println!(
            "aws-mid, {} commands: build {build:?}, query {query:?}",
            index.len()
        );
        assert!(build < std::time::Duration::from_secs(1) && query.as_millis() < 5);
    }
}
