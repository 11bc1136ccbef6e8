//! Build-time costs, measured in-process on the macro's own code path (`atip_build::expand`,
//! what `include_atip!` calls), for aws-like documents of 10, 100, 1,000 and 10,000
//! commands: time per expansion (criterion) and peak heap (a counting allocator), each also
//! per command, so linear growth shows as a flat per-command figure. Also the peak heap of
//! loading the aws-sized document (21,000 commands, ≈ 49 MB) and compiling it to every
//! provider at run time, against the target of 3× the file size.
//!
//! `cargo bench -p atip-tests --bench expansion` prints the tables at the end. The
//! `cargo check` side is `tests/benches/cargo_check.py`.

use std::hint::black_box;
use std::time::{Duration, SystemTime};

use atip_build::{expand, Options};
use atip_runtime::providers::Provider;
use atip_runtime::{Document, FlattenOptions, LoadedCommands, Mode};
use atip_tests::large::{document, Shape};
use criterion::{Criterion, SamplingMode};

mod report;
use report::{median_ns, time, Report};

#[global_allocator]
static ALLOCATOR: atip_tests::alloc::Counting = atip_tests::alloc::Counting;

use atip_tests::alloc::peak_of;

const SIZES: [usize; 4] = [10, 100, 1_000, 10_000];

/// No limit: these documents are measured, not refused.
fn options() -> Options {
    Options::new().max_commands(usize::MAX)
}

fn mb(bytes: usize) -> String {
    format!("{:.1} MB", bytes as f64 / 1e6)
}

fn main() {
    let since = SystemTime::now();
    let mut c = Criterion::default()
        .output_directory(&report::dir())
        .configure_from_args();
    let docs: Vec<(usize, String)> = SIZES
        .iter()
        .map(|&n| (n, document(&Shape::commands(n))))
        .collect();

    let mut g = c.benchmark_group("expand");
    g.sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(5));
    for (n, text) in &docs {
        g.bench_function(n.to_string(), |b| {
            b.iter(|| expand(black_box(text), &options()).unwrap())
        });
    }
    g.finish();
    c.final_summary();

    // Peak heap of one expansion, the document text already in memory.
    let peaks: Vec<(usize, usize)> = docs
        .iter()
        .map(|(n, text)| {
            let (peak, exp) = peak_of(|| expand(text, &options()).unwrap());
            drop(exp);
            (*n, peak)
        })
        .collect();

    println!("\n| Commands | Document | Expansion | Per command | Peak heap | Per command |");
    println!("|---|---|---|---|---|---|");
    let mut per_command_ns = Vec::new();
    for ((n, text), (_, peak)) in docs.iter().zip(&peaks) {
        let t = median_ns("expand", &n.to_string(), since);
        let per = t.map(|t| t / *n as f64);
        if let Some(per) = per {
            per_command_ns.push((*n, per));
        }
        println!(
            "| {n} | {} | {} | {} | {} | {:.1} KB |",
            mb(text.len()),
            t.map(time).unwrap_or_else(|| "—".into()),
            per.map(time).unwrap_or_else(|| "—".into()),
            mb(*peak),
            *peak as f64 / 1e3 / *n as f64,
        );
    }
    drop(docs);

    let mut report = Report::default();
    // Linear: the per-command time at 10,000 within 1.5× of that at 1,000 (below 1,000 fixed
    // costs dominate).
    if let (Some(a), Some(b)) = (
        per_command_ns.iter().find(|(n, _)| *n == 1_000),
        per_command_ns.iter().find(|(n, _)| *n == 10_000),
    ) {
        let ratio = b.1 / a.1;
        report.row(
            "expansion per command, 10,000 vs 1,000 commands",
            time(b.1),
            time(a.1),
            format!("{ratio:.2}×"),
            "≤ 1.5× (linear)",
            ratio <= 1.5,
        );
    }
    let (p1, p2) = (peaks[2].1 as f64 / 1e3, peaks[3].1 as f64 / 1e4);
    report.row(
        "expansion peak heap per command, 10,000 vs 1,000",
        format!("{:.1} KB", p2 / 1e3),
        format!("{:.1} KB", p1 / 1e3),
        format!("{:.2}×", p2 / p1),
        "≤ 1.5× (linear)",
        p2 / p1 <= 1.5,
    );

    // Run time: load the aws-sized document from its file (the text counts while it is held)
    // and compile it to every provider.
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("aws-like.json");
    let text = document(&Shape::AWS);
    let file = text.len();
    std::fs::write(&path, &text).unwrap();
    drop(text);
    let (peak, _) = peak_of(|| {
        let doc = Document::from_path(&path, Mode::Strict, &FlattenOptions::default()).unwrap();
        let tool = LoadedCommands::new(doc, None);
        for p in Provider::ALL {
            black_box(tool.definitions_json(p));
        }
        tool
    });
    let ratio = peak as f64 / file as f64;
    report.row(
        "peak heap: load aws-sized document from its file + compile to all 7 formats",
        mb(peak),
        format!("file {}", mb(file)),
        format!("{ratio:.2}×"),
        "< 3×",
        ratio < 3.0,
    );
    report.print();
}
