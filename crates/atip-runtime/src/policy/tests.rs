use super::*;
use crate::command::argv::ArgumentValue;
use std::borrow::Cow;

fn fx(json: &str) -> Effects {
    serde_json::from_str(json).unwrap()
}

fn inv(name: &str, effects: &str, trust: Option<TrustSource>) -> Invocation {
    let mut i = Invocation::new(name, vec![name.into()], fx(effects));
    i.trust = trust;
    i
}

fn with_args(mut i: Invocation, args: &[(&'static str, &str, bool)]) -> Invocation {
    i.arguments = args
        .iter()
        .map(|(p, v, path)| ArgumentValue {
            param: crate::Shared::Static(p),
            value: std::borrow::Cow::Owned((*v).into()),
            path: *path,
        })
        .collect();
    i
}

fn codes(d: &Decision) -> Vec<(ReasonCode, ReasonSeverity)> {
    d.reasons().iter().map(|r| (r.code, r.severity)).collect()
}

use ReasonCode as C;
use ReasonSeverity::{Confirm, Deny};

const KNOWN_SAFE: &str = r#"{"destructive": false}"#;

#[test]
fn defaults_follow_atip_execute() {
    let p = Policy::default();
    assert_eq!(p.destructive, EffectRule::Confirm);
    assert_eq!(p.interactive, EffectRule::Deny);
    for v in [
        p.non_reversible,
        p.billable,
        p.network,
        p.filesystem_write,
        p.filesystem_delete,
        p.baseline,
    ] {
        assert_eq!(v, EffectRule::Allow);
    }
    assert!(!p.require_known_effects && !p.require_sandbox);
    assert_eq!(p.max_cost_estimate, CostEstimate::High);
    assert_eq!(p.min_trust_level, TrustSource::Inferred);
    let all = r#"{"destructive": true, "reversible": false, "idempotent": false, "network": true,
                  "filesystem": {"write": true, "delete": true}, "cost": {"billable": true, "estimate": "high"}}"#;
    let d = p.evaluate(&inv("x", all, None));
    assert_eq!(
        codes(&d),
        [(C::Destructive, Confirm)],
        "only destructive needs confirmation by default"
    );
    assert_eq!(p.evaluate(&inv("x", KNOWN_SAFE, None)), Decision::Allow);
}

#[test]
fn undeclared_destructive_needs_confirmation_by_default() {
    // Spec §11.1: an `rm` whose metadata says nothing must not delete unasked.
    let d = Policy::default().evaluate(&inv("rm", "{}", None));
    assert_eq!(codes(&d), [(C::Destructive, Confirm)]);
    assert!(d.reasons()[0].message.contains("not declared"), "{d:?}");
    // Even a policy that refuses destructive commands only asks about unknown ones.
    let strict = Policy {
        destructive: EffectRule::Deny,
        ..Policy::default()
    };
    assert_eq!(
        codes(&strict.evaluate(&inv("rm", "{}", None))),
        [(C::Destructive, Confirm)]
    );
    let lenient = Policy {
        destructive: EffectRule::Allow,
        ..Policy::default()
    };
    assert_eq!(lenient.evaluate(&inv("rm", "{}", None)), Decision::Allow);
}

#[test]
fn each_rule_fires_with_its_verdict_and_all_are_listed() {
    let p = Policy {
        non_reversible: EffectRule::Confirm,
        billable: EffectRule::Confirm,
        network: EffectRule::Deny,
        filesystem_write: EffectRule::Deny,
        filesystem_delete: EffectRule::Confirm,
        max_cost_estimate: CostEstimate::Low,
        ..Policy::default()
    };
    let all = r#"{"destructive": true, "reversible": false, "network": true,
                  "filesystem": {"write": true, "delete": true}, "cost": {"billable": true, "estimate": "medium"},
                  "interactive": {"tty": true}}"#;
    let d = p.evaluate(&inv("x", all, None));
    assert!(matches!(d, Decision::Deny(_)));
    assert_eq!(
        codes(&d),
        [
            (C::Network, Deny),
            (C::FilesystemWrite, Deny),
            (C::Interactive, Deny),
            (C::CostExceeded, Deny),
            (C::Destructive, Confirm),
            (C::NonReversible, Confirm),
            (C::Billable, Confirm),
            (C::FilesystemDelete, Confirm),
        ]
    );
    let confirm_only = r#"{"destructive": false, "reversible": false, "cost": {"billable": true, "estimate": "low"}, "filesystem": {"delete": true, "write": false}, "network": false}"#;
    let d = p.evaluate(&inv("x", confirm_only, None));
    assert!(matches!(d, Decision::NeedsConfirmation(_)));
    assert_eq!(
        codes(&d),
        [
            (C::NonReversible, Confirm),
            (C::Billable, Confirm),
            (C::FilesystemDelete, Confirm)
        ]
    );
    let safe = r#"{"destructive": false, "reversible": true, "network": false, "filesystem": {"write": false, "delete": false}, "cost": {"billable": false, "estimate": "free"}}"#;
    assert_eq!(p.evaluate(&inv("x", safe, None)), Decision::Allow);
}

