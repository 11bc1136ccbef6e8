//! A call's way through the runtime: argument checks and dispatch, provider responses and their
//! streams, policies that test themselves, session grants, per-option effects, the audit trail,
//! the turn driver, and the async-openai and rig interop (behind their features).

#[cfg(all(unix, feature = "exec"))]
#[path = "../common/mod.rs"]
mod common;

#[cfg(all(feature = "exec", feature = "macros"))]
mod agent;
#[cfg(all(unix, feature = "exec"))]
mod audit;
mod dispatch;
#[cfg(all(unix, feature = "exec"))]
mod grants;
#[cfg(feature = "async-openai")]
mod interop_openai;
#[cfg(all(feature = "rig", feature = "macros"))]
mod interop_rig;
mod lifecycle;
#[cfg(all(unix, feature = "exec"))]
mod option_effects;
mod policy_examples;
mod stream;
