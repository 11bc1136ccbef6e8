//! The generator and the code it writes: goldens, the generated API on real metadata, hostile and
//! adversarial metadata, shared enum types, per-option effects, the spec table, sloppy metadata,
//! generated against run-time dispatch, and rebuilds by `include_atip!`.

#[path = "../support/mod.rs"]
mod support;

mod adversarial;
mod commands;
mod dispatch;
mod golden;
mod hostile_metadata;
mod option_effects;
mod rebuild;
mod shared_enums;
mod sloppy;
mod spec_table;
