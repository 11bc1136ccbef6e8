//! The generated API on real metadata (goldens of `examples/atip/*.json` and the adversarial
//! fixture): argv order and forms, constructor and setters, arguments objects and serde with
//! provider names, `Call`, effects constants.

use std::ffi::OsString;

use atip_runtime::{
    command::argv::ArgvProblem, command::fields::Enumeration, effects::CostEstimate,
    effects::StdinMode, Command, ToInvocation, TrustSource,
};
use atip_tests::gh::SetPrOptions;
use atip_tests::git::SetGlobals;
use atip_tests::weird::SetGroupOptions;
use atip_tests::{gh, git, ls, rm, weird};

fn s(argv: Vec<OsString>) -> Vec<String> {
    argv.into_iter().map(|a| a.into_string().unwrap()).collect()
}

#[test]
fn argv_order_is_program_globals_path_options_positionals() {
    let c = git::Commit::new("fix: a bug").no_pager(true).all(true);
    assert_eq!(
        s(c.try_argv().unwrap()),
        [
            "git",
            "--no-pager",
            "commit",
            "--message=fix: a bug",
            "--all"
        ]
    );
    let b = git::Branch::new()
        .branchname("topic")
        .start_point("main")
        .verbose(true);
    assert_eq!(
        s(b.try_argv().unwrap()),
        ["git", "branch", "--verbose", "topic", "main"]
    );
}

#[test]
fn long_flags_attach_values_short_only_flags_take_two_elements() {
    assert_eq!(
        s(git::Log::new().max_count(3).format("%h %s").argv()),
        ["git", "log", "--max-count=3", "--format=%h %s"]
    );
    assert_eq!(
        s(weird::Enums::new(["f"], "o").argv()),
        ["weird", "enums", "-o", "o", "f"]
    );
    // A short-only boolean is the bare flag.
    assert_eq!(
        s(git::Clean::new().directories(true).ignored(true).argv()),
        ["git", "clean", "-d", "-x"]
    );
    assert_eq!(
        s(ls::Ls::new().long(true).one_per_line(true).argv()),
        ["ls", "-l", "-1"]
    );
}

#[test]
fn false_booleans_and_unset_options_leave_no_trace() {
    assert_eq!(s(git::Status::new().short(false).argv()), ["git", "status"]);
    assert_eq!(
        s(ls::Ls::default().argv()),
        ["ls"],
        "no empty argv element for the \"\" command"
    );
}

#[test]
fn lists_repeat_the_flag_and_expand_positionals() {
    let clean = git::Clean::new()
        .exclude(["*.log", "target"])
        .pathspec(["a", "b"]);
    assert_eq!(
        s(clean.argv()),
        [
            "git",
            "clean",
            "--exclude=*.log",
            "--exclude=target",
            "a",
            "b"
        ]
    );
}

#[test]
fn values_that_look_like_flags_cannot_become_flags() {
    // Option values are attached to their flag.
    assert_eq!(
        s(git::Commit::new("--amend").argv()),
        ["git", "commit", "--message=--amend"]
    );
    // Positionals starting with '-' come after "--".
    assert_eq!(
        s(rm::Rm::new(["-rf", "ok"]).argv()),
        ["rm", "--", "-rf", "ok"]
    );
    assert_eq!(
        s(rm::Rm::new(["ok"]).force(true).argv()),
        ["rm", "--force", "ok"]
    );
}

#[test]
fn enums_keep_their_values_verbatim() {
    let st = git::Status::new().untracked_files(git::StatusUntrackedFiles::All);
    assert_eq!(s(st.argv()), ["git", "status", "--untracked-files=all"]);
    assert_eq!(git::StatusUntrackedFiles::Normal.as_str(), "normal");
    assert_eq!(ls::LsSort::Extension.to_string(), "extension");
    assert_eq!(
        s(weird::Enums::new(["f"], "out")
            .mode(weird::EnumsMode::BlueGreen)
            .level(weird::EnumsLevel::_2)
            .argv()),
        [
            "weird",
            "enums",
            "--mode=blue-green",
            "--level=2",
            "-o",
            "out",
            "f"
        ]
    );
    assert_eq!(weird::EnumsMode::Empty.as_str(), "");
    assert_eq!(weird::EnumsMode::A.as_str(), "a");
    assert_eq!(weird::EnumsMode::A2.as_str(), "A");
    assert_eq!(weird::EnumsMode::Value.as_str(), ">=");
    assert_eq!(weird::EnumsMode::SelfValue.as_str(), "Self");
}

