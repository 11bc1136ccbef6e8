//! Diagnostics: what is wrong with a document, where (JSON path and line:column) and how bad.

use std::collections::HashMap;
use std::fmt;

use indexmap::IndexMap;

use serde_json::Value;

/// One step of a JSON path: an object key or an array index.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum PathSegment {
    /// An object member.
    Key(String),
    /// An array element (0-based).
    Index(usize),
}

/// A location inside a JSON document, rendered as `$.commands.pr.options[2].type`.
///
/// Keys that are not plain identifiers are written in bracket form: `$.commands['gpg-key']`,
/// `$.commands['']`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct JsonPath(pub Vec<PathSegment>);

impl JsonPath {
    /// The document root, `$`.
    pub fn root() -> Self {
        JsonPath(Vec::new())
    }

    /// This path extended by an object key.
    pub fn key(&self, key: &str) -> Self {
        let mut p = self.clone();
        p.0.push(PathSegment::Key(key.to_owned()));
        p
    }

    /// This path extended by an array index.
    pub fn index(&self, index: usize) -> Self {
        let mut p = self.clone();
        p.0.push(PathSegment::Index(index));
        p
    }
}

impl fmt::Display for JsonPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("$")?;
        for seg in &self.0 {
            match seg {
                PathSegment::Index(i) => write!(f, "[{i}]")?,
                PathSegment::Key(k) if is_plain_key(k) => write!(f, ".{k}")?,
                PathSegment::Key(k) => {
                    f.write_str("['")?;
                    for c in k.chars() {
                        match c {
                            '\'' => f.write_str("\\'")?,
                            '\\' => f.write_str("\\\\")?,
                            c if c.is_control() => write!(f, "\\u{{{:x}}}", c as u32)?,
                            c => write!(f, "{c}")?,
                        }
                    }
                    f.write_str("']")?;
                }
            }
        }
        Ok(())
    }
}

fn is_plain_key(k: &str) -> bool {
    let mut chars = k.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// How serious a [`Diagnostic`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// Usable, but worth a look (unknown field, shadowed option, ignored value).
    Warning,
    /// The document cannot be used as is.
    Error,
}

/// A 1-based line and column (column counted in characters) in the source text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Location {
    /// Line, starting at 1.
    pub line: usize,
    /// Column in characters, starting at 1.
    pub column: usize,
}

/// One finding about a document.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// Where in the document.
    pub path: JsonPath,
    /// What is wrong and what was expected.
    pub message: String,
    /// Line and column in the source text, when the source text is known.
    pub location: Option<Location>,
}

impl Diagnostic {
    /// An error at `path`.
    pub fn error(path: JsonPath, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            path,
            message: message.into(),
            location: None,
        }
    }

    /// A warning at `path`.
    pub fn warning(path: JsonPath, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            path,
            message: message.into(),
            location: None,
        }
    }

    /// Whether this is an error.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// Renders `file:line:col: $.path: message` (errors) or
    /// `file:line:col: warning: $.path: message` (warnings); `file` and `line:col` are left
    /// out when unknown.
    pub fn render(&self, file: Option<&str>) -> String {
        let mut out = String::new();
        if let Some(file) = file {
            out.push_str(file);
            out.push(':');
        }
        if let Some(loc) = self.location {
            out.push_str(&format!("{}:{}:", loc.line, loc.column));
        }
        if !out.is_empty() {
            out.push(' ');
        }
        if self.severity == Severity::Warning {
            out.push_str("warning: ");
        }
        out.push_str(&format!("{}: {}", self.path, self.message));
        out
    }
}

impl Diagnostic {
    /// The diagnostic in rustc's layout, for build output:
    ///
    /// ```text
    /// error: expected a string, found number 42
    ///   --> atip/gh.json:12:7
    ///    = note: at $.commands.pr.options[0].name
    /// ```
    pub fn render_rustc(&self, file: Option<&str>) -> String {
        let level = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        let mut out = format!("{level}: {}\n", self.message);
        let place = match (file, self.location) {
            (Some(f), Some(l)) => Some(format!("{f}:{}:{}", l.line, l.column)),
            (Some(f), None) => Some(f.to_owned()),
            (None, Some(l)) => Some(format!("{}:{}", l.line, l.column)),
            (None, None) => None,
        };
        if let Some(place) = place {
            out.push_str(&format!("  --> {place}\n"));
        }
        out.push_str(&format!("   = note: at {}\n", self.path));
        out
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render(None))
    }
}

/// A document that could not be used: every error found, plus the warnings.
///
/// `Display` prints one line per diagnostic, errors first, in the form
/// `file:line:col: $.path: message`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadError {
    /// The file name the document came from, when known.
    pub file: Option<String>,
    /// All diagnostics, errors and warnings, in document order.
    pub diagnostics: Vec<Diagnostic>,
}

