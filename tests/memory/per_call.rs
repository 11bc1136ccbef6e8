//! Allocations per dispatched call: metadata loaded at run time costs no more per call than
//! generated code. A loaded command's name, title, effects, checksum, metadata path and
//! parameter names are shared with every invocation (`atip_runtime::Shared`), not copied, so
//! `LoadedCommands::invocation_from_json_text` allocates no more than the generated
//! `Call::from_json_text(…).to_invocation()` does for the same call: the argv, the recorded
//! option values and their list (13 allocations each for this call; a flag's recorded `true`
//! is borrowed). Allocation counts are exact, unlike timings.

use atip_runtime::{FlattenOptions, LoadedCommands, Shared, ToInvocation, TrustSource};
use atip_tests::alloc::allocations_of;

const ARGS: &str =
    r#"{"message":"Fix the parser","all":true,"author":"Ada <ada@example.com>","no_pager":true}"#;

pub fn a_loaded_call_allocates_what_a_generated_call_does() {
    let git = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/atip/git.json");
    let tool = LoadedCommands::from_path(
        git.as_ref(),
        atip_runtime::Mode::Strict,
        &FlattenOptions::default(),
    )
    .expect("git.json loads")
    .assign_trust(TrustSource::User);
    let typed = || {
        atip_tests::git::Call::from_json_text("git_commit", ARGS)
            .unwrap()
            .to_invocation()
            .unwrap()
    };
    let loaded = || tool.invocation_from_json_text("git_commit", ARGS).unwrap();
    // The first call builds the loaded tool's specs (and the generated module's `TOOLS`, from
    // its spec table); after that, calls only read them.
    let (first, _) = allocations_of(loaded);
    let (first_generated, _) = allocations_of(typed);
    let (generated, expected) = allocations_of(typed);
    assert!(
        first_generated > generated,
        "the first generated call reads the spec table: {first_generated} vs {generated}"
    );
    let (n, invocation) = allocations_of(loaded);
    assert!(
        first > n,
        "the first call prepares the commands: {first} vs {n}"
    );
    assert_eq!(invocation.argv, expected.argv);
    assert_eq!(invocation.arguments, expected.arguments);
    assert_eq!(invocation.name, "git_commit");
    assert_eq!(invocation.title.as_deref(), Some("git commit"));
    assert!(invocation
        .metadata
        .as_deref()
        .is_some_and(|m| m.ends_with("git.json")));
    assert_eq!(invocation.arguments.len(), 4, "{:?}", invocation.arguments);
    assert!(
        n <= generated,
        "a loaded call allocates {n} times, the generated one {generated}"
    );
    assert_eq!(
        generated, 13,
        "the argv, the recorded option values (a flag's `true` is borrowed) and their list"
    );

    // What it shares is the loaded tool's own, counted: another call points at the same text.
    let again = tool.invocation_from_json_text("git_commit", ARGS).unwrap();
    for (a, b) in [
        (&invocation.name, &again.name),
        (
            invocation.title.as_ref().unwrap(),
            again.title.as_ref().unwrap(),
        ),
        (
            invocation.metadata.as_ref().unwrap(),
            again.metadata.as_ref().unwrap(),
        ),
        (&invocation.arguments[0].param, &again.arguments[0].param),
    ] {
        assert!(matches!(a, Shared::Counted(_)), "{a}");
        assert!(std::ptr::eq(a.get(), b.get()), "{a} is copied per call");
    }
    assert!(std::ptr::eq(invocation.effects.get(), again.effects.get()));
    // And a generated call's are its constants.
    assert!(matches!(expected.name, Shared::Static("git_commit")));
    assert!(matches!(expected.effects, Shared::Static(_)));
}