#[test]
fn interactive_commands_are_refused_unless_allowed() {
    let p = Policy::default();
    for e in [
        r#"{"destructive": false, "interactive": {"stdin": "required"}}"#,
        r#"{"destructive": false, "interactive": {"stdin": "password"}}"#,
        r#"{"destructive": false, "interactive": {"prompts": true}}"#,
        r#"{"destructive": false, "interactive": {"tty": true}}"#,
    ] {
        assert_eq!(
            codes(&p.evaluate(&inv("x", e, None))),
            [(C::Interactive, Deny)],
            "{e}"
        );
    }
    let quiet = r#"{"destructive": false, "interactive": {"stdin": "optional", "prompts": false, "tty": false}}"#;
    assert_eq!(p.evaluate(&inv("x", quiet, None)), Decision::Allow);
    let allowed = Policy {
        interactive: EffectRule::Allow,
        ..Policy::default()
    };
    assert_eq!(
        allowed.evaluate(&inv(
            "x",
            r#"{"destructive": false, "interactive": {"tty": true}}"#,
            None
        )),
        Decision::Allow
    );
}

#[test]
fn trust_levels_are_ordered_and_claims_are_capped() {
    let p = Policy {
        min_trust_level: TrustSource::Org,
        ..Policy::default()
    };
    for (t, ok) in [
        (TrustSource::Native, true),
        (TrustSource::Vendor, true),
        (TrustSource::Org, true),
        (TrustSource::Community, false),
        (TrustSource::User, false),
        (TrustSource::Inferred, false),
    ] {
        // Assigned by the caller: taken as is.
        let mut i = inv("x", KNOWN_SAFE, Some(t));
        i.trust_assigned = true;
        assert_eq!(p.evaluate(&i) == Decision::Allow, ok, "{t:?}");
    }
    // Claimed by the metadata itself: `native` counts as `community` at most.
    let claimed = inv("x", KNOWN_SAFE, Some(TrustSource::Native));
    assert_eq!(p.effective_trust(&claimed), Some(TrustSource::Community));
    let d = p.evaluate(&claimed);
    assert_eq!(codes(&d), [(C::LowTrust, Deny)]);
    assert!(
        d.reasons()[0].message.contains("claims for itself"),
        "{d:?}"
    );
    let believing = Policy {
        max_claimed_trust: TrustSource::Native,
        ..p.clone()
    };
    assert_eq!(believing.evaluate(&claimed), Decision::Allow);
    assert_eq!(
        codes(&p.evaluate(&inv("x", KNOWN_SAFE, None))),
        [(C::LowTrust, Deny)]
    );
    assert_eq!(
        Policy::default().evaluate(&inv("x", KNOWN_SAFE, None)),
        Decision::Allow
    );
}

