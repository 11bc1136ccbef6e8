//! What an import costs beyond evaluating the spec's JavaScript: `Engine::evaluate` (the
//! module evaluated in a fresh QuickJS runtime and its default export turned into JSON) is the
//! floor, `Importer::import` (evaluation, conversion, effects, and the strict check of the
//! document) is measured against it, on a gh-sized synthetic spec (120 commands of 12
//! options and 2 arguments, shared option objects and generator functions, as the real
//! minified modules have them). Report figures as the ratio of the two medians of one run.
//!
//! The same evaluation and import in a child process per module (`Isolation::ChildProcess`,
//! as `atip import fig` does) show what the isolation costs: this benchmark is its own child
//! program, started again with the argument `__fig-eval`.
//!
//! `cargo bench -p atip-fig --bench import`

use std::hint::black_box;
use std::time::Duration;

use atip_fig::{Engine, ImportOptions, Importer, Isolation, Limits, Package};
use criterion::{criterion_group, Criterion};

/// A minified spec module like those of @withfig/autocomplete.
fn spec_module(commands: usize, options: usize) -> String {
    let mut js = String::from(
        "var g={script:[\"t\",\"ls\"],postProcess:e=>e.split(`\\n`).map(n=>({name:n}))};\
         var h={name:[\"-h\",\"--help\"],description:\"Show help\"};var s={name:\"t\",description:\"A tool\",subcommands:[",
    );
    let verbs = ["list", "create", "delete", "view", "edit", "sync"];
    for c in 0..commands {
        let verb = verbs[c % verbs.len()];
        js.push_str(&format!(
            "{{name:[\"{verb}-{c}\",\"v{c}\"],description:\"Do {verb} number {c}\",options:[h,"
        ));
        for o in 0..options {
            let arg = match o % 3 {
                0 => String::new(),
                1 => ",args:{name:\"path\",template:\"filepaths\"}".to_owned(),
                _ => ",args:{name:\"value\",generators:g,suggestions:[\"a\",\"b\"]}".to_owned(),
            };
            js.push_str(&format!(
                "{{name:[\"-{}\",\"--option-{o}\"],description:\"Option {o}\"{arg}{}}},",
                (b'a' + (o % 26) as u8) as char,
                if o == 1 { ",isRepeatable:!0" } else { "" }
            ));
        }
        js.push_str("],args:[{name:\"target\"},{name:\"rest\",isOptional:!0,isVariadic:!0}]},");
    }
    js.push_str("]};export{s as default};");
    js
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("build")).unwrap();
    std::fs::write(dir.path().join("build/t.js"), spec_module(120, 12)).unwrap();
    let package = Package::open(dir.path()).unwrap();
    let engine = Engine::new(&package.build, Limits::default()).unwrap();
    let importer = Importer::new(package.clone(), ImportOptions::default()).unwrap();
    assert_eq!(importer.import("t").unwrap().stats.commands, 120);
    let isolation = Isolation::current_exe([CHILD]).unwrap();
    let isolated = Importer::new(
        package,
        ImportOptions {
            isolation: isolation.clone(),
            ..ImportOptions::default()
        },
    )
    .unwrap();
    assert_eq!(isolated.import("t").unwrap().stats.commands, 120);

    let mut g = c.benchmark_group("gh-sized spec");
    g.sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(5));
    g.bench_function("evaluate (floor)", |b| {
        b.iter(|| engine.evaluate(black_box("t")).unwrap())
    });
    g.bench_function("import", |b| {
        b.iter(|| importer.import(black_box("t")).unwrap())
    });
    g.bench_function("evaluate in a child process", |b| {
        b.iter(|| isolation.evaluate(&engine, black_box("t")).unwrap())
    });
    g.bench_function("import in a child process", |b| {
        b.iter(|| isolated.import(black_box("t")).unwrap())
    });
    g.finish();
}

/// The argument that makes this program the child of `Isolation::ChildProcess`.
const CHILD: &str = "__fig-eval";

criterion_group!(benches, bench);

fn main() -> std::process::ExitCode {
    let mut args = std::env::args_os();
    if args.len() == 2 && args.nth(1).is_some_and(|a| a == CHILD) {
        return atip_fig::child::serve();
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
    std::process::ExitCode::SUCCESS
}
