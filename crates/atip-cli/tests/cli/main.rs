//! The `atip` binary: `check`, `gen`, `run` and its environment, `import fig` (and its child
//! processes, `fig_child`), `--agent`, `lint` and `diff`, terminal input injection through
//! `atip run`, and planting through a writable workspace (`planting`).

mod cli;
mod environment;
mod fig_child;
mod import;
#[cfg(target_os = "linux")]
mod planting;
mod review;
#[cfg(target_os = "linux")]
mod terminal;