#[test]
fn command_patterns_match_flattened_names_and_paths() {
    let p = Policy {
        allow_commands: vec!["git_*".into(), "ls".into()],
        deny_commands: vec!["git_push*".into(), "*_delete".into(), "git status".into()],
        ..Policy::default()
    };
    let titled = |name: &str, title: &'static str| {
        let mut i = inv(name, KNOWN_SAFE, None);
        i.title = Some(crate::Shared::Static(title));
        i
    };
    assert_eq!(p.evaluate(&titled("git_log", "git log")), Decision::Allow);
    assert_eq!(p.evaluate(&titled("ls", "ls")), Decision::Allow);
    assert_eq!(
        codes(&p.evaluate(&titled("git_status", "git status"))),
        [(C::DenyListed, Deny)],
        "`git status` names git_status by its path"
    );
    assert_eq!(
        codes(&p.evaluate(&titled("git_push", "git push"))),
        [(C::DenyListed, Deny)]
    );
    assert_eq!(
        codes(&p.evaluate(&titled("gh_repo_delete", "gh repo delete"))),
        [(C::DenyListed, Deny), (C::NotAllowListed, Deny)]
    );
    let path_only = Policy {
        deny_commands: vec!["repo delete".into()],
        ..Policy::default()
    };
    assert!(matches!(
        path_only.evaluate(&titled("gh_repo_delete", "gh repo delete")),
        Decision::Deny(_)
    ));
    // Metadata that lies about being harmless is still subject to the lists.
    let mut lying = inv(
        "git_push_force",
        r#"{"destructive": false, "reversible": true}"#,
        None,
    );
    lying.title = Some(crate::Shared::Static("git push force"));
    assert!(matches!(p.evaluate(&lying), Decision::Deny(_)));
    assert!(name_matches("a[bc]d", "acd") && !name_matches("a?", "abc"));
    assert!(
        name_matches("[", "[") && !name_matches("[", "x"),
        "invalid globs match literally"
    );
}

#[test]
fn patterns_and_rules_that_match_nothing_are_errors() {
    use crate::ParamSpec;
    let params: &'static [ParamSpec] =
        Box::leak(Box::new([ParamSpec::flag("short", "", "--short")]));
    let status = ToolSpec {
        name: Cow::Borrowed("git_status"),
        title: Cow::Borrowed("git status"),
        path: Cow::Borrowed(&[]),
        description: Cow::Borrowed(""),
        effects: Effects::UNKNOWN,
        params: Cow::Borrowed(params),
    };
    let ok = Policy {
        deny_commands: vec!["git status".into(), "git_*".into()],
        arguments: vec![ArgumentRule {
            deny: true,
            ..ArgumentRule::new("short")
        }],
        ..Policy::default()
    };
    assert_eq!(ok.check_against([&status]), Ok(()));
    let typos = Policy {
        deny_commands: vec!["git stats".into()],
        allow_commands: vec!["gti_*".into()],
        arguments: vec![ArgumentRule {
            deny: true,
            ..ArgumentRule::new("config")
        }],
        ..Policy::default()
    };
    let err = typos.check_against([&status]).unwrap_err();
    assert_eq!(err.unmatched.len(), 3, "{err}");
    let text = err.to_string();
    for needle in ["`git stats`", "`gti_*`", "`config`"] {
        assert!(text.contains(needle), "{text}");
    }
    let egress = Policy::from_json(
        r#"{"egressRules": [{"commands": ["git_status"], "allow": ["github.com"]},
                            {"commands": ["git_pul"], "allow": ["github.com"]}]}"#,
    )
    .unwrap();
    let err = egress.check_against([&status]).unwrap_err();
    assert_eq!(
        err.unmatched,
        ["egressRules[1] command pattern `git_pul` matches no command"]
    );
}

