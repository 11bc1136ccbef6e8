//! The spec table generated code holds (`atip_core::spec_table`): whatever the texts — quotes,
//! backslashes, `"#`, control and direction characters, any Unicode — a table reads back as
//! the specs it was written from, and its text fits a raw string literal unchanged.

use std::borrow::Cow;

use atip_runtime::spec_table::{decode, encode};
use atip_runtime::{tool::ArgvForm, tool::ValueKind, Effects, ParamSpec, Shared, ToolSpec};
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
        proptest::option::of(any::<[bool; 2]>()),
    )
        .prop_map(
            |((name, description, kind, form, flag), (bits, values), default, effects)| {
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
                    // Effects of their own: a destructive flag, a network option.
                    effects: effects.map(|[destroys, online]| {
                        Shared::new(
                            Effects::UNKNOWN
                                .with_destructive(destroys)
                                .with_network(online),
                        )
                    }),
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

/// A value of parameter `p` (number `i` of its command) that dispatch accepts: the base value
/// every run gives it, or the marked one of the run that marks it. `None`: left out (an
/// optional flag's base, or a parameter with no second value to mark it with).
fn value(p: &ParamSpec, i: usize, marked: bool) -> Option<serde_json::Value> {
    use serde_json::json;
    let n = i as i64 + if marked { 200 } else { 100 };
    let one = match (&p.values, p.kind) {
        (Some(values), _) => {
            let v = values.get(usize::from(marked))?;
            match p.kind {
                ValueKind::Integer | ValueKind::Number => serde_json::from_str(v).ok()?,
                _ => json!(v),
            }
        }
        (None, ValueKind::Boolean) if marked == p.required => return None,
        (None, ValueKind::Boolean) => json!(true),
        (None, ValueKind::Integer) => json!(n),
        (None, ValueKind::Number) => json!(n as f64 + 0.5),
        (None, ValueKind::Url) => json!(format!("https://v{n}.example/")),
        (None, _) => json!(format!("v{n}")),
    };
    Some(if p.multiple { json!([one]) } else { one })
}

/// Generated `fields()` hands over the fields in exactly the order of the command's row of
/// `TOOLS` (the spec table), which the argv and JSON writers rely on (`Command::fields`): for
/// every command of every golden module, and every parameter `k`, a call gives each parameter
/// its base value and `k` a marked one; field `i` must then hold parameter `i`'s value — so
/// the marked value shows up at position `k` and nowhere else.
#[test]
fn generated_fields_follow_the_table_order() {
    macro_rules! modules {
        ($($m:ident),*) => {
            vec![$((
                stringify!($m),
                &*atip_tests::$m::TOOLS as &[ToolSpec],
                (|name: &str, args: &str| {
                    let call = atip_tests::$m::Call::from_json_text(name, args)
                        .map_err(|e| e.to_string())?;
                    let mut out = Vec::new();
                    call.command().visit_fields(&mut |fields| {
                        let spec = &atip_tests::$m::TOOLS[call.index()];
                        out = fields
                            .iter()
                            .zip(spec.params.iter())
                            .map(|(f, p)| f.json(p))
                            .collect();
                        assert_eq!(fields.len(), spec.params.len(), "{name}: one field per parameter");
                    });
                    Ok(out)
                }) as fn(&str, &str) -> Result<Vec<Option<serde_json::Value>>, String>,
            )),*]
        };
    }
    let modules = modules!(git, gh, ls, cat, wc, mkdir, rm, weird, hostile, hello);
    let mut checked = 0;
    for (module, tools, visit) in modules {
        for spec in tools {
            for k in 0..spec.params.len() {
                let Some(marked) = value(&spec.params[k], k, true) else {
                    continue;
                };
                let expected: Vec<Option<serde_json::Value>> = spec
                    .params
                    .iter()
                    .enumerate()
                    .map(|(i, p)| {
                        if i == k {
                            Some(marked.clone())
                        } else {
                            value(p, i, false)
                        }
                    })
                    .collect();
                let args: serde_json::Map<String, serde_json::Value> = spec
                    .params
                    .iter()
                    .zip(&expected)
                    .filter_map(|(p, v)| Some((p.name.to_string(), v.clone()?)))
                    .collect();
                let args = serde_json::Value::Object(args).to_string();
                let got = visit(&spec.name, &args)
                    .unwrap_or_else(|e| panic!("{module}::{}: {args}: {e}", spec.name));
                assert_eq!(
                    got, expected,
                    "{module}::{} marking parameter {k}",
                    spec.name
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 100, "only {checked} calls checked");
}
