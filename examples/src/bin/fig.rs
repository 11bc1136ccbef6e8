//! Tools imported from Fig completion specs, driven end to end: `cargo run -p atip-examples
//! --bin fig`.
//!
//! `atip/fig-ls.json` and `atip/fig-wc.json` were made with `atip import fig
//! package/build/ls.js` (and `wc.js`) from the npm package @withfig/autocomplete 2.692.3 (ISC;
//! MIT, Copyright (c) 2021 Hercules Labs Inc. (Fig) — the attribution is in each file's
//! `x-atip-rust.generator`). Their trust is `inferred`. The importer declared `ls` read-only
//! (a listing verb), so it runs without a question; it found no evidence about `wc` and left
//! `destructive` undeclared: the policy would ask, so the runner tries it first, unasked, in
//! the tightest sandbox (read-only, offline) — it only reads, so that is its result. A policy
//! with `tightFirst: false` asks first.
#![deny(missing_docs)]

use std::error::Error;

use atip_runtime::{Command, RunError, Runner, TrustSource};

mod ls {
    //! `ls`, imported from Fig's `ls.js`.
    atip_runtime::include_atip!("atip/fig-ls.json");
}
mod wc {
    //! `wc`, imported from Fig's `wc.js`.
    atip_runtime::include_atip!("atip/fig-wc.json");
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn Error>> {
    let dir = tempfile::tempdir()?;
    std::fs::create_dir(dir.path().join("notes"))?;
    std::fs::write(dir.path().join("notes/todo.txt"), "one\ntwo\nthree\n")?;
    std::fs::write(dir.path().join("notes/done.txt"), "zero\n")?;
    let runner = Runner::new().current_dir(dir.path());

    assert_eq!(<ls::Ls as Command>::TRUST, Some(TrustSource::Inferred));
    let effects = <ls::Ls as Command>::EFFECTS;
    println!(
        "ls: trust inferred, destructive = {:?}, writes files = {:?}",
        effects.destructive,
        effects.filesystem_write()
    );
    let list = ls::Ls::new(["notes"])._1(true); // `-1`: one entry per line
    println!("$ {:?}", list.argv());
    print!("{}", runner.run(&list).await?.stdout_lossy());

    let count = wc::Wc::new()
        .l(true)
        .file(["notes/todo.txt", "notes/done.txt"]);
    println!(
        "wc: destructive = {:?}\n$ {:?}",
        <wc::Wc as Command>::EFFECTS.destructive,
        count.argv()
    );
    // Tight first where the sandbox holds (Linux with Landlock); asked about elsewhere.
    match runner.run(&count).await {
        Ok(out) if out.tight_first => {
            println!("ran first read-only and offline, nobody asked:");
            print!("{}", out.stdout_lossy());
        }
        Err(RunError::NeedsConfirmation(request)) => println!("needs confirmation: {request}"),
        other => {
            return Err(format!(
                "undeclared effects must be tried tight first or asked about, got {other:?}"
            )
            .into())
        }
    }
    // A policy that asks first: the same call needs a person's yes.
    let asking = Runner::new()
        .current_dir(dir.path())
        .policy(atip_runtime::Policy {
            tight_first: false,
            ..Default::default()
        });
    match asking.run(&count).await {
        Err(RunError::NeedsConfirmation(request)) => println!("needs confirmation: {request}"),
        other => {
            return Err(
                format!("with tightFirst false it must be asked about, got {other:?}").into(),
            )
        }
    }
    // A person said yes.
    print!(
        "{}",
        asking.run(&count).confirmed(true).await?.stdout_lossy()
    );
    Ok(())
}
