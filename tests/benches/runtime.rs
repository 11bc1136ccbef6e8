//! Run-time costs, each as a ratio to a floor measured in the same run:
//!
//! 1. compile: a loaded aws-sized document (21,000 commands, ≈ 49 MB) to each provider's
//!    definitions (target ≤ 0.2× the floor); floor: `serde_json::Value` parse of the
//!    document's bytes plus serialising it. Then loading the document (parse, validate,
//!    model, flatten; target ≤ 1.5×) against `serde_json::from_str::<Value>` of its text, and
//!    reading the spec table generated code would hold for it (a generated module's first use
//!    of `TOOLS`; target ≤ 1.5×) against the same parse of the table's text.
//! 2. dispatch: one `git commit` tool call (arguments as the provider's JSON string) to the
//!    typed command and its argv, from the text and from a parsed `ToolCall`, and to a
//!    loaded tool's `Invocation`; floor: what a person would write without atip — a struct
//!    deriving `Deserialize` and its argv pushed by hand (`HandCommit`), checked to build the
//!    same argv.
//! 3. exec: `/bin/true` through the runner (policy, spawn, capture, tool result); floor:
//!    `std::process::Command::new("/bin/true").output()`. Then the sandbox's cost: `/bin/true`
//!    declared read-only and offline (Landlock file and TCP rules, a network namespace, a
//!    scratch directory) as a ratio to the same run with the sandbox off.
//! 4. filter: 1 MiB of command output with 200 secrets of every kind; reported in MiB/s and as
//!    a ratio to one `regex::bytes::Regex::find_iter` pass with a simple pattern; then the
//!    streaming redactor as a ratio to the whole-buffer filter of the same texts: one push of
//!    the 1 MiB against the 1 MiB (what the redactor adds), pushes of 64 KiB (what the runner
//!    reads from a full pipe) and of 16 KiB against the filter of each piece as a text of its
//!    own; and, reported, what such pieces cost against the whole 1 MiB.
//!
//! 5. format: a tool result (`Output::format`, default filter and cap of 100,000 bytes) from
//!    1 MiB of JSON crafted against array elision: many small arrays
//!    ([`atip_tests::output::small_arrays_json`], cut as text) and 17 lists of them, which
//!    take every round of elision ([`atip_tests::output::lists_json`]); floor:
//!    `serde_json::from_str::<Value>` of the same text, which formatting must do anyway to
//!    see that it is JSON. For scale, 1 MiB of plain text formatted the same way.
//!
//! `cargo bench -p atip-tests --bench runtime` prints the table at the end.

use std::hint::black_box;
use std::time::{Duration, Instant, SystemTime};

use atip_runtime::providers::Provider;
use atip_runtime::search::ToolIndex;
use atip_runtime::{
    exec::ExitStatus, exec::ResultOptions, Document, Effects, FlattenOptions, Invocation,
    LoadOptions, LoadedCommands, Output, ResultFilter, Runner, SandboxReport, ToolCall,
};
use atip_tests::large::{document, Shape};
use criterion::{Criterion, Throughput};

mod common {
    pub mod real_aws;
}
mod report;
use report::{median_ns, Report};

fn compile(c: &mut Criterion) {
    let text = document(&Shape::AWS);
    let doc = Document::parse(&text, &LoadOptions::strict(), &FlattenOptions::default())
        .expect("the aws document loads");
    let tool = LoadedCommands::new(doc, None);
    let mut g = c.benchmark_group("compile");
    g.sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(6));
    g.bench_function("floor", |b| {
        b.iter(|| {
            let v: serde_json::Value = serde_json::from_slice(black_box(text.as_bytes())).unwrap();
            serde_json::to_string(&v).unwrap()
        })
    });
    for p in Provider::ALL {
        g.bench_function(p.as_str(), |b| {
            b.iter(|| tool.definitions_json(black_box(p)))
        });
    }
    // Goal 3: loading (parse, validate node by node, build the model, flatten) against
    // serde_json's own parse of the same text into a `Value`; both drop what they built.
    g.bench_function("parse-floor", |b| {
        b.iter(|| serde_json::from_str::<serde_json::Value>(black_box(&text)).unwrap())
    });
    g.bench_function("load", |b| b.iter(|| lenient_load(black_box(&text))));
    // The load without flattening: parse, validate, build the model (`atip_core::load`).
    g.bench_function("load-tree", |b| {
        b.iter(|| atip_core::load(black_box(&text), &LoadOptions::lenient()).unwrap())
    });
    // First use of a generated module's `TOOLS`: reading its spec table (every command's
    // spec, texts borrowed) against serde_json's parse of the same text into a `Value`.
    let table: &'static str =
        Box::leak(atip_runtime::spec_table::encode(tool.specs()).into_boxed_str());
    let commands: &'static [(&'static str, Effects)] = Box::leak(
        tool.specs()
            .iter()
            .map(|s| {
                (
                    &*Box::leak(s.name.to_string().into_boxed_str()),
                    s.effects.clone(),
                )
            })
            .collect::<Vec<_>>()
            .into_boxed_slice(),
    );
    assert_eq!(
        atip_runtime::spec_table::decode(table, commands).unwrap(),
        tool.specs(),
        "the table reads back as the specs"
    );
    g.bench_function("spec-table-floor", |b| {
        b.iter(|| serde_json::from_str::<serde_json::Value>(black_box(table)).unwrap())
    });
    g.bench_function("spec-table", |b| {
        b.iter(|| atip_runtime::spec_table::decode(black_box(table), commands).unwrap())
    });
    // What a program reading the metadata at run time pays end to end: load (validate,
    // flatten) and compile the OpenAI definitions.
    g.bench_function("load-and-compile", |b| {
        b.iter(|| {
            let doc = lenient_load(black_box(&text));
            LoadedCommands::new(doc, None).definitions_json(Provider::OpenAi)
        })
    });
    g.finish();
}

