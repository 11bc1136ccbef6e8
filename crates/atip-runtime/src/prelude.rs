//! The names a program that runs typed commands, or drives a model's turn, uses most:
//! `use atip_runtime::prelude::*;`.
//!
//! Brings the traits whose methods generated code relies on ([`Command`] for `argv` and
//! `EFFECTS`, [`ToInvocation`], [`Dispatch`] and [`ToolSet`] for a `Call` enum), the
//! [`Runner`] with its [`Policy`], [`Output`] and [`RunError`], the turn driver
//! ([`TurnDriver`]), [`Provider`] and, with the default `macros` feature, [`include_atip!`].

pub use crate::{Command, Dispatch, Policy, Provider, ToInvocation, ToolSet};

#[cfg(feature = "exec")]
pub use crate::{agent::TurnDriver, Output, RunError, Runner};

#[cfg(feature = "macros")]
pub use crate::include_atip;
