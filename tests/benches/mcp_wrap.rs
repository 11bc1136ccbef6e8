//! What `atip mcp wrap` costs a stdio MCP server (issue 48), against the same server driven
//! directly, in the same process and run:
//!
//! * **per call**: one `tools/call` and its result (2 KiB of text), written as a line and read
//!   back — directly on the server's pipes, and through [`Wrapper::serve`] (parse, policy
//!   gate, re-serialisation, redaction of the result, the audit bookkeeping); target ≤ 1 ms
//!   added;
//! * **start**: the server started, `initialize` answered, its stdin closed and its exit
//!   awaited — directly (`tokio::process`), and through the wrapper, which starts it with
//!   [`Runner::start`](atip_runtime::Runner::start) in the sandbox (namespaces, Landlock,
//!   seccomp, built environment); target ≤ 50 ms added.
//!
//! The server is a small Python 3 MCP server (one JSON-RPC message per line), the kind of
//! program the wrapper exists for, started as the interpreter itself on both paths. `cargo bench -p atip-tests --bench mcp_wrap` prints the
//! table at the end.

use std::time::{Duration, SystemTime};

use atip_mcp::wrap::Wrapper;
use atip_runtime::{Effects, FilesystemEffects, Invocation, Runner};
use criterion::Criterion;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};

mod report;
use report::{median_ns, time, Report};

/// The server: answers `initialize`, lists one read-only, offline tool and answers each call
/// with 2 KiB of text.
const SERVER: &str = r#"
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if "id" not in m:
        continue
    method = m.get("method")
    if method == "initialize":
        r = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
             "serverInfo": {"name": "echo", "version": "1"}}
    elif method == "tools/list":
        r = {"tools": [{"name": "echo", "description": "Echo", "inputSchema": {"type": "object"},
                        "annotations": {"readOnlyHint": True, "openWorldHint": False}}]}
    elif method == "tools/call":
        r = {"content": [{"type": "text", "text": "echo line of a result\n" * 93}]}
    else:
        r = {}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": r}) + "\n")
    sys.stdout.flush()
"#;

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}"#;
const LIST: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
const CALL: &str = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}"#;

/// The Python interpreter itself (not a launcher such as a pyenv shim, whose own start would
/// differ between the two paths), resolved once.
fn python() -> &'static str {
    static PYTHON: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    PYTHON.get_or_init(|| {
        let out = std::process::Command::new("python3")
            .args(["-c", "import sys; print(sys.executable)"])
            .output()
            .expect("python3 runs");
        String::from_utf8(out.stdout).unwrap().trim().to_owned()
    })
}

/// One side of a conversation: lines written, lines read.
struct Peer<W, R> {
    write: W,
    read: Lines<BufReader<R>>,
}

impl<W: tokio::io::AsyncWrite + Unpin, R: tokio::io::AsyncRead + Unpin> Peer<W, R> {
    /// Sends `request` and returns the next line.
    async fn ask(&mut self, request: &str) -> String {
        self.write
            .write_all(format!("{request}\n").as_bytes())
            .await
            .unwrap();
        self.write.flush().await.unwrap();
        self.read.next_line().await.unwrap().expect("an answer")
    }
}

/// The server started directly.
fn direct() -> (
    tokio::process::Child,
    Peer<tokio::process::ChildStdin, tokio::process::ChildStdout>,
) {
    let mut child = tokio::process::Command::new(python())
        .args(["-c", SERVER])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("python3 runs");
    let write = child.stdin.take().unwrap();
    let read = BufReader::new(child.stdout.take().unwrap()).lines();
    (child, Peer { write, read })
}

type Served = tokio::task::JoinHandle<Result<std::process::ExitStatus, atip_mcp::wrap::WrapError>>;

