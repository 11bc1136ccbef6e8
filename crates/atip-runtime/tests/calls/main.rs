//! A call's way through the runtime: argument checks and dispatch, provider responses and their
//! streams, policies that test themselves, session grants, per-option effects, the audit trail,
//! the turn driver, the async-openai and rig interop (behind their features), the runner on real
//! processes (`exec`) and the secrets it hands a command redacted by value (`known_secrets`).

#[cfg(all(unix, feature = "exec"))]
#[path = "../common/mod.rs"]
mod common;

#[cfg(all(feature = "exec", feature = "macros"))]
mod agent;
#[cfg(all(unix, feature = "exec"))]
mod audit;
mod dispatch;
mod exec;
#[cfg(all(unix, feature = "exec"))]
mod grants;
#[cfg(feature = "async-openai")]
mod interop_openai;
#[cfg(all(feature = "rig", feature = "macros"))]
mod interop_rig;
mod known_secrets;
mod lifecycle;
#[cfg(all(unix, feature = "exec"))]
mod option_effects;
mod policy_examples;
mod stream;
