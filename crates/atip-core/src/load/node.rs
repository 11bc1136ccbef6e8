//! Reading, checking and building a document's command tree in one pass over its text.
//!
//! Each node (the root or a command) is read into a [`Value`] of its own members but
//! `commands`. When `commands` is an object, each subcommand is read, checked and built into
//! the model as the parser reaches it, and the node's value gets `commands: {}`; the node
//! itself is checked and built when its object ends. Its diagnostics are then put before its
//! subcommands', so they come in the order of the tree (a node, then each subcommand in
//! turn), as if each node had been checked before its subcommands. So every byte of the text
//! is parsed once, and no more is held as a `Value` than one command's own members and
//! those of the commands above it.
//!
//! The root is the exception when its `atip` member comes after `commands`: the schema the
//! version selects is needed to check the subcommands, so they are kept as raw text and read
//! when the root is done (their text is then read twice). A root that declares `atip` again
//! after its subcommands were read, selecting another schema, is not read this way at all
//! ([`Unread`]): checked as one value, the last declaration applies to everything.
//!
//! A large text (at least [`TWO_THREADS_MIN_BYTES`], on a machine with two cores) has its root's
//! subcommands kept as raw text the same way, and read in two halves on two threads, each
//! with its own checks and anchors: the halves' results, joined in order, are what one thread
//! reads (every check of a subcommand depends only on it and on the schema).
//!
//! A name given twice (a command, or `commands` in one node) keeps its last value, as in a
//! `Value`: what was read for the earlier one is dropped, its anchors too.
//!
//! The parser's depth limit (serde_json parses 127 levels of arrays and objects, which keeps
//! its stack bounded) is kept for the whole text: each value is read with the room the
//! levels above it leave, and a document that would nest deeper does not parse.

use std::borrow::Cow;

use indexmap::IndexMap;
use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::diagnostic::{Anchors, Diagnostic};
use crate::model::{CommandSpec, DocumentTree};
use crate::validate::Validation;

/// Levels of arrays and objects serde_json parses (it refuses the 128th).
pub(super) const MAX_DEPTH: usize = 127;

/// From this size on, a text's root subcommands are read on two threads (when the machine
/// has two cores): below it a thread costs more than it saves.
const TWO_THREADS_MIN_BYTES: usize = 8 << 20;

#[cfg(test)]
thread_local! {
    /// Tests read texts of any size on two threads: the fewest bytes to do so at, and no check
    /// of the machine's cores.
    pub(super) static FORCE_TWO_THREADS_MIN_BYTES: std::cell::Cell<Option<usize>> =
        const { std::cell::Cell::new(None) };
}

/// Whether `text`'s root subcommands are read on two threads.
fn two_threads(text: &str) -> bool {
    #[cfg(test)]
    if let Some(min) = FORCE_TWO_THREADS_MIN_BYTES.with(std::cell::Cell::get) {
        return text.len() >= min;
    }
    text.len() >= TWO_THREADS_MIN_BYTES && crate::two_threads::available()
}

/// The text did not parse as one JSON object within the parser's depth limit (parsing it as a
/// whole value tells why, or finds it is another kind of value), or its root declares its
/// version again after its subcommands were read, selecting another schema (checking it as a
/// whole value applies the last declaration).
#[derive(Debug)]
pub(super) struct Unread;

