//! The shared provider validators (`../shared/validators`), run over many files in one Python
//! process by `tests/validators/run.py`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use atip_runtime::providers::Provider;
use serde_json::{json, Value};

use super::workspace;

pub fn shared() -> PathBuf {
    let dir = workspace().join("../shared");
    assert!(
        dir.join("validators/setup.sh").is_file() && dir.join("fixtures/manifest.json").is_file(),
        "../shared is missing at {}: these tests need the shared corpus, fixtures and validators",
        dir.display()
    );
    dir
}

/// The validators' Python, set up once per test process.
pub fn python() -> &'static Path {
    static PY: OnceLock<PathBuf> = OnceLock::new();
    PY.get_or_init(|| {
        let venv = std::env::var_os("ATIP_VALIDATORS_VENV")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("/tmp/atip-validators-venv"));
        let status = Command::new("bash")
            .arg(shared().join("validators/setup.sh"))
            .env("ATIP_VALIDATORS_VENV", &venv)
            .status()
            .expect("bash runs");
        assert!(status.success(), "validators/setup.sh failed");
        venv.join("bin/python")
    })
}

/// Writes `files` under `target/atip-validators/<name>/`, runs the plan, returns the output.
pub fn validate(name: &str, entries: Vec<(&str, &str, String, Value)>) -> String {
    let dir = workspace().join("target/atip-validators").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut plan = Vec::new();
    for (script, provider, file, content) in entries {
        let path = dir.join(&file);
        std::fs::write(&path, serde_json::to_string_pretty(&content).unwrap()).unwrap();
        plan.push(json!({"script": script, "provider": provider, "file": path}));
    }
    let plan_path = dir.join("plan.json");
    std::fs::write(&plan_path, serde_json::to_string(&plan).unwrap()).unwrap();
    let out = Command::new(python())
        .arg(workspace().join("tests/validators/run.py"))
        .arg(shared().join("validators"))
        .arg(&plan_path)
        .output()
        .expect("python runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let failures: Vec<&str> = text.lines().filter(|l| l.starts_with("FAIL")).collect();
    assert!(
        out.status.success() && failures.is_empty(),
        "validators rejected our output ({} FAIL lines):\n{}",
        failures.len(),
        failures.join("\n")
    );
    for warning in text.lines().filter(|l| l.starts_with("WARN")) {
        println!("{warning}");
    }
    let total = text
        .lines()
        .find(|l| l.starts_with("TOTAL"))
        .unwrap_or("no TOTAL line");
    println!("{name}: {total}");
    text
}

pub fn validator_name(p: Provider) -> &'static str {
    match p {
        Provider::OpenAi => "openai-chat",
        Provider::OpenAiStrict => "openai-chat-strict",
        Provider::OpenAiResponses => "openai-responses",
        Provider::OpenAiResponsesStrict => "openai-responses-strict",
        Provider::Anthropic => "anthropic",
        Provider::Gemini => "gemini",
        Provider::Mcp => "mcp",
    }
}
