//! Effects inferred from a Fig spec, on the safe side (spec §3.6, §11.1): the metadata carries
//! `trust.source: "inferred"`, evidence of danger sets `destructive: true`, and nothing but
//! evidence sets it `false`.
//!
//! A Fig spec says nothing about side effects except `isDangerous`. What the importer declares
//! comes from the evidence below and nothing else; a command without evidence keeps
//! `destructive` **undeclared**, which the runtime's policy treats as "needs confirmation"
//! (spec §11.1: unknown is never safe). `destructive: false` is only ever declared from a
//! read-only verb, and never when any evidence of danger exists for the same command.
//!
//! # Rules, in order of precedence
//!
//! | evidence | declares | reason |
//! |---|---|---|
//! | `isDangerous` on the command | `destructive: true` | the spec's author marked the command itself dangerous |
//! | `isDangerous` on one of its options (own, or persistent on an ancestor) or arguments | on the option or argument, `x-atip-rust.effects: {"destructive": true}`; the command is named destructive with it in its description, and gets no read-only guess | a call that gives the option can destroy data: the call's effects include the option's, so the policy asks about `--force` by name, and definitions and MCP annotations (the union over every option) still say the command can destroy |
//! | a word of the command's name is a [destructive verb](DESTRUCTIVE_VERBS) (`delete`, `field-delete`, `rmi`, …) | `destructive: true`, `reversible: false` | the command's purpose is to remove or discard something; such removals are rarely undoable |
//! | an argument with `isCommand` (`sudo`, `xargs`, `time`) | `subprocess: true` | it runs another command line, whose effects are unknown (`destructive` stays undeclared) |
//! | the first word of the command's description is a destructive verb ("Delete a context") | `destructive: true`, `reversible: false` | the spec's own words say what it does |
//! | the first word of the description is one of [`CHANGING_WORDS`] (`install`, `upgrade`, `create`, `start`, …) | no read-only guess | descriptions only raise effects: `terraform get` installs modules |
//! | the first word of the name of a leaf command is a [read-only verb](READ_ONLY_VERBS) (`list`, `get`, `view`, `list-buckets`, …), and none of the evidence above applies | `destructive: false`, `filesystem.write: false` | the command's purpose is to report; a wrong guess is caught by the sandbox, which then refuses the write (the command fails, nothing is written) |
//! | anything else | nothing | no evidence: `destructive` stays undeclared and the policy asks for confirmation |
//!
//! Words are the parts of a name split at `-`, `_`, `:` and `.`, compared in ASCII lower case.
//! Read-only verbs are only applied to the command that runs (a leaf, or the `""` command
//! standing for a group), never to a group: a group called `show` may still hold commands that
//! write. Destructive evidence on a group applies to every command below it, as effects merge
//! with `destructive` OR-ed: risk flags merge from the tool through each ancestor to the
//! command with OR, `reversible` and `idempotent` with AND.

use serde_json::{json, Map, Value};

/// Words that make a command destructive, each with why. Compared with each word of the
/// command's name (and of its aliases).
pub const DESTRUCTIVE_VERBS: &[(&str, &str)] = &[
    ("delete", "deletes a resource"),
    ("del", "short for delete"),
    ("remove", "removes a resource"),
    ("rm", "short for remove"),
    ("rmi", "removes images (docker, podman)"),
    ("rmdir", "removes directories"),
    ("unlink", "removes a link or file"),
    ("destroy", "destroys a resource"),
    ("drop", "drops a database object"),
    ("purge", "removes data for good"),
    ("prune", "removes unused resources"),
    ("uninstall", "removes installed software"),
    ("unpublish", "withdraws a published package"),
    (
        "reset",
        "discards state (git reset --hard, database resets)",
    ),
    ("restore", "overwrites current files with a saved state"),
    ("clean", "deletes generated or untracked files (git clean)"),
    ("clear", "empties a store or cache"),
    ("wipe", "erases data"),
    ("erase", "erases data"),
    ("shred", "overwrites files so they cannot be recovered"),
    ("truncate", "cuts data off"),
    ("kill", "terminates processes"),
    ("killall", "terminates processes by name"),
    ("pkill", "terminates processes by pattern"),
    ("terminate", "terminates instances or processes"),
    ("revoke", "revokes credentials or access"),
    ("deregister", "removes a registration"),
    ("unregister", "removes a registration"),
    ("expunge", "removes data for good"),
    ("nuke", "removes everything"),
];