/// Loading and compiling real-shaped metadata: the real aws metadata (`aws-mid.json` of the
/// shared corpus, 819 commands) repeated 25 times under new service names (20,475 commands,
/// ≈ 65 MB pretty-printed), as issue 33 measures. Loading (lenient, as at run time) against
/// `serde_json::from_str::<Value>` of the same text (target ≤ 1.5×), and load + Anthropic
/// definitions without global options, the work the TypeScript reference's `compileTools` is
/// compared on. Runs only with `ATIP_BENCH_REAL_AWS=1` (it needs `../shared`, and fails when
/// it is missing).
fn real_aws(c: &mut Criterion) {
    let Some((one, text)) = common::real_aws::documents() else {
        return;
    };
    let mut g = common::real_aws::group(c, "real-aws");
    g.bench_function("parse-floor", |b| {
        b.iter(|| serde_json::from_str::<serde_json::Value>(black_box(&text)).unwrap())
    });
    g.bench_function("load", |b| b.iter(|| lenient_load(black_box(&text))));
    // The load without flattening: parse, validate, build the model (`atip_core::load`).
    g.bench_function("load-tree", |b| {
        b.iter(|| atip_core::load(black_box(&text), &LoadOptions::lenient()).unwrap())
    });
    // What reading the text straight into the model costs (serde's derive, no `Value`, no
    // validation, no flattening): the floor of a load that validates on the way.
    g.bench_function("model-parse", |b| {
        b.iter(|| serde_json::from_str::<atip_core::DocumentTree>(black_box(&text)).unwrap())
    });
    g.bench_function("load-and-compile", |b| {
        b.iter(|| {
            let doc = lenient_load(black_box(&text));
            LoadedCommands::new(doc, None)
                .global_options(atip_runtime::tool::GlobalOptions::None)
                .definitions_json(Provider::Anthropic)
        })
    });
    // The search index of the loaded document (target: ≤ 0.5 s beyond the load), and of
    // aws-mid itself, whose texts are not repeated 25 times, against its own load.
    let loaded = LoadedCommands::new(lenient_load(&text), None);
    g.bench_function("index", |b| {
        b.iter(|| ToolIndex::for_tool(black_box(&loaded)))
    });
    drop(loaded);
    g.bench_function("aws-mid-load", |b| b.iter(|| lenient_load(black_box(&one))));
    let mid = LoadedCommands::new(lenient_load(&one), None);
    g.bench_function("aws-mid-index", |b| {
        b.iter(|| ToolIndex::for_tool(black_box(&mid)))
    });
    g.finish();
}

/// A document loaded as at run time (lenient), as the load benches measure it.
fn lenient_load(text: &str) -> Document {
    Document::parse(text, &LoadOptions::lenient(), &FlattenOptions::default())
        .expect("the document loads")
}

const ARGS: &str =
    r#"{"message":"Fix the parser","all":true,"author":"Ada <ada@example.com>","no_pager":true}"#;

