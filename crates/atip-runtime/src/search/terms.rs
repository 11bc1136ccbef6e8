//! The terms an index is built from: what a command is found by ([`Entry`]), its texts turned
//! into terms once each ([`Vocabulary`]), and the tokenizer's terms of a text ([`terms`]).

use bm25::{DefaultTokenizer, TokenEmbedder, Tokenizer};

use crate::tool::ToolSpec;

/// Characters of each parent's description (the service's, for `aws s3api list-buckets`) that
/// go into a command's body: its first sentences, which say what the service is.
const PARENT_CHARS: usize = 240;

/// What one command is found by, borrowed from a [`ToolSpec`] or from a loaded document's
/// command: texts whose terms, in this order, make its two fields.
pub(super) struct Entry<'a> {
    /// Pieces whose words make the name field, split at `_` and `-`: a spec's title, or the
    /// tool's name and each segment of the command's path (the same words).
    pub(super) name: Vec<&'a str>,
    /// The command's description.
    pub(super) description: &'a str,
    /// Its own parameters (not the global options every command shares): name, description.
    pub(super) params: Vec<(&'a str, &'a str)>,
    /// ATIP `examples`: invocations, split at `_` and `-` like names.
    pub(super) examples: &'a [String],
    /// The first sentences of each parent's description, outermost first.
    pub(super) parents: Vec<&'a str>,
}

impl<'a> Entry<'a> {
    /// The entry of a spec, with the command's examples; no parents.
    pub(super) fn of_spec(spec: &'a ToolSpec, examples: &'a [String]) -> Self {
        Entry {
            name: vec![&spec.title],
            description: &spec.description,
            params: spec
                .params
                .iter()
                .filter(|p| !p.global)
                .map(|p| (&*p.name, &*p.description))
                .collect(),
            examples,
            parents: Vec::new(),
        }
    }

    /// The entry of a loaded command of tool `tree`: the words its [`ToolSpec`] has (its
    /// title is the tool's name and the path, its parameters those of the flattened command),
    /// read from the document without building the spec, and its parents' descriptions.
    pub(super) fn of_command(
        tree: &'a atip_core::DocumentTree,
        command: &'a atip_core::FlatCommand,
    ) -> Self {
        Entry {
            name: std::iter::once(tree.name.as_str())
                .chain(command.path.iter().map(String::as_str))
                .collect(),
            description: &command.description,
            params: command
                .params()
                .filter(|p| !p.is_global())
                .map(|p| (&*p.name, p.description.as_str()))
                .collect(),
            examples: &command.examples,
            parents: parents_of(tree, &command.path),
        }
    }
}

/// The first sentences (up to [`PARENT_CHARS`] characters) of the descriptions of the
/// commands above `path` in `tree` (for `["s3api", "list-buckets"]`: the description of
/// `s3api`), outermost first.
fn parents_of<'a>(tree: &'a atip_core::DocumentTree, path: &[String]) -> Vec<&'a str> {
    let mut parents = Vec::new();
    let mut level = &tree.commands;
    for segment in path.iter().take(path.len().saturating_sub(1)) {
        let Some(parent) = level.get(segment) else {
            break;
        };
        let d = parent.description.as_str();
        let cut = d
            .char_indices()
            .map(|(i, _)| i)
            .find(|&i| i >= PARENT_CHARS)
            .unwrap_or(d.len());
        parents.push(&d[..cut]);
        level = &parent.commands;
    }
    parents
}

/// Where the terms of a text were first written: in the field's document `doc` (the one
/// being built when `doc` is the number of those done), from `start`, `len` terms.
#[derive(Clone, Copy)]
struct Span {
    doc: u32,
    start: u32,
    len: u32,
}

