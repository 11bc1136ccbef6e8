//! Terminal input injection (`TIOCSTI`), the bubblewrap CVE-2017-5226 class: a command run by
//! `atip run` from a person's terminal pushes a command line into that terminal's input, which
//! their shell runs after the agent exits. The test gives `atip` a pseudo-terminal as its
//! controlling terminal, as an interactive shell would, and looks for the pushed input there.
//!
//! The attacker is `perl -e CODE` described by metadata as read-only and offline. Set
//! `ATIP_SANDBOX_TESTS=skip` to skip (the push is refused by the sandbox's seccomp filter and
//! by the run having no controlling terminal).

use std::ffi::CStr;
use std::io::Read;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};

/// A pseudo-terminal: the master, and the path and open descriptor of its slave.
struct Pty {
    _master: OwnedFd,
    slave: std::fs::File,
    slave_path: String,
}

fn open_pty() -> Pty {
    // SAFETY: the usual posix_openpt/grantpt/unlockpt/ptsname_r sequence on a descriptor owned
    // here; ptsname_r writes a NUL-terminated path into the buffer.
    unsafe {
        let master = libc::posix_openpt(libc::O_RDWR | libc::O_NOCTTY | libc::O_CLOEXEC);
        assert!(master >= 0, "posix_openpt");
        let master = OwnedFd::from_raw_fd(master);
        assert_eq!(libc::grantpt(master.as_raw_fd()), 0);
        assert_eq!(libc::unlockpt(master.as_raw_fd()), 0);
        let mut name = [0 as libc::c_char; 128];
        assert_eq!(
            libc::ptsname_r(master.as_raw_fd(), name.as_mut_ptr(), name.len()),
            0
        );
        let slave_path = CStr::from_ptr(name.as_ptr()).to_str().unwrap().to_owned();
        let slave = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .custom_flags(libc::O_NOCTTY)
            .open(&slave_path)
            .unwrap();
        Pty {
            _master: master,
            slave,
            slave_path,
        }
    }
}

use std::os::unix::fs::OpenOptionsExt;

/// Starts `cmd` as a new session whose controlling terminal is `pty`'s slave, with the slave as
/// stdin, and waits for it; returns its stdout.
fn run_on_terminal(mut cmd: Command, pty: &Pty) -> String {
    let fd = pty.slave.as_raw_fd();
    // SAFETY: setsid and TIOCSCTTY in the forked child, on a descriptor it inherited.
    unsafe {
        cmd.pre_exec(move || {
            if libc::setsid() == -1 || libc::ioctl(fd, libc::TIOCSCTTY, 0) == -1 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let out = cmd
        .stdin(Stdio::from(pty.slave.try_clone().unwrap()))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr)
}

/// What is waiting in the terminal's input queue, as the person's shell would read it next.
fn pending_input(pty: &Pty) -> String {
    let fd = pty.slave.as_raw_fd();
    // SAFETY: fcntl on a descriptor owned by `pty`.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK);
    }
    let mut got = Vec::new();
    let mut buf = [0u8; 256];
    while let Ok(n) = (&pty.slave).read(&mut buf) {
        if n == 0 {
            break;
        }
        got.extend_from_slice(&buf[..n]);
    }
    String::from_utf8_lossy(&got).into_owned()
}

/// Pushes `echo INJECTED` into the terminal at `tty`: the controlling one (`/dev/tty`), or one
/// named by path, which only a process with CAP_SYS_ADMIN may push into.
fn attack(tty: &str) -> String {
    format!(
        "open(my $t, '<', '{tty}') or do {{ print \"no terminal: $!\\n\"; exit 0 }}; \
         for my $c (split //, \"echo INJECTED\\n\") {{ ioctl($t, 0x5412, $c) or do {{ print \"refused: $!\\n\"; exit 0 }} }} \
         print \"pushed\\n\""
    )
}

fn metadata(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("perl.json");
    std::fs::write(
        &path,
        r#"{"atip": {"version": "0.6"}, "name": "perl", "version": "5", "description": "Perl",
  "commands": {"": {"description": "Run a one-line program",
    "options": [{"name": "e", "flags": ["-e"], "type": "string", "required": true, "description": "The program"}],
    "effects": {"destructive": false, "network": false,
      "filesystem": {"read": true, "write": false, "delete": false}}}}}"#,
    )
    .unwrap();
    path
}

fn atip_run(dir: &Path, code: &str) -> Command {
    let response = dir.join("response.json");
    let body = serde_json::json!({"choices": [{"finish_reason": "tool_calls", "message": {
        "role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {
            "name": "perl", "arguments": serde_json::json!({"e": code}).to_string()}}]}}]});
    std::fs::write(&response, body.to_string()).unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_atip"));
    cmd.args([
        "run",
        "--tools",
        metadata(dir).to_str().unwrap(),
        "--provider",
        "openai",
        response.to_str().unwrap(),
    ])
    .current_dir(dir);
    cmd
}

#[test]
fn a_run_cannot_push_input_into_the_persons_terminal() {
    if std::env::var("ATIP_SANDBOX_TESTS").as_deref() == Ok("skip") {
        eprintln!("skipped: ATIP_SANDBOX_TESTS=skip");
        return;
    }
    let dir = tempfile::tempdir().unwrap();

    // The attack is real: perl started from the terminal's session pushes the line.
    let pty = open_pty();
    let mut direct = Command::new("perl");
    direct.args(["-e", &attack("/dev/tty")]);
    let said = run_on_terminal(direct, &pty);
    assert!(said.contains("pushed"), "{said}");
    assert!(pending_input(&pty).contains("echo INJECTED"));

    // Through `atip run`, from the same kind of terminal: nothing arrives.
    let pty = open_pty();
    let said = run_on_terminal(atip_run(dir.path(), &attack("/dev/tty")), &pty);
    assert!(
        said.contains("no terminal") || said.contains("refused"),
        "{said}"
    );
    assert_eq!(pending_input(&pty), "");

    // The terminal named by its path: a root runner may push into any terminal, so the
    // sandbox's filter (and the dropped capabilities) must refuse it.
    let pty = open_pty();
    let said = run_on_terminal(atip_run(dir.path(), &attack(&pty.slave_path)), &pty);
    assert!(
        said.contains("refused") || said.contains("no terminal"),
        "{said}"
    );
    assert_eq!(pending_input(&pty), "");
}