/// The hand-written floor of goal 2: what a person would write without atip for this one
/// command — a struct deriving `Deserialize` (no checks beyond serde's types) and its argv
/// pushed by hand, one element per present option.
#[derive(serde::Deserialize)]
struct HandCommit {
    message: String,
    #[serde(default)]
    all: bool,
    #[serde(default)]
    allow_empty: bool,
    #[serde(default)]
    amend: bool,
    author: Option<String>,
    #[serde(default)]
    signoff: bool,
    #[serde(default)]
    no_verify: bool,
    #[serde(default)]
    quiet: bool,
    #[serde(default)]
    no_pager: bool,
}

fn hand_written(arguments: &str) -> Vec<std::ffi::OsString> {
    let c: HandCommit = serde_json::from_str(arguments).unwrap();
    let mut argv: Vec<std::ffi::OsString> = vec!["git".into()];
    if c.no_pager {
        argv.push("--no-pager".into());
    }
    argv.push("commit".into());
    argv.push(format!("--message={}", c.message).into());
    for (set, flag) in [
        (c.all, "--all"),
        (c.allow_empty, "--allow-empty"),
        (c.amend, "--amend"),
    ] {
        if set {
            argv.push(flag.into());
        }
    }
    if let Some(author) = c.author {
        argv.push(format!("--author={author}").into());
    }
    for (set, flag) in [
        (c.signoff, "--signoff"),
        (c.no_verify, "--no-verify"),
        (c.quiet, "--quiet"),
    ] {
        if set {
            argv.push(flag.into());
        }
    }
    argv
}

fn dispatch(c: &mut Criterion) {
    let typed = {
        let call = ToolCall::from_json_text(None, "git_commit", ARGS);
        atip_tests::git::Call::from_tool_call(&call).unwrap().argv()
    };
    assert_eq!(hand_written(ARGS), typed, "the floor builds the same argv");
    assert_eq!(
        atip_tests::git::Call::from_json_text("git_commit", ARGS)
            .unwrap()
            .argv(),
        typed,
        "dispatch from the text gives the same command"
    );
    let mut g = c.benchmark_group("dispatch");
    g.bench_function("floor", |b| {
        b.iter(|| serde_json::from_str::<serde_json::Value>(black_box(ARGS)).unwrap())
    });
    g.bench_function("derive-floor", |b| b.iter(|| hand_written(black_box(ARGS))));
    g.bench_function("typed", |b| {
        b.iter(|| {
            let call = ToolCall::from_json_text(None, "git_commit", black_box(ARGS));
            let command = atip_tests::git::Call::from_tool_call(&call).unwrap();
            command.argv()
        })
    });
    g.bench_function("typed-text", |b| {
        b.iter(|| {
            atip_tests::git::Call::from_json_text("git_commit", black_box(ARGS))
                .unwrap()
                .argv()
        })
    });
    // The same call through metadata loaded at run time (specs built once, up front).
    let git = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/atip/git.json");
    let doc = Document::from_path(
        git.as_ref(),
        atip_runtime::Mode::Strict,
        &FlattenOptions::default(),
    )
    .expect("git.json loads");
    let tool = LoadedCommands::new(doc, None);
    assert!(!tool.specs().is_empty());
    let call = ToolCall::from_json_text(None, "git_commit", ARGS);
    assert_eq!(
        tool.invocation(&call).unwrap(),
        tool.invocation_from_json_text("git_commit", ARGS).unwrap(),
        "both loaded paths give the same invocation"
    );
    g.bench_function("loaded", |b| {
        b.iter(|| {
            let call = ToolCall::from_json_text(None, "git_commit", black_box(ARGS));
            tool.invocation(&call).unwrap()
        })
    });
    g.bench_function("loaded-text", |b| {
        b.iter(|| {
            tool.invocation_from_json_text("git_commit", black_box(ARGS))
                .unwrap()
        })
    });
    g.finish();
}