impl LoadError {
    /// The errors only.
    pub fn errors(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics.iter().filter(|d| d.is_error())
    }

    /// The warnings only.
    pub fn warnings(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics.iter().filter(|d| !d.is_error())
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for d in self.errors().chain(self.warnings()) {
            if !first {
                f.write_str("\n")?;
            }
            first = false;
            f.write_str(&d.render(self.file.as_deref()))?;
        }
        Ok(())
    }
}

impl std::error::Error for LoadError {}

/// Fills in [`Diagnostic::location`] for every diagnostic whose JSON path can be found in
/// `text` (the path's value; for a missing member, the object that lacks it), then orders
/// them by location.
pub fn locate(text: &str, diagnostics: &mut [Diagnostic]) {
    locate_anchored(text, diagnostics, &Anchors::default());
}

/// Where each command's object starts in a document's text (the byte offset of its `{`), by
/// its path of names (`["pr", "create"]`), as loading finds them; foldhash, not SipHash: a
/// key per command.
pub(crate) type Anchors = foldhash::HashMap<Vec<String>, usize>;

/// [`locate`], starting the search for a diagnostic below a command at that command's object
/// when `anchors` has it: a warning about `$.commands.s3api.commands.x.options[5]` reads the
/// object of `s3api x`, not the document and every level above (four times the text of a
/// document with services, each read as a map of raw members).
pub(crate) fn locate_anchored(text: &str, diagnostics: &mut [Diagnostic], anchors: &Anchors) {
    if diagnostics.iter().all(|d| d.location.is_some()) {
        return;
    }
    // The wanted paths as trees, one per node they start from, so that each container along
    // them is read once.
    let mut want = Want::default();
    let mut below: HashMap<usize, Want> = HashMap::new();
    for (i, d) in diagnostics.iter().enumerate() {
        if d.location.is_some() {
            continue;
        }
        match deepest_anchor(&d.path.0, anchors) {
            Some((depth, start)) => below
                .entry(start)
                .or_default()
                .insert(&d.path.0[depth..], i),
            None => want.insert(&d.path.0, i),
        }
    }
    let mut offsets = vec![None; diagnostics.len()];
    let start = text.len() - text.trim_start().len();
    walk(text, &text[start..], &want, &mut offsets);
    for (from, want) in &below {
        if let Some(node) = text.get(*from..) {
            walk(text, node, want, &mut offsets);
        }
    }
    // Line and column of every offset in one pass over the text, in offset order.
    let mut order: Vec<(usize, usize)> = offsets
        .iter()
        .enumerate()
        .filter_map(|(i, o)| o.map(|o| (o, i)))
        .collect();
    order.sort_unstable();
    let (mut line, mut line_start, mut scanned) = (1, 0, 0);
    // Characters of the current line counted so far, up to byte `counted_to`: a document on
    // one line (minified) is counted once, not once per diagnostic.
    let (mut counted, mut counted_to) = (0, 0);
    for (offset, i) in order {
        let offset = offset.min(text.len());
        let between = &text.as_bytes()[scanned..offset];
        // Counted a whole slice at a time, several bytes per step (`bytecount`): the text can
        // be tens of megabytes.
        line += bytecount::count(between, b'\n');
        if let Some(k) = between.iter().rposition(|&b| b == b'\n') {
            line_start = scanned + k + 1;
        }
        scanned = offset;
        if counted_to < line_start {
            (counted, counted_to) = (0, line_start);
        }
        counted += text
            .get(counted_to..offset)
            .map_or(offset - counted_to, |s| bytecount::num_chars(s.as_bytes()));
        counted_to = offset;
        diagnostics[i].location = Some(Location {
            line,
            column: counted + 1,
        });
    }
    sort_by_location(diagnostics);
}

/// The deepest command on `path` (`$.commands.a.commands.b…`) whose object `anchors` has:
/// how many segments lead to it, and where it starts.
fn deepest_anchor(path: &[PathSegment], anchors: &Anchors) -> Option<(usize, usize)> {
    if anchors.is_empty() {
        return None;
    }
    let mut names = Vec::new();
    let mut best = None;
    let mut depth = 0;
    while let [PathSegment::Key(commands), PathSegment::Key(name), ..] = &path[depth..] {
        if commands != "commands" {
            break;
        }
        names.push(name.clone());
        let Some(&start) = anchors.get(&names) else {
            break;
        };
        depth += 2;
        best = Some((depth, start));
    }
    best
}

/// Diagnostics wanting a location, by the path below one node.
#[derive(Default)]
struct Want<'p> {
    /// Diagnostics whose path ends here.
    here: Vec<usize>,
    children: HashMap<&'p PathSegment, Want<'p>>,
}

