//! Discovery falls back to a shim filed under the binary's SHA-256 (spec §4, §5.1), in
//! throwaway shim directories.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::shim::{sha256_file, shim_path, ShimDirs};
use crate::{discover_with_shims, DiscoverError, Partial};

fn script(dir: &Path, body: &str) -> PathBuf {
    let path = dir.join("legacytool");
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

fn shim(hex: &str, description: &str) -> String {
    format!(
        r#"{{"atip": {{"version": "0.6"}}, "name": "legacytool", "version": "1", "description": "{description}",
  "binary": {{"hash": "sha256:{hex}", "name": "legacytool"}},
  "trust": {{"source": "inferred", "verified": false}},
  "commands": {{"": {{"description": "Run it"}}}}}}"#
    )
}

fn discover(tool: &Path, dirs: &ShimDirs) -> Result<String, DiscoverError> {
    discover_with_shims(
        tool.to_str().unwrap(),
        &Partial::default(),
        Duration::from_secs(5),
        dirs,
    )
}

#[test]
fn a_tool_without_agent_support_is_found_by_its_hash() {
    let bin = tempfile::tempdir().unwrap();
    let tool = script(bin.path(), "echo 'unknown option --agent' >&2; exit 2");
    let hex = sha256_file(&tool).unwrap();
    let overrides = tempfile::tempdir().unwrap();
    let shims = tempfile::tempdir().unwrap();
    let dirs = ShimDirs::new([overrides.path().to_path_buf(), shims.path().to_path_buf()]);

    // No shim yet: the tool's own failure is the answer.
    match discover(&tool, &dirs) {
        Err(DiscoverError::Failed { code, stderr, .. }) => {
            assert_eq!(code, Some(2));
            assert!(stderr.contains("unknown option"), "{stderr}");
        }
        other => panic!("expected the tool's failure, got {other:?}"),
    }

    std::fs::write(shim_path(shims.path(), &hex), shim(&hex, "from the cache")).unwrap();
    let text = discover(&tool, &dirs).unwrap();
    assert!(text.contains("from the cache"));

    // An override comes first.
    std::fs::write(shim_path(overrides.path(), &hex), shim(&hex, "my override")).unwrap();
    assert!(discover(&tool, &dirs).unwrap().contains("my override"));
}

#[test]
fn a_shim_for_another_binary_is_refused() {
    let bin = tempfile::tempdir().unwrap();
    let tool = script(bin.path(), "exit 1");
    let hex = sha256_file(&tool).unwrap();
    let shims = tempfile::tempdir().unwrap();
    std::fs::write(
        shim_path(shims.path(), &hex),
        shim(&"0".repeat(64), "wrong"),
    )
    .unwrap();
    match discover(&tool, &ShimDirs::new([shims.path().to_path_buf()])) {
        Err(DiscoverError::Invalid(e)) => {
            let msg = e.to_string();
            assert!(
                msg.contains("binary.hash") || msg.contains("declares sha256:0000"),
                "{msg}"
            );
            assert!(msg.contains(&hex), "{msg}");
        }
        other => panic!("expected an invalid shim, got {other:?}"),
    }
}

#[test]
fn a_changed_binary_no_longer_matches_its_old_shim() {
    let bin = tempfile::tempdir().unwrap();
    let tool = script(bin.path(), "exit 1");
    let hex = sha256_file(&tool).unwrap();
    let shims = tempfile::tempdir().unwrap();
    std::fs::write(shim_path(shims.path(), &hex), shim(&hex, "v1")).unwrap();
    let dirs = ShimDirs::new([shims.path().to_path_buf()]);
    assert!(discover(&tool, &dirs).is_ok());
    script(bin.path(), "exit 3");
    assert!(matches!(
        discover(&tool, &dirs),
        Err(DiscoverError::Failed { code: Some(3), .. })
    ));
}

#[test]
fn native_metadata_wins_over_a_shim() {
    let bin = tempfile::tempdir().unwrap();
    let native = r#"{"atip": {"version": "0.6"}, "name": "legacytool", "version": "2", "description": "native", "commands": {"": {"description": "Run it"}}}"#;
    let tool = script(
        bin.path(),
        &format!("[ \"$1\" = \"--agent\" ] || exit 2\ncat <<'JSON'\n{native}\nJSON"),
    );
    let hex = sha256_file(&tool).unwrap();
    let shims = tempfile::tempdir().unwrap();
    std::fs::write(shim_path(shims.path(), &hex), shim(&hex, "shim")).unwrap();
    let text = discover(&tool, &ShimDirs::new([shims.path().to_path_buf()])).unwrap();
    assert!(text.contains("\"native\""));
}

#[test]
fn a_missing_tool_has_nothing_to_hash() {
    let shims = tempfile::tempdir().unwrap();
    let r = discover_with_shims(
        "atip-no-such-tool-anywhere",
        &Partial::default(),
        Duration::from_secs(5),
        &ShimDirs::new([shims.path().to_path_buf()]),
    );
    assert!(matches!(r, Err(DiscoverError::NotFound { .. })));
}
