use super::*;

fn target<'a>(
    roots: &'a [PathBuf],
    declared: &'a [PathBuf],
    program: Option<&'a Path>,
) -> Target<'a> {
    Target {
        writable: Some(roots),
        working_dir: &roots[0],
        declared,
        program,
        unix_sockets: false,
        listed_sockets: &[],
    }
}

/// A run that may write nowhere, outside any repository.
fn read_only() -> Target<'static> {
    Target {
        writable: Some(&[]),
        working_dir: Path::new("/nonexistent"),
        declared: &[],
        program: None,
        unix_sockets: false,
        listed_sockets: &[],
    }
}

fn git_repo(root: &Path) {
    std::fs::create_dir_all(root.join(".git/hooks")).unwrap();
    std::fs::create_dir_all(root.join(".git/objects")).unwrap();
    std::fs::write(root.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
    std::fs::write(root.join(".git/config"), "").unwrap();
}

#[test]
fn a_repository_is_read_only_to_every_program_but_git() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    git_repo(&root);
    std::fs::write(root.join(".mcp.json"), "{}").unwrap();
    let roots = [root.clone()];
    let shield = plan(&target(&roots, &[], None), &Places::default(), None, &[]);
    for p in [".git", ".mcp.json"] {
        assert!(shield.read_only.contains(&root.join(p)), "{p}: {shield:?}");
    }
    assert!(
        !shield.read_only.contains(&root.join(".git/config")),
        "the whole directory"
    );
    // Names that do not exist are held, and go with the shield.
    let held = shield.placeholders();
    for p in [".vscode", ".envrc", ".gitmodules", ".claude"] {
        assert!(held.contains(&root.join(p)), "{p}: {held:?}");
        use std::os::unix::fs::FileTypeExt;
        let kind = std::fs::symlink_metadata(root.join(p)).unwrap().file_type();
        assert!(kind.is_socket(), "{p}: a socket file git never sees");
    }
    drop(shield);
    assert!(!root.join(".vscode").exists(), "removed after the run");
}

#[test]
fn git_writes_its_directory_but_not_what_runs_programs() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    git_repo(&root);
    let bin = tempfile::tempdir().unwrap();
    let git = bin.path().join("git");
    std::fs::write(&git, "").unwrap();
    let roots = [root.clone()];
    let shield = plan(
        &target(&roots, &[], Some(&git)),
        &Places::default(),
        None,
        &[],
    );
    assert!(shield.pins.contains(&root.join(".git")), "{shield:?}");
    assert!(!shield.read_only.contains(&root.join(".git")));
    for p in ["config", "hooks", "info", "commondir", "config.worktree"] {
        assert!(
            shield.read_only.contains(&root.join(".git").join(p)),
            "{p}: {shield:?}"
        );
    }
    assert_eq!(std::fs::read(root.join(".git/commondir")).unwrap(), b".\n");
    drop(shield);
    assert!(!root.join(".git/commondir").exists());
    assert!(!root.join(".git/info").exists());
}

#[test]
fn declared_paths_stay_writable_and_nested_repositories_are_held() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    git_repo(&root);
    git_repo(&root.join("a/b/inner"));
    let roots = [root.clone()];
    let declared = [root.join(".git/config"), root.join(".vscode")];
    let shield = plan(
        &target(&roots, &declared, None),
        &Places::default(),
        None,
        &[],
    );
    // Declaring a path inside the repository gives git's rules, without that path.
    assert!(!shield.read_only.contains(&root.join(".git")));
    assert!(!shield.read_only.contains(&root.join(".git/config")));
    assert!(shield.read_only.contains(&root.join(".git/hooks")));
    assert!(!shield.placeholders().contains(&root.join(".vscode")));
    // The nested repository, and the directories that hold it.
    assert!(shield.read_only.contains(&root.join("a/b/inner/.git")));
    for p in ["a", "a/b", "a/b/inner"] {
        assert!(shield.pins.contains(&root.join(p)), "{p}: {shield:?}");
    }
}