#[test]
fn nul_and_other_bad_values_are_rejected_before_running() {
    let err = git::Commit::new("a\0b")
        .author("x\0")
        .try_argv()
        .unwrap_err();
    assert_eq!(
        err.problems,
        [
            ArgvProblem::Nul {
                param: "--message".into()
            },
            ArgvProblem::Nul {
                param: "--author".into()
            }
        ]
    );
    assert!(git::Commit::new("a\0b").to_invocation().is_err());
    // Required variadic arguments need a value.
    let err = rm::Rm::new(Vec::<String>::new()).try_argv().unwrap_err();
    assert_eq!(
        err.problems,
        [ArgvProblem::MissingValues {
            param: "files".into()
        }]
    );
    // Numbers must be finite, URLs absolute.
    let e = weird::Enums::new(["f"], "o")
        .ratio(f64::INFINITY)
        .home("no scheme")
        .try_argv()
        .unwrap_err();
    assert_eq!(e.problems.len(), 2, "{e}");
}

#[test]
fn keyword_and_prelude_names_are_usable() {
    let t = weird::Type::new("in-value", "self-value")
        .self_2("opt")
        .crate_("c")
        .super_("s")
        .__("u");
    assert_eq!(
        s(t.argv()),
        [
            "weird",
            "type",
            "--crate=c",
            "--super=s",
            "--underscore=u",
            "in-value",
            "self-value",
            "opt"
        ]
    );
    assert_eq!(<weird::SelfCommand as Command>::NAME, "weird_self");
    let sc = weird::SelfCommand::new()
        .with_new("n")
        .with_clone(true)
        .value("v");
    assert_eq!(
        s(sc.argv()),
        ["weird", "self", "--new=n", "--clone", "--value=v"]
    );
    assert_eq!(<weird::CallCommand as Command>::NAME, "weird_call");
    assert_eq!(<weird::OptionCommand as Command>::NAME, "weird_option");
    assert_eq!(<weird::_2fa as Command>::NAME, "weird_2fa");
    assert_eq!(<weird::ListAll as Command>::PATH, &["list_all"]);
    assert_eq!(<weird::ListAll2 as Command>::PATH, &["list-all"]);
    assert_eq!(<weird::UfcNUefCode as Command>::PATH, &["ünïcode"]);
}

