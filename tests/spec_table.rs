//! The spec table generated code holds (`atip_core::spec_table`): whatever the texts — quotes,
//! backslashes, `"#`, control and direction characters, any Unicode — a table reads back as
//! the specs it was written from, and its text fits a raw string literal unchanged.

use std::borrow::Cow;

use atip_runtime::spec_table::{decode, encode};
use atip_runtime::{ArgvForm, Effects, ParamSpec, Shared, ToolSpec, ValueKind};
use proptest::prelude::*;

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "[\"#\\\\\r\n\t\u{202e}\u{2066}a-z ]{0,12}",
        Just(String::new()),
    ]
}

fn param() -> impl Strategy<Value = ParamSpec> {
    (
        (text(), text(), 0usize..8, 0usize..4, text()),
        (
            any::<[bool; 3]>(),
            proptest::option::of(proptest::collection::vec(text(), 0..4)),
        ),
        proptest::option::of(text()),
    )
        .prop_map(
            |((name, description, kind, form, flag), (bits, values), default)| {
                let kind = [
                    ValueKind::String,
                    ValueKind::Integer,
                    ValueKind::Number,
                    ValueKind::Boolean,
                    ValueKind::File,
                    ValueKind::Directory,
                    ValueKind::Url,
                    ValueKind::Enum,
                ][kind];
                let flag: Cow<'static, str> = Cow::Owned(flag);
                let argv = match form {
                    0 => ArgvForm::Argument(flag),
                    1 => ArgvForm::Flag(flag),
                    2 => ArgvForm::Joined(flag),
                    _ => ArgvForm::Separate(flag),
                };
                ParamSpec {
                    name: Shared::from(name),
                    description: Cow::Owned(description),
                    kind,
                    required: bits[0],
                    multiple: bits[1],
                    values: values.map(|v| Cow::Owned(v.into_iter().map(Cow::Owned).collect())),
                    default: default.map(Cow::Owned),
                    argv,
                    global: bits[2],
                }
            },
        )
}

fn spec() -> impl Strategy<Value = ToolSpec> {
    (
        text(),
        proptest::collection::vec(text(), 0..3),
        text(),
        proptest::collection::vec(param(), 0..4),
    )
        .prop_map(|(title, path, description, params)| ToolSpec {
            name: Cow::Borrowed("t"),
            title: Cow::Owned(title),
            path: Cow::Owned(path.into_iter().map(Cow::Owned).collect()),
            description: Cow::Owned(description),
            effects: Effects::UNKNOWN,
            params: Cow::Owned(params),
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Encoded and decoded, specs are unchanged — parameters several specs share included —
    /// and the text holds nothing a raw string literal refuses.
    #[test]
    fn a_table_reads_back_as_its_specs(mut specs in proptest::collection::vec(spec(), 0..5)) {
        // Share a parameter between the first two specs, as global options are.
        if specs.len() >= 2 {
            if let Some(p) = specs[0].params.first().cloned() {
                specs[1].params.to_mut().push(p);
            }
        }
        let table: &'static str = Box::leak(encode(&specs).into_boxed_str());
        let refused = ['\r', '\u{202e}', '\u{2066}'];
        prop_assert!(!table.contains(refused), "{}", table);
        let commands: &'static [(&'static str, Effects)] =
            Box::leak(vec![("t", Effects::UNKNOWN); specs.len()].into_boxed_slice());
        let decoded = decode(table, commands).unwrap();
        prop_assert_eq!(decoded, specs);
    }
}
