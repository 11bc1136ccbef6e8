//! Compiling generated code in a crate of its own, for tests that need proof that it builds.
// Each test binary uses a different subset of these helpers.
#![allow(dead_code)]

pub mod validators;

use std::path::{Path, PathBuf};
use std::process::Command;

/// The workspace root.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// A scratch crate under the target directory's `tmp/<name>/` that depends on this workspace's
/// atip-runtime as `include_atip!` needs it (feature `macros` alone: generated code runs nothing,
/// so the scratch build compiles no tokio, sandbox or egress stack) and uses the workspace's
/// Cargo.lock, so it builds offline with the same versions. Every scratch crate builds into one shared target directory (`tmp/scratch-target`),
/// so their dependencies are compiled once; each crate's package is named after it, so their
/// binaries do not overwrite each other.
pub struct ScratchCrate {
    pub dir: PathBuf,
    name: String,
    lib: String,
    main: String,
    build: Option<String>,
    files: Vec<(String, String)>,
}

impl ScratchCrate {
    pub fn new(name: &str) -> Self {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
        ScratchCrate {
            name: name.to_owned(),
            dir,
            lib: "//! Generated code under test.\n#![deny(warnings, missing_docs)]\n".to_owned(),
            main: String::new(),
            build: None,
            files: Vec::new(),
        }
    }

    /// Sets `build.rs` (with atip-build as a build dependency).
    pub fn build_script(&mut self, source: &str) {
        self.build = Some(source.to_owned());
    }

    /// Adds `pub mod <module> { include!("<module>.rs"); }` with `source` as the file.
    /// Adds a generated module. Its provider tool-limit warning (a deprecation note on modules
    /// with more commands than OpenAI takes per request) is allowed: it is one by design.
    pub fn module(&mut self, module: &str, doc: &str, source: String) {
        self.lib.push_str(&format!(
            "#[doc = {doc:?}]\n#[allow(deprecated)]\npub mod {module} {{\n    include!(\"{module}.rs\");\n}}\n"
        ));
        self.files.push((format!("{module}.rs"), source));
    }

    /// Appends raw items to `src/lib.rs`.
    pub fn raw_lib(&mut self, source: &str) {
        self.lib.push_str(source);
    }

    /// Writes `content` to `path`, relative to the crate root.
    pub fn write_file(&self, path: &str, content: &str) {
        let full = self.dir.join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, content).unwrap();
    }

    /// Where `include_atip!` caches its expansions for this crate.
    pub fn macro_cache(&self) -> PathBuf {
        self.dir.join("macro-cache")
    }

    /// Sets `src/main.rs` (run by [`ScratchCrate::build_and_run`]).
    pub fn main(&mut self, source: &str) {
        self.main = source.to_owned();
    }

    /// Writes the crate and runs `cargo build` (and the binary, if a main was set). Returns
    /// the binary's stdout. Panics with cargo's output on failure.
    pub fn build_and_run(&self) -> String {
        let src = self.dir.join("src");
        std::fs::create_dir_all(&src).unwrap();
        let runtime = workspace().join("crates/atip-runtime");
        let build_dep = match &self.build {
            Some(source) => {
                write_if_changed(&self.dir.join("build.rs"), source);
                format!(
                    "[build-dependencies]\natip-build = {{ path = {:?} }}\n\n",
                    workspace().join("crates/atip-build").display().to_string()
                )
            }
            None => String::new(),
        };
        write_if_changed(
            &self.dir.join("Cargo.toml"),
            &format!(
                "[package]\nname = {:?}\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n\
                 [lib]\nname = \"scratch\"\n\n[dependencies]\natip-runtime = {{ path = {:?}, default-features = false, features = [\"macros\"] }}\n\n{build_dep}[profile.dev]\ndebug = false\n\n[workspace]\n",
                format!("scratch-{}", self.name),
                runtime.display().to_string()
            ),
        );
        let lock = std::fs::read_to_string(workspace().join("Cargo.lock")).unwrap();
        write_if_changed(&self.dir.join("Cargo.lock"), &lock);
        write_if_changed(&src.join("lib.rs"), &self.lib);
        for (name, text) in &self.files {
            write_if_changed(&src.join(name), text);
        }
        let main = if self.main.is_empty() {
            "fn main() {}\n".to_owned()
        } else {
            self.main.clone()
        };
        write_if_changed(&src.join("main.rs"), &main);
        let out = Command::new(env!("CARGO"))
            .args(["run", "--quiet", "--offline", "--manifest-path"])
            .arg(self.dir.join("Cargo.toml"))
            .env(
                "CARGO_TARGET_DIR",
                Path::new(env!("CARGO_TARGET_TMPDIR")).join("scratch-target"),
            )
            // The macro's expansion cache stays inside the scratch crate.
            .env("ATIP_MACRO_CACHE", self.macro_cache())
            // Generated code for thousands of commands: no incremental cache to keep in memory.
            .env("CARGO_INCREMENTAL", "0")
            .env_remove("RUSTFLAGS")
            .output()
            .expect("cargo runs");
        assert!(
            out.status.success(),
            "scratch crate {} failed:\n{}\n{}",
            self.dir.display(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }
}

/// Leaves unchanged files alone, so cargo only rebuilds for what a test really changed.
fn write_if_changed(path: &Path, content: &str) {
    if std::fs::read_to_string(path).ok().as_deref() != Some(content) {
        std::fs::write(path, content).unwrap();
    }
}

/// The items the generator emits, found inside the inner module that holds them
/// (`mod atip_generated`, re-exported by the caller's module).
pub fn generated_items(tokens: proc_macro2::TokenStream) -> Vec<syn::Item> {
    let file: syn::File = syn::parse2(tokens).expect("generated tokens parse as a Rust file");
    file.items
        .into_iter()
        .find_map(|item| match item {
            syn::Item::Mod(m) if m.ident == "atip_generated" => m.content.map(|(_, items)| items),
            _ => None,
        })
        .expect("the generated module")
}