/// Words that make a leaf command read-only when its name starts with one, each with why.
pub const READ_ONLY_VERBS: &[(&str, &str)] = &[
    ("list", "lists resources"),
    ("ls", "lists resources"),
    ("get", "reads a resource"),
    ("show", "shows a resource"),
    ("describe", "describes a resource"),
    ("status", "reports state"),
    ("view", "shows a resource"),
    ("log", "shows history"),
    ("logs", "shows logs"),
    ("diff", "compares states"),
    ("search", "searches"),
    ("inspect", "shows details"),
    ("info", "shows information"),
    ("version", "prints a version"),
    ("help", "prints help"),
    ("explain", "prints documentation"),
    ("cat", "prints contents"),
    ("whoami", "prints the current identity"),
];

/// Verbs that say a command changes something when its description starts with one: then it
/// gets no read-only guess from its name (`terraform get`: "Install or upgrade remote
/// Terraform modules"). Descriptions only ever raise effects. Only the first word counts:
/// later words are often nouns ("List and filter pull requests").
pub const CHANGING_WORDS: &[&str] = &[
    "install",
    "installs",
    "upgrade",
    "upgrades",
    "update",
    "updates",
    "create",
    "creates",
    "start",
    "starts",
    "restart",
    "stop",
    "build",
    "builds",
    "write",
    "writes",
    "modify",
    "modifies",
    "apply",
    "applies",
    "push",
    "pushes",
    "deploy",
    "upload",
    "publish",
    "edit",
    "rename",
    "move",
    "init",
    "initialize",
    "initializes",
    "commit",
    "merge",
    "rebase",
    "boot",
    "bootstrap",
    "save",
    "saves",
    "import",
    "sync",
    "login",
    "logout",
    "pull",
    "download",
    "downloads",
    "generate",
    "generates",
    "change",
    "changes",
    "add",
    "adds",
    "enable",
    "disable",
    "register",
    "attach",
    "detach",
    "scale",
    "patch",
    "annotate",
    "label",
    "cordon",
    "uncordon",
    "taint",
    "rollout",
    "restore",
];

/// The evidence found for one command.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Evidence {
    /// The spec's description of the command, as written (empty when it has none): its first
    /// word can make it destructive ("Delete a context"), and [`CHANGING_WORDS`] take away the
    /// read-only guess.
    pub description: String,
    /// The command itself has `isDangerous`.
    pub dangerous_command: bool,
    /// Flags of options with `isDangerous` that apply to the command (its own and persistent
    /// ones of its ancestors), and names of arguments with `isDangerous`.
    pub dangerous_parameters: Vec<String>,
    /// It takes a command line to run (`isCommand`).
    pub runs_command: bool,
}

/// What is declared for one command.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Inferred {
    /// `effects.destructive`; `None` leaves it undeclared.
    pub destructive: Option<bool>,
    /// `effects.reversible`.
    pub reversible: Option<bool>,
    /// `effects.filesystem.write`.
    pub filesystem_write: Option<bool>,
    /// `effects.subprocess`.
    pub subprocess: Option<bool>,
    /// Why, in words, for the description (empty when nothing is declared or the reason is
    /// the command's name).
    pub note: Option<String>,
    /// The rule that decided `destructive`, for reports (`dangerous option --force`,
    /// `destructive verb delete`, `read-only verb list`).
    pub rule: Option<String>,
}

