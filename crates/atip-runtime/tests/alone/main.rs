//! The runner measured alone: one test that runs each part in sequence, because each needs the
//! process to itself — `tracing` caches per call site whether anyone listens, the flood
//! measures this process's peak memory, the stress part counts its file descriptors and
//! children.

#![cfg(all(target_os = "linux", feature = "exec"))]

#[path = "../common/mod.rs"]
mod common;

mod flood;
mod stress;
mod traced;

#[test]
fn the_runner_alone_traced_flooded_and_stressed() {
    traced::every_stage_is_traced_inside_the_call_span();
    flood::a_gibibyte_of_output_stays_under_the_cap();
    stress::the_runner_under_load_and_against_hostile_children();
}
