//! The real-shaped aws document issue 33 measures on, shared by the benches that use it.

/// `../shared/corpus/atip/scale/aws-mid.json` (the real aws metadata of ten services, 819
/// commands) and it repeated 25 times under new service names (20,475 commands, ≈ 65 MB
/// pretty-printed), or `None` unless `ATIP_BENCH_REAL_AWS` is set.
///
/// # Panics
///
/// With `ATIP_BENCH_REAL_AWS` set, when `../shared` is missing: the benches fail, they do not
/// skip.
pub fn documents() -> Option<(String, String)> {
    std::env::var_os("ATIP_BENCH_REAL_AWS")?;
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/corpus/atip/scale/aws-mid.json");
    let one = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("ATIP_BENCH_REAL_AWS needs {}: {e}", path.display()));
    let mut doc: serde_json::Value = serde_json::from_str(&one).unwrap();
    let services = doc["commands"].as_object().unwrap().clone();
    let mut repeated = serde_json::Map::new();
    for i in 0..25 {
        for (name, service) in &services {
            let name = if i == 0 {
                name.clone()
            } else {
                format!("{name}{i}")
            };
            repeated.insert(name, service.clone());
        }
    }
    doc["commands"] = serde_json::Value::Object(repeated);
    let text = serde_json::to_string_pretty(&doc).unwrap();
    Some((one, text))
}

/// A benchmark group for documents this size: ten samples of up to 12 s each.
pub fn group<'c>(
    c: &'c mut criterion::Criterion,
    name: &str,
) -> criterion::BenchmarkGroup<'c, criterion::measurement::WallTime> {
    let mut g = c.benchmark_group(name);
    g.sample_size(10)
        .warm_up_time(std::time::Duration::from_secs(1))
        .measurement_time(std::time::Duration::from_secs(12));
    g
}
