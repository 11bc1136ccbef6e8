//! The lint rules: their ids, default severities and what each checks.

use serde::Serialize;

/// How serious a finding is: an error fails `atip lint` (exit status 1), a warning does not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Worth a look; the metadata is usable.
    Warn,
    /// The metadata is wrong or unsafe as it stands.
    Error,
}

impl Severity {
    /// `"error"` or `"warn"`, as the reference linter spells them.
    pub const fn as_str(self) -> &'static str {
        match self {
            Severity::Warn => "warn",
            Severity::Error => "error",
        }
    }
}

/// One lint rule: its id, default severity and what it checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Rule {
    /// The rule id, e.g. `destructive-needs-reversible`.
    pub id: &'static str,
    /// Its default severity (the reference linter's `recommended` preset for its rules).
    pub severity: Severity,
    /// Whether the rule is the reference linter's (`true`) or this project's own.
    pub upstream: bool,
    /// What it checks, in one sentence.
    pub summary: &'static str,
}

/// Every rule, in the order findings of one node are reported.
pub const RULES: &[Rule] = &[
    Rule {
        id: "schema",
        severity: Severity::Error,
        upstream: false,
        summary: "The document passes the ATIP JSON Schema of its declared version (strict \
                  load): its errors are errors, its warnings (unknown fields) warnings.",
    },
    Rule {
        id: "no-missing-required-fields",
        severity: Severity::Error,
        upstream: true,
        summary: "Commands have a description; arguments a name, type and description; \
                  options a name, flags, type and description; `enum` types an `enum` list.",
    },
    Rule {
        id: "valid-effects-values",
        severity: Severity::Error,
        upstream: true,
        summary: "Effects flags are booleans, `cost.estimate` and `interactive.stdin` take \
                  their listed values, durations read like `5s`, `1-5s` or `instant`.",
    },
    Rule {
        id: "no-duplicate-flags",
        severity: Severity::Error,
        upstream: true,
        summary: "No flag appears twice in one option, in two options of one command, in two \
                  global options, or in a command option and a global option.",
    },
    Rule {
        id: "consistent-naming",
        severity: Severity::Warn,
        upstream: true,
        summary: "Command names and option names are kebab-case (lowercase words joined by \
                  `-`; the empty command name `\"\"` is exempt).",
    },
    Rule {
        id: "description-quality",
        severity: Severity::Warn,
        upstream: true,
        summary: "Descriptions have no surrounding whitespace, are 10 to 200 characters, \
                  contain no placeholder (TODO, FIXME, Description, TBD) and start with an \
                  uppercase letter.",
    },
    Rule {
        id: "no-empty-effects",
        severity: Severity::Warn,
        upstream: true,
        summary: "Every command without subcommands declares `effects` with at least one field.",
    },
    Rule {
        id: "destructive-needs-reversible",
        severity: Severity::Warn,
        upstream: true,
        summary: "Effects with `destructive: true` also declare `reversible`.",
    },
    Rule {
        id: "billable-needs-confirmation",
        severity: Severity::Warn,
        upstream: true,
        summary: "Effects with `cost.billable: true` are not `idempotent: true` (a retry costs \
                  again).",
    },
    Rule {
        id: "trust-source-requirements",
        severity: Severity::Warn,
        upstream: true,
        summary: "`native` metadata declares effects on every command; `vendor` metadata has \
                  `homepage` and `version`; `inferred` metadata says `verified: false`.",
    },
    Rule {
        id: "injection-vector-option",
        severity: Severity::Warn,
        upstream: false,
        summary: "Options that run a program or write any file the caller names (see \
                  INJECTION_VECTORS) are flagged; an error when the command's effects deny \
                  that (`subprocess: false`, `filesystem.write: false`).",
    },
    Rule {
        id: "positional-order",
        severity: Severity::Warn,
        upstream: false,
        summary: "No required positional argument follows an optional one, and no argument \
                  follows a variadic one: positionals are filled in order, so such an \
                  argument could never be given alone. A warning, as `atip check` says it: a \
                  call that gives every positional still works.",
    },
    Rule {
        id: "effects-overridden",
        severity: Severity::Warn,
        upstream: false,
        summary: "A command's declared effect that the conservative merge with the tool and \
                  its ancestors overrides (`destructive: false` under a destructive group, …): \
                  the declaration has no effect.",
    },
];

pub(super) fn rule(id: &str) -> &'static Rule {
    RULES.iter().find(|r| r.id == id).unwrap_or(&RULES[0])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_id_is_listed_once() {
        let mut ids: Vec<&str> = RULES.iter().map(|r| r.id).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), RULES.len());
        assert_eq!(rule("no-such-rule").id, "schema");
    }
}