/// Reads, checks (into `v`) and builds the document in `text`, recording in `anchors` where
/// each command's object starts. `Ok(None)` when the root has errors (reported in `v`).
///
/// # Errors
///
/// [`Unread`] when `text` is not a JSON object that parses, or its root declares another
/// version after its commands were read; `v` and `anchors` then hold whatever was found
/// before, to be discarded.
pub(super) fn read_document(
    text: &str,
    v: &mut Validation,
    anchors: &mut Anchors,
) -> Result<Option<DocumentTree>, Unread> {
    let mut r = Reader {
        text,
        v,
        anchors,
        names: Vec::new(),
        read_under: None,
        two_threads: two_threads(text),
    };
    let mut de = serde_json::Deserializer::from_str(text);
    let (mut value, commands) = RootSeed {
        r: &mut r,
        room: MAX_DEPTH,
    }
    .deserialize(&mut de)
    .and_then(|root| de.end().map(|()| root))
    .map_err(|_| Unread)?;
    let mark = r.v.mark();
    r.v.root(&mut value);
    let mut tool = read_model::<DocumentTree>(r.v, value, mark);
    let read = match commands {
        Commands::Read(_) if r.read_under != Some(r.v.schema_name()) => return Err(Unread),
        Commands::Read(read) => read,
        // Read now that the schema is known, each as it would have been in place.
        Commands::Raw(raw) if r.two_threads && raw.len() >= 2 => read_in_halves(&mut r, raw)?,
        Commands::Raw(raw) => read_raw(&mut r, raw)?,
        Commands::Other(_) => IndexMap::new(),
    };
    attach(r.v, tool.as_mut().map(|t| &mut t.commands), read);
    Ok(tool)
}

/// Reads the root's subcommands kept as text, in order, each as it would have been read in
/// place.
fn read_raw<'t>(
    r: &mut Reader<'_, '_>,
    raw: impl IntoIterator<Item = (String, &'t RawValue)>,
) -> Result<IndexMap<String, Loaded>, Unread> {
    let raw = raw.into_iter();
    let mut read = IndexMap::with_capacity(raw.size_hint().0);
    for (name, text) in raw {
        r.names.push(name);
        let mut de = serde_json::Deserializer::from_str(text.get());
        let loaded = Seed(CommandNode {
            r: &mut *r,
            room: MAX_DEPTH - 2,
        })
        .deserialize(&mut de)
        .and_then(|loaded| de.end().map(|()| loaded));
        let name = r.names.pop().unwrap_or_default();
        read.insert(name, loaded.map_err(|_| Unread)?);
    }
    Ok(read)
}

/// [`read_raw`] on two threads: the subcommands in two halves of about equal text, the second
/// read with checks and anchors of its own (the same schema and mode, nothing found yet),
/// then appended to the first's.
fn read_in_halves(
    r: &mut Reader<'_, '_>,
    mut raw: IndexMap<String, &RawValue>,
) -> Result<IndexMap<String, Loaded>, Unread> {
    let total: usize = raw.values().map(|t| t.get().len()).sum();
    let mut so_far = 0;
    let at = raw
        .values()
        .position(|t| {
            so_far += t.get().len();
            2 * so_far >= total
        })
        .map_or(1, |i| i + 1)
        .clamp(1, raw.len() - 1);
    let second = raw.split_off(at);
    let mut checks = r.v.fork();
    let mut anchors = Anchors::default();
    let text = r.text;
    let (first, later) = crate::two_threads::join(
        || read_raw(r, raw),
        || {
            let mut other = Reader {
                text,
                v: &mut checks,
                anchors: &mut anchors,
                names: Vec::new(),
                read_under: None,
                two_threads: false,
            };
            read_raw(&mut other, second)
        },
    );
    let mut read = first?;
    read.extend(later?);
    r.anchors.extend(anchors);
    r.v.append(checks.finish());
    Ok(read)
}

/// Reads a checked node into the model; nothing when its checks (reported since `mark`)
/// found an error.
pub(super) fn read_model<T: serde::de::DeserializeOwned>(
    v: &mut Validation,
    value: Value,
    mark: usize,
) -> Option<T> {
    if v.has_errors_since(mark) {
        return None;
    }
    match serde_json::from_value::<T>(value) {
        Ok(t) => Some(t),
        Err(e) => {
            // Validation accepts exactly what the model reads; reaching this is a bug in this
            // library, reported as an error rather than a panic.
            v.bug(format!(
                "document passed validation but could not be read ({e}); please report this"
            ));
            None
        }
    }
}

