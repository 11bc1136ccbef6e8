//! Reads the medians criterion measured in this run and prints them as ratios to their floors.
#![allow(dead_code)] // each bench uses part of it

use std::path::PathBuf;
use std::time::SystemTime;

/// Where criterion writes its results for these benches.
pub fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("criterion")
}

/// The median time in nanoseconds of `group/id`, if criterion measured it after `since` (in
/// this run: a filtered run leaves older results behind, which must not be reported).
pub fn median_ns(group: &str, id: &str, since: SystemTime) -> Option<f64> {
    let file = dir()
        .join(group)
        .join(id)
        .join("new")
        .join("estimates.json");
    let modified = std::fs::metadata(&file).and_then(|m| m.modified()).ok()?;
    if modified < since {
        return None;
    }
    let text = std::fs::read_to_string(&file).ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    v["median"]["point_estimate"].as_f64()
}

/// A printable duration for nanoseconds.
pub fn time(ns: f64) -> String {
    if ns >= 1e9 {
        format!("{:.2} s", ns / 1e9)
    } else if ns >= 1e6 {
        format!("{:.1} ms", ns / 1e6)
    } else if ns >= 1e3 {
        format!("{:.1} µs", ns / 1e3)
    } else {
        format!("{ns:.0} ns")
    }
}

/// The result table, printed as Markdown at the end of the run.
#[derive(Default)]
pub struct Report {
    rows: Vec<[String; 6]>,
}

impl Report {
    /// Adds a row: what was measured, our figure, the floor, the ratio, the target, whether it
    /// was met.
    pub fn row(
        &mut self,
        figure: &str,
        ours: String,
        floor: String,
        ratio: String,
        target: &str,
        met: bool,
    ) {
        self.rows.push([
            figure.to_owned(),
            ours,
            floor,
            ratio,
            target.to_owned(),
            if met { "yes" } else { "**no**" }.to_owned(),
        ]);
    }

    /// Adds a row with our figure alone, given for scale: no floor, no target.
    pub fn scale(&mut self, figure: &str, ours: String) {
        self.row(
            &format!("(for scale) {figure}"),
            ours,
            "—".into(),
            "—".into(),
            "none",
            true,
        );
    }

    /// Adds a ratio row `ours / floor` for two measured benches, when both ran.
    pub fn ratio(
        &mut self,
        figure: &str,
        ours: (&str, &str),
        floor: (&str, &str),
        max: f64,
        since: SystemTime,
    ) {
        let (Some(o), Some(f)) = (
            median_ns(ours.0, ours.1, since),
            median_ns(floor.0, floor.1, since),
        ) else {
            return;
        };
        let ratio = o / f;
        self.row(
            figure,
            time(o),
            time(f),
            format!("{ratio:.2}×"),
            &format!("≤ {max}×"),
            ratio <= max,
        );
    }

    /// Prints the table (nothing when no row was measured).
    pub fn print(&self) {
        if self.rows.is_empty() {
            return;
        }
        println!("\n| Figure | Ours | Floor | Ratio | Target | Met |");
        println!("|---|---|---|---|---|---|");
        for r in &self.rows {
            println!("| {} |", r.join(" | "));
        }
    }
}