/// The terms of the texts met while building an index, each text and each distinct word
/// turned into terms once. Real metadata says the same things over and over: every aws
/// command has `--cli-input-json` and `--generate-cli-skeleton` with the same descriptions,
/// the paginated ones `--max-items` and `--starting-token`, every command of a service its
/// service's description and name. A text seen before is copied from where its terms were
/// first written (a [`Span`] of a field's documents, so nothing is held twice); a new text is
/// looked up word by word, and only a new word is stemmed.
pub(super) struct Vocabulary<'t, 'a> {
    tokenizer: &'t DefaultTokenizer,
    /// Each distinct word: where its terms are in `arena`. foldhash, not SipHash: looking
    /// words up is most of what building an index costs.
    words: foldhash::HashMap<&'a str, (u32, u32)>,
    /// The terms of every distinct word, one after the other.
    arena: Vec<u32>,
    /// Texts of the name field (split at `_` and `-`).
    name_spans: foldhash::HashMap<&'a str, Span>,
    /// Texts of the body: `true` for a parameter's name (split at `_` and `-`).
    body_spans: foldhash::HashMap<(&'a str, bool), Span>,
    /// The name field's terms of each command added, in order (what `name_spans` point into).
    names: Vec<Vec<u32>>,
    /// The body's terms of each command added, in order (what `body_spans` point into).
    bodies: Vec<Vec<u32>>,
    /// Where a field's terms for one command are gathered.
    scratch: Vec<u32>,
}

impl<'t, 'a> Vocabulary<'t, 'a> {
    pub(super) fn new(tokenizer: &'t DefaultTokenizer) -> Self {
        Vocabulary {
            tokenizer,
            words: Default::default(),
            arena: Vec::new(),
            name_spans: Default::default(),
            body_spans: Default::default(),
            names: Vec::new(),
            bodies: Vec::new(),
            scratch: Vec::new(),
        }
    }

    /// Appends the terms of `text` to `out`: those [`terms`] gives (of the text split at `_` and
    /// `-` as well when `split`). Each distinct word is tokenized once; its terms are kept in one
    /// arena.
    fn terms_into(&mut self, text: &'a str, split: bool, out: &mut Vec<u32>) {
        let pieces = text
            .split(|c: char| c.is_whitespace() || (split && (c == '_' || c == '-')))
            .filter(|w| !w.is_empty());
        for word in pieces {
            let (start, len) = match self.words.get(word) {
                Some(&known) => known,
                None => {
                    let start = self.arena.len();
                    self.arena.extend(word_terms(self.tokenizer, word));
                    let as_u32 = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
                    let at = (as_u32(start), as_u32(self.arena.len() - start));
                    self.words.insert(word, at);
                    at
                }
            };
            out.extend_from_slice(&self.arena[start as usize..][..len as usize]);
        }
    }

    /// Adds the terms of `entry`'s two fields after those of the entries added before.
    pub(super) fn add(&mut self, entry: &Entry<'a>) {
        // The fields are taken out while the entry's terms are written: a text met again is
        // copied from them.
        let mut names = std::mem::take(&mut self.names);
        let name = self.name(entry, &names);
        names.push(name);
        self.names = names;
        let mut bodies = std::mem::take(&mut self.bodies);
        let body = self.body(entry, &bodies);
        bodies.push(body);
        self.bodies = bodies;
    }

    /// The name field's and the body's terms of every entry added, in order.
    #[cfg(test)]
    pub(super) fn fields(&self) -> (&[Vec<u32>], &[Vec<u32>]) {
        (&self.names, &self.bodies)
    }

    /// The name field's and the body's terms of every entry added, in order.
    pub(super) fn into_fields(self) -> (Vec<Vec<u32>>, Vec<Vec<u32>>) {
        (self.names, self.bodies)
    }

    /// The terms of `entry`'s name field, given the name fields of the entries before it.
    fn name(&mut self, entry: &Entry<'a>, done: &[Vec<u32>]) -> Vec<u32> {
        let mut out = std::mem::take(&mut self.scratch);
        out.clear();
        for piece in &entry.name {
            let known = self.name_spans.get(piece).copied();
            let span = self.text_into(known, piece, true, done, &mut out);
            if known.is_none() {
                self.name_spans.insert(piece, span);
            }
        }
        self.finish(out)
    }

    /// The terms gathered in `out` (the scratch buffer) as a vector of their own, exactly
    /// as long as they are; the buffer is kept for the next text. Gathering in one buffer
    /// that has grown once saves a reallocation per doubling of every command's terms.
    fn finish(&mut self, out: Vec<u32>) -> Vec<u32> {
        let terms = out.clone();
        self.scratch = out;
        terms
    }