/// A command read, checked and built: its model (none when its own checks found an error)
/// and the diagnostics of it and its subcommands, in the order of the tree.
struct Loaded {
    model: Option<CommandSpec>,
    diagnostics: Vec<Diagnostic>,
}

/// Puts the subcommands read into their parent's model (while it exists) and their
/// diagnostics after the parent's own.
fn attach(
    v: &mut Validation,
    mut into: Option<&mut IndexMap<String, CommandSpec>>,
    read: IndexMap<String, Loaded>,
) {
    for (name, child) in read {
        v.append(child.diagnostics);
        if let (Some(into), Some(model)) = (into.as_deref_mut(), child.model) {
            into.insert(name, model);
        }
    }
}

/// What a pass over a document carries: the whole text (for anchors), the checks, the names of
/// the commands above the one being read, and the schema the root's subcommands were last
/// read under.
struct Reader<'t, 'a> {
    text: &'t str,
    v: &'a mut Validation,
    anchors: &'a mut Anchors,
    names: Vec<String>,
    read_under: Option<&'static str>,
    /// The root's subcommands are kept as text and read on two threads ([`two_threads`]).
    two_threads: bool,
}

impl Reader<'_, '_> {
    /// Forgets the anchors of what was read for the current command (`and_itself`) or below
    /// it: a later member of the same name replaces it.
    fn forget(&mut self, and_itself: bool) {
        let names = &self.names;
        let depth = names.len() + usize::from(!and_itself);
        self.anchors
            .retain(|k, _| !(k.len() >= depth && k.starts_with(names)));
    }

    /// Records where the current command's object starts, from its first member's name
    /// (`key`, when the parser lent it from the text: a name without escapes).
    fn anchor(&mut self, key: &str) {
        let base = self.text.as_ptr() as usize;
        let at = key.as_ptr() as usize;
        if at <= base || at > base + self.text.len() {
            return;
        }
        // The name's opening quote is just before it; before that, whitespace and the brace.
        let Some(before) = self.text.get(..at - base - 1) else {
            return;
        };
        let before = before.trim_end_matches([' ', '\t', '\n', '\r']);
        if before.ends_with('{') {
            self.anchors.insert(self.names.clone(), before.len() - 1);
        }
    }

    /// Checks and builds the command whose own members are `value` and whose subcommands
    /// were read into `read`.
    fn command(&mut self, mut value: Value, read: Option<IndexMap<String, Loaded>>) -> Loaded {
        let mark = self.v.mark();
        self.v.command(&self.names, &mut value);
        let mut model = read_model::<CommandSpec>(self.v, value, mark);
        if let Some(read) = read {
            attach(self.v, model.as_mut().map(|m| &mut m.commands), read);
        }
        Loaded {
            model,
            diagnostics: self.v.take_since(mark),
        }
    }
}

/// The room inside a container that had `room`, or the parser's error when there is none.
fn inner<E: serde::de::Error>(room: usize) -> Result<usize, E> {
    room.checked_sub(1)
        .ok_or_else(|| E::custom("recursion limit exceeded"))
}

/// Parses a subcommand's raw text that a later one of the same name replaced (or whose whole
/// `commands` member a later one replaced), within `room` levels, and drops it. Keeping it as
/// raw text only checked its brackets and quotes: numbers out of range, lone surrogates and
/// nesting beyond the parser's limit are found here, and make the text unparsable as they
/// would in place.
fn parse_dropped<E: serde::de::Error>(text: &RawValue, room: usize) -> Result<(), E> {
    let mut de = serde_json::Deserializer::from_str(text.get());
    bounded(room)
        .deserialize(&mut de)
        .and_then(|_| de.end())
        .map_err(E::custom)
}

/// A member name, lent from the text when it has no escapes (serde_json then hands out a
/// slice of the text: where it is tells where its object starts).
struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Cow<'de, str>;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed {
    type Value = Cow<'de, str>;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a member name")
    }
    fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(s))
    }
    fn visit_str<E>(self, s: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(s.to_owned()))
    }
    fn visit_string<E>(self, s: String) -> Result<Self::Value, E> {
        Ok(Cow::Owned(s))
    }
}

