//! The results of importing many specs added up: counts, failures by category, and a report.

use crate::convert::Stats;
use crate::error::ImportError;
use crate::importer::Imported;

/// The results of importing many specs, added up with [`Summary::add`] (e.g. from
/// [`Importer::import_many`](crate::Importer::import_many)).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Summary {
    /// Specs converted.
    pub converted: usize,
    /// Specs that failed, with the error's category and message, sorted by name.
    pub failed: Vec<(String, String, String)>,
    /// Counts added over the converted specs.
    pub stats: Stats,
    /// Warnings over the converted specs.
    pub warnings: usize,
}

impl Summary {
    /// Records one result.
    pub fn add(&mut self, name: &str, result: &Result<Imported, ImportError>) {
        match result {
            Ok(i) => {
                self.converted += 1;
                self.stats.add(&i.stats);
                self.warnings += i.warnings.len();
            }
            Err(e) => {
                self.failed
                    .push((name.to_owned(), e.category().to_owned(), e.to_string()));
                self.failed.sort();
            }
        }
    }

    /// Specs converted and failed.
    pub fn total(&self) -> usize {
        self.converted + self.failed.len()
    }

    /// The report: converted and failed counts, each failure with its reason, failures by
    /// category, and what was ignored.
    pub fn report(&self) -> String {
        let mut out = String::new();
        let total = self.total();
        let rate = if total == 0 {
            0.0
        } else {
            100.0 * self.converted as f64 / total as f64
        };
        out.push_str(&format!(
            "converted {} of {total} specs ({rate:.1}%), failed {}\n",
            self.converted,
            self.failed.len()
        ));
        let mut by_category: Vec<(&str, usize)> = Vec::new();
        for (_, c, _) in &self.failed {
            match by_category.iter_mut().find(|(k, _)| k == c) {
                Some((_, n)) => *n += 1,
                None => by_category.push((c, 1)),
            }
        }
        for (c, n) in by_category {
            out.push_str(&format!("  failed ({c}): {n}\n"));
        }
        for (name, _, reason) in &self.failed {
            out.push_str(&format!("  FAILED {name}: {reason}\n"));
        }
        let s = &self.stats;
        out.push_str(&format!(
            "commands: {} ({} destructive, {} read-only, the rest undeclared)\n\
             ignored: {} generators, {} generateSpec, {} loadSpec not followed ({} followed), {} hidden\n\
             warnings: {}\n",
            s.commands,
            s.destructive,
            s.read_only,
            s.generators,
            s.generate_specs,
            s.load_specs_ignored,
            s.load_specs_followed,
            s.hidden,
            self.warnings
        ));
        out
    }
}