#[test]
fn require_known_effects_asks_a_person_and_never_refuses() {
    let strict = Policy {
        require_known_effects: true,
        network: EffectRule::Deny,
        max_cost_estimate: CostEstimate::Low,
        ..Policy::default()
    };
    let d = strict.evaluate(&inv("x", "{}", None));
    assert!(
        matches!(d, Decision::NeedsConfirmation(_)),
        "unknown is a question for a person: {d:?}"
    );
    assert_eq!(
        codes(&d),
        [
            (C::Destructive, Confirm),
            (C::Network, Confirm),
            (C::Interactive, Confirm),
            (C::CostExceeded, Confirm)
        ]
    );
    let proven = r#"{"destructive": false, "network": false, "cost": {"estimate": "free"},
                     "interactive": {"stdin": "none", "prompts": false, "tty": false}}"#;
    assert_eq!(strict.evaluate(&inv("x", proven, None)), Decision::Allow);
    let online = r#"{"destructive": false, "network": true, "cost": {"estimate": "free"},
                     "interactive": {"stdin": "none", "prompts": false, "tty": false}}"#;
    assert_eq!(
        codes(&strict.evaluate(&inv("x", online, None))),
        [(C::Network, Deny)]
    );
}

#[test]
fn unlisted_commands_follow_the_safety_assumption() {
    let p = Policy::default();
    let mut i = inv("kubectl_delete", KNOWN_SAFE, None);
    for (a, expected) in [
        (SafetyAssumption::Unknown, vec![(C::NotInMetadata, Confirm)]),
        (
            SafetyAssumption::KnownUnsafe,
            vec![(C::NotInMetadata, Confirm)],
        ),
        (SafetyAssumption::KnownSafe, vec![]),
        (SafetyAssumption::SameAsIncluded, vec![]),
    ] {
        i.unlisted = Some(a);
        assert_eq!(codes(&p.evaluate(&i)), expected, "{a:?}");
    }
}

