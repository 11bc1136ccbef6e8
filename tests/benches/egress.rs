//! The egress proxy's cost (issue 31), against a direct loopback connection in the same
//! process and run:
//!
//! * **throughput**: a 1 GiB download from a loopback server, directly and through a `CONNECT`
//!   tunnel of [`EgressProxy`] (target: the proxy keeps ≥ 80 % of the direct rate, a time
//!   ratio ≤ 1.25×);
//! * **connect overhead**: opening a connection and reading one byte, directly and through the
//!   proxy (`CONNECT`, the check against the rules, the upstream connection, `200`; target:
//!   ≤ 1 ms more).
//!
//! Server, client and proxy each run on threads of their own, as a remote host, the sandboxed
//! command and the runner would. The proxy serves a plain loopback listener here: what a
//! sandboxed run adds on top (its network namespace) is paid once per run, not per connection.
//!
//! `cargo bench -p atip-tests --bench egress` prints the table at the end.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::{Duration, SystemTime};

use atip_runtime::sandbox::egress::EgressProxy;
use atip_runtime::sandbox::hosts::{Egress, HostPattern};
use criterion::{Criterion, Throughput};

mod report;
use report::{median_ns, time, Report};

const GIB: u64 = 1 << 30;

/// A server on its own threads (as a remote host would be) that sends `bytes` to every
/// connection, then closes it.
fn server(bytes: u64) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for s in listener.incoming() {
            let Ok(mut s) = s else { continue };
            std::thread::spawn(move || {
                let chunk = vec![7u8; 256 * 1024];
                let mut left = bytes;
                while left > 0 {
                    let n = left.min(chunk.len() as u64) as usize;
                    if s.write_all(&chunk[..n]).is_err() {
                        return;
                    }
                    left -= n as u64;
                }
            });
        }
    });
    port
}

/// Reads until the peer closes; the byte count.
fn drain(s: &mut TcpStream) -> u64 {
    let mut buf = vec![0u8; 256 * 1024];
    let mut total = 0;
    loop {
        let n = s.read(&mut buf).unwrap();
        if n == 0 {
            return total;
        }
        total += n as u64;
    }
}

/// A connection to `port` through the proxy at `proxy`, past its `200` answer.
fn tunnel(proxy: u16, port: u16) -> TcpStream {
    let mut s = TcpStream::connect(("127.0.0.1", proxy)).unwrap();
    s.set_nodelay(true).unwrap();
    write!(
        s,
        "CONNECT 127.0.0.1:{port} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n"
    )
    .unwrap();
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        s.read_exact(&mut byte).unwrap();
        head.push(byte[0]);
    }
    assert!(
        head.starts_with(b"HTTP/1.1 200"),
        "{}",
        String::from_utf8_lossy(&head)
    );
    s
}

/// The proxy on a thread of its own with a one-thread runtime, as in a runner; its port.
fn proxy() -> u16 {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            tx.send(listener.local_addr().unwrap().port()).unwrap();
            let rules = Egress {
                allow: vec![HostPattern::parse("127.0.0.1").unwrap()],
                deny: Vec::new(),
            };
            let _proxy = EgressProxy::start(listener, rules);
            std::future::pending::<()>().await
        })
    });
    rx.recv().unwrap()
}

fn main() {
    let since = SystemTime::now();
    let mut c = Criterion::default()
        .output_directory(&report::dir())
        .configure_from_args();
    let (big, small, proxy_port) = (server(GIB), server(1), proxy());
    // Both paths deliver every byte before anything is measured.
    let mut d = TcpStream::connect(("127.0.0.1", big)).unwrap();
    assert_eq!(drain(&mut d), GIB);
    assert_eq!(drain(&mut tunnel(proxy_port, big)), GIB);

    let mut g = c.benchmark_group("egress-download");
    g.sample_size(10)
        .measurement_time(Duration::from_secs(20))
        .throughput(Throughput::Bytes(GIB));
    g.bench_function("direct", |b| {
        b.iter(|| {
            let mut s = TcpStream::connect(("127.0.0.1", big)).unwrap();
            drain(&mut s)
        })
    });
    g.bench_function("proxy", |b| b.iter(|| drain(&mut tunnel(proxy_port, big))));
    g.finish();

    let mut g = c.benchmark_group("egress-connect");
    g.sample_size(100).measurement_time(Duration::from_secs(5));
    g.bench_function("direct", |b| {
        b.iter(|| {
            let mut s = TcpStream::connect(("127.0.0.1", small)).unwrap();
            drain(&mut s)
        })
    });
    g.bench_function("proxy", |b| {
        b.iter(|| drain(&mut tunnel(proxy_port, small)))
    });
    g.finish();
    c.final_summary();

    let mut report = Report::default();
    report.ratio(
        "1 GiB download through the egress proxy (CONNECT) vs direct, time",
        ("egress-download", "proxy"),
        ("egress-download", "direct"),
        1.25,
        since,
    );
    if let (Some(p), Some(d)) = (
        median_ns("egress-connect", "proxy", since),
        median_ns("egress-connect", "direct", since),
    ) {
        let extra = p - d;
        report.row(
            "connect and first byte through the egress proxy vs direct, time added",
            time(p),
            time(d),
            if extra < 0.0 {
                format!("−{} (noise)", time(-extra))
            } else {
                format!("+{}", time(extra))
            },
            "≤ +1 ms",
            extra <= 1e6,
        );
    }
    report.print();
}
