//! The blocking face on real processes (`sh`, `cat`, `sleep`). The asynchronous face is
//! exercised by `atip-runtime`'s tests (`exec`, `stress`, `flood`, `spawn_review`, `sandbox`).

use std::ffi::OsString;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::time::{Duration, Instant};

use super::blocking::{self, Child};
use super::{PreExec, Signal, Spec};

fn env() -> Vec<(OsString, OsString)> {
    std::env::vars_os().collect()
}

fn start(program: &str, args: &[&str], stdin: bool) -> std::io::Result<Child> {
    let argv: Vec<OsString> = std::iter::once(program)
        .chain(args.iter().copied())
        .map(OsString::from)
        .collect();
    let env = env();
    blocking::spawn(
        &Spec {
            program: Path::new(program),
            argv: &argv,
            env: &env,
            cwd: None,
            stdin,
            keep_fd: None,
        },
        None,
    )
}

fn sh(script: &str) -> Child {
    start("/bin/sh", &["-c", script], false).unwrap()
}

fn read_all(child: &mut Child) -> String {
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    out
}

/// `(state, process group, session)` of `pid` from `/proc/PID/stat`; `None` once it is gone.
fn stat(pid: u32) -> Option<(char, u32, u32)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (_, rest) = stat.rsplit_once(") ")?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let state = fields.first()?.chars().next()?;
    Some((
        state,
        fields.get(2)?.parse().ok()?,
        fields.get(3)?.parse().ok()?,
    ))
}

/// Whether `pid` is gone or a zombie (of another process), within two seconds.
fn ends(pid: u32) -> bool {
    let by = Instant::now() + Duration::from_secs(2);
    loop {
        match stat(pid) {
            None | Some(('Z', ..)) => return true,
            Some(_) if Instant::now() > by => return false,
            Some(_) => std::thread::sleep(Duration::from_millis(10)),
        }
    }
}

#[test]
fn a_program_runs_with_its_argv_environment_and_working_directory() {
    let argv: Vec<OsString> = [
        "named",
        "-c",
        r#"printf '%s|%s|%s' "$0" "$ATIP_SPAWN_TEST" "$PWD""#,
    ]
    .into_iter()
    .map(OsString::from)
    .collect();
    let env = vec![("ATIP_SPAWN_TEST".into(), "value".into())];
    let mut child = blocking::spawn(
        &Spec {
            program: Path::new("/bin/sh"),
            argv: &argv,
            env: &env,
            cwd: Some(Path::new("/")),
            stdin: false,
            keep_fd: None,
        },
        None,
    )
    .unwrap();
    assert_eq!(read_all(&mut child), "named|value|/");
    assert!(child.wait().unwrap().success());
    // Reaped once: asking again gives the same status.
    assert!(child.try_wait().unwrap().unwrap().success());
}

#[test]
fn stdin_is_a_pipe_when_asked_and_dev_null_otherwise() {
    let mut child = start("/bin/cat", &[], true).unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"through the pipe").unwrap();
    drop(stdin);
    assert_eq!(read_all(&mut child), "through the pipe");
    assert!(child.wait().unwrap().success());

    let mut child = start("/bin/cat", &[], false).unwrap();
    assert!(child.stdin.is_none());
    assert_eq!(read_all(&mut child), "");
    assert!(child.wait().unwrap().success());
}

#[test]
fn exit_codes_and_signals_are_reported_and_stderr_is_its_own_pipe() {
    let mut child = sh("echo oops >&2; exit 3");
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert_eq!(err, "oops\n");
    assert_eq!(child.wait().unwrap().code(), Some(3));
    let mut child = sh("kill -TERM $$");
    assert_eq!(child.wait().unwrap().signal(), Some(libc::SIGTERM));
}

#[test]
fn programs_that_cannot_start_say_why() {
    let err = start("/nonexistent/program", &[], false).unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::NotFound, "{err}");
    // A directory, and a file without the execute bit.
    let err = start("/", &[], false).unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::PermissionDenied, "{err}");
    let dir = std::env::temp_dir().join(format!("atip-spawn-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("not-executable");
    std::fs::write(&file, "#!/bin/sh\n").unwrap();
    let err = start(file.to_str().unwrap(), &[], false).unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::PermissionDenied, "{err}");

    // A file still open for writing (being installed): ETXTBSY, which a caller may retry.
    use std::os::unix::fs::PermissionsExt;
    let busy = dir.join("busy");
    let mut open = std::fs::File::create(&busy).unwrap();
    open.write_all(b"#!/bin/sh\nexit 0\n").unwrap();
    std::fs::set_permissions(&busy, std::fs::Permissions::from_mode(0o755)).unwrap();
    let err = start(busy.to_str().unwrap(), &[], false).unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::ExecutableFileBusy, "{err}");
    drop(open);
    // Another test's child may hold a copy of the writing descriptor for the instant between
    // its clone and its exec: retry, as callers do.
    let mut started = start(busy.to_str().unwrap(), &[], false);
    for _ in 0..50 {
        match &started {
            Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy => {
                std::thread::sleep(Duration::from_millis(20));
                started = start(busy.to_str().unwrap(), &[], false);
            }
            _ => break,
        }
    }
    let mut child = started.unwrap();
    assert!(child.wait().unwrap().success());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_child_leads_a_session_of_its_own() {
    let mut child = start("/bin/sleep", &["30"], false).unwrap();
    let pid = child.id();
    let (_, group, session) = stat(pid).unwrap();
    assert_eq!((group, session), (pid, pid));
    child.kill_group(Signal::Kill);
    assert_eq!(child.wait().unwrap().signal(), Some(libc::SIGKILL));
}