fn exec(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let runner = Runner::new();
    let inv = Invocation::new(
        "true",
        vec!["/bin/true".into()],
        Effects::UNKNOWN.with_destructive(false),
    );
    // Everything the sandbox can do at once: no writes, no network.
    let locked: Effects = serde_json::from_str(
        r#"{"destructive": false, "network": false, "filesystem": {"write": false}}"#,
    )
    .unwrap();
    let locked = Invocation::new("true", vec!["/bin/true".into()], locked);
    let unsandboxed = Runner::new().sandbox(atip_runtime::Sandbox::off());
    let check = rt.block_on(runner.run(&locked)).unwrap();
    assert!(
        check.sandbox.limits_writes() && check.sandbox.limits_network(),
        "the sandboxed run is sandboxed: {}",
        check.sandbox
    );
    let mut g = c.benchmark_group("exec");
    g.sample_size(50).measurement_time(Duration::from_secs(5));
    g.bench_function("floor", |b| {
        b.iter(|| std::process::Command::new("/bin/true").output().unwrap())
    });
    g.bench_function("runner", |b| {
        b.iter(|| {
            let output = rt.block_on(runner.run(&inv)).unwrap();
            runner.tool_result(&output)
        })
    });
    g.bench_function("sandbox-off", |b| {
        b.iter(|| rt.block_on(unsandboxed.run(black_box(&locked))).unwrap())
    });
    g.bench_function("sandboxed", |b| {
        b.iter(|| rt.block_on(runner.run(black_box(&locked))).unwrap())
    });
    g.finish();

    // The same spawn while this process holds 50 MiB, then 1 GiB, of touched memory: a spawn
    // that copies the parent's page tables (`fork`) grows with it, a `vfork`-style one does not.
    let mut ballast: Vec<u8> = Vec::new();
    for (name, bytes) in [("exec-50MiB", 50usize << 20), ("exec-1GiB", 1usize << 30)] {
        ballast.resize(bytes, 0);
        for page in ballast.chunks_mut(4096) {
            page[0] = 1;
        }
        let mut g = c.benchmark_group(name);
        g.sample_size(30).measurement_time(Duration::from_secs(4));
        g.bench_function("floor", |b| {
            b.iter(|| std::process::Command::new("/bin/true").output().unwrap())
        });
        g.bench_function("sandboxed", |b| {
            b.iter(|| rt.block_on(runner.run(black_box(&locked))).unwrap())
        });
        g.finish();
    }
    black_box(&ballast);
}

/// A simple pattern without a literal prefix: the regex crate runs its DFA over every byte,
/// as the filter must. (A pattern with a literal prefix, such as `ghp_…`, is a memchr scan.)
const SIMPLE: &str = "[A-Za-z0-9+/]{40}";

fn filter(c: &mut Criterion) -> Filtered {
    let sample = atip_tests::output::sample(1 << 20, 200);
    let filter = ResultFilter::new().max_bytes(usize::MAX);
    // What is measured must also be right: every planted secret gone, the prose kept.
    let out = filter.filter(&sample.text);
    for s in &sample.secrets {
        assert!(!out.text.contains(s.as_str()), "secret survived: {s}");
    }
    let simple = regex::bytes::Regex::new(SIMPLE).unwrap();
    let prefixed = regex::bytes::Regex::new("ghp_[A-Za-z0-9]{36}").unwrap();
    let mut g = c.benchmark_group("filter");
    g.throughput(Throughput::Bytes(sample.text.len() as u64));
    g.bench_function("filter", |b| {
        b.iter(|| filter.filter(black_box(&sample.text)))
    });
    // The stream in pieces of three sizes: one push of everything (what the redactor itself
    // costs over the whole-buffer filter), the runner's reads of a full pipe (64 KiB), and
    // 16 KiB. Each is timed in turn with the whole-buffer filter of the same texts (the 1 MiB,
    // or each piece as a text of its own), iteration by iteration: the two are compared as
    // they ran side by side, not minutes apart (this machine's speed drifts by more than the
    // 5% the comparison is about). Criterion records the stream's times.
    let mut paired = Vec::new();
    for (name, piece) in [
        ("stream-1MiB", 1 << 20),
        ("stream-64KiB", 64 << 10),
        ("stream-16KiB", 16 << 10),
    ] {
        let pieces = pieces_of(&sample.text, piece);
        let mut pair = Paired::default();
        g.bench_function(name, |b| {
            pair.bench(
                b,
                || {
                    let mut r = atip_runtime::filter::StreamRedactor::new(&filter, None);
                    let mut n = 0;
                    for chunk in black_box(sample.text.as_bytes()).chunks(piece) {
                        n += r.push(chunk).len();
                    }
                    black_box(n + r.finish().len());
                },
                || {
                    black_box(filter_each(&filter, black_box(&pieces)));
                },
            )
        });
        paired.push((name, pair));
    }
    // What pieces of those sizes cost, streamed or not (the whole-buffer filter of each).
    for (name, piece) in [("pieces-64KiB", 64 << 10), ("pieces-16KiB", 16 << 10)] {
        let pieces = pieces_of(&sample.text, piece);
        g.bench_function(name, |b| {
            b.iter(|| filter_each(&filter, black_box(&pieces)))
        });
    }
    g.bench_function("regex-simple", |b| {
        b.iter(|| simple.find_iter(black_box(sample.text.as_bytes())).count())
    });
    g.bench_function("regex-prefixed", |b| {
        b.iter(|| {
            prefixed
                .find_iter(black_box(sample.text.as_bytes()))
                .count()
        })
    });
    g.finish();
    Filtered {
        bytes: sample.text.len(),
        paired,
    }
}

