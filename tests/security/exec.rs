//! Typed commands from real metadata, run on real tools: values that start with `-` stay
//! values, and the policy gate holds for destructive commands.

use std::time::Duration;

use atip_runtime::{Command, RunError, Runner};
use atip_tests::{cat, rm};

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn dash_leading_values_are_not_read_as_flags_by_real_tools() {
    rt().block_on(async {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("-rf"), "a file named like a flag\n").unwrap();
        std::fs::write(dir.path().join("-n"), "numbered?\n").unwrap();
        std::fs::create_dir(dir.path().join("keep")).unwrap();
        std::fs::write(dir.path().join("keep/file"), "x").unwrap();
        let runner = Runner::new()
            .current_dir(dir.path())
            .timeout(Duration::from_secs(10));

        // cat -- -n prints the file "-n" instead of numbering lines.
        let out = runner.run(&cat::Cat::new(["-n"])).await.unwrap();
        assert_eq!(cat::Cat::new(["-n"]).argv(), ["cat", "--", "-n"]);
        assert_eq!(out.stdout_lossy(), "numbered?\n");

        // rm -- -rf keep: deletes the file "-rf" and refuses the directory (no recursion).
        let remove = rm::Rm::new(["-rf", "keep"]);
        assert_eq!(remove.argv(), ["rm", "--", "-rf", "keep"]);
        assert!(matches!(
            runner.run(&remove).await,
            Err(RunError::NeedsConfirmation(_))
        ));
        assert!(
            dir.path().join("-rf").exists(),
            "nothing ran without confirmation"
        );
        let out = runner.run(&remove).confirmed(true).await.unwrap();
        assert!(!out.success(), "rm refuses the directory without -r");
        assert!(!dir.path().join("-rf").exists());
        assert!(
            dir.path().join("keep/file").exists(),
            "-rf was a file name, not a flag"
        );
    });
}