#[test]
fn the_deadline_holds_and_the_group_goes_with_the_kill() {
    // The shell starts a grandchild in its group and waits for it.
    let mut child = sh("sleep 30 & echo $!; wait");
    let mut line = String::new();
    BufReader::new(child.stdout.as_mut().unwrap())
        .read_line(&mut line)
        .unwrap();
    let grandchild: u32 = line.trim().parse().unwrap();
    let started = Instant::now();
    assert!(child
        .wait_until(Instant::now() + Duration::from_millis(200))
        .unwrap()
        .is_none());
    let waited = started.elapsed();
    assert!(
        waited >= Duration::from_millis(200) && waited < Duration::from_secs(2),
        "{waited:?}"
    );
    // A deadline already past only looks.
    assert!(child.wait_until(Instant::now()).unwrap().is_none());
    child.kill_group(Signal::Term);
    let status = child
        .wait_until(Instant::now() + Duration::from_secs(5))
        .unwrap()
        .expect("ended by SIGTERM");
    assert_eq!(status.signal(), Some(libc::SIGTERM));
    assert!(ends(grandchild), "the grandchild outlived the group's kill");
    // Waiting wakes when the child exits, well before the deadline.
    let mut child = sh("sleep 0.1");
    let started = Instant::now();
    let status = child
        .wait_until(Instant::now() + Duration::from_secs(20))
        .unwrap();
    assert!(status.unwrap().success());
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[test]
fn a_dropped_child_is_killed_and_reaped() {
    let child = start("/bin/sleep", &["30"], false).unwrap();
    let pid = child.id();
    drop(child);
    let by = Instant::now() + Duration::from_secs(2);
    // Neither running nor left a zombie of ours.
    while stat(pid).is_some() {
        assert!(Instant::now() < by, "still there: {:?}", stat(pid));
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn descriptors_the_host_left_open_stay_out_unless_kept() {
    let file = std::fs::File::open("/dev/null").unwrap();
    // A copy without close-on-exec, as a careless host would leave one.
    // SAFETY: fcntl on a descriptor owned here; the copy is closed below.
    let leaked = unsafe {
        use std::os::fd::AsRawFd;
        libc::fcntl(file.as_raw_fd(), libc::F_DUPFD, 60)
    };
    assert!(leaked >= 60);
    let script = format!("test -e /proc/self/fd/{leaked} && echo open || echo closed");
    let mut child = sh(&script);
    assert_eq!(read_all(&mut child), "closed\n");
    child.wait().unwrap();

    let argv: Vec<OsString> = ["sh", "-c", &script]
        .into_iter()
        .map(OsString::from)
        .collect();
    let env = env();
    let mut child = blocking::spawn(
        &Spec {
            program: Path::new("/bin/sh"),
            argv: &argv,
            env: &env,
            cwd: None,
            stdin: false,
            keep_fd: Some(leaked),
        },
        None,
    )
    .unwrap();
    assert_eq!(read_all(&mut child), "open\n");
    child.wait().unwrap();
    // SAFETY: closes the copy made above, owned by nothing else.
    unsafe { libc::close(leaked) };
}

/// A hook that sets the child's umask (its own: the child does not share the parent's
/// filesystem context), and fails when asked to.
struct Umask {
    mask: libc::mode_t,
    fail: bool,
}

// SAFETY: `umask` is a system call on an integer, and the error holds an OS code only.
unsafe impl PreExec for Umask {
    fn enter_namespaces(&self) -> std::io::Result<()> {
        // SAFETY: a plain system call.
        unsafe { libc::umask(self.mask) };
        Ok(())
    }

    fn restrict(&self) -> std::io::Result<()> {
        if self.fail {
            return Err(std::io::Error::from_raw_os_error(libc::EPERM));
        }
        Ok(())
    }

    fn what(&self) -> &'static str {
        "setting the umask"
    }
}

#[test]
fn the_setup_hook_runs_in_the_child_and_its_failure_is_named() {
    let argv: Vec<OsString> = ["sh", "-c", "umask"]
        .into_iter()
        .map(OsString::from)
        .collect();
    let env = env();
    let spec = Spec {
        program: Path::new("/bin/sh"),
        argv: &argv,
        env: &env,
        cwd: None,
        stdin: false,
        keep_fd: None,
    };
    let hook = Umask {
        mask: 0o027,
        fail: false,
    };
    let mut child = blocking::spawn(&spec, Some(&hook)).unwrap();
    assert_eq!(read_all(&mut child).trim(), "0027");
    child.wait().unwrap();
    let hook = Umask {
        mask: 0o027,
        fail: true,
    };
    let err = blocking::spawn(&spec, Some(&hook)).unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::PermissionDenied);
    assert!(err.to_string().starts_with("setting the umask: "), "{err}");
}
