//! Per-option effects through generated code (`atip_tests::git`, from examples/atip/git.json):
//! `Push::effects` is the command's `EFFECTS` until `--force` is set, the invocation names the
//! option, and the runner judges the call by it.

use atip_runtime::policy::{Decision, ReasonCode};
use atip_runtime::{Command, Runner, Shared, ToInvocation};
use atip_tests::git;

#[test]
fn a_generated_command_has_the_effects_of_the_options_it_sets() {
    let plain = git::Push::new().repository("origin");
    // No option with effects set: the constant itself, nothing computed.
    assert!(matches!(plain.effects(), Shared::Static(_)));
    assert_eq!(*plain.effects(), git::Push::EFFECTS);
    assert_eq!(plain.effects().destructive, Some(false));

    let forced = plain.clone().force(true);
    let effects = forced.effects();
    assert_eq!(effects.destructive, Some(true));
    assert_eq!(effects.reversible, Some(false));
    assert_eq!(effects.network, Some(true));

    let invocation = forced.to_invocation().unwrap();
    assert_eq!(*invocation.effects, *effects);
    let from = invocation.effects_from.as_ref().unwrap();
    assert_eq!(*from.command, git::Push::EFFECTS);
    assert_eq!(from.params[0].label, "--force");

    let runner = Runner::new();
    assert_eq!(
        runner.decide(&plain.to_invocation().unwrap()).decision,
        Decision::Allow
    );
    let decision = runner.decide(&invocation).decision;
    let Decision::NeedsConfirmation(reasons) = decision else {
        panic!("{decision:?}")
    };
    assert_eq!(reasons[0].code, ReasonCode::Destructive);
    assert!(reasons[0]
        .message
        .starts_with("`--force` declares destructive"));
}

#[test]
fn the_generated_definition_is_the_union_over_its_options() {
    let spec = git::Push::tool();
    assert_eq!(spec.effects, git::Push::EFFECTS);
    assert_eq!(spec.widest_effects().destructive, Some(true));
    let with_effects: Vec<&str> = spec
        .params_with_effects()
        .map(|(p, _)| p.name.as_ref())
        .collect();
    assert_eq!(with_effects, ["refspec", "force", "force_with_lease"]);
    let description = atip_runtime::providers::describe_tool(spec, None);
    assert!(
        description.contains("⚠️ DESTRUCTIVE (with refspec or --force or --force-with-lease)"),
        "{description}"
    );
    // A command without such options: its constant, and the same description as before.
    assert!(matches!(git::Status::new().effects(), Shared::Static(_)));
}

#[test]
fn a_call_enum_has_the_effects_of_the_call() {
    let call: git::Call = git::Push::new().force(true).into();
    assert_eq!(call.effects().destructive, Some(true));
    let call: git::Call = git::Push::new().into();
    assert_eq!(call.effects(), git::Push::EFFECTS);
}
