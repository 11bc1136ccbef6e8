//! A hostile model and hostile output against the public API: attacks through typed and loaded
//! commands on real binaries, hostile tool calls, typed commands on real tools, the result filter
//! against a labelled corpus of secrets, and inputs found by fuzzing.

#[cfg(target_os = "linux")]
mod attacks;
mod exec;
mod fuzz_regressions;
mod hostile_calls;
mod secrets;