#[test]
fn a_deep_repository_is_held_and_a_root_the_search_cannot_finish_is_read_only() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    let deep = root.join("a/b/c/d/e/f/g/h/repo");
    git_repo(&deep);
    let roots = [root.clone()];
    let shield = plan(&target(&roots, &[], None), &Places::default(), None, &[]);
    assert!(shield.read_only.contains(&deep.join(".git")), "{shield:?}");
    assert!(!shield.read_only.contains(&root));
    drop(shield);
    // Deeper than the search goes: a repository there could not be found, so nothing under
    // the root may be written.
    let mut past = root.clone();
    for _ in 0..=git::MAX_DEPTH {
        past.push("d");
    }
    std::fs::create_dir_all(&past).unwrap();
    let shield = plan(&target(&roots, &[], None), &Places::default(), None, &[]);
    assert!(shield.read_only.contains(&root), "{shield:?}");
    drop(shield);
    // A root the command declares (a server's write path) is held all the same.
    let shield = plan(&target(&roots, &roots, None), &Places::default(), None, &[]);
    assert!(shield.read_only.contains(&root), "declared: {shield:?}");
    assert!(
        shield
            .notes
            .iter()
            .any(|n| n.contains("read-only for this run")),
        "{:?}",
        shield.notes
    );
}

#[test]
fn a_bare_repository_is_held_like_a_git_directory() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    let bare = root.join("remote.git");
    for d in ["hooks", "objects", "refs/heads"] {
        std::fs::create_dir_all(bare.join(d)).unwrap();
    }
    std::fs::write(bare.join("HEAD"), "ref: refs/heads/main\n").unwrap();
    std::fs::write(bare.join("config"), "[core]\n\tbare = true\n").unwrap();
    let roots = [root.clone()];
    let shield = plan(&target(&roots, &[], None), &Places::default(), None, &[]);
    assert!(shield.read_only.contains(&bare), "{shield:?}");
}

#[test]
fn stores_are_hidden_from_every_program_but_their_owners_and_grantees() {
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir(home.path().join(".ssh")).unwrap();
    std::fs::create_dir(home.path().join(".aws")).unwrap();
    std::fs::write(home.path().join(".netrc"), "").unwrap();
    let kube = tempfile::tempdir().unwrap();
    let kubeconfig = kube.path().join("admin.conf");
    std::fs::write(&kubeconfig, "").unwrap();
    let places = Places {
        home: Some(home.path().to_path_buf()),
        vars: vec![("KUBECONFIG".to_owned(), kubeconfig.clone())],
    };
    let hidden = |program: &str, grants: &[Grant]| -> Vec<PathBuf> {
        let t = read_only();
        // Only what this test made: the machine's own daemon sockets may be there too.
        plan(&t, &places, Some(program), grants)
            .hidden
            .iter()
            .map(|h| h.path().to_path_buf())
            .filter(|p| p.starts_with(home.path()) || p.starts_with(kube.path()))
            .collect()
    };
    let h = |rel: &str| home.path().join(rel);
    assert_eq!(
        hidden("cat", &[]),
        [h(".ssh"), h(".aws"), kubeconfig.clone(), h(".netrc")]
    );
    assert_eq!(
        hidden("ssh", &[]),
        [h(".aws"), kubeconfig.clone(), h(".netrc")]
    );
    assert_eq!(hidden("kubectl", &[]), [h(".ssh"), h(".aws"), h(".netrc")]);
    let grant = Grant {
        program: "c*".into(),
        path: h(".aws"),
    };
    assert_eq!(
        hidden("cat", &[grant]),
        [h(".ssh"), kubeconfig, h(".netrc")]
    );
}

#[test]
fn a_store_hidden_by_one_run_outlives_the_placeholder_another_run_made_there() {
    // No `~/.ssh`: a run that may write the home creates it as an empty placeholder (so that
    // nothing can be planted there) and removes it when it ends. A read-only run planned in the
    // meantime hides it; its child mounts over it later, so it must still be there then.
    let home = tempfile::tempdir().unwrap();
    let places = Places {
        home: Some(home.path().to_path_buf()),
        vars: Vec::new(),
    };
    let ssh = home.path().join(".ssh");
    let roots = [home.path().to_path_buf()];
    let writer = plan(&target(&roots, &[], None), &places, Some("sh"), &[]);
    assert!(ssh.is_dir(), "the writer's placeholder: {writer:?}");
    let reader = plan(&read_only(), &places, Some("cat"), &[]);
    assert!(reader.hidden.iter().any(|h| h.path() == ssh), "{reader:?}");
    drop(writer);
    assert!(
        ssh.is_dir(),
        "removed while the reader still mounts over it"
    );
    drop(reader);
    assert!(!ssh.exists(), "the placeholder outlived every run");
}