impl<'p> Want<'p> {
    fn insert(&mut self, path: &'p [PathSegment], diagnostic: usize) {
        match path.split_first() {
            None => self.here.push(diagnostic),
            Some((first, rest)) => self
                .children
                .entry(first)
                .or_default()
                .insert(rest, diagnostic),
        }
    }

    /// Every diagnostic at or below this node.
    fn all(&self, out: &mut Vec<usize>) {
        out.extend(&self.here);
        for c in self.children.values() {
            c.all(out);
        }
    }
}

/// Resolves the offsets of `want` inside `node`, a slice of `text` that starts with one JSON
/// value (what follows it is not read): a wanted path that leads nowhere gets the deepest
/// node that exists. Each container along the paths is read once, as raw members
/// (`serde_json::value::RawValue`), without building values: locating diagnostics never
/// parses the whole document into a tree.
fn walk(text: &str, node: &str, want: &Want<'_>, offsets: &mut [Option<usize>]) {
    use serde_json::value::RawValue;
    let at = node.as_ptr() as usize - text.as_ptr() as usize;
    for &i in &want.here {
        offsets[i] = Some(at);
    }
    if want.children.is_empty() {
        return;
    }
    let mut missing = Vec::new();
    match node.as_bytes().first() {
        Some(b'{') => match first_value::<IndexMap<String, &RawValue>>(node) {
            Ok(members) => {
                for (seg, child) in &want.children {
                    match seg {
                        PathSegment::Key(k) => match members.get(k.as_str()) {
                            Some(v) => walk(text, v.get(), child, offsets),
                            None => child.all(&mut missing),
                        },
                        PathSegment::Index(_) => child.all(&mut missing),
                    }
                }
            }
            Err(_) => want.children.values().for_each(|c| c.all(&mut missing)),
        },
        Some(b'[') => match first_value::<Vec<&RawValue>>(node) {
            Ok(items) => {
                for (seg, child) in &want.children {
                    match seg {
                        PathSegment::Index(i) => match items.get(*i) {
                            Some(v) => walk(text, v.get(), child, offsets),
                            None => child.all(&mut missing),
                        },
                        PathSegment::Key(_) => child.all(&mut missing),
                    }
                }
            }
            Err(_) => want.children.values().for_each(|c| c.all(&mut missing)),
        },
        _ => want.children.values().for_each(|c| c.all(&mut missing)),
    }
    for i in missing {
        offsets[i] = Some(at);
    }
}

/// The JSON value `text` starts with.
fn first_value<'t, T: serde::Deserialize<'t>>(text: &'t str) -> serde_json::Result<T> {
    T::deserialize(&mut serde_json::Deserializer::from_str(text))
}

/// Orders diagnostics by line and column (stable; unlocated ones last).
pub fn sort_by_location(diagnostics: &mut [Diagnostic]) {
    diagnostics.sort_by_key(|d| {
        d.location
            .map_or((usize::MAX, usize::MAX), |l| (l.line, l.column))
    });
}

/// The candidate nearest to `wanted`, for a "did you mean" hint: the same name up to case and
/// `-`/`_`, else the closest by edit distance (Damerau–Levenshtein, from `strsim`) when it is
/// within a quarter of the name's length (at least 1, at most 2 edits). `None` when nothing is
/// that close.
pub fn nearest<'a, I, S>(wanted: &str, candidates: I) -> Option<&'a str>
where
    I: IntoIterator<Item = &'a S>,
    S: AsRef<str> + ?Sized + 'a,
{
    let norm = |s: &str| s.to_ascii_lowercase().replace('-', "_");
    let wanted_norm = norm(wanted);
    let limit = (wanted.chars().count() / 4).clamp(1, 2);
    let mut best: Option<(usize, &'a str)> = None;
    for c in candidates {
        let c = c.as_ref();
        let distance = if norm(c) == wanted_norm {
            0
        } else {
            strsim::damerau_levenshtein(&wanted_norm, &norm(c))
        };
        if distance <= limit && best.is_none_or(|(d, _)| distance < d) {
            best = Some((distance, c));
        }
    }
    best.map(|(_, c)| c)
}

/// For a file that does not exist: the file in the same directory whose name is nearest
/// ([`nearest`]), when there is one.
pub fn nearest_file(path: &std::path::Path) -> Option<std::path::PathBuf> {
    if path.exists() {
        return None;
    }
    let name = path.file_name()?.to_str()?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => std::path::Path::new("."),
    };
    let names: Vec<String> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .collect();
    let near = nearest(name, &names)?;
    Some(path.with_file_name(near))
}

/// A short description of a JSON value for messages (`string "yes"`, `number 1`, `an
/// array`); strings are quoted and cut to 60 characters.
pub fn describe(v: &Value) -> String {
    match v {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => format!("boolean {b}"),
        Value::Number(n) => format!("number {n}"),
        Value::String(s) => format!("string {}", quote(s)),
        Value::Array(_) => "an array".to_owned(),
        Value::Object(_) => "an object".to_owned(),
    }
}

