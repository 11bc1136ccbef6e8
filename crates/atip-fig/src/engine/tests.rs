//! Tests of the in-process engine: modules, imports kept inside the package, limits, errors.

use super::*;

fn package(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

fn engine(dir: &tempfile::TempDir) -> Engine {
    Engine::new(dir.path(), Limits::default()).unwrap()
}

#[test]
fn evaluates_a_default_export_with_functions_marked() {
    let dir = package(&[(
        "t.js",
        "var g={script:['t','ls'],postProcess:o=>[]};var s={name:'t',args:{generators:g}};export{s as default};",
    )]);
    let Export::Spec(v) = engine(&dir).evaluate("t").unwrap() else {
        panic!("expected a spec")
    };
    assert_eq!(v["name"], "t");
    assert_eq!(v["args"]["generators"]["postProcess"], FUNCTION_MARKER);
}

#[test]
fn resolves_relative_imports_inside_the_package() {
    let dir = package(&[
        ("sub/shared.js", "export const opts=[{name:'--x'}];"),
        (
            "t.js",
            "import {opts} from './sub/shared.js'; export default {name:'t',options:opts};",
        ),
    ]);
    let Export::Spec(v) = engine(&dir).evaluate("t.js").unwrap() else {
        panic!("expected a spec")
    };
    assert_eq!(v["options"][0]["name"], "--x");
}

#[test]
fn refuses_imports_that_leave_the_package() {
    let outer = package(&[("secret.js", "export default {name:'secret'};")]);
    let inner = outer.path().join("pkg");
    std::fs::create_dir_all(&inner).unwrap();
    std::fs::write(
        inner.join("t.js"),
        "import s from '../secret.js'; export default s;",
    )
    .unwrap();
    std::fs::write(inner.join("b.js"), "import s from 'fs'; export default s;").unwrap();
    let e = Engine::new(&inner, Limits::default()).unwrap();
    let err = e.evaluate("t").unwrap_err();
    assert!(err.to_string().contains("leaves the package"), "{err}");
    let err = e.evaluate("b").unwrap_err();
    assert!(err.to_string().contains("bare specifier"), "{err}");
    let err = e.evaluate("../secret").unwrap_err();
    assert_eq!(err.category(), "load", "{err}");
}

#[cfg(unix)]
#[test]
fn refuses_symlinks_out_of_the_package() {
    let outer = package(&[("secret.js", "export default {name:'secret'};")]);
    let inner = outer.path().join("pkg");
    std::fs::create_dir_all(&inner).unwrap();
    std::os::unix::fs::symlink(outer.path().join("secret.js"), inner.join("link.js")).unwrap();
    std::fs::write(
        inner.join("t.js"),
        "import s from './link.js'; export default s;",
    )
    .unwrap();
    let err = Engine::new(&inner, Limits::default())
        .unwrap()
        .evaluate("t")
        .unwrap_err();
    assert!(err.to_string().contains("outside the package"), "{err}");
}

#[test]
fn an_endless_loop_is_interrupted_at_the_time_limit() {
    let dir = package(&[("t.js", "for(;;){} export default {};")]);
    let limits = Limits {
        time: Duration::from_millis(200),
        ..Limits::default()
    };
    let start = Instant::now();
    let err = Engine::new(dir.path(), limits)
        .unwrap()
        .evaluate("t")
        .unwrap_err();
    assert_eq!(err.category(), "timeout", "{err}");
    assert!(start.elapsed() < Duration::from_secs(5));
}

#[test]
fn a_memory_hog_stops_at_the_memory_limit() {
    let dir = package(&[(
        "t.js",
        "let a=[]; for(let i=0;;i++){a.push('x'.repeat(1024)+i)} export default {};",
    )]);
    let limits = Limits {
        memory_bytes: 16 * 1024 * 1024,
        ..Limits::default()
    };
    let err = Engine::new(dir.path(), limits)
        .unwrap()
        .evaluate("t")
        .unwrap_err();
    assert_eq!(err.category(), "memory", "{err}");
}

#[test]
fn has_no_io() {
    let dir = package(&[(
        "t.js",
        "export default {name: typeof require + ',' + typeof fetch + ',' + typeof std + ',' + typeof os + ',' + typeof setTimeout};",
    )]);
    let Export::Spec(v) = engine(&dir).evaluate("t").unwrap() else {
        panic!("expected a spec")
    };
    assert_eq!(
        v["name"],
        "undefined,undefined,undefined,undefined,undefined"
    );
}

#[test]
fn exceptions_and_missing_exports_are_errors() {
    let dir = package(&[
        (
            "throws.js",
            "throw new TypeError('boom'); export default {};",
        ),
        ("none.js", "export const x = 1;"),
        ("num.js", "export default 3;"),
    ]);
    let e = engine(&dir);
    let err = e.evaluate("throws").unwrap_err();
    assert!(err.to_string().contains("TypeError: boom"), "{err}");
    assert_eq!(e.evaluate("none").unwrap_err().category(), "no-spec");
    assert_eq!(e.evaluate("num").unwrap_err().category(), "no-spec");
    assert_eq!(e.evaluate("missing").unwrap_err().category(), "load");
}

#[test]
fn cycles_are_errors_not_hangs() {
    let dir = package(&[("t.js", "let s={name:'t'}; s.self=s; export default s;")]);
    let err = engine(&dir).evaluate("t").unwrap_err();
    assert_eq!(err.category(), "exception", "{err}");
}

#[test]
fn versioned_specs_name_their_newest_module() {
    let dir = package(&[(
        "v/index.js",
        "const vs=['1.0.0','2.0.0']; export default async (v) => ({versionedSpecPath: 'v/' + vs[vs.length-1], version: v});",
    )]);
    assert_eq!(
        engine(&dir).evaluate("v").unwrap(),
        Export::Versioned("v/2.0.0".into())
    );
}

#[test]
fn a_spec_larger_than_the_cap_is_refused_before_it_is_copied() {
    let dir = package(&[(
        "t.js",
        "export default {name:'t', description:'x'.repeat(64*1024*1024)};",
    )]);
    let err = engine(&dir).evaluate("t").unwrap_err();
    assert_eq!(
        err,
        EvalError::SpecTooLarge {
            module: "t.js".into(),
            limit: MAX_SPEC_JSON_BYTES
        }
    );
    assert!(
        err.to_string().contains("more than 64 MiB of JSON"),
        "{err}"
    );
}

#[test]
fn long_exception_messages_are_cut() {
    let dir = package(&[("t.js", "throw new Error('y'.repeat(100000));")]);
    let err = engine(&dir).evaluate("t").unwrap_err();
    let EvalError::Exception { message, .. } = &err else {
        panic!("{err}")
    };
    assert!(message.starts_with("Error: yyy"), "{message}");
    assert_eq!(
        message.chars().count(),
        "Error: ".len() + MAX_MESSAGE_CHARS + 1
    );
    assert!(message.ends_with('…'));
}

#[cfg(unix)]
#[test]
fn a_fifo_is_not_a_module_and_does_not_block() {
    let dir = package(&[("t.js", "import s from './pipe.js'; export default s;")]);
    let fifo = std::ffi::CString::new(dir.path().join("pipe.js").to_str().unwrap()).unwrap();
    // SAFETY: a valid, NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
    let err = engine(&dir).evaluate("t").unwrap_err();
    assert!(
        err.to_string().contains("module refused: not a file"),
        "{err}"
    );
}