/// What a value read with some room becomes: an object by [`Node::object`], anything else
/// read as a [`Value`] (its arrays and objects within the room) and given to [`Node::other`].
/// [`Seed`] is the one visitor of every kind of node, so each JSON type is read in one place.
trait Node<'de>: Sized {
    type Out;
    /// Levels of arrays and objects the value may still open.
    fn room(&self) -> usize;
    fn object<A: MapAccess<'de>>(self, map: A) -> Result<Self::Out, A::Error>;
    fn other(self, value: Value) -> Self::Out;
}

/// Reads one value as its [`Node`] says.
struct Seed<N>(N);

impl<'de, N: Node<'de>> DeserializeSeed<'de> for Seed<N> {
    type Value = N::Out;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<N::Out, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de, N: Node<'de>> Visitor<'de> for Seed<N> {
    type Value = N::Out;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<N::Out, A::Error> {
        self.0.object(map)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<N::Out, A::Error> {
        let room = inner(self.0.room())?;
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(item) = seq.next_element_seed(bounded(room))? {
            items.push(item);
        }
        Ok(self.0.other(Value::Array(items)))
    }
    fn visit_bool<E>(self, b: bool) -> Result<N::Out, E> {
        Ok(self.0.other(Value::Bool(b)))
    }
    fn visit_i64<E>(self, n: i64) -> Result<N::Out, E> {
        Ok(self.0.other(Value::from(n)))
    }
    fn visit_u64<E>(self, n: u64) -> Result<N::Out, E> {
        Ok(self.0.other(Value::from(n)))
    }
    fn visit_f64<E>(self, n: f64) -> Result<N::Out, E> {
        Ok(self.0.other(Value::from(n)))
    }
    fn visit_str<E>(self, s: &str) -> Result<N::Out, E> {
        Ok(self.0.other(Value::String(s.to_owned())))
    }
    fn visit_string<E>(self, s: String) -> Result<N::Out, E> {
        Ok(self.0.other(Value::String(s)))
    }
    fn visit_unit<E>(self) -> Result<N::Out, E> {
        Ok(self.0.other(Value::Null))
    }
}

/// A plain [`Value`] with at most `room` levels of arrays and objects.
struct Plain {
    room: usize,
}

/// The seed of a plain value with `room` levels.
fn bounded(room: usize) -> Seed<Plain> {
    Seed(Plain { room })
}

impl<'de> Node<'de> for Plain {
    type Out = Value;
    fn room(&self) -> usize {
        self.room
    }
    fn object<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let room = inner(self.room)?;
        let mut members = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let value = map.next_value_seed(bounded(room))?;
            members.insert(key, value);
        }
        Ok(Value::Object(members))
    }
    fn other(self, value: Value) -> Value {
        value
    }
}

/// The root: its own members and its `commands`.
struct RootSeed<'r, 't, 'a> {
    r: &'r mut Reader<'t, 'a>,
    room: usize,
}

impl<'de> DeserializeSeed<'de> for RootSeed<'_, '_, '_> {
    type Value = (Value, Commands<'de>);
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for RootSeed<'_, '_, '_> {
    type Value = (Value, Commands<'de>);
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let room = inner(self.room)?;
        let mut members = Map::new();
        let mut commands = Commands::Other(Value::Null);
        while let Some(key) = map.next_key::<String>()? {
            let value = if key == "commands" {
                if members.contains_key("commands") {
                    self.r.forget(false);
                    if let Commands::Raw(replaced) = &commands {
                        for text in replaced.values() {
                            parse_dropped(text, inner(room)?)?;
                        }
                    }
                }
                // The subcommands are read in place once the version is known (or on two
                // threads, after the root).
                let defer = match members.get("atip") {
                    _ if self.r.two_threads => true,
                    Some(atip) => {
                        self.r.v.select_schema(atip);
                        self.r.read_under = Some(self.r.v.schema_name());
                        false
                    }
                    None => true,
                };
                commands = map.next_value_seed(Seed(CommandsNode {
                    r: &mut *self.r,
                    room,
                    defer,
                }))?;
                commands.value()
            } else {
                map.next_value_seed(bounded(room))?
            };
            members.insert(key, value);
        }
        Ok((Value::Object(members), commands))
    }
}