/// Quotes a value for a message, cut to 60 characters.
pub(crate) fn quote(s: &str) -> String {
    let mut cut: String = s.chars().take(60).collect();
    if cut.len() < s.len() {
        cut.push('…');
    }
    format!("{cut:?}")
}

/// Items as a quoted, comma-separated list for messages: `"a", "b"`.
pub(crate) fn list(items: &[&str]) -> String {
    items
        .iter()
        .map(|s| format!("\"{s}\""))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    #[test]
    fn nearest_names_suggest_typos_and_spellings() {
        let names = ["git_status", "git_stash_pop", "git_log", "gh_pr_create"];
        assert_eq!(super::nearest("git_stauts", &names), Some("git_status"));
        assert_eq!(super::nearest("GIT-STATUS", &names), Some("git_status"));
        assert_eq!(super::nearest("git_lgo", &names), Some("git_log"));
        assert_eq!(super::nearest("rm_rf", &names), None);
        assert_eq!(super::nearest("x", &names), None);
    }

    use super::*;

    #[test]
    fn renders_paths_with_brackets_for_odd_keys() {
        let p = JsonPath::root()
            .key("commands")
            .key("pr")
            .key("commands")
            .key("create")
            .key("options")
            .index(2)
            .key("type");
        assert_eq!(
            p.to_string(),
            "$.commands.pr.commands.create.options[2].type"
        );
        let p = JsonPath::root()
            .key("commands")
            .key("gpg-key")
            .key("commands")
            .key("");
        assert_eq!(p.to_string(), "$.commands['gpg-key'].commands['']");
        assert_eq!(JsonPath::root().key("it's").to_string(), r"$['it\'s']");
    }

    #[test]
    fn locates_values_and_missing_members() {
        let text = "{\n  \"a\": {\n    \"b\": [1, {\"c\": true}]\n  }\n}";
        let mut ds = vec![
            Diagnostic::error(JsonPath::root().key("a").key("b").index(1).key("c"), "x"),
            Diagnostic::error(JsonPath::root().key("a").key("missing"), "y"),
        ];
        locate(text, &mut ds);
        // Sorted by location: the missing member is reported at the object that lacks it.
        assert_eq!(ds[0].message, "y");
        assert_eq!(ds[0].location, Some(Location { line: 2, column: 8 }));
        assert_eq!(
            ds[1].location,
            Some(Location {
                line: 3,
                column: 20
            })
        );
    }

    #[test]
    fn columns_on_one_line_count_characters_once_and_right() {
        // A minified document: every diagnostic on line 1, after multi-byte text.
        let text = r#"{"é": "ü€", "a": 1, "b": [2, "ß", 3], "c": {"d": 4}}"#;
        let mut ds = vec![
            Diagnostic::error(JsonPath::root().key("c").key("d"), "d"),
            Diagnostic::error(JsonPath::root().key("a"), "a"),
            Diagnostic::error(JsonPath::root().key("b").index(2), "b2"),
            Diagnostic::error(JsonPath::root().key("b").index(1), "b1"),
        ];
        locate(text, &mut ds);
        let column = |value: &str| {
            let at = text.find(value).unwrap();
            text[..at].chars().count() + 1
        };
        let got: Vec<(&str, usize)> = ds
            .iter()
            .map(|d| (d.message.as_str(), d.location.unwrap().column))
            .collect();
        assert_eq!(
            got,
            [
                ("a", column("1,")),
                ("b1", column(r#""ß""#)),
                ("b2", column("3]")),
                ("d", column("4}")),
            ]
        );
        assert!(ds.iter().all(|d| d.location.unwrap().line == 1));
    }

    #[test]
    fn render_formats() {
        let mut d = Diagnostic::error(JsonPath::root().key("name"), "expected a string");
        assert_eq!(d.render(None), "$.name: expected a string");
        d.location = Some(Location { line: 3, column: 7 });
        assert_eq!(
            d.render(Some("gh.json")),
            "gh.json:3:7: $.name: expected a string"
        );
        d.severity = Severity::Warning;
        assert_eq!(
            d.render(Some("gh.json")),
            "gh.json:3:7: warning: $.name: expected a string"
        );
    }

    #[test]
    fn rustc_layout_names_file_position_and_path() {
        let mut d = Diagnostic::error(
            JsonPath::root().key("commands").key("pr"),
            "expected an object, found number 3",
        );
        d.location = Some(Location { line: 4, column: 9 });
        assert_eq!(
            d.render_rustc(Some("atip/gh.json")),
            "error: expected an object, found number 3\n  --> atip/gh.json:4:9\n   = note: at $.commands.pr\n"
        );
    }
}