/// What the filter group measured beyond criterion's own records.
struct Filtered {
    /// The sample's size in bytes, for the throughput rows.
    bytes: usize,
    /// Each stream bench with the whole-buffer filter of the same texts timed beside it.
    paired: Vec<(&'static str, Paired)>,
}

/// A stream's times and those of the whole-buffer filter of the same texts, each run of the
/// one followed by a run of the other, summed over every iteration criterion asked for.
#[derive(Debug, Default, Clone, Copy)]
struct Paired {
    stream: Duration,
    whole: Duration,
    iterations: u64,
}

impl Paired {
    /// Times `stream`, then `whole`, for each iteration criterion asks for, adding both to
    /// the sums; criterion records the stream's times.
    fn bench(
        &mut self,
        b: &mut criterion::Bencher<'_>,
        mut stream: impl FnMut(),
        mut whole: impl FnMut(),
    ) {
        b.iter_custom(|iters| {
            let mut streamed = Duration::ZERO;
            for _ in 0..iters {
                let t = Instant::now();
                stream();
                streamed += t.elapsed();
                let t = Instant::now();
                whole();
                self.whole += t.elapsed();
            }
            self.stream += streamed;
            self.iterations += iters;
            streamed
        })
    }

    /// Adds the row of the stream against the whole (target: no slower, within 5%), each
    /// figure the mean per iteration (ns) as `show` writes it; nothing when none ran.
    fn row(&self, report: &mut Report, figure: &str, show: impl Fn(f64) -> String) {
        if self.iterations == 0 {
            return;
        }
        let per = |d: Duration| d.as_nanos() as f64 / self.iterations as f64;
        let ratio = per(self.stream) / per(self.whole);
        report.row(
            figure,
            show(per(self.stream)),
            show(per(self.whole)),
            format!("{ratio:.2}×"),
            "no slower (≤ 1.05×)",
            ratio <= 1.05,
        );
    }
}

/// The whole-buffer filter of each of `pieces` as a text of its own; the bytes it gives.
fn filter_each(filter: &ResultFilter, pieces: &[&str]) -> usize {
    pieces.iter().map(|p| filter.filter(p).text.len()).sum()
}

/// `text` cut into pieces of `bytes` (the last one shorter), each ending on a character
/// boundary: what a stream of the text in pushes of that size reads as its texts.
fn pieces_of(text: &str, bytes: usize) -> Vec<&str> {
    let mut pieces = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let (piece, after) = rest.split_at(rest.ceil_char_boundary(bytes));
        pieces.push(piece);
        rest = after;
    }
    pieces
}

/// Streaming at the runner: `cat` of the 1 MiB sample through the runner (sandbox off, so the
/// run is the spawn, the pipe and the redaction), its output sent to `Run::stream_to` as it is
/// read, against the same run answered whole (`Runner::tool_result`: the output decoded,
/// redacted, cut at the cap). Then the run alone, for scale.
fn stream_run(c: &mut Criterion) -> Paired {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let sample = atip_tests::output::sample(1 << 20, 200);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("output.txt");
    std::fs::write(&file, &sample.text).unwrap();
    let runner = Runner::new()
        .sandbox(atip_runtime::Sandbox::off())
        .max_output_bytes(8 << 20);
    let cat = Invocation::new(
        "cat",
        vec!["cat".into(), file.clone().into_os_string()],
        Effects::UNKNOWN.with_destructive(false),
    );
    let streamed = || {
        rt.block_on(async {
            let (tx, mut rx) = tokio::sync::mpsc::channel::<atip_runtime::exec::OutputChunk>(64);
            let drain = async {
                let mut text = Vec::new();
                while let Some(chunk) = rx.recv().await {
                    text.extend_from_slice(&chunk.bytes);
                }
                text
            };
            let (output, text) = tokio::join!(runner.run(&cat).stream_to(tx), drain);
            output.unwrap();
            text
        })
    };
    // What is measured must also be right: the stream holds no planted secret and is whole.
    let text = String::from_utf8(streamed()).unwrap();
    for s in &sample.secrets {
        assert!(!text.contains(s.as_str()), "secret streamed: {s}");
    }
    let whole = runner.tool_result(&rt.block_on(runner.run(&cat)).unwrap());
    assert!(!whole.is_error);
    let mut g = c.benchmark_group("stream-run");
    g.throughput(Throughput::Bytes(sample.text.len() as u64));
    g.sample_size(50).measurement_time(Duration::from_secs(8));
    let whole = || {
        let output = rt.block_on(runner.run(black_box(&cat))).unwrap();
        runner.tool_result(&output)
    };
    g.bench_function("whole", |b| b.iter(whole));
    // Streamed, each run followed by the same run answered whole, for the ratio (as the
    // filter's streams are timed).
    let mut pair = Paired::default();
    g.bench_function("stream", |b| {
        pair.bench(
            b,
            || {
                black_box(streamed());
            },
            || {
                black_box(whole());
            },
        )
    });
    g.bench_function("run", |b| {
        b.iter(|| rt.block_on(runner.run(black_box(&cat))).unwrap())
    });
    g.finish();
    pair
}

