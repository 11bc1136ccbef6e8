//! Memory on large documents: a warning costs no second parse of the document. Loading a
//! 5,000-command document (≈ 12 MB) with one warning peaks within 1% of the file size of
//! loading the same document without it; with a warning in every command, within 1% plus 2 KB
//! per warning (the diagnostic's own path, message and location, and the walk's bookkeeping);
//! and always under 3× the file size.

use atip_runtime::{Document, FlattenOptions, LoadOptions};
use atip_tests::alloc::peak_of;
use atip_tests::large::{value, Shape};

/// The document with two positionals on the first `n` operations: the first optional (a
/// warning each: it comes before a required one) when `warn`, else required (no warning).
fn with_arguments(shape: &Shape, n: usize, warn: bool) -> String {
    let mut doc = value(shape);
    let ops = doc["commands"]
        .as_object_mut()
        .unwrap()
        .values_mut()
        .flat_map(|s| s["commands"].as_object_mut().unwrap().values_mut());
    for op in ops.take(n) {
        op["arguments"] = serde_json::json!([
            {"name": "first", "type": "string", "required": !warn, "description": "Optional"},
            {"name": "second", "type": "string", "required": true, "description": "Required"}
        ]);
    }
    serde_json::to_string_pretty(&doc).unwrap()
}

pub fn warnings_on_a_large_document_cost_no_second_parse() {
    let shape = Shape::commands(5_000);
    let load = |text: &str| {
        Document::parse(text, &LoadOptions::lenient(), &FlattenOptions::default()).unwrap()
    };
    let mb = |b: usize| b as f64 / 1e6;
    let mut peaks = Vec::new();
    for (n, warn) in [(1, false), (1, true), (5_000, false), (5_000, true)] {
        let text = with_arguments(&shape, n, warn);
        let (peak, doc) = peak_of(|| load(&text));
        assert_eq!(doc.warnings.len(), if warn { n } else { 0 });
        assert!(doc.warnings.iter().all(|w| w.location.is_some()));
        drop(doc);
        println!(
            "{n} commands with arguments, warnings {warn}: file {:.1} MB, peak {:.1} MB",
            mb(text.len()),
            mb(peak)
        );
        assert!(peak <= 3 * text.len(), "{peak} > 3 × {}", text.len());
        peaks.push((text.len(), peak));
    }
    let (file, clean) = peaks[0];
    let one = peaks[1].1;
    assert!(
        one <= clean + file / 100,
        "one warning: +{} bytes",
        one.saturating_sub(clean)
    );
    let (clean, all) = (peaks[2].1, peaks[3].1);
    assert!(
        all <= clean + file / 100 + 2048 * 5_000,
        "5,000 warnings: +{} bytes",
        all.saturating_sub(clean)
    );
}