#[test]
fn argument_rules_deny_allow_and_match() {
    let p = Policy {
        arguments: vec![
            ArgumentRule {
                deny: true,
                ..ArgumentRule::new("config")
            },
            ArgumentRule {
                allow: Some(vec!["json".into(), "text".into()]),
                commands: vec!["gh_*".into()],
                ..ArgumentRule::new("format")
            },
            ArgumentRule {
                pattern: Some(ValuePattern::new("[a-z0-9/_-]+").unwrap()),
                ..ArgumentRule::new("branch")
            },
        ],
        ..Policy::default()
    };
    let call = |name: &str, args: &[(&'static str, &str, bool)]| {
        p.evaluate(&with_args(inv(name, KNOWN_SAFE, None), args))
    };
    let d = call(
        "git_status",
        &[
            ("config", "core.fsmonitor=touch x", false),
            ("config", "a=b", false),
        ],
    );
    assert_eq!(
        codes(&d),
        [(C::ArgumentDenied, Deny)],
        "one reason per parameter"
    );
    assert!(d.reasons()[0].message.contains("`config`"));
    assert_eq!(
        call("gh_pr_list", &[("format", "json", false)]),
        Decision::Allow
    );
    let d = call("gh_pr_list", &[("format", "yaml", false)]);
    assert_eq!(codes(&d), [(C::ArgumentNotAllowed, Deny)]);
    assert!(d.reasons()[0].message.contains("\"yaml\""), "{d:?}");
    assert_eq!(
        call("other_tool", &[("format", "yaml", false)]),
        Decision::Allow,
        "the rule names its commands"
    );
    assert_eq!(
        call("git_switch", &[("branch", "fix/parser-1", false)]),
        Decision::Allow
    );
    let d = call("git_switch", &[("branch", "x; rm -rf /", false)]);
    assert_eq!(codes(&d), [(C::ArgumentNotAllowed, Deny)]);
    assert!(
        call("git_switch", &[("branch", "ok\nbad", false)]) != Decision::Allow,
        "the pattern is anchored"
    );
    let parsed = Policy::from_json(
        r#"{"arguments": [{"parameter": "branch", "pattern": "[a-z]+"}, {"parameter": "config", "deny": true}]}"#,
    )
    .unwrap();
    assert_eq!(
        parsed.arguments[0].pattern.as_ref().unwrap().as_str(),
        "[a-z]+"
    );
    let bad = Policy::from_json(r#"{"arguments": [{"parameter": "x", "pattern": "("}]}"#);
    assert!(
        bad.is_err(),
        "an invalid pattern is refused when the policy is read"
    );
}

#[test]
fn path_values_are_confined_to_the_working_directory() {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("work");
    std::fs::create_dir_all(work.join("sub")).unwrap();
    std::fs::write(dir.path().join("secret"), "s").unwrap();
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(dir.path().join("secret"), work.join("link")).unwrap();
        std::os::unix::fs::symlink(dir.path().join("gone"), work.join("dangling")).unwrap();
    }
    let p = Policy::default();
    let judge = |value: &str| {
        p.evaluate_in(
            &with_args(inv("cat", KNOWN_SAFE, None), &[("files", value, true)]),
            &work,
        )
    };
    for inside in ["a.txt", "sub/new", "./sub/../b", "sub/missing/../../c"] {
        assert_eq!(judge(inside), Decision::Allow, "{inside}");
    }
    let abs_inside = work.join("sub").display().to_string();
    assert_eq!(judge(&abs_inside), Decision::Allow);
    let mut outside = vec!["../secret", "/etc/passwd", "sub/../../secret"];
    if cfg!(unix) {
        outside.extend(["link", "dangling", "link/../x"]);
    }
    for value in outside {
        let d = judge(value);
        assert_eq!(codes(&d), [(C::PathOutsideRoots, Deny)], "{value}: {d:?}");
        assert!(d.reasons()[0].message.contains("`files`"));
    }
    // Only path parameters are confined by default; a rule confines any parameter.
    let d = p.evaluate_in(
        &with_args(
            inv("x", KNOWN_SAFE, None),
            &[("name", "/etc/passwd", false)],
        ),
        &work,
    );
    assert_eq!(d, Decision::Allow);
    let confined = Policy {
        arguments: vec![ArgumentRule {
            roots: Some(vec!["sub".into()]),
            ..ArgumentRule::new("out")
        }],
        ..Policy::default()
    };
    let out = |v: &str| {
        confined.evaluate_in(
            &with_args(inv("x", KNOWN_SAFE, None), &[("out", v, false)]),
            &work,
        )
    };
    assert_eq!(out("sub/x"), Decision::Allow);
    assert_eq!(codes(&out("a.txt")), [(C::PathOutsideRoots, Deny)]);
    let anywhere = Policy {
        path_roots: vec!["/".into()],
        ..Policy::default()
    };
    assert_eq!(
        anywhere.evaluate_in(
            &with_args(
                inv("cat", KNOWN_SAFE, None),
                &[("files", "/etc/passwd", true)]
            ),
            &work
        ),
        Decision::Allow
    );
}

#[test]
fn trust_presets_follow_the_design_table() {
    let destructive = r#"{"destructive": true}"#;
    let writes = r#"{"destructive": false, "filesystem": {"write": true}}"#;
    let reads = r#"{"destructive": false, "filesystem": {"write": false}, "network": false}"#;
    let verdict = |t: TrustSource, e: &str| match Policy::for_trust(t).evaluate(&inv("x", e, None))
    {
        Decision::Allow => EffectRule::Allow,
        Decision::NeedsConfirmation(_) => EffectRule::Confirm,
        Decision::Deny(_) => EffectRule::Deny,
    };
    use EffectRule::{Allow, Confirm as C_, Deny as D_};
    use TrustSource::*;
    for (t, d, w, r) in [
        (Native, C_, Allow, Allow),
        (Vendor, C_, Allow, Allow),
        (Org, C_, Allow, Allow),
        (Community, D_, C_, Allow),
        (User, D_, C_, Allow),
        (Inferred, D_, D_, C_),
    ] {
        assert_eq!(verdict(t, destructive), d, "{t:?} destructive");
        assert_eq!(verdict(t, writes), w, "{t:?} writes");
        assert_eq!(verdict(t, reads), r, "{t:?} reads");
    }
}

#[test]
fn policies_read_camel_case_json_and_reject_typos() {
    let p = Policy::from_json(
        r#"{"destructive": "allow", "network": "deny", "minTrustLevel": "vendor", "maxCostEstimate": "low",
            "denyCommands": ["gh_repo_*"], "requireKnownEffects": true, "requireSandbox": true,
            "limits": {"cpuSeconds": 5, "memoryBytes": 1000000}, "pathRoots": ["/srv"]}"#,
    )
    .unwrap();
    assert_eq!(p.destructive, EffectRule::Allow);
    assert_eq!(p.network, EffectRule::Deny);
    assert!(p.require_known_effects && p.require_sandbox);
    assert_eq!(p.min_trust_level, TrustSource::Vendor);
    assert_eq!(p.max_cost_estimate, CostEstimate::Low);
    assert_eq!(p.limits.cpu_seconds, Some(5));
    assert_eq!(p.path_roots, ["/srv"]);
    assert_eq!(
        p.interactive,
        EffectRule::Deny,
        "absent fields keep their defaults"
    );
    let err = Policy::from_json(r#"{"destructiv": "allow"}"#).unwrap_err();
    assert!(
        err.to_string().contains("unknown field `destructiv`"),
        "{err}"
    );
    assert_eq!(Policy::from_json("{}").unwrap(), Policy::default());
}

/// Tight first answers only what a harmless first try can: unknown effects (or an importer's
/// guesses), a command outside partial metadata whose safety is unknown, and the baseline of
/// inferred metadata; never a declared effect from the tool's own metadata, a write, delete
/// or network the call declares, a `known-unsafe` omission, a policy-wide baseline, or an
/// argument rule.
#[test]
fn tight_first_answers_only_what_a_harmless_first_try_can() {
    let here = Path::new("/");
    let p = Policy::default();
    let tight = |p: &Policy, i: &Invocation| p.gate(i, here).tight_first;
    assert!(tight(&p, &inv("t", "{}", None)), "destructive undeclared");
    assert!(
        !tight(&p, &inv("t", r#"{"destructive": true}"#, None)),
        "declared"
    );
    assert!(
        tight(
            &p,
            &inv("t", r#"{"destructive": true}"#, Some(TrustSource::Inferred))
        ),
        "an importer's guess"
    );
    for declared in [
        r#"{"filesystem": {"write": true}}"#,
        r#"{"filesystem": {"delete": true}}"#,
        r#"{"network": true}"#,
    ] {
        assert!(
            !tight(&p, &inv("t", declared, Some(TrustSource::Inferred))),
            "{declared}"
        );
    }
    assert!(
        !tight(&p, &inv("t", KNOWN_SAFE, None)),
        "allowed: nothing to try"
    );
    let mut unlisted = inv("t", KNOWN_SAFE, None);
    unlisted.unlisted = Some(SafetyAssumption::Unknown);
    assert!(tight(&p, &unlisted));
    unlisted.unlisted = Some(SafetyAssumption::KnownUnsafe);
    assert!(!tight(&p, &unlisted), "the author says unsafe");
    let baseline = Policy {
        baseline: EffectRule::Confirm,
        ..Policy::default()
    };
    assert!(
        !tight(&baseline, &inv("t", KNOWN_SAFE, None)),
        "asked of every tool"
    );
    assert!(tight(
        &baseline,
        &inv("t", KNOWN_SAFE, Some(TrustSource::Inferred))
    ));
    let off = Policy {
        tight_first: false,
        ..Policy::default()
    };
    assert!(!tight(&off, &inv("t", "{}", None)));
}
