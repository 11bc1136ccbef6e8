//! The HTTP side of the proxy (through hyper): `CONNECT` tunnels and plain requests with an
//! absolute URI.

use std::convert::Infallible;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use http_body_util::{combinators::BoxBody, BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;

use super::{
    open, printable, target, tunnel, Failure, Shared, HANDSHAKE_TIMEOUT, MAX_HEAD_BYTES,
    MAX_REFUSAL_TEXT,
};
use crate::hosts::{Host, Refusal};

type Body = BoxBody<Bytes, hyper::Error>;

fn text(status: StatusCode, message: String) -> Response<Body> {
    let mut response = Response::new(
        Full::new(Bytes::from(message + "\n"))
            .map_err(|never| match never {})
            .boxed(),
    );
    *response.status_mut() = status;
    response
}

/// The upstream connection for `host:port` ([`open`]), or the answer to give instead: `403`
/// for a refusal, `502` when the host cannot be reached.
async fn upstream(
    shared: &Shared,
    kind: &'static str,
    host: &Host,
    port: u16,
    shown: &str,
) -> Result<TcpStream, Response<Body>> {
    match open(shared, host, port).await {
        Ok(s) => Ok(s),
        Err(Failure::Refused(why)) => Err(forbidden(shared, kind, shown, &why)),
        Err(Failure::Unreachable(e)) => Err(text(
            StatusCode::BAD_GATEWAY,
            format!("egress: cannot reach {shown}: {e}"),
        )),
    }
}

/// `403` naming the reason, also in the `X-Atip-Egress` header.
fn forbidden(shared: &Shared, kind: &'static str, shown: &str, why: &Refusal) -> Response<Body> {
    shared.refuse(kind, shown, why);
    let why = printable(&why.to_string(), MAX_REFUSAL_TEXT);
    let line = format!(
        "egress: refused {kind} to {} — {why}",
        printable(shown, MAX_REFUSAL_TEXT)
    );
    let mut response = text(StatusCode::FORBIDDEN, line);
    // The connection ends with a refusal: nothing more is read from a client that tried.
    response.headers_mut().insert(
        hyper::header::CONNECTION,
        hyper::header::HeaderValue::from_static("close"),
    );
    if let Ok(v) = hyper::header::HeaderValue::from_str(&why) {
        response.headers_mut().insert("x-atip-egress", v);
    }
    response
}

/// One HTTP client connection: `CONNECT` and absolute-URI requests, each judged on its own.
pub(super) async fn serve(stream: TcpStream, shared: Arc<Shared>) {
    let service = hyper::service::service_fn(move |req| {
        let shared = Arc::clone(&shared);
        async move { Ok::<_, Infallible>(request(req, shared).await) }
    });
    let _ = hyper::server::conn::http1::Builder::new()
        .timer(hyper_util::rt::TokioTimer::new())
        .header_read_timeout(HANDSHAKE_TIMEOUT)
        .max_buf_size(MAX_HEAD_BYTES)
        .serve_connection(TokioIo::new(stream), service)
        .with_upgrades()
        .await;
}

/// An authority or URL with any user information (`user:password@`) replaced by
/// `<userinfo>@`: a password is never repeated back.
pub(super) fn without_userinfo(text: &str) -> String {
    match text.rsplit_once('@') {
        Some((head, host)) => {
            let scheme = head.find("://").map_or("", |i| &head[..i + 3]);
            format!("{scheme}<userinfo>@{host}")
        }
        None => text.to_owned(),
    }
}

/// A host and port from an authority (`host:port`, `[v6]:port`), with `default` when it has
/// none.
fn authority(a: &hyper::http::uri::Authority, default: Option<u16>) -> Result<(Host, u16), String> {
    // User information first: without a port, `alice:pw@host` reads as host `alice` with a
    // port that is no number, and the whole authority would be repeated.
    if a.as_str().contains('@') {
        return Err(format!(
            "`{}` holds user information",
            without_userinfo(a.as_str())
        ));
    }
    let port = a
        .port_u16()
        .or(default)
        .ok_or_else(|| format!("`{a}` has no port"))?;
    Ok((Host::parse(a.host())?, port))
}

async fn request(req: Request<Incoming>, shared: Arc<Shared>) -> Response<Body> {
    if req.method() == Method::CONNECT {
        return connect(req, shared).await;
    }
    let uri = req.uri().clone();
    let Some(auth) = uri.authority() else {
        return forbidden(
            &shared,
            "request",
            "(no host)",
            &Refusal::Request(
                "not a proxy request: the URL must be absolute (http://host/path)".to_owned(),
            ),
        );
    };
    let shown_raw = without_userinfo(auth.as_str());
    if uri.scheme_str() != Some("http") {
        return forbidden(
            &shared,
            "request",
            &shown_raw,
            &Refusal::Request(format!(
                "only http:// is forwarded as a request; use CONNECT for {}",
                uri.scheme_str().unwrap_or("this scheme")
            )),
        );
    }
    let (host, port) = match authority(auth, Some(80)) {
        Ok(hp) => hp,
        Err(why) => return forbidden(&shared, "request", &shown_raw, &Refusal::Request(why)),
    };
    let shown = target(&host, port);
    // The Host header must name what the URL names: a server picks its site by the header.
    if req.headers().get_all(hyper::header::HOST).iter().count() > 1 {
        return forbidden(
            &shared,
            "request",
            &shown,
            &Refusal::Request("more than one Host header".to_owned()),
        );
    }
    if let Some(h) = req.headers().get(hyper::header::HOST) {
        let same = h
            .to_str()
            .ok()
            .and_then(|h| h.parse::<hyper::http::uri::Authority>().ok())
            .and_then(|a| authority(&a, Some(80)).ok())
            .is_some_and(|hp| hp == (host.clone(), port));
        if !same {
            return forbidden(
                &shared,
                "request",
                &shown,
                &Refusal::Request(format!(
                    "the Host header `{}` names another host than the URL",
                    without_userinfo(&String::from_utf8_lossy(h.as_bytes()))
                )),
            );
        }
    }
    let upstream = match upstream(&shared, "request", &host, port, &shown).await {
        Ok(s) => s,
        Err(answer) => return answer,
    };
    let traffic = shared.traffic(&shown);
    let counted = tunnel::Counted {
        inner: upstream,
        traffic,
    };
    let (mut sender, conn) =
        match hyper::client::conn::http1::handshake(TokioIo::new(counted)).await {
            Ok(pair) => pair,
            Err(e) => return text(StatusCode::BAD_GATEWAY, format!("egress: {shown}: {e}")),
        };
    shared.spawn(async move {
        let _ = conn.await;
    });
    let (mut parts, body) = req.into_parts();
    strip_hop_by_hop(&mut parts.headers);
    if parts.headers.get(hyper::header::HOST).is_none() {
        if let Ok(v) = hyper::header::HeaderValue::from_str(auth.as_str()) {
            parts.headers.insert(hyper::header::HOST, v);
        }
    }
    parts.uri = match uri.path_and_query() {
        Some(pq) => pq
            .as_str()
            .parse()
            .unwrap_or_else(|_| hyper::Uri::from_static("/")),
        None => hyper::Uri::from_static("/"),
    };
    match sender.send_request(Request::from_parts(parts, body)).await {
        Ok(response) => {
            let (mut parts, body) = response.into_parts();
            strip_hop_by_hop(&mut parts.headers);
            Response::from_parts(parts, body.boxed())
        }
        Err(e) => text(StatusCode::BAD_GATEWAY, format!("egress: {shown}: {e}")),
    }
}

/// Removes the headers that concern one connection only (RFC 9110 §7.6.1), and those the
/// `Connection` header names.
fn strip_hop_by_hop(headers: &mut hyper::HeaderMap) {
    let named: Vec<String> = headers
        .get_all(hyper::header::CONNECTION)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|s| s.trim().to_ascii_lowercase())
        .filter(|s| !s.is_empty())
        .collect();
    for name in named {
        headers.remove(name.as_str());
    }
    for name in [
        "connection",
        "proxy-connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "te",
        "trailer",
        "upgrade",
    ] {
        headers.remove(name);
    }
}

