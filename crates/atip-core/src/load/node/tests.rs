use super::*;
use crate::validate::Mode;

/// `levels` nested arrays around `1`.
fn nested(levels: usize) -> String {
    format!("{}1{}", "[".repeat(levels), "]".repeat(levels))
}

/// What reading `text` one node at a time gives: the model (when nothing is an error), the
/// diagnostics, the anchors.
fn by_node(text: &str, mode: Mode) -> (Option<DocumentTree>, Vec<Diagnostic>, Anchors) {
    let mut v = Validation::new(mode);
    let mut anchors = Anchors::default();
    let tool = read_document(text, &mut v, &mut anchors).expect("an object that parses");
    let diagnostics = v.finish();
    let tool = tool.filter(|_| !diagnostics.iter().any(Diagnostic::is_error));
    (tool, diagnostics, anchors)
}

/// What checking `text` as one whole value gives: the model (when nothing is an error) and
/// the diagnostics.
fn whole(text: &str, mode: Mode) -> (Option<DocumentTree>, Vec<Diagnostic>) {
    let mut value: Value = serde_json::from_str(text).expect("JSON");
    let mut v = Validation::new(mode);
    v.root(&mut value);
    let tool = read_model::<DocumentTree>(&mut v, value, 0);
    (tool, v.finish())
}

const HEAD: &str = r#""atip": "0.6", "name": "t", "version": "1", "description": "d""#;

