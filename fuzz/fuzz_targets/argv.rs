//! The argv builder with any values: values are attached to long flags (`--flag=value`), given
//! after short flags as their own element, and positionals starting with `-` come after `--`,
//! so no value is ever read as a flag of its own.
#![no_main]

use std::ffi::OsString;

use atip_runtime::command::argv::ArgvBuilder;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|values: Vec<String>| {
    let mut b = ArgvBuilder::new("tool");
    b.subcommand(&["sub"]);
    let mut positionals = Vec::new();
    for (i, v) in values.iter().enumerate() {
        match i % 3 {
            0 => b.long("--opt", v.as_str()),
            1 => b.short("-s", v.as_str()),
            _ => {
                b.positional("arg", v.as_str());
                positionals.push(v.clone());
            }
        }
    }
    let nul = values.iter().any(|v| v.contains('\0'));
    match b.finish() {
        Err(e) => assert!(nul, "only NUL bytes make an argv fail here: {e}"),
        Ok(argv) => {
            assert!(!nul);
            let argv: Vec<OsString> = argv;
            assert_eq!(argv[0], "tool");
            assert_eq!(argv[1], "sub");
            let mut i = 2;
            let mut options = 0;
            // Options first: `--opt=…` one element, `-s` then its value.
            while i < argv.len() && argv[i] != "--" && options < values.len() - positionals.len() {
                let el = argv[i].to_string_lossy();
                if el == "-s" {
                    i += 2;
                } else {
                    assert!(el.starts_with("--opt="), "stray element {el:?} in {argv:?}");
                    i += 1;
                }
                options += 1;
            }
            let rest: Vec<&OsString> = argv[i..].iter().collect();
            let dashed = positionals.iter().any(|p| p.starts_with('-'));
            let rest: Vec<&OsString> = if dashed {
                assert_eq!(
                    rest.first().map(|s| s.as_os_str()),
                    Some("--".as_ref()),
                    "{argv:?}"
                );
                rest[1..].to_vec()
            } else {
                rest
            };
            assert_eq!(rest.len(), positionals.len(), "{argv:?}");
            for (el, p) in rest.iter().zip(&positionals) {
                assert_eq!(el.as_os_str(), p.as_str());
            }
        }
    }
});