impl Inferred {
    /// The `effects` object to write, or `None` when nothing is declared. `inherited_destructive`
    /// says whether an enclosing group already declares `destructive: true`; then
    /// `destructive: false` is not written (it would lose the merge anyway).
    pub fn to_json(&self, inherited_destructive: bool) -> Option<Value> {
        let mut m = Map::new();
        match self.destructive {
            Some(true) => {
                m.insert("destructive".into(), json!(true));
            }
            Some(false) if !inherited_destructive => {
                m.insert("destructive".into(), json!(false));
            }
            _ => {}
        }
        if let Some(r) = self.reversible {
            m.insert("reversible".into(), json!(r));
        }
        if let Some(s) = self.subprocess {
            m.insert("subprocess".into(), json!(s));
        }
        if let Some(w) = self.filesystem_write {
            if !inherited_destructive {
                m.insert("filesystem".into(), json!({ "write": w }));
            }
        }
        (!m.is_empty()).then_some(Value::Object(m))
    }
}

/// The words of a command name, lower-cased: `field-delete` → `["field", "delete"]`.
pub fn words(name: &str) -> Vec<String> {
    name.split(['-', '_', ':', '.'])
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .collect()
}

/// The words of a description, lower-cased, split at everything but letters and digits.
fn text_words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// The destructive verb among the words of `name`, if any.
pub fn destructive_verb(name: &str) -> Option<&'static str> {
    let words = words(name);
    DESTRUCTIVE_VERBS
        .iter()
        .map(|(v, _)| *v)
        .find(|v| words.iter().any(|w| w == v))
}

/// The read-only verb `name` starts with, if any.
pub fn read_only_verb(name: &str) -> Option<&'static str> {
    let words = words(name);
    let first = words.first()?;
    READ_ONLY_VERBS.iter().map(|(v, _)| *v).find(|v| first == v)
}