/// A finished run that printed `stdout`.
fn printed(stdout: String) -> Output {
    Output {
        name: "crafted".into(),
        argv: vec!["crafted".into()],
        status: ExitStatus::Code(0),
        stdout: stdout.into_bytes(),
        stderr: Vec::new(),
        stdout_dropped: 0,
        stderr_dropped: 0,
        timed_out: false,
        timeout: Duration::from_secs(30),
        duration: Duration::from_millis(1),
        sandbox: SandboxReport::default(),
        known_secrets: Default::default(),
        tight_first: false,
    }
}

/// Formatting crafted JSON costs its parse, one measure, redaction and writing the result:
/// a small multiple of the parse, never one that grows with the number of arrays or rounds.
const TARGET_FORMAT: f64 = 3.0;

fn format(c: &mut Criterion) {
    use atip_runtime::filter::structured::MAX_ELISION_ROUNDS;
    let small = atip_tests::output::small_arrays_json(1 << 20);
    let lists = atip_tests::output::lists_json(1 << 20, MAX_ELISION_ROUNDS + 1);
    let plain = printed(atip_tests::output::sample(1 << 20, 200).text);
    let filter = ResultFilter::new();
    let options = ResultOptions::default();
    // What is measured must also be right: within the cap, cut as text or elided.
    for (text, elided) in [(&small, false), (&lists, true)] {
        let r = printed(text.clone()).format(&filter, &options);
        let body = r.content.split("\n[exit code").next().unwrap_or_default();
        assert!(body.len() <= filter.current_max_bytes(), "{}", body.len());
        assert_eq!(
            r.structured.is_some(),
            elided,
            "{}",
            &r.content[body.len()..]
        );
    }
    let mut g = c.benchmark_group("format");
    g.sample_size(20).measurement_time(Duration::from_secs(8));
    for (id, text) in [("small-arrays", &small), ("lists", &lists)] {
        let output = printed(text.clone());
        g.bench_function(id, |b| {
            b.iter(|| black_box(&output).format(&filter, &options))
        });
        g.bench_function(format!("{id}-parse-floor"), |b| {
            b.iter(|| serde_json::from_str::<serde_json::Value>(black_box(text)).unwrap())
        });
    }
    g.bench_function("plain-text", |b| {
        b.iter(|| black_box(&plain).format(&filter, &options))
    });
    g.finish();
}

fn filter_rows(report: &mut Report, since: SystemTime, filtered: &Filtered) {
    let bytes = filtered.bytes as f64;
    let mib_s = |ns: f64| bytes / (1 << 20) as f64 / (ns / 1e9);
    let Some(ours) = median_ns("filter", "filter", since) else {
        return;
    };
    report.row(
        "filter: 1 MiB, 200 secrets (throughput)",
        format!("{:.0} MiB/s", mib_s(ours)),
        "—".into(),
        "—".into(),
        "≥ 300 MiB/s",
        mib_s(ours) >= 300.0,
    );
    if let Some(simple) = median_ns("filter", "regex-simple", since) {
        let ratio = simple / ours;
        report.row(
            &format!("filter vs one `find_iter` of `{SIMPLE}`"),
            format!("{:.0} MiB/s", mib_s(ours)),
            format!("{:.0} MiB/s", mib_s(simple)),
            format!("{ratio:.2}×"),
            "≥ 0.5×",
            ratio >= 0.5,
        );
    }
    // Streaming against the whole-buffer filter of the same texts, timed side by side (a
    // target: no slower, within 5%).
    for (name, pair) in &filtered.paired {
        let what = match *name {
            "stream-1MiB" => "one push of the whole 1 MiB, vs the whole-buffer filter of it",
            "stream-64KiB" => "pushes of 64 KiB (the runner's reads of a full pipe), vs the whole-buffer filter of each piece",
            _ => "pushes of 16 KiB, vs the whole-buffer filter of each piece",
        };
        pair.row(
            report,
            &format!("streaming filter, {what} (timed in turn)"),
            |ns| format!("{:.0} MiB/s", mib_s(ns)),
        );
    }
    // What pieces cost against the whole 1 MiB, streamed or not: the rules' automata are cold
    // at each new text (reported).
    for size in ["64KiB", "16KiB"] {
        if let Some(pieces) = median_ns("filter", &format!("pieces-{size}"), since) {
            report.row(
                &format!("the whole-buffer filter of each {size} piece vs of the whole 1 MiB"),
                format!("{:.0} MiB/s", mib_s(pieces)),
                format!("{:.0} MiB/s", mib_s(ours)),
                format!("{:.2}×", pieces / ours),
                "report",
                true,
            );
        }
    }
    if let Some(prefixed) = median_ns("filter", "regex-prefixed", since) {
        report.scale(
            "one `find_iter` of `ghp_[A-Za-z0-9]{36}`",
            format!("{:.0} MiB/s", mib_s(prefixed)),
        );
    }
}