    /// The terms of `entry`'s body (description, own parameters' names and descriptions,
    /// examples, parents' first sentences: the terms of [`body_text`]), given the bodies of
    /// the entries before it.
    fn body(&mut self, entry: &Entry<'a>, done: &[Vec<u32>]) -> Vec<u32> {
        let mut out = std::mem::take(&mut self.scratch);
        out.clear();
        self.body_piece(entry.description, false, done, &mut out);
        for &(name, description) in &entry.params {
            self.body_piece(name, true, done, &mut out);
            self.body_piece(description, false, done, &mut out);
        }
        // Examples are mostly unique: not remembered.
        for e in entry.examples {
            self.terms_into(e, true, &mut out);
        }
        for parent in &entry.parents {
            self.body_piece(parent, false, done, &mut out);
        }
        self.finish(out)
    }

    /// Appends the terms of one text of a body to `out` and remembers where they are.
    fn body_piece(&mut self, text: &'a str, split: bool, done: &[Vec<u32>], out: &mut Vec<u32>) {
        let known = self.body_spans.get(&(text, split)).copied();
        let span = self.text_into(known, text, split, done, out);
        if known.is_none() {
            self.body_spans.insert((text, split), span);
        }
    }

    /// Appends the terms of `text` (split at `_` and `-` when `split`) to `out`, the document
    /// after `done`: copied from `known` when the text was seen, else looked up word by word.
    /// Returns where they are now (where they were first written, when known).
    fn text_into(
        &mut self,
        known: Option<Span>,
        text: &'a str,
        split: bool,
        done: &[Vec<u32>],
        out: &mut Vec<u32>,
    ) -> Span {
        let doc = u32::try_from(done.len()).unwrap_or(u32::MAX);
        if let Some(span) = known {
            let range = span.start as usize..(span.start + span.len) as usize;
            match done.get(span.doc as usize) {
                Some(terms) => out.extend_from_slice(&terms[range]),
                None => out.extend_from_within(range),
            }
            return span;
        }
        let start = out.len();
        self.terms_into(text, split, out);
        let as_u32 = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        Span {
            doc,
            start: as_u32(start),
            len: as_u32(out.len() - start),
        }
    }

    /// How many distinct words were tokenized.
    #[cfg(test)]
    pub(super) fn known_words(&self) -> usize {
        self.words.len()
    }
}

/// The terms of `text` (hashes, as the `bm25` crate embeds them), in order: its tokenizer
/// (English stemming, stop words) on each whitespace-separated word. That gives the terms of
/// the whole text (a test checks every description of the real aws metadata), and lets
/// [`Vocabulary`] stem each distinct word once.
pub(super) fn terms(tokenizer: &DefaultTokenizer, text: &str) -> Vec<u32> {
    text.split_whitespace()
        .flat_map(|w| word_terms(tokenizer, w))
        .collect()
}

/// The terms of one word (none for a stop word, several for `a/b`).
fn word_terms(tokenizer: &DefaultTokenizer, word: &str) -> Vec<u32> {
    tokenizer
        .tokenize(word)
        .iter()
        .map(|t| <u32 as TokenEmbedder>::embed(t))
        .collect()
}

/// `s` with `_` and `-` as spaces, so that the parts of `describe-instances` are words
/// (what [`Vocabulary`] splits a name at).
#[cfg(test)]
pub(super) fn words(s: &str) -> String {
    s.replace(['_', '-'], " ")
}

/// The body of `entry` as one text, its pieces joined by spaces: what [`Vocabulary::body`]
/// gives the terms of (the index never builds this text; tests compare with it).
#[cfg(test)]
pub(super) fn body_text(entry: &Entry) -> String {
    let mut text = entry.description.to_string();
    for (name, description) in &entry.params {
        text.push(' ');
        text.push_str(&words(name));
        text.push(' ');
        text.push_str(description);
    }
    for e in entry.examples {
        text.push(' ');
        text.push_str(&words(e));
    }
    for p in &entry.parents {
        text.push(' ');
        text.push_str(p);
    }
    text
}
