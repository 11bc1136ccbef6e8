//! `atip --agent`: the program's own ATIP metadata, from its clap definition and the effects
//! of each command, declared here (trust `native`: the program describes itself).

use atip_runtime::{effects::Interactive, effects::StdinMode, Effects, FilesystemEffects};

/// Files read, nothing written, no network, no other program: what most commands do (they
/// print to stdout). Standard input is read when a file argument is `-`.
const READS_FILES: Effects = Effects::UNKNOWN
    .with_filesystem(FilesystemEffects {
        read: Some(true),
        write: Some(false),
        delete: Some(false),
        paths: None,
    })
    .with_network(false)
    .with_subprocess(false)
    .with_destructive(false)
    .with_idempotent(true);

/// Reads files and may write `--out`, replacing it (`discover`, `mark`).
const WRITES_OUT: FilesystemEffects = FilesystemEffects {
    read: Some(true),
    write: Some(true),
    delete: Some(false),
    paths: None,
};

/// The effects of `atip`'s commands, by command name.
pub(crate) fn annotations() -> atip_clap::Annotations {
    let reads_stdin = READS_FILES.with_interactive(Interactive {
        stdin: Some(StdinMode::Optional),
        prompts: Some(false),
        tty: Some(false),
    });
    // `run` and `serve` execute the commands of the tool calls they are given: whatever those
    // do (delete files, reach the network) `atip` does. The policy gates each call, but the
    // command itself is as risky as the tools it runs.
    let runs_tools = Effects::UNKNOWN
        .with_filesystem(FilesystemEffects {
            read: Some(true),
            write: Some(true),
            delete: Some(true),
            paths: None,
        })
        .with_network(true)
        .with_subprocess(true)
        .with_destructive(true)
        .with_reversible(false)
        .with_idempotent(false);
    // No homepage: the project has no public address yet.
    let mut ann = atip_clap::Annotations::new()
        .effects(
            "run",
            runs_tools.clone().with_interactive(Interactive {
                stdin: Some(StdinMode::Optional),
                prompts: Some(false),
                tty: Some(false),
            }),
        )
        .effects(
            "serve",
            // The MCP client talks on stdin until it disconnects.
            runs_tools.with_interactive(Interactive {
                stdin: Some(StdinMode::Required),
                prompts: Some(false),
                tty: Some(false),
            }),
        )
        .effects(
            "discover",
            // Runs the named program with `--agent` (which should have no side effects, but
            // that program is not ours to vouch for) and may write `--out`, replacing it.
            Effects::UNKNOWN
                .with_filesystem(WRITES_OUT)
                .with_subprocess(true)
                .with_idempotent(true),
        );
    // Reads a file and may write `--out`, replacing it.
    ann = ann.effects(
        "mark",
        Effects::UNKNOWN
            .with_filesystem(WRITES_OUT)
            .with_network(false)
            .with_subprocess(false)
            .with_destructive(false)
            .with_idempotent(true),
    );
    for command in [
        "check", "gen", "compile", "prompt", "search", "lint", "diff", "doctor",
    ] {
        ann = ann.effects(command, READS_FILES);
    }
    for command in ["parse", "dispatch", "convert"] {
        ann = ann.effects(command, reads_stdin.clone());
    }
    ann
}