/// Streaming at the runner: the streamed run against the run answered whole, timed in turn.
fn run_rows(report: &mut Report, since: SystemTime, run: &Paired) {
    run.row(
        report,
        "`cat` of the sample through the runner, streamed (`Run::stream_to`) vs answered whole (`Runner::tool_result`), timed in turn",
        report::time,
    );
    if let Some(run) = median_ns("stream-run", "run", since) {
        report.scale(
            "the same run, neither streamed nor answered",
            report::time(run),
        );
    }
}

/// A workspace of 10,000 directories (10 × 10 × 100, plus the 110 above them) with a
/// repository at every tenth second-level directory.
fn workspace(root: &std::path::Path) -> usize {
    let mut made = 0;
    for a in 0..10 {
        for b in 0..10 {
            let mid = root.join(format!("a{a}/b{b}"));
            if b == 0 {
                std::fs::create_dir_all(mid.join(".git")).unwrap();
            }
            for c in 0..100 {
                std::fs::create_dir_all(mid.join(format!("c{c}"))).unwrap();
                made += 1;
            }
        }
    }
    made + 110
}

/// Every directory under `dir`, read as a plain walk does (the floor).
fn walk(dir: &std::path::Path) -> usize {
    let mut n = 1;
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            n += walk(&entry.path());
        }
    }
    n
}

/// Finding the repositories under a writable root before a run (issue 44): the bounded
/// breadth-first search, vs a plain recursive walk of the same tree.
fn discover(c: &mut Criterion) {
    use atip_runtime::sandbox::protect::git;
    let dir = tempfile::tempdir().unwrap();
    let made = workspace(dir.path());
    assert_eq!(made, 10_110);
    let found = git::find(dir.path(), git::MAX_DEPTH, git::MAX_DIRECTORIES);
    assert_eq!(found.work_trees.len(), 10);
    assert_eq!(
        found.directories, 10_111,
        "the root and every directory, once"
    );
    let mut g = c.benchmark_group("discover");
    g.sample_size(20).measurement_time(Duration::from_secs(6));
    g.bench_function("floor", |b| b.iter(|| walk(black_box(dir.path()))));
    g.bench_function("find", |b| {
        b.iter(|| git::find(black_box(dir.path()), git::MAX_DEPTH, git::MAX_DIRECTORIES))
    });
    g.finish();
}

