//! Every golden compiles in a crate of its own under `deny(warnings, missing_docs)`, and the
//! generated API behaves as documented.
#![deny(warnings, missing_docs)]

/// git
pub mod git {
    include!("../../golden/git.rs");
}
/// ls
pub mod ls {
    include!("../../golden/ls.rs");
}
/// cat
pub mod cat {
    include!("../../golden/cat.rs");
}
/// wc
pub mod wc {
    include!("../../golden/wc.rs");
}
/// mkdir
pub mod mkdir {
    include!("../../golden/mkdir.rs");
}
/// rm
pub mod rm {
    include!("../../golden/rm.rs");
}
/// weird
pub mod weird {
    include!("../../golden/adversarial.rs");
}
/// hello
pub mod hello {
    include!("../../golden/minimal.rs");
}

use atip_runtime::Command;

fn main() {
    let commit = git::Commit::new("msg").all(true);
    assert_eq!(git::Commit::NAME, "git_commit");
    assert_eq!(git::Commit::PATH, &["commit"]);
    assert_eq!(commit.argv(), ["git", "commit", "--message=msg", "--all"]);
    let call: git::Call = commit.into();
    assert_eq!(call.name(), "git_commit");
    assert_eq!(rm::Rm::EFFECTS.destructive, Some(true));
    assert!(git::Call::NAMES.contains(&"git_stash_pop"));
    assert_eq!(weird::Type::new("i", "s").r#type("t").argv(), ["weird", "--type=t", "type", "i", "s"]);
    assert_eq!(hello::Hello::new().argv(), ["hello"]);
    assert_eq!(hello::Bye::default().argv(), ["hello", "bye"]);
}
