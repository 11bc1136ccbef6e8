//! The `atip` binary: `check`, `gen`, `run` and its environment, `import fig`, `--agent`, `lint`
//! and `diff`, and terminal input injection through `atip run`.

mod cli;
mod environment;
mod import;
mod review;
#[cfg(target_os = "linux")]
mod terminal;
