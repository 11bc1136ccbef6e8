//! The SOCKS5 side of the proxy (through fast-socks5).

use std::net::SocketAddr;
use std::sync::Arc;

use tokio::net::TcpStream;

use super::{open, target, tunnel, Failure, Shared, HANDSHAKE_TIMEOUT};
use crate::hosts::{Host, Refusal};

/// One SOCKS5 client: no authentication, `CONNECT` only.
pub(super) async fn serve(stream: TcpStream, shared: Arc<Shared>) {
    use fast_socks5::server::Socks5ServerProtocol;
    use fast_socks5::util::target_addr::TargetAddr;
    use fast_socks5::{ReplyError, Socks5Command};
    let handshake = async {
        let proto = Socks5ServerProtocol::accept_no_auth(stream).await.ok()?;
        proto.read_command().await.ok()
    };
    let Ok(Some((proto, command, to))) = tokio::time::timeout(HANDSHAKE_TIMEOUT, handshake).await
    else {
        return;
    };
    let (host, port) = match &to {
        TargetAddr::Ip(sa) => (Ok(Host::from(sa.ip())), sa.port()),
        TargetAddr::Domain(name, port) => (Host::parse(name), *port),
    };
    let shown = match &host {
        Ok(h) => target(h, port),
        Err(_) => to.to_string(),
    };
    if !matches!(command, Socks5Command::TCPConnect) {
        shared.refuse(
            "connect",
            &shown,
            &Refusal::Request("SOCKS5 BIND and UDP ASSOCIATE are not relayed".to_owned()),
        );
        let _ = proto.reply_error(&ReplyError::CommandNotSupported).await;
        return;
    }
    let host = match host {
        Ok(h) => h,
        Err(why) => {
            shared.refuse("connect", &shown, &Refusal::Request(why));
            let _ = proto.reply_error(&ReplyError::ConnectionNotAllowed).await;
            return;
        }
    };
    match open(&shared, &host, port).await {
        Ok(upstream) => {
            let traffic = shared.traffic(&shown);
            // The reply's bound address is left unset (`0.0.0.0:0`, which clients of a
            // `CONNECT` ignore): the upstream connection's own would tell the command the
            // runner's address on the host's network, which its namespace hides from it.
            if let Ok(client) = proto
                .reply_success(SocketAddr::from(([0, 0, 0, 0], 0)))
                .await
            {
                tunnel::tcp_tunnel(client, upstream, traffic).await;
            }
        }
        Err(Failure::Refused(why)) => {
            shared.refuse("connect", &shown, &why);
            let _ = proto.reply_error(&ReplyError::ConnectionNotAllowed).await;
        }
        Err(Failure::Unreachable(_)) => {
            let _ = proto.reply_error(&ReplyError::HostUnreachable).await;
        }
    }
}