/// A node's `commands` member.
enum Commands<'t> {
    /// An object whose subcommands were read in place.
    Read(IndexMap<String, Loaded>),
    /// An object whose subcommands are kept as text, to be read later; a name given twice
    /// keeps its first place and its last value, as in a `Value`.
    Raw(IndexMap<String, &'t RawValue>),
    /// Anything else, for validation to report.
    Other(Value),
}

impl Commands<'_> {
    /// What the node's value holds in place of the member.
    fn value(&mut self) -> Value {
        match self {
            Commands::Read(_) | Commands::Raw(_) => Value::Object(Map::new()),
            Commands::Other(value) => std::mem::take(value),
        }
    }
}

/// A `commands` member: its subcommands read in place, or kept as text (`defer`).
struct CommandsNode<'r, 't, 'a> {
    r: &'r mut Reader<'t, 'a>,
    room: usize,
    defer: bool,
}

impl<'de> Node<'de> for CommandsNode<'_, '_, '_> {
    type Out = Commands<'de>;
    fn room(&self) -> usize {
        self.room
    }
    fn object<A: MapAccess<'de>>(self, mut map: A) -> Result<Commands<'de>, A::Error> {
        let room = inner(self.room)?;
        if self.defer {
            let mut raw = IndexMap::new();
            while let Some((name, text)) = map.next_entry::<String, &'de RawValue>()? {
                if let Some(replaced) = raw.insert(name, text) {
                    parse_dropped(replaced, room)?;
                }
            }
            return Ok(Commands::Raw(raw));
        }
        let r = self.r;
        let mut read = IndexMap::new();
        while let Some(name) = map.next_key::<String>()? {
            let again = read.contains_key(&name);
            r.names.push(name);
            if again {
                r.forget(true);
            }
            let loaded = map.next_value_seed(Seed(CommandNode { r: &mut *r, room }));
            let name = r.names.pop().unwrap_or_default();
            read.insert(name, loaded?);
        }
        Ok(Commands::Read(read))
    }
    fn other(self, value: Value) -> Commands<'de> {
        Commands::Other(value)
    }
}

/// A command, at the end of [`Reader::names`]: read, checked and built. A command that is
/// not an object is checked as its value (validation reports it).
struct CommandNode<'r, 't, 'a> {
    r: &'r mut Reader<'t, 'a>,
    room: usize,
}

impl<'de> Node<'de> for CommandNode<'_, '_, '_> {
    type Out = Loaded;
    fn room(&self) -> usize {
        self.room
    }
    fn object<A: MapAccess<'de>>(self, mut map: A) -> Result<Loaded, A::Error> {
        let room = inner(self.room)?;
        let r = self.r;
        let mut members = Map::new();
        let mut read = None;
        let mut first = true;
        while let Some(key) = map.next_key_seed(KeySeed)? {
            if std::mem::take(&mut first) {
                if let Cow::Borrowed(name) = key {
                    r.anchor(name);
                }
            }
            let value = if key == "commands" {
                if members.contains_key("commands") {
                    r.forget(false);
                }
                let mut commands = map.next_value_seed(Seed(CommandsNode {
                    r: &mut *r,
                    room,
                    defer: false,
                }))?;
                let value = commands.value();
                read = match commands {
                    Commands::Read(children) => Some(children),
                    _ => None,
                };
                value
            } else {
                map.next_value_seed(bounded(room))?
            };
            members.insert(key.into_owned(), value);
        }
        Ok(r.command(Value::Object(members), read))
    }
    fn other(self, value: Value) -> Loaded {
        self.r.command(value, None)
    }
}

#[cfg(test)]
mod tests;