/// The server started through the wrapper, in the sandbox: no writes, no network.
fn wrapped() -> (
    Served,
    Peer<tokio::io::DuplexStream, tokio::io::DuplexStream>,
) {
    let effects = Effects::UNKNOWN
        .with_network(false)
        .with_filesystem(FilesystemEffects {
            read: Some(true),
            write: Some(false),
            delete: Some(false),
            paths: None,
        });
    let server = Invocation::new(
        "echo",
        vec![python().into(), "-c".into(), SERVER.into()],
        effects,
    );
    let (client_write, wrapper_read) = tokio::io::duplex(1 << 20);
    let (wrapper_write, client_read) = tokio::io::duplex(1 << 20);
    let served =
        tokio::spawn(Wrapper::new(Runner::new(), server).serve(wrapper_read, wrapper_write));
    let read = BufReader::new(client_read).lines();
    (
        served,
        Peer {
            write: client_write,
            read,
        },
    )
}

fn main() {
    let since = SystemTime::now();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let mut c = Criterion::default()
        .output_directory(&report::dir())
        .configure_from_args();

    // Both paths answer the same call with the same text before anything is measured.
    let (mut direct_child, mut direct_peer) = rt.block_on(async { direct() });
    let (served, mut wrapped_peer) = rt.block_on(async { wrapped() });
    rt.block_on(async {
        for peer_answers in [
            [
                direct_peer.ask(INITIALIZE).await,
                direct_peer.ask(LIST).await,
                direct_peer.ask(CALL).await,
            ],
            [
                wrapped_peer.ask(INITIALIZE).await,
                wrapped_peer.ask(LIST).await,
                wrapped_peer.ask(CALL).await,
            ],
        ] {
            let result: serde_json::Value = serde_json::from_str(&peer_answers[2]).unwrap();
            let text = result["result"]["content"][0]["text"].as_str().unwrap();
            assert_eq!(text.len(), 22 * 93, "{}", peer_answers[2]);
        }
    });

    let mut g = c.benchmark_group("mcp-call");
    g.sample_size(50).measurement_time(Duration::from_secs(5));
    g.bench_function("direct", |b| b.iter(|| rt.block_on(direct_peer.ask(CALL))));
    g.bench_function("wrapped", |b| {
        b.iter(|| rt.block_on(wrapped_peer.ask(CALL)))
    });
    g.finish();
    rt.block_on(async {
        drop(direct_peer);
        drop(wrapped_peer);
        direct_child.wait().await.unwrap();
        served.await.unwrap().unwrap();
    });

    let mut g = c.benchmark_group("mcp-start");
    g.sample_size(20).measurement_time(Duration::from_secs(10));
    g.bench_function("direct", |b| {
        b.iter(|| {
            rt.block_on(async {
                let (mut child, mut peer) = direct();
                peer.ask(INITIALIZE).await;
                drop(peer);
                child.wait().await.unwrap()
            })
        })
    });
    g.bench_function("wrapped", |b| {
        b.iter(|| {
            rt.block_on(async {
                let (served, mut peer) = wrapped();
                peer.ask(INITIALIZE).await;
                drop(peer);
                served.await.unwrap().unwrap()
            })
        })
    });
    g.finish();
    c.final_summary();

    let mut report = Report::default();
    for (group, figure, limit_ns, target) in [
        (
            "mcp-call",
            "one tools/call through atip mcp wrap vs the server directly, time added",
            1e6,
            "≤ +1 ms",
        ),
        (
            "mcp-start",
            "start, initialize and exit through atip mcp wrap (sandboxed) vs directly, time added",
            50e6,
            "≤ +50 ms",
        ),
    ] {
        if let (Some(w), Some(d)) = (
            median_ns(group, "wrapped", since),
            median_ns(group, "direct", since),
        ) {
            let extra = w - d;
            report.row(
                figure,
                time(w),
                time(d),
                if extra < 0.0 {
                    format!("−{} (noise)", time(-extra))
                } else {
                    format!("+{}", time(extra))
                },
                target,
                extra <= limit_ns,
            );
        }
    }
    report.print();
}
