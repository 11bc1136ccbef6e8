//! Policies that test themselves (`"examples"`): each example's call is judged when the policy
//! meets its tools, and a policy whose examples do not hold is refused, naming each failing
//! example and the rules that decided it.

use std::path::Path;

use atip_runtime::{policy::Expectation, LoadedCommands, Policy};

fn gh() -> LoadedCommands {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/atip/gh.json");
    LoadedCommands::from_path(&path, atip_runtime::Mode::Strict, &Default::default()).unwrap()
}

/// A realistic policy: merging needs a person, deleting a repository never runs, reading runs.
const POLICY: &str = r#"{
  "destructive": "confirm",
  "denyCommands": ["gh repo delete"],
  "examples": [
    {"call": {"name": "gh_pr_list", "arguments": {"state": "open"}}, "expect": "allow"},
    {"call": {"name": "gh_pr_merge", "arguments": {"number": "42", "method": "squash"}}, "expect": "confirm"},
    {"call": {"name": "gh_repo_delete", "arguments": {"repository": "cli/cli"}}, "expect": "deny"}
  ]
}"#;

#[test]
fn a_policy_whose_examples_hold_is_accepted() {
    let policy = Policy::from_json(POLICY).unwrap();
    assert_eq!(policy.examples.len(), 3);
    assert_eq!(policy.examples[1].expect, Expectation::Confirm);
    let tools = vec![gh()];
    assert_eq!(policy.check_examples(&tools, Path::new(".")), Ok(()));
    // A policy without examples has nothing to check, and writes no `examples` member.
    let plain = Policy::default();
    assert_eq!(plain.check_examples(&tools, Path::new(".")), Ok(()));
    assert!(!serde_json::to_string(&plain).unwrap().contains("examples"));
    // Examples survive a round trip through JSON.
    let back = Policy::from_json(&serde_json::to_string(&policy).unwrap()).unwrap();
    assert_eq!(back, policy);
}

#[test]
fn a_wrong_expectation_is_refused_with_the_example_and_the_rule_that_decided() {
    let wrong = POLICY.replace(r#""expect": "confirm""#, r#""expect": "allow""#);
    let policy = Policy::from_json(&wrong).unwrap();
    let err = policy
        .check_examples(&vec![gh()], Path::new("."))
        .unwrap_err();
    assert_eq!(err.failures.len(), 1, "{err}");
    let message = err.to_string();
    assert!(
        message.starts_with("the policy's examples do not hold: "),
        "{message}"
    );
    assert!(
        message.contains(
            r#"examples[1] (`gh_pr_merge` {"number":"42","method":"squash"}) expects allow, the policy decides confirm (decided by destructive"#
        ),
        "{message}"
    );
    // Loosening the deny list breaks the third example the same way.
    let loose = POLICY.replace(r#""denyCommands": ["gh repo delete"],"#, "");
    let err = Policy::from_json(&loose)
        .unwrap()
        .check_examples(&vec![gh()], Path::new("."))
        .unwrap_err();
    assert_eq!(err.failures.len(), 1, "{err}");
    assert!(
        err.failures[0].starts_with("examples[2] (`gh_repo_delete`")
            && err.failures[0].contains("expects deny, the policy decides confirm"),
        "{err}"
    );
}

#[test]
fn an_example_that_does_not_dispatch_is_refused() {
    let policy = Policy::from_json(
        r#"{"examples": [
            {"call": {"name": "gh_pr_mrege", "arguments": {}}, "expect": "allow"},
            {"call": {"name": "gh_pr_merge", "arguments": {"number": "42"}}, "expect": "confirm"}
        ]}"#,
    )
    .unwrap();
    let err = policy
        .check_examples(&vec![gh()], Path::new("."))
        .unwrap_err();
    assert_eq!(err.failures.len(), 2, "{err}");
    assert!(
        err.failures[0].contains("the call does not dispatch")
            && err.failures[0].contains("gh_pr_merge"),
        "{err}"
    );
    assert!(err.failures[1].contains("`method` is required"), "{err}");
    // An example's fields are checked like the rest of the policy.
    let typo = Policy::from_json(
        r#"{"examples": [{"call": {"name": "gh_pr_list"}, "expected": "allow"}]}"#,
    );
    assert!(typo
        .unwrap_err()
        .to_string()
        .contains("unknown field `expected`"));
}

#[cfg(feature = "search")]
#[test]
fn examples_name_commands_behind_meta_tools_by_their_own_names() {
    use atip_runtime::search::MetaTools;
    let meta = MetaTools::new(vec![gh()]);
    let policy = Policy::from_json(POLICY).unwrap();
    assert_eq!(policy.check_examples(&meta, Path::new(".")), Ok(()));
    let wrong =
        Policy::from_json(&POLICY.replace(r#""expect": "deny""#, r#""expect": "allow""#)).unwrap();
    assert_eq!(
        wrong
            .check_examples(&meta, Path::new("."))
            .unwrap_err()
            .failures
            .len(),
        1
    );
}
