//! 1 GiB of output through the runner: held under the cap, the rest drained and counted, and
//! this process's peak memory stays small. Measured first, so no other part's memory counts
//! against the peak.

use std::time::Duration;

use atip_runtime::{Effects, Invocation, Runner};

fn peak_rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches(" kB").trim().parse().ok())
        .unwrap()
}

pub fn a_gibibyte_of_output_stays_under_the_cap() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let cap = 1024 * 1024;
    let total: u64 = 1024 * 1024 * 1024;
    let out = rt.block_on(async {
        Runner::new()
            .max_output_bytes(cap)
            .timeout(Duration::from_secs(60))
            .run(&Invocation::new(
                "head",
                vec![
                    "head".into(),
                    "-c".into(),
                    total.to_string().into(),
                    "/dev/zero".into(),
                ],
                Effects::UNKNOWN.with_destructive(false),
            ))
            .await
            .unwrap()
    });
    assert!(
        out.success(),
        "the child never blocked on a full pipe: {:?}",
        out.status
    );
    assert_eq!(out.stdout.len(), cap);
    assert_eq!(out.dropped_bytes(), total - cap as u64);
    let peak = peak_rss_kib();
    println!("peak RSS {peak} KiB");
    assert!(peak < 64 * 1024, "peak RSS {peak} KiB for 1 GiB of output");
    let text = out.to_tool_result().content;
    let marker = text
        .rsplit_once("[output truncated: ")
        .and_then(|(_, m)| m.strip_suffix(" bytes omitted]"))
        .unwrap_or_else(|| panic!("no truncation marker: {}", &text[text.len() - 80..]));
    let omitted: u64 = marker.parse().unwrap();
    // Everything past the capture cap, plus whatever the result filter cut from what was kept.
    assert!(
        (total - cap as u64..=total).contains(&omitted),
        "{omitted} bytes omitted"
    );
}
