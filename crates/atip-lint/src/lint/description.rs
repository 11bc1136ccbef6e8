//! The reference linter's `description-quality` rule: no surrounding whitespace, 10 to 200
//! characters, no placeholder text, a capital first letter.

use atip_core::diagnostic::JsonPath;
use serde_json::Value;

use super::linter::Linter;

impl Linter<'_> {
    /// The reference linter's description checks, for a present description.
    pub(super) fn description(&mut self, d: Option<&Value>, at: JsonPath) {
        let Some(Value::String(text)) = d else { return };
        if text.is_empty() {
            return;
        }
        if text.trim() != text {
            self.report(
                "description-quality",
                at,
                "Description has leading or trailing whitespace",
            );
            return;
        }
        // The reference counts UTF-16 code units; characters differ only outside the BMP.
        let len = text.encode_utf16().count();
        if len < 10 {
            self.report(
                "description-quality",
                at.clone(),
                "Description is too short (minimum 10 characters)",
            );
        }
        if len > 200 {
            self.report(
                "description-quality",
                at.clone(),
                "Description is too long (maximum 200 characters)",
            );
        }
        for placeholder in ["TODO", "FIXME", "Description", "TBD"] {
            if text.contains(placeholder) {
                self.report(
                    "description-quality",
                    at.clone(),
                    format!("Description contains placeholder text: \"{placeholder}\""),
                );
            }
        }
        if let Some(first) = text.chars().next() {
            if first.to_uppercase().next() != Some(first) {
                self.report(
                    "description-quality",
                    at,
                    "Description should start with an uppercase letter",
                );
            }
        }
    }
}
