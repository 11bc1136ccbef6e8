//! The lint rules and diff change kinds, and the reference tools' fixtures of the shared corpus.

mod conformance;
mod rules;