#[test]
fn global_inherited_and_own_options_in_a_group() {
    // `group` has options inherited by `""` and `inner`; `""` shadows --depth.
    let g = weird::Group::new().depth(1).r#type("t").verbose(true);
    assert_eq!(
        s(g.argv()),
        ["weird", "-v", "group", "--type-in-group=t", "--depth-own=1"]
    );
    let inner = weird::GroupInner::new(["x"]).depth(2);
    assert_eq!(
        s(inner.argv()),
        ["weird", "group", "inner", "--depth=2", "x"]
    );
    // `inner` has all of `group`'s options: they live in one `GroupOptions` field, set
    // through `SetGroupOptions` or as a whole; `""` shadows one, so it holds its own fields.
    assert_eq!(inner.group_options.depth, Some(2));
    let whole = weird::GroupInner::new(["x"])
        .group_options(weird::GroupOptions::new().depth(3).r#type("t"));
    assert_eq!(
        s(whole.argv()),
        [
            "weird",
            "group",
            "inner",
            "--type-in-group=t",
            "--depth=3",
            "x"
        ]
    );
    assert_eq!(g.depth, Some(1));
    assert_eq!(g.r#type.as_deref(), Some("t"));
}

/// `git` generated with `serde = true`: every command also implements serde's traits.
mod git_serde {
    atip_runtime::include_atip!("../examples/atip/git.json", serde = true);
}

#[test]
fn serde_uses_provider_names_and_accepts_strict_mode_nulls() {
    // OpenAI strict mode sends every parameter, unset ones as null.
    let c: git_serde::Commit = serde_json::from_str(
        r#"{"message": "m", "all": true, "allow_empty": null, "amend": null, "author": null,
            "signoff": null, "no_verify": null, "quiet": null, "no_pager": null}"#,
    )
    .unwrap();
    assert_eq!(c, git_serde::Commit::new("m").all(true));
    let json = serde_json::to_value(git_serde::Commit::new("m").no_verify(true)).unwrap();
    assert_eq!(json, serde_json::json!({"message": "m", "no_verify": true}));
    let st: git_serde::Status = serde_json::from_str(r#"{"untracked_files": "all"}"#).unwrap();
    assert_eq!(
        st.untracked_files,
        Some(git_serde::StatusUntrackedFiles::All)
    );
    assert!(serde_json::from_str::<git_serde::Status>(r#"{"untracked_files": "some"}"#).is_err());
    assert!(
        serde_json::from_str::<git_serde::Commit>(r#"{}"#).is_err(),
        "message is required"
    );
    assert!(
        serde_json::from_str::<git_serde::Log>(r#"{"oneline": true, "rm_rf": true}"#).is_err(),
        "unknown parameters are rejected"
    );
}

#[test]
fn without_serde_impls_commands_still_convert_to_and_from_arguments() {
    // The default generation has no serde impls; the `Command` methods do the same work.
    let c = git::Commit::new("m").no_verify(true).no_pager(true);
    assert_eq!(
        serde_json::Value::Object(c.to_arguments()),
        serde_json::json!({"no_pager": true, "message": "m", "no_verify": true})
    );
    let text = serde_json::to_string(&c.to_arguments()).unwrap();
    assert_eq!(git::Commit::from_json_text(&text).unwrap(), c);
    let strict = r#"{"message": "m", "all": true, "allow_empty": null, "amend": null,
        "author": null, "signoff": null, "no_verify": null, "quiet": null, "no_pager": null}"#;
    assert_eq!(
        git::Commit::from_json_text(strict).unwrap(),
        git::Commit::new("m").all(true)
    );
    let e = git::Log::from_json_text(r#"{"oneline": true, "rm_rf": true}"#).unwrap_err();
    assert!(e.to_string().contains("rm_rf"), "{e}");
    let e = git::Commit::from_json_text("{}").unwrap_err();
    assert!(e.to_string().contains("message"), "{e}");
    // The same objects as the serde impls of `serde = true`, for every command shape here.
    let log = git::Log::new().oneline(true).max_count(3);
    let log_serde = git_serde::Log::new().oneline(true).max_count(3);
    assert_eq!(
        serde_json::Value::Object(log.to_arguments()),
        serde_json::to_value(&log_serde).unwrap()
    );
}

#[test]
fn call_enum_dispatches_to_every_command() {
    assert_eq!(
        git::Call::NAMES,
        [
            "git_init",
            "git_status",
            "git_add",
            "git_commit",
            "git_log",
            "git_branch",
            "git_switch",
            "git_diff",
            "git_push",
            "git_fetch",
            "git_merge",
            "git_rebase",
            "git_gc",
            "git_worktree_add",
            "git_worktree_list",
            "git_clean",
            "git_reset",
            "git_stash",
            "git_stash_list",
            "git_stash_pop"
        ]
    );
    let calls: Vec<git::Call> = vec![
        git::Log::new().into(),
        git::Clean::new().force(true).into(),
        git::StashPop::new().into(),
    ];
    let names: Vec<&str> = calls.iter().map(git::Call::name).collect();
    assert_eq!(names, ["git_log", "git_clean", "git_stash_pop"]);
    assert_eq!(calls[1].effects().destructive, Some(true));
    assert_eq!(s(calls[2].argv()), ["git", "stash", "pop"]);
    let inv = calls[1].to_invocation().unwrap();
    assert_eq!(inv.name, "git_clean");
    assert_eq!(inv.trust, Some(TrustSource::User));
    assert_eq!(git::EFFECTS.len(), git::Call::NAMES.len());
    assert!(git::EFFECTS
        .iter()
        .zip(git::Call::NAMES)
        .all(|((n, _), m)| n == m));
}

#[test]
fn effects_constants_are_merged_from_tool_to_command() {
    let clean = <git::Clean as Command>::EFFECTS;
    assert_eq!(clean.destructive, Some(true));
    assert_eq!(clean.reversible, Some(false));
    assert_eq!(clean.network, Some(false), "from the tool level");
    assert_eq!(
        clean.interactive.as_ref().unwrap().stdin,
        Some(StdinMode::None)
    );
    assert_eq!(clean.timeout_hint(), Some("30s"));
    let enums = <weird::Enums as Command>::EFFECTS;
    assert_eq!(enums.cost_estimate(), Some(CostEstimate::High));
    assert_eq!(enums.billable(), Some(true));
    assert_eq!(enums.timeout_hint(), Some("5m"));
    assert_eq!(enums.creates.as_deref().map(|c| c.len()), Some(1));
    // Nothing declared `destructive` for `weird call`: unknown, not false.
    assert_eq!(<weird::CallCommand as Command>::EFFECTS.destructive, None);
    assert_eq!(
        <weird::CallCommand as Command>::TRUST,
        Some(TrustSource::Community)
    );
    // Serialises back to the spec's shape.
    assert_eq!(
        serde_json::to_value(&clean).unwrap()["filesystem"],
        serde_json::json!({"read": true, "write": true, "delete": true})
    );
}

#[test]
fn gh_pr_create_takes_required_options_and_inherits_repo() {
    let c = gh::PrCreate::new("Fix the parser", "Closes #12")
        .repo("cli/cli")
        .draft(true)
        .label(["bug", "parser"]);
    assert_eq!(
        s(c.try_argv().unwrap()),
        [
            "gh",
            "pr",
            "create",
            "--repo=cli/cli",
            "--title=Fix the parser",
            "--body=Closes #12",
            "--draft",
            "--label=bug",
            "--label=parser"
        ]
    );
    assert_eq!(<gh::PrCreate as Command>::NAME, "gh_pr_create");
    // `--repo` is declared once, on `pr`: every command below it holds it in one
    // `PrOptions` field, which can be set as a whole and compares with the command.
    assert_eq!(c.pr_options.repo.as_deref(), Some("cli/cli"));
    let same = gh::PrCreate::new("Fix the parser", "Closes #12")
        .pr_options(gh::PrOptions::new().repo("cli/cli"))
        .draft(true)
        .label(["bug", "parser"]);
    assert_eq!(same, c);
    assert_ne!(same.pr_options(gh::PrOptions::new()), c);
    // One shared parameter row, one enum per level.
    let list = gh::PrList::new().state(gh::PrListState::Merged).limit(5);
    assert_eq!(
        s(list.argv()),
        ["gh", "pr", "list", "--state=merged", "--limit=5"]
    );
    let merge = gh::PrMerge::new("42", gh::PrMergeMethod::Squash);
    assert_eq!(<gh::PrMerge as Command>::EFFECTS.destructive, Some(true));
    assert_eq!(
        s(merge.argv()),
        ["gh", "pr", "merge", "--method=squash", "42"]
    );
}

/// `Debug` and `PartialEq` of a command go through its field table (not derived): every
/// field under its parameter's name, in the table's order, and equality field by field.
#[test]
fn commands_debug_and_compare_field_by_field() {
    let c = git::Commit::new("fix").all(true).author("Ada");
    assert_eq!(
        format!("{c:?}"),
        "Commit { no_pager: false, message: \"fix\", all: true, allow_empty: false, \
         amend: false, author: Some(\"Ada\"), signoff: false, no_verify: false, quiet: false }"
    );
    assert!(format!("{c:#?}").starts_with("Commit {\n    no_pager: false,\n"));
    assert_eq!(c, c.clone());
    // Each kind of field decides: text, an optional value, a flag, a global option.
    assert_ne!(c, git::Commit::new("fix!").all(true).author("Ada"));
    assert_ne!(c, git::Commit::new("fix").all(true));
    assert_ne!(c, git::Commit::new("fix").author("Ada"));
    assert_ne!(c, c.clone().no_pager(true));
    // Lists of paths, enumerations and numbers.
    let add = git::Add::new(["a.txt", "b.txt"]);
    assert_eq!(add, git::Add::new(["a.txt", "b.txt"]));
    assert_ne!(add, git::Add::new(["a.txt"]));
    assert_ne!(add, git::Add::new(["b.txt", "a.txt"]));
    let status = git::Status::new().untracked_files(git::StatusUntrackedFiles::All);
    assert_eq!(
        status,
        git::Status::new().untracked_files(git::StatusUntrackedFiles::All)
    );
    assert_ne!(
        status,
        git::Status::new().untracked_files(git::StatusUntrackedFiles::No)
    );
    assert_ne!(status, git::Status::new());
    assert!(format!("{status:?}").contains("untracked_files: Some(All)"));
    assert_eq!(git::Log::new().max_count(3), git::Log::new().max_count(3));
    assert_ne!(git::Log::new().max_count(3), git::Log::new().max_count(4));
    // `Call` compares and prints its commands the same way.
    let call = git::Call::from(c.clone());
    assert_eq!(call, git::Call::from(c.clone()));
    assert_ne!(call, git::Call::from(git::Commit::new("other")));
    assert_eq!(format!("{call:?}"), format!("Commit({c:?})"));
}