/// A subcommand a later one of the same name replaces, or a `commands` member a later one
/// replaces, is text like any other: when it does not parse (a number out of range, a lone
/// surrogate, nesting beyond the parser's limit), the document does not load — whether the
/// subcommands are read in place, kept as text until the root's version is known, or read on
/// two threads.
#[test]
fn replaced_text_that_does_not_parse_keeps_the_document_from_loading() {
    let deep = format!("{{\"description\": \"x\", \"x-n\": {}}}", nested(130));
    let faults = [
        r#"{"description": "x", "x-n": 1e400}"#.to_owned(),
        r#"{"description": "x", "x-n": "\udc00"}"#.to_owned(),
        deep,
    ];
    for fault in &faults {
        let good = r#"{"description": "y"}"#;
        let twice = format!(r#""commands": {{"a": {fault}, "b": {good}, "a": {good}}}"#);
        let members_twice = format!(r#""commands": {{"a": {fault}}}, "commands": {{"a": {good}}}"#);
        for commands in [&twice, &members_twice] {
            for text in [
                format!("{{{HEAD}, {commands}}}"),
                format!(
                    r#"{{{commands}, "name": "t", "version": "1", "description": "d", "atip": "0.6"}}"#
                ),
            ] {
                for force in [None, Some(0)] {
                    super::FORCE_TWO_THREADS_MIN_BYTES.with(|f| f.set(force));
                    let loaded = crate::load(&text, &crate::LoadOptions::lenient());
                    super::FORCE_TWO_THREADS_MIN_BYTES.with(|f| f.set(None));
                    let error = loaded.expect_err(&text);
                    assert!(
                        error.diagnostics[0].message.starts_with("invalid JSON"),
                        "{text}: {:?}",
                        error.diagnostics
                    );
                }
            }
        }
    }
}

/// At the parser's depth limit, a replaced subcommand is refused exactly when the whole text
/// is, on every path: in place, kept as text until the version is known, on two threads.
#[test]
fn replaced_text_nests_as_deep_as_the_whole_text_allows() {
    let mut outcomes = std::collections::BTreeSet::new();
    for levels in [MAX_DEPTH - 4, MAX_DEPTH - 3, MAX_DEPTH - 2] {
        let fault = format!("{{\"description\": \"x\", \"x-n\": {}}}", nested(levels));
        let commands = format!(r#""commands": {{"a": {fault}, "a": {{"description": "y"}}}}"#);
        for text in [
            format!("{{{HEAD}, {commands}}}"),
            format!(
                r#"{{{commands}, "name": "t", "version": "1", "description": "d", "atip": "0.6"}}"#
            ),
        ] {
            let parses = serde_json::from_str::<Value>(&text).is_ok();
            outcomes.insert(parses);
            for force in [None, Some(0)] {
                super::FORCE_TWO_THREADS_MIN_BYTES.with(|f| f.set(force));
                let loaded = crate::load(&text, &crate::LoadOptions::lenient());
                super::FORCE_TWO_THREADS_MIN_BYTES.with(|f| f.set(None));
                assert_eq!(loaded.is_ok(), parses, "{levels} levels, {force:?}: {text}");
            }
        }
    }
    assert_eq!(outcomes.len(), 2, "the levels straddle the limit");
}

#[test]
fn a_value_nests_as_deep_as_serde_json_allows_and_no_deeper() {
    for levels in [0, 1, 50, MAX_DEPTH - 1, MAX_DEPTH, MAX_DEPTH + 1, 400] {
        let text = nested(levels);
        let whole = serde_json::from_str::<Value>(&text);
        let mut de = serde_json::Deserializer::from_str(&text);
        let ours = bounded(MAX_DEPTH).deserialize(&mut de);
        assert_eq!(ours.is_ok(), whole.is_ok(), "{levels} levels");
        if let (Ok(ours), Ok(whole)) = (ours, whole) {
            assert_eq!(ours, whole);
        }
    }
}

#[test]
fn a_document_reads_exactly_when_the_parser_takes_it_whole() {
    // A member of a command two levels down, nested around the parser's limit, with the
    // root's version before and after its commands (read in place, and deferred).
    for atip_first in [true, false] {
        for levels in [117, 118, 119, 120, 121, 122] {
            let leaf = format!(r#"{{"description": "l", "x-deep": {}}}"#, nested(levels));
            let commands = format!(
                r#""commands": {{"s": {{"description": "s", "commands": {{"l": {leaf}}}}}}}"#
            );
            let text = if atip_first {
                format!("{{{HEAD}, {commands}}}")
            } else {
                format!(
                    r#"{{{commands}, "name": "t", "version": "1", "description": "d", "atip": "0.6"}}"#
                )
            };
            let parses = serde_json::from_str::<Value>(&text).is_ok();
            let mut v = Validation::new(Mode::Strict);
            let read = read_document(&text, &mut v, &mut Anchors::default());
            assert_eq!(
                read.is_ok(),
                parses,
                "{levels} levels, atip first: {atip_first}"
            );
        }
    }
}

/// Documents whose nodes come in every order the reader treats differently: `commands`
/// before a node's other members, the version after the root's commands, a command name
/// given twice, a `commands` member given twice, commands that are not objects, members of
/// another schema version, lenient drops.
fn documents() -> Vec<String> {
    let tree = r#""commands": {
        "a": {"commands": {"b": {"description": 5, "bogus": 1}, "c": "not an object"},
              "description": 7, "odd": true},
        "x": {"description": "first", "examples": [1], "homepage": 3},
        "y": {"description": "y", "options": [
            {"name": "tag", "flags": ["--tag"], "type": "string", "description": "t", "variadic": true}]},
        "x": {"description": "last", "examples": ["x --go", 2]},
        "z": {"commands": {"q": {"description": "q"}}, "description": "z", "commands": [1]},
        "w": {"description": "w", "commands": {"v": {"description": "v", "commands": {"u": {"description": 1}}}}}
    }"#;
    let mut out = Vec::new();
    for version in ["\"0.4\"", "{\"version\": \"0.6\"}", "\"9.9\""] {
        let rest = r#""name": "t", "version": "1", "description": "d", "homepage": 5"#;
        out.push(format!(r#"{{"atip": {version}, {rest}, {tree}}}"#));
        out.push(format!(r#"{{{tree}, {rest}, "atip": {version}}}"#));
        out.push(format!(r#"{{{rest}, {tree}}}"#));
    }
    out.push(format!(r#"{{{HEAD}, "commands": [1, 2]}}"#));
    out.push(format!(
        r#"{{{HEAD}, "commands": {{"a": {{"description": "a"}}}}, "commands": 3}}"#
    ));
    out.push(format!(
        r#"{{{HEAD}, "commands": {{"a": {{"description": "a", "commands": {{}}}}}}}}"#
    ));
    out
}

/// Diagnostics in one order whatever order they were found in (a node checked whole reports
/// its members after `commands` after its subcommands'; located, both are in document order).
fn sorted(mut diagnostics: Vec<Diagnostic>) -> Vec<Diagnostic> {
    diagnostics.sort_by_cached_key(|d| (d.path.to_string(), d.message.clone()));
    diagnostics
}

#[test]
fn reading_node_by_node_finds_what_checking_the_whole_value_finds() {
    for text in documents() {
        for mode in [Mode::Strict, Mode::Lenient] {
            let (tool, diagnostics, _) = by_node(&text, mode);
            let (whole_tool, whole_diagnostics) = whole(&text, mode);
            assert_eq!(
                sorted(diagnostics),
                sorted(whole_diagnostics),
                "{mode:?}: {text}"
            );
            assert_eq!(tool, whole_tool, "{mode:?}: {text}");
        }
    }
    // The model too, where a document has no error.
    let text = format!(
        r#"{{"commands": {{"a": {{"commands": {{"b": {{"description": "b", "x-n": 1}}}},
            "description": "a", "examples": ["a b", 3]}}, "a2": {{"description": "a2"}}}}, {HEAD}}}"#
    );
    for mode in [Mode::Strict, Mode::Lenient] {
        let (tool, diagnostics, _) = by_node(&text, mode);
        let (whole_tool, whole_diagnostics) = whole(&text, mode);
        assert_eq!(sorted(diagnostics), sorted(whole_diagnostics), "{mode:?}");
        assert_eq!(tool, whole_tool, "{mode:?}");
        assert_eq!(tool.is_some(), mode == Mode::Lenient);
    }
}

/// Checks that every anchor of `text` starts the value the whole `Value` has at its path
/// (a name given twice: the last one).
fn anchors_start_their_objects(text: &str) -> Anchors {
    let (_, _, anchors) = by_node(text, Mode::Lenient);
    let value: Value = serde_json::from_str(text).unwrap();
    for (names, &start) in &anchors {
        let mut expected = &value;
        for name in names {
            expected = &expected["commands"][name];
        }
        let mut de = serde_json::Deserializer::from_str(&text[start..]);
        let found = <Value as serde::Deserialize>::deserialize(&mut de).unwrap();
        assert_eq!(&found, expected, "{names:?} in {text}");
    }
    anchors
}

#[test]
fn a_name_given_again_takes_the_place_of_the_first_and_of_its_anchors() {
    // A command, or a node's `commands`, given again as something without a first name to
    // anchor it by (an escaped name, no member, not an object).
    for again in [r#"{"\u0064escription": 5}"#, "{}", "5"] {
        let text = format!(
            "{{{HEAD},\n\"commands\": {{\n\"a\": {{\"description\": \"first\", \"commands\": {{\"b\": {{\"description\": \"b\"}}}}}},\n\"a\": {again}}}}}"
        );
        let anchors = anchors_start_their_objects(&text);
        assert!(anchors.is_empty(), "{again}: {anchors:?}");
        let text = format!(
            "{{{HEAD},\n\"commands\": {{\"a\": {{\"description\": \"a\", \"commands\": {{\"b\": {{\"description\": \"b\"}}}},\n\"commands\": {{\"b\": {again}}}}}}}}}"
        );
        let anchors = anchors_start_their_objects(&text);
        assert_eq!(anchors.len(), 1, "{again}: {anchors:?}");
        // The root's `commands` given again.
        let text = format!(
            "{{{HEAD},\n\"commands\": {{\"a\": {{\"description\": \"a\"}}}},\n\"commands\": {{\"a\": {again}}}}}"
        );
        assert!(anchors_start_their_objects(&text).is_empty(), "{again}");
    }
}

/// The schema of the root's last `atip` applies to everything, as when the document is
/// checked as one value: a root that declares another version after its subcommands were read
/// is left to that path, whose result `load` gives.
#[test]
fn a_version_declared_again_after_the_commands_is_checked_as_one_value() {
    let variadic = r#""commands": {"a": {"description": "a", "options": [
        {"name": "tag", "flags": ["--tag"], "type": "string", "description": "t", "variadic": "yes"}]}}"#;
    let essence = |d: &Diagnostic| (d.severity, d.path.to_string(), d.message.clone());
    for (first, last, one_pass) in [
        ("0.4", "0.6", false),
        ("0.6", "0.4", false),
        ("9.9", "0.4", false),
        ("0.4", "0.4", true),
        ("0.5", "0.6", true),
    ] {
        let text = format!(
            r#"{{"atip": "{first}", "name": "t", "version": "1", "description": "d", {variadic}, "atip": "{last}"}}"#
        );
        let mut v = Validation::new(Mode::Strict);
        let read = read_document(&text, &mut v, &mut Anchors::default());
        assert_eq!(read.is_ok(), one_pass, "{first} then {last}");
        let (tool, diagnostics) = whole(&text, Mode::Strict);
        let mut expected: Vec<_> = diagnostics.iter().map(essence).collect();
        let (loaded, mut got): (_, Vec<_>) =
            match crate::load::load(&text, &crate::LoadOptions::strict()) {
                Ok(t) => (Some(t.tool), t.warnings.iter().map(essence).collect()),
                Err(e) => (None, e.diagnostics.iter().map(essence).collect()),
            };
        expected.sort();
        got.sort();
        assert_eq!(got, expected, "{first} then {last}");
        assert_eq!(loaded, tool, "{first} then {last}");
    }
}

#[test]
fn each_command_is_anchored_at_its_object() {
    let text = format!(
        "{{{HEAD},\n \"commands\": {{\"a\": \n\t{{ \"description\": \"a\", \"commands\": {{\"b\": {{\"description\": \"b\"}}, \
         \"c\":{{}}, \"e\": {{\"d\\u0065scription\": \"e\"}}}}}}}}}}"
    );
    let anchors = anchors_start_their_objects(&text);
    let mut names: Vec<&Vec<String>> = anchors.keys().collect();
    names.sort();
    // `c` has no member to find it by; `e`'s first name has an escape, so the parser copied
    // it (its diagnostics are located from `a`).
    assert_eq!(
        names,
        [&vec!["a".to_string()], &vec!["a".into(), "b".into()]]
    );
}

/// Random documents in the shapes the reader treats differently — members in any order, names
/// given twice, names with escapes, `commands` that are not objects, versions before, after
/// and around the commands, known and unknown — against checking each as one `Value`.
mod differential {
    use super::*;
    use crate::diagnostic::Severity;
    use crate::{load, Document, FlattenOptions, LoadOptions};
    use proptest::prelude::*;

    /// A member name, sometimes with its first letter escaped.
    fn name(key: &'static str) -> impl Strategy<Value = String> {
        prop_oneof![
            4 => Just(format!("\"{key}\"")),
            1 => Just(format!("\"\\u{:04x}{}\"", key.as_bytes()[0], &key[1..])),
        ]
    }

    /// An object of `members`, joined with whitespace of any kind.
    fn object(members: Vec<(String, String)>, space: &str) -> String {
        let inner: Vec<String> = members
            .into_iter()
            .map(|(k, v)| format!("{k}:{space}{v}"))
            .collect();
        format!("{{{space}{}{space}}}", inner.join(&format!(",{space}")))
    }

    fn space() -> impl Strategy<Value = String> {
        prop_oneof![
            Just(" ".to_owned()),
            Just("\n".to_owned()),
            Just("\t \n  ".to_owned())
        ]
    }

    fn option() -> impl Strategy<Value = String> {
        let member = prop_oneof![
            (name("name"), prop_oneof![Just("\"tag\""), Just("5")]),
            (
                name("flags"),
                prop_oneof![Just("[\"--tag\"]"), Just("\"--tag\""), Just("[]")]
            ),
            (
                name("type"),
                prop_oneof![Just("\"string\""), Just("\"text\"")]
            ),
            (name("description"), prop_oneof![Just("\"t\""), Just("1")]),
            (name("variadic"), prop_oneof![Just("true"), Just("\"yes\"")]),
            (
                name("envVar"),
                prop_oneof![Just("\"TAG\""), Just("\"bad-var\"")]
            ),
            (name("odd"), Just("{}")),
        ];
        (prop::collection::vec(member, 0..6), space()).prop_map(|(members, space)| {
            let members = members
                .into_iter()
                .map(|(k, v)| (k, v.to_owned()))
                .collect();
            object(members, &space)
        })
    }

    fn command() -> impl Strategy<Value = String> {
        // A number out of range and a lone surrogate: text that does not parse, wherever it
        // is (also as a value a later one of the same name replaces).
        let leaf = prop_oneof![
            4 => Just("{}".to_owned()),
            4 => Just("5".to_owned()),
            4 => Just("\"c\"".to_owned()),
            1 => Just("1e400".to_owned()),
            1 => Just("\"\\udc00\"".to_owned()),
        ];
        let plain = |inner: BoxedStrategy<String>| {
            let member = prop_oneof![
                (
                    name("description"),
                    prop_oneof![Just("\"d\"".to_owned()), Just("7".to_owned())].boxed()
                ),
                (
                    name("options"),
                    prop::collection::vec(option(), 0..3)
                        .prop_map(|o| format!("[{}]", o.join(",")))
                        .boxed()
                ),
                (
                    name("examples"),
                    prop_oneof![Just("[\"x --go\"]".to_owned()), Just("[1]".to_owned())].boxed()
                ),
                (name("odd"), Just("true".to_owned()).boxed()),
                (name("commands"), commands(inner.clone())),
                (
                    name("commands"),
                    prop_oneof![Just("[1]".to_owned()), Just("{}".to_owned())].boxed()
                ),
            ];
            (prop::collection::vec(member, 0..6), space())
                .prop_map(|(members, space)| object(members, &space))
        };
        leaf.prop_recursive(3, 24, 4, move |inner| plain(inner.boxed()))
    }

    /// A `commands` object whose subcommands come from `inner`, names sometimes repeated.
    fn commands(inner: BoxedStrategy<String>) -> BoxedStrategy<String> {
        let child = (
            prop_oneof![Just("\"a\""), Just("\"b\""), Just("\"\\u0061\"")],
            inner,
        );
        (prop::collection::vec(child, 0..4), space())
            .prop_map(|(children, space)| {
                let members = children
                    .into_iter()
                    .map(|(k, v)| (k.to_owned(), v))
                    .collect();
                object(members, &space)
            })
            .boxed()
    }

    fn document() -> impl Strategy<Value = String> {
        let version = prop_oneof![
            Just("\"0.4\""),
            Just("\"0.6\""),
            Just("\"9.9\""),
            Just("{\"version\": \"0.5\"}"),
        ];
        let member = prop_oneof![
            3 => (Just("\"atip\"".to_owned()), version.prop_map(str::to_owned)),
            1 => (Just("\"name\"".to_owned()), Just("\"t\"".to_owned())),
            1 => (Just("\"version\"".to_owned()), Just("\"1\"".to_owned())),
            1 => (Just("\"description\"".to_owned()), Just("\"d\"".to_owned())),
            3 => (Just("\"commands\"".to_owned()), commands(command().boxed())),
        ];
        (prop::collection::vec(member, 1..7), space())
            .prop_map(|(members, space)| object(members, &space))
    }

    /// What a diagnostic says, wherever it is.
    fn essence(d: &Diagnostic) -> (Severity, String, String) {
        (d.severity, d.path.to_string(), d.message.clone())
    }

    /// Every located diagnostic is where a search from the root puts it.
    fn located_as_from_the_root(
        text: &str,
        diagnostics: &[Diagnostic],
    ) -> Result<(), TestCaseError> {
        let mut fresh: Vec<Diagnostic> = diagnostics.to_vec();
        for d in &mut fresh {
            d.location = None;
        }
        crate::diagnostic::locate(text, &mut fresh);
        let key = |d: &Diagnostic| (essence(d), d.location.map(|l| (l.line, l.column)));
        let (mut ours, mut root): (Vec<_>, Vec<_>) = (
            diagnostics.iter().map(key).collect(),
            fresh.iter().map(key).collect(),
        );
        ours.sort();
        root.sort();
        prop_assert_eq!(ours, root);
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]
        #[test]
        fn loading_finds_what_checking_the_whole_value_finds(text in document()) {
            let parses = serde_json::from_str::<Value>(&text).is_ok();
            // On one thread, then with the root's subcommands read on two whatever the size:
            // the same diagnostics in the same order, the same model.
            let mut one_thread = Vec::new();
            for (force, mode) in [
                (None, Mode::Strict),
                (None, Mode::Lenient),
                (Some(0), Mode::Strict),
                (Some(0), Mode::Lenient),
            ] {
                super::super::FORCE_TWO_THREADS_MIN_BYTES.with(|f| f.set(force));
                let options = LoadOptions { mode, file: None };
                let loaded = load(&text, &options);
                let flattened = Document::parse(&text, &options, &FlattenOptions::default());
                super::super::FORCE_TWO_THREADS_MIN_BYTES.with(|f| f.set(None));
                let (tool, diagnostics) = match loaded {
                    Ok(t) => (Some(t.tool), t.warnings),
                    Err(e) => (None, e.diagnostics),
                };
                let flat = match flattened {
                    Ok(d) => d.warnings,
                    Err(e) => e.diagnostics,
                };
                if force.is_none() {
                    one_thread.push((tool.clone(), diagnostics.clone(), flat.clone()));
                } else {
                    let (one_tool, one_diagnostics, one_flat) = &one_thread[one_thread.len() - 2];
                    prop_assert_eq!(&tool, one_tool, "{:?}", mode);
                    prop_assert_eq!(&diagnostics, one_diagnostics, "{:?}", mode);
                    prop_assert_eq!(&flat, one_flat, "{:?}", mode);
                    one_thread.rotate_left(1);
                }
                if !parses {
                    // Text that does not parse is refused, wherever the fault is.
                    prop_assert!(tool.is_none(), "{:?}", mode);
                    prop_assert!(flat.iter().any(Diagnostic::is_error), "{:?}", mode);
                    continue;
                }
                let (whole_tool, whole_diagnostics) = whole(&text, mode);
                let whole_tool = whole_tool.filter(|_| !whole_diagnostics.iter().any(Diagnostic::is_error));
                let mut ours: Vec<_> = diagnostics.iter().map(essence).collect();
                let mut theirs: Vec<_> = whole_diagnostics.iter().map(essence).collect();
                ours.sort();
                theirs.sort();
                prop_assert_eq!(ours, theirs, "{:?}", mode);
                prop_assert_eq!(tool, whole_tool, "{:?}", mode);
                located_as_from_the_root(&text, &diagnostics)?;
                located_as_from_the_root(&text, &flat)?;
            }
        }
    }
}
