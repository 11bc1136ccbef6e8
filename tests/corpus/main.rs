//! Real and large inputs: conformance against the shared corpus, the providers' own validators,
//! the canonical representation and its corpus, the Fig importer on the real package, `atip serve`
//! against the official MCP client, aws-sized documents, finding commands among thousands, what
//! a model is sent, and a session of calls over imported metadata. The tests that need
//! `../shared` are ignored by default (the CI runs them with `--ignored`).

#[path = "../support/mod.rs"]
mod support;

mod canonical;
mod canonical_corpus;
mod conformance;
mod fig;
mod large;
mod mcp;
mod providers;
mod search;
mod session;
mod tokens;