/// Infers the effects of one command from its names (`names[0]` is the name, the rest its
/// aliases; for the `""` command standing for a group, the group's names) and the evidence.
/// `runs` says whether the command is the one that runs (a leaf or a `""` command) rather than
/// a group: read-only verbs only apply then. See the module docs for the rules.
pub fn infer(names: &[&str], evidence: &Evidence, runs: bool) -> Inferred {
    let mut out = Inferred {
        subprocess: evidence.runs_command.then_some(true),
        ..Inferred::default()
    };
    if evidence.dangerous_command {
        out.destructive = Some(true);
        out.rule = Some("isDangerous command".into());
    }
    if !evidence.dangerous_parameters.is_empty() {
        // The parameters carry `destructive: true` themselves (`x-atip-rust.effects`), so a
        // call is destructive when it gives one; the command alone stays as the other
        // evidence says, and is never guessed read-only.
        let list = evidence.dangerous_parameters.join(", ");
        out.note = Some(format!("destructive with {list} (marked dangerous)"));
    }
    if let Some(verb) = names.iter().find_map(|n| destructive_verb(n)) {
        out.destructive = Some(true);
        out.reversible = Some(false);
        out.rule
            .get_or_insert_with(|| format!("destructive verb {verb}"));
    }
    let said = text_words(&evidence.description);
    // The description's first word, an imperative: "Delete a context", "Remove one or more
    // images".
    if let Some(first) = said.first() {
        if let Some((verb, _)) = DESTRUCTIVE_VERBS.iter().find(|(v, _)| v == first) {
            out.destructive = Some(true);
            out.reversible = Some(false);
            out.rule
                .get_or_insert_with(|| format!("description verb {verb}"));
        }
    }
    // Its first word too: nouns later in a sentence mislead ("List and filter pull
    // requests").
    let changes = said
        .first()
        .filter(|w| CHANGING_WORDS.contains(&w.as_str()));
    let danger = !evidence.dangerous_parameters.is_empty();
    if let (Some(word), None, true) = (changes, out.destructive, runs) {
        out.rule = Some(format!("description says {word:?}: no read-only guess"));
    } else if out.destructive.is_none() && !danger && !evidence.runs_command && runs {
        if let Some(verb) = names.first().and_then(|n| read_only_verb(n)) {
            out.destructive = Some(false);
            out.filesystem_write = Some(false);
            out.rule = Some(format!("read-only verb {verb}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn none() -> Evidence {
        Evidence::default()
    }

    #[test]
    fn deleting_verbs_are_destructive_and_not_reversible() {
        for name in [
            "delete",
            "field-delete",
            "delete-asset",
            "rm",
            "rmi",
            "prune",
            "Remove",
        ] {
            let e = infer(&[name], &none(), true);
            assert_eq!(e.destructive, Some(true), "{name}");
            assert_eq!(e.reversible, Some(false), "{name}");
        }
    }

    #[test]
    fn an_alias_with_a_deleting_verb_is_evidence() {
        assert_eq!(
            infer(&["trash", "rm"], &none(), true).destructive,
            Some(true)
        );
    }

    #[test]
    fn read_only_verbs_declare_no_writes_only_without_danger() {
        let e = infer(&["list"], &none(), true);
        assert_eq!(e.destructive, Some(false));
        assert_eq!(e.filesystem_write, Some(false));
        assert_eq!(
            infer(&["list-buckets"], &none(), true).destructive,
            Some(false)
        );
        let dangerous = Evidence {
            dangerous_parameters: vec!["--force".into()],
            ..none()
        };
        // The option carries the danger; the command gets no read-only guess.
        let e = infer(&["list"], &dangerous, true);
        assert_eq!(e.destructive, None);
        assert_eq!(e.filesystem_write, None);
        assert!(e.note.unwrap().contains("--force"));
        // "list-deleted" is not a deleting verb, and "show-and-delete" does delete.
        assert_eq!(
            infer(&["list-deleted"], &none(), true).destructive,
            Some(false)
        );
        assert_eq!(
            infer(&["show-and-delete"], &none(), true).destructive,
            Some(true)
        );
    }

    #[test]
    fn descriptions_only_raise_effects() {
        let said = |description: &str| Evidence {
            description: description.into(),
            ..none()
        };
        // `terraform get` installs modules: no read-only guess from `get`.
        let e = infer(
            &["get"],
            &said("Install or upgrade remote Terraform modules"),
            true,
        );
        assert_eq!((e.destructive, e.filesystem_write), (None, None));
        assert!(e.rule.unwrap().contains("install"));
        // A description that starts with a destructive verb makes the command destructive.
        let e = infer(
            &["forget"],
            &said("Delete a context from the kubeconfig"),
            true,
        );
        assert_eq!((e.destructive, e.reversible), (Some(true), Some(false)));
        // A read-only description lowers nothing: `create` stays unknown.
        assert_eq!(
            infer(&["create"], &said("Show a resource"), true).destructive,
            None
        );
        // A read-only verb with a description that changes nothing keeps its guess, nouns
        // later in it included.
        assert_eq!(
            infer(&["get"], &said("Display one or many resources"), true).destructive,
            Some(false)
        );
        assert_eq!(
            infer(&["list"], &said("List and filter pull requests"), true).destructive,
            Some(false)
        );
    }

    #[test]
    fn groups_get_no_read_only_guess() {
        assert_eq!(infer(&["show"], &none(), false).destructive, None);
        assert_eq!(infer(&["delete"], &none(), false).destructive, Some(true));
    }

    #[test]
    fn no_evidence_leaves_destructive_undeclared() {
        for name in ["create", "apply", "push", "run", "edit", "build"] {
            let e = infer(&[name], &none(), true);
            assert_eq!(e, Inferred::default(), "{name}");
            assert_eq!(e.to_json(false), None);
        }
    }

    #[test]
    fn running_a_command_line_is_a_subprocess_and_never_read_only() {
        let e = infer(
            &["help"],
            &Evidence {
                runs_command: true,
                ..none()
            },
            true,
        );
        assert_eq!(e.subprocess, Some(true));
        assert_eq!(e.destructive, None);
    }

    #[test]
    fn the_dangerous_mark_wins() {
        let e = infer(
            &["archive"],
            &Evidence {
                dangerous_command: true,
                ..none()
            },
            true,
        );
        assert_eq!(
            e.to_json(false),
            Some(serde_json::json!({"destructive": true}))
        );
    }

    #[test]
    fn read_only_is_not_written_under_a_destructive_group() {
        let e = infer(&["list"], &none(), true);
        assert_eq!(e.to_json(true), None);
    }
}
