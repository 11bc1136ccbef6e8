//! Helpers shared by the runtime's test binaries that need them.
#![allow(dead_code)] // each binary uses part of it

use atip_runtime::{Effects, Invocation};

/// An invocation of `argv` named `test_<program>`, with the effects given as JSON and the
/// model's call id `id`.
pub fn call(id: &str, argv: &[&str], effects: &str) -> Invocation {
    let mut i = Invocation::new(
        format!("test_{}", argv[0]),
        argv.iter().map(Into::into).collect(),
        Effects::UNKNOWN,
    );
    i.effects = atip_runtime::Shared::new(serde_json::from_str::<Effects>(effects).unwrap());
    i.call_id = Some(id.to_owned());
    i
}

/// A single-threaded runtime with timers and I/O.
pub fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}