async fn connect(req: Request<Incoming>, shared: Arc<Shared>) -> Response<Body> {
    let raw = without_userinfo(&req.uri().to_string());
    let (host, port) = match req
        .uri()
        .authority()
        .ok_or_else(|| "CONNECT needs host:port".to_owned())
        .and_then(|a| authority(a, None))
    {
        Ok(hp) => hp,
        Err(why) => return forbidden(&shared, "connect", &raw, &Refusal::Request(why)),
    };
    let shown = target(&host, port);
    let upstream = match upstream(&shared, "connect", &host, port, &shown).await {
        Ok(s) => s,
        Err(answer) => return answer,
    };
    let traffic = shared.traffic(&shown);
    let upgrade = hyper::upgrade::on(req);
    // The tunnel outlives this connection's HTTP side (and its slot): it takes a slot of its
    // own.
    let slots = Arc::clone(&shared.slots);
    shared.spawn(async move {
        let Ok(slot) = slots.acquire_owned().await else {
            return;
        };
        let Ok(upgraded) = upgrade.await else {
            return;
        };
        // The client's own connection, when hyper hands it back: bytes it read past the
        // request head go upstream first.
        match upgraded.downcast::<TokioIo<TcpStream>>() {
            Ok(parts) => {
                use tokio::io::AsyncWriteExt;
                let mut upstream = upstream;
                if !parts.read_buf.is_empty() {
                    if upstream.write_all(&parts.read_buf).await.is_err() {
                        return;
                    }
                    traffic
                        .bytes_out
                        .fetch_add(parts.read_buf.len() as u64, Ordering::Relaxed);
                }
                tunnel::tcp_tunnel(parts.io.into_inner(), upstream, traffic).await;
            }
            Err(upgraded) => tunnel::tunnel(TokioIo::new(upgraded), upstream, traffic).await,
        }
        drop(slot);
    });
    Response::new(
        http_body_util::Empty::new()
            .map_err(|never| match never {})
            .boxed(),
    )
}
