//! `atip import fig` evaluates spec modules in child processes (`atip __fig-eval`):
//! hostile specs whose built-ins never check QuickJS's interrupt handler, or that build a
//! 150 MiB string, end within the time limit with an error naming the module and the limit,
//! while a normal spec of the same run imports, and the importer's own memory stays small.
//!
//! Every command runs under a watchdog: one still running after its allowance is killed and
//! the test fails (a hang is a failure, not a stuck test).

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::import::package;

/// What a watched command did.
struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    elapsed: Duration,
    /// The largest `VmHWM` of the `atip` process itself seen while it ran, in KiB (Linux).
    peak_kib: u64,
}

/// Runs `atip args…` in `home`, killing it (and failing) after `allowance`.
fn atip(args: &[&str], home: &Path, allowance: Duration) -> Run {
    let start = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_atip"))
        .args(args)
        .current_dir(home)
        .env("HOME", home)
        .env("XDG_DATA_HOME", home.join("data"))
        .env("XDG_CONFIG_HOME", home.join("config"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut s = String::new();
        out.read_to_string(&mut s).unwrap();
        s
    });
    let err = std::thread::spawn(move || {
        let mut s = String::new();
        err.read_to_string(&mut s).unwrap();
        s
    });
    let mut peak_kib = 0;
    let status = loop {
        peak_kib = peak_kib.max(vm_hwm_kib(child.id()).unwrap_or(0));
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > allowance {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("atip {args:?} still ran after {allowance:?}: it hangs");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    Run {
        code: status.code(),
        stdout: out.join().unwrap(),
        stderr: err.join().unwrap(),
        elapsed: start.elapsed(),
        peak_kib,
    }
}

/// `VmHWM` (peak resident memory) of process `pid`, in KiB; `None` off Linux or once it exited.
fn vm_hwm_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

const TOOL: &str = "var s={name:'figtool',description:'A tool',subcommands:[\
    {name:['remove','rm'],description:'Remove it',args:{name:'item'}}]};export{s as default};";

/// Built-ins that QuickJS runs to the end without calling its interrupt handler.
const HOSTILE: [(&str, &str); 3] = [
    (
        "reverse",
        "Array.prototype.reverse.call({length: 2**53-1}); export default {name:'reverse'};",
    ),
    (
        "copywithin",
        "Array.prototype.copyWithin.call({length: 2**53-1}, 0, 1); export default {name:'copywithin'};",
    ),
    (
        "sparsesort",
        "const a=[]; a.length=2**32-1; a.sort(); export default {name:'sparsesort'};",
    ),
];

/// A spec that builds a 150 MiB string at run time.
const BIG: &str = "export default {name:'big', description:'x'.repeat(150*1024*1024)};";

#[test]
fn hostile_specs_are_stopped_at_the_time_limit_while_a_normal_spec_imports() {
    let home = tempfile::tempdir().unwrap();
    let mut files = vec![("figtool.js", TOOL)];
    let names: Vec<String> = HOSTILE.iter().map(|(n, _)| format!("{n}.js")).collect();
    for ((_, text), file) in HOSTILE.iter().zip(&names) {
        files.push((file, text));
    }
    package(home.path(), &files);
    let out_dir = home.path().join("out");
    let run = atip(
        &[
            "import",
            "fig",
            "--all",
            home.path().to_str().unwrap(),
            "--out",
            out_dir.to_str().unwrap(),
            "--timeout",
            "1",
            "--jobs",
            "2",
        ],
        home.path(),
        Duration::from_secs(60),
    );
    eprintln!(
        "--all with 3 hostile specs and 1 s limit: {:?}",
        run.elapsed
    );
    assert_eq!(run.code, Some(1), "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("converted 1 of 4 specs"),
        "{}",
        run.stdout
    );
    for (name, _) in HOSTILE {
        let line = format!("FAILED {name}: module {name}.js ran longer than 1000 ms");
        assert!(run.stdout.contains(&line), "{line}\n{}", run.stdout);
    }
    assert!(out_dir.join("figtool.json").is_file());
    // Three 1 s limits on two threads, plus starting up: far from the watchdog.
    assert!(run.elapsed < Duration::from_secs(15), "{:?}", run.elapsed);
}

#[test]
fn each_hostile_spec_alone_ends_within_the_time_limit() {
    let home = tempfile::tempdir().unwrap();
    let files: Vec<(String, &str)> = HOSTILE
        .iter()
        .map(|(n, t)| (format!("{n}.js"), *t))
        .collect();
    let refs: Vec<(&str, &str)> = files.iter().map(|(n, t)| (n.as_str(), *t)).collect();
    package(home.path(), &refs);
    for (name, _) in HOSTILE {
        let spec = home.path().join(format!("build/{name}.js"));
        let run = atip(
            &["import", "fig", spec.to_str().unwrap(), "--timeout", "1"],
            home.path(),
            Duration::from_secs(30),
        );
        eprintln!("{name}: stopped after {:?}", run.elapsed);
        assert_eq!(run.code, Some(1), "{}", run.stderr);
        assert!(
            run.stderr
                .contains(&format!("module {name}.js ran longer than 1000 ms")),
            "{}",
            run.stderr
        );
        assert!(run.stdout.is_empty());
        assert!(run.elapsed < Duration::from_secs(5), "{:?}", run.elapsed);
    }
}

#[test]
fn a_150_mib_string_is_refused_and_the_importer_stays_small() {
    let home = tempfile::tempdir().unwrap();
    package(home.path(), &[("big.js", BIG), ("figtool.js", TOOL)]);
    let spec = home.path().join("build/big.js");
    let run = atip(
        &["import", "fig", spec.to_str().unwrap(), "--timeout", "30"],
        home.path(),
        Duration::from_secs(60),
    );
    eprintln!(
        "150 MiB string, 512 MiB limit: {:?}, importer peak {} KiB: {}",
        run.elapsed,
        run.peak_kib,
        run.stderr.trim()
    );
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert!(
        run.stderr
            .contains("module big.js exports a spec of more than 64 MiB of JSON (the cap)"),
        "{}",
        run.stderr
    );
    assert!(run.elapsed < Duration::from_secs(30), "{:?}", run.elapsed);
    if cfg!(target_os = "linux") {
        // It took 780 MB in the importer before; the spec stays in the child now.
        assert!(
            run.peak_kib > 0 && run.peak_kib < 100 * 1024,
            "{}",
            run.peak_kib
        );
    }

    // With a 64 MiB memory limit the string is not even built; the normal spec imports.
    let out_dir = home.path().join("out");
    let run = atip(
        &[
            "import",
            "fig",
            "--all",
            home.path().to_str().unwrap(),
            "--out",
            out_dir.to_str().unwrap(),
            "--memory",
            "64",
        ],
        home.path(),
        Duration::from_secs(60),
    );
    eprintln!(
        "150 MiB string, 64 MiB limit: {:?}, importer peak {} KiB",
        run.elapsed, run.peak_kib
    );
    assert_eq!(run.code, Some(1), "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout
            .contains("FAILED big: module big.js needed more than 64 MiB of memory"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("converted 1 of 2 specs"),
        "{}",
        run.stdout
    );
    assert!(out_dir.join("figtool.json").is_file());
    // Every process this test binary waited for, the children of `atip` included, stayed
    // within the child's memory limit (512 MiB, plus 128 MiB of headroom, plus the ~15 MiB
    // the program itself has resident).
    #[cfg(target_os = "linux")]
    {
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: `usage` is a valid rusage for getrusage to fill.
        assert_eq!(
            unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) },
            0
        );
        eprintln!("largest process waited for: {} KiB", usage.ru_maxrss);
        assert!(
            usage.ru_maxrss < (512 + 128 + 64) * 1024,
            "{}",
            usage.ru_maxrss
        );
    }
}

/// `atip __fig-eval` with `request` on stdin, watched: its reply and exit status. The pid is
/// handed to `during` while it runs.
fn fig_eval(request: &str, allowance: Duration, during: impl FnOnce(u32)) -> (Option<i32>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_atip"))
        .arg("__fig-eval")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(request.as_bytes())
        .unwrap();
    during(child.id());
    let mut out = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = out.read_to_string(&mut s);
        s
    });
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > allowance {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("atip __fig-eval still ran after {allowance:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    (status.code(), reader.join().unwrap())
}

/// A request as one line, without its newline.
fn request(root: &Path, module: &str, memory_mib: u64, time_ms: u64) -> String {
    serde_json::json!({
        "protocol": 1,
        "root": root.canonicalize().unwrap().to_str().unwrap(),
        "module": module,
        "memory_bytes": memory_mib * 1024 * 1024,
        "time_ms": time_ms,
        "stack_bytes": 1024 * 1024,
    })
    .to_string()
}

#[test]
fn the_child_serves_one_request() {
    let home = tempfile::tempdir().unwrap();
    package(home.path(), &[("figtool.js", TOOL)]);
    let build = home.path().join("build");
    // Two requests, one line each, then the end of the input: two replies.
    let one = request(&build, "figtool.js", 512, 20_000);
    let (code, reply) = fig_eval(&format!("{one}\n{one}\n"), Duration::from_secs(30), |_| {});
    assert_eq!(code, Some(0));
    let mut rest = reply.as_str();
    for _ in 0..2 {
        let (header, after) = rest.split_once('\n').unwrap();
        let header: serde_json::Value = serde_json::from_str(header).unwrap();
        assert_eq!(header["result"], "spec", "{header}");
        let bytes = header["bytes"].as_u64().unwrap() as usize;
        let spec: serde_json::Value = serde_json::from_str(&after[..bytes]).unwrap();
        assert_eq!(spec["name"], "figtool");
        rest = &after[bytes..];
    }
    assert!(rest.is_empty(), "{rest}");

    let (code, reply) = fig_eval("not a request", Duration::from_secs(30), |_| {});
    assert_eq!(code, Some(0));
    assert!(reply.contains(r#""category":"child""#), "{reply}");
    assert!(
        reply.contains("was sent a bad request (not JSON"),
        "{reply}"
    );
}

#[cfg(target_os = "linux")]
#[test]
fn the_child_limits_its_memory_cpu_time_and_core_dumps() {
    let home = tempfile::tempdir().unwrap();
    package(home.path(), &[("loops.js", "for(;;){} export default {};")]);
    let build = home.path().join("build");
    let mut limits = String::new();
    let mut size_now = 0;
    let (code, reply) = fig_eval(
        &request(&build, "loops.js", 64, 1500),
        Duration::from_secs(30),
        |pid| {
            // The request is read, the limits set, the loop running.
            std::thread::sleep(Duration::from_millis(500));
            limits = std::fs::read_to_string(format!("/proc/{pid}/limits")).unwrap();
            let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
            let line = status.lines().find(|l| l.starts_with("VmSize:")).unwrap();
            let kib: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
            size_now = kib * 1024;
        },
    );
    let row = |name: &str| -> Vec<String> {
        let line = limits.lines().find(|l| l.starts_with(name)).unwrap();
        line[name.len()..]
            .split_whitespace()
            .map(str::to_owned)
            .collect()
    };
    // The CPU time used so far (a few milliseconds) plus 1.5 s, rounded up, plus one.
    assert_eq!(row("Max cpu time")[0], "3", "{limits}");
    // What the program mapped before evaluating (`atip`'s allocator reserves 1 GiB up front),
    // plus the 64 MiB asked for, plus 128 MiB of headroom.
    let address = row("Max address space");
    assert_eq!(address[0], address[1], "{limits}");
    let address: u64 = address[0].parse().unwrap();
    let asked = (64 + 128) * 1024 * 1024;
    assert!(
        address > asked && address <= size_now + asked,
        "{address} for {size_now} mapped now"
    );
    assert_eq!(row("Max core file size")[..2], ["0", "0"], "{limits}");
    // QuickJS interrupts the loop itself at 1.5 s.
    assert_eq!(code, Some(0));
    assert!(reply.contains(r#""category":"timeout""#), "{reply}");
}