fn main() {
    let since = SystemTime::now();
    let mut c = Criterion::default()
        .output_directory(&report::dir())
        .configure_from_args();
    // First, while the process is small; the exec group then grows it on purpose.
    exec(&mut c);
    discover(&mut c);
    compile(&mut c);
    real_aws(&mut c);
    dispatch(&mut c);
    let filtered = filter(&mut c);
    let streamed_run = stream_run(&mut c);
    format(&mut c);
    c.final_summary();

    let mut report = Report::default();
    for p in Provider::ALL {
        report.ratio(
            &format!("compile aws-sized document → {}", p.as_str()),
            ("compile", p.as_str()),
            ("compile", "floor"),
            0.2,
            since,
        );
    }
    report.ratio(
        "load the aws-sized document (lenient: parse, validate, model, flatten) vs `serde_json::from_str::<Value>`",
        ("compile", "load"),
        ("compile", "parse-floor"),
        1.5,
        since,
    );
    report.ratio(
        "first use of a generated module's `TOOLS` for the aws-sized document: its spec table read (`spec_table::decode`) vs `serde_json::from_str::<Value>` of the same text",
        ("compile", "spec-table"),
        ("compile", "spec-table-floor"),
        1.5,
        since,
    );
    report.ratio(
        "load (lenient) + compile the aws-sized document → `openai`",
        ("compile", "load-and-compile"),
        ("compile", "floor"),
        2.0,
        since,
    );
    report.ratio(
        "dispatch `git commit` from its JSON text (`Call::from_json_text`) → typed command + argv, vs a serde-derive struct + argv by hand",
        ("dispatch", "typed-text"),
        ("dispatch", "derive-floor"),
        1.5,
        since,
    );
    report.ratio(
        "the same call as a parsed `ToolCall` (`ToolCall::from_json_text` + `Call::from_tool_call`) + argv, vs the same floor",
        ("dispatch", "typed"),
        ("dispatch", "derive-floor"),
        1.5,
        since,
    );
    report.ratio(
        "the same call through `LoadedCommands::invocation_from_json_text` (run-time metadata, argument values recorded), vs the same floor",
        ("dispatch", "loaded-text"),
        ("dispatch", "derive-floor"),
        2.0,
        since,
    );
    report.ratio(
        "the same call as a `ToolCall` through `LoadedCommands::invocation`, vs the same floor",
        ("dispatch", "loaded"),
        ("dispatch", "derive-floor"),
        2.0,
        since,
    );
    if let (Some(derive), Some(value)) = (
        median_ns("dispatch", "derive-floor", since),
        median_ns("dispatch", "floor", since),
    ) {
        report.row(
            "(for scale) the serde-derive floor vs `serde_json::from_str::<Value>` of the arguments",
            format!("{derive:.0} ns"),
            format!("{value:.0} ns"),
            format!("{:.2}×", derive / value),
            "none",
            true,
        );
    }
    report.ratio(
        "exec `/bin/true` through the runner",
        ("exec", "runner"),
        ("exec", "floor"),
        1.2,
        since,
    );
    report.ratio(
        "sandbox: `/bin/true` declared read-only and offline, sandboxed vs sandbox off",
        ("exec", "sandboxed"),
        ("exec", "sandbox-off"),
        1.3,
        since,
    );
    report.ratio(
        "spawn: `/bin/true` read-only and offline through the sandboxed runner vs `Command::output()`",
        ("exec", "sandboxed"),
        ("exec", "floor"),
        1.3,
        since,
    );
    report.ratio(
        "the same while the runner holds 50 MiB",
        ("exec-50MiB", "sandboxed"),
        ("exec-50MiB", "floor"),
        1.3,
        since,
    );
    report.ratio(
        "the same while the runner holds 1 GiB",
        ("exec-1GiB", "sandboxed"),
        ("exec-1GiB", "floor"),
        1.3,
        since,
    );
    report.ratio(
        "find the repositories in a workspace of 10,110 directories before a run (target ≤ 20 ms) vs a plain recursive `read_dir` walk",
        ("discover", "find"),
        ("discover", "floor"),
        1.5,
        since,
    );
    if let Some(find) = median_ns("discover", "find", since) {
        report.row(
            "(absolute) finding the repositories of 10,110 directories",
            report::time(find),
            "20 ms".into(),
            format!("{:.2}×", find / 20e6),
            "≤ 1×",
            find <= 20e6,
        );
    }
    filter_rows(&mut report, since, &filtered);
    run_rows(&mut report, since, &streamed_run);
    report.ratio(
        "format a tool result from 1 MiB of JSON of many small arrays (`Output::format`: redact, detect, fit, cut as text) vs `serde_json::from_str::<Value>` of it",
        ("format", "small-arrays"),
        ("format", "small-arrays-parse-floor"),
        TARGET_FORMAT,
        since,
    );
    report.ratio(
        "format a tool result from 1 MiB of JSON in 17 lists of small arrays (every round of elision) vs `serde_json::from_str::<Value>` of it",
        ("format", "lists"),
        ("format", "lists-parse-floor"),
        TARGET_FORMAT,
        since,
    );
    if let (Some(plain), Some(floor)) = (
        median_ns("format", "plain-text", since),
        median_ns("format", "small-arrays-parse-floor", since),
    ) {
        report.row(
            "(for scale) format 1 MiB of plain text with 200 secrets, vs the first floor",
            report::time(plain),
            report::time(floor),
            format!("{:.2}×", plain / floor),
            "none",
            true,
        );
    }
    report.print();
}
