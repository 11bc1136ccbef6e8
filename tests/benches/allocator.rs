//! The load of real-shaped aws metadata under mimalloc, the allocator of the `atip` binary:
//! the same figures as the `real-aws` group of `--bench runtime` (which runs with the system
//! allocator), each side of every ratio allocating the same way.
//!
//! `ATIP_BENCH_REAL_AWS=1 cargo bench -p atip-tests --bench allocator` (needs `../shared`; does
//! nothing without the variable). Figures in BENCHMARKS.md, "Side by side with the TypeScript
//! reference".

use std::hint::black_box;

use atip_core::{Document, FlattenOptions, LoadOptions};
use criterion::Criterion;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod common {
    pub mod real_aws;
}

fn real_aws_mimalloc(c: &mut Criterion) {
    let Some((_, text)) = common::real_aws::documents() else {
        return;
    };
    let mut g = common::real_aws::group(c, "real-aws-mimalloc");
    g.bench_function("parse-floor", |b| {
        b.iter(|| serde_json::from_str::<serde_json::Value>(black_box(&text)).unwrap())
    });
    g.bench_function("load", |b| {
        b.iter(|| {
            Document::parse(
                black_box(&text),
                &LoadOptions::lenient(),
                &FlattenOptions::default(),
            )
            .unwrap()
        })
    });
    g.bench_function("load-tree", |b| {
        b.iter(|| atip_core::load(black_box(&text), &LoadOptions::lenient()).unwrap())
    });
    g.finish();
}

criterion::criterion_group!(benches, real_aws_mimalloc);
criterion::criterion_main!(benches);
