//! Relaying a tunnel's bytes: `splice(2)` between two TCP connections on Linux, a counted
//! copy otherwise.

use std::io;
use std::pin::Pin;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;

use super::{Traffic, BUFFER_BYTES};

/// Relays bytes both ways until either side closes, counting them for `target`.
pub(super) async fn tunnel<C>(mut client: C, upstream: TcpStream, traffic: Arc<Traffic>)
where
    C: AsyncRead + AsyncWrite + Unpin,
{
    let mut upstream = Counted {
        inner: upstream,
        traffic,
    };
    let _ = tokio::io::copy_bidirectional_with_sizes(
        &mut client,
        &mut upstream,
        BUFFER_BYTES,
        BUFFER_BYTES,
    )
    .await;
}

/// Relays bytes both ways between two TCP connections until either side is done, counting
/// them for the upstream's host. On Linux the bytes never enter the runner's memory: each
/// direction moves them through a pipe with `splice(2)`, which keeps a bulk download close to
/// a direct connection's rate on a machine whose cores the client, the proxy and the server
/// share.
pub(super) async fn tcp_tunnel(client: TcpStream, upstream: TcpStream, traffic: Arc<Traffic>) {
    #[cfg(target_os = "linux")]
    {
        // Downloads get the larger pipe: that is where bulk traffic goes.
        let mut out = std::pin::pin!(splice::one_way(
            &client,
            &upstream,
            &traffic.bytes_out,
            None
        ));
        let mut back = std::pin::pin!(splice::one_way(
            &upstream,
            &client,
            &traffic.bytes_in,
            Some(splice::DOWNLOAD_PIPE_BYTES)
        ));
        // A direction that ended cleanly waits for the other (a half-closed connection); one
        // that failed ends both.
        tokio::select! {
            r = &mut out => if r.is_ok() { let _ = back.await; },
            r = &mut back => if r.is_ok() { let _ = out.await; },
        }
    }
    #[cfg(not(target_os = "linux"))]
    tunnel(client, upstream, traffic).await;
}

#[cfg(target_os = "linux")]
mod splice {
    use std::io;
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
    use std::sync::atomic::{AtomicU64, Ordering};

    use tokio::io::Interest;
    use tokio::net::TcpStream;

    /// Bytes one `splice` call asks for (at most what the pipe holds).
    const PIPE_BYTES: usize = 1 << 20;

    /// The pipe of a tunnel's download direction: 512 KiB (128 pages). The upload direction
    /// keeps the default 64 KiB, so that [`super::MAX_CONNECTIONS`] tunnels take 9,216 pages,
    /// within the kernel's per-user pipe budget (`pipe-user-pages-soft`, 16,384 pages), beyond
    /// which every new pipe of the user would shrink to two pages. With default pipes both
    /// ways a 1 GiB download ran at half the rate (BENCHMARKS.md).
    pub(super) const DOWNLOAD_PIPE_BYTES: usize = 512 * 1024;

    /// A pipe of `size` bytes (the default where the kernel refuses it).
    fn pipe(size: Option<usize>) -> io::Result<(OwnedFd, OwnedFd)> {
        let mut fds = [0 as libc::c_int; 2];
        // SAFETY: pipe2 into a local array; both descriptors are new and owned here.
        unsafe {
            if libc::pipe2(fds.as_mut_ptr(), libc::O_NONBLOCK | libc::O_CLOEXEC) != 0 {
                return Err(io::Error::last_os_error());
            }
            let (r, w) = (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1]));
            if let Some(size) = size {
                libc::fcntl(w.as_raw_fd(), libc::F_SETPIPE_SZ, size as libc::c_int);
            }
            Ok((r, w))
        }
    }

    /// `SIOCATMARK` (`<asm-generic/sockios.h>`; the libc crate does not define it).
    const SIOCATMARK: libc::c_ulong = 0x8905;

    /// Whether `fd`'s next byte is TCP urgent data (`SIOCATMARK`): `splice` stops there.
    fn at_urgent_mark(fd: libc::c_int) -> bool {
        let mut mark: libc::c_int = 0;
        // SAFETY: ioctl with a pointer to a local integer.
        unsafe { libc::ioctl(fd, SIOCATMARK as _, &mut mark) == 0 && mark != 0 }
    }

    /// Past an urgent byte, which `splice` does not cross: reads what is there with `recv`
    /// (which steps over the urgent byte unless the socket reads it inline, as a direct
    /// connection's reader would) and writes it to `dst`. `Ok(false)` at the end of the
    /// stream.
    async fn past_urgent_mark(
        src: &TcpStream,
        dst: &TcpStream,
        count: &AtomicU64,
    ) -> io::Result<bool> {
        let mut buf = vec![0u8; 16 * 1024];
        let n = match src.try_io(Interest::READABLE, || {
            // SAFETY: recv into a buffer owned here.
            let n = unsafe {
                libc::recv(
                    src.as_raw_fd(),
                    buf.as_mut_ptr().cast(),
                    buf.len(),
                    libc::MSG_DONTWAIT,
                )
            };
            if n < 0 {
                Err(io::Error::last_os_error())
            } else {
                Ok(n as usize)
            }
        }) {
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(true),
            Err(e) => return Err(e),
        };
        let mut sent = 0;
        while sent < n {
            match dst.try_write(&buf[sent..n]) {
                Ok(k) => {
                    sent += k;
                    count.fetch_add(k as u64, Ordering::Relaxed);
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => dst.writable().await?,
                Err(e) => return Err(e),
            }
        }
        Ok(n > 0)
    }

    fn splice(from: libc::c_int, to: libc::c_int, len: usize) -> io::Result<usize> {
        // SAFETY: splice between two descriptors the caller holds, without offsets.
        let n = unsafe {
            libc::splice(
                from,
                std::ptr::null_mut(),
                to,
                std::ptr::null_mut(),
                len,
                libc::SPLICE_F_MOVE | libc::SPLICE_F_NONBLOCK,
            )
        };
        if n < 0 {
            Err(io::Error::last_os_error())
        } else {
            Ok(n as usize)
        }
    }

    /// Moves bytes from `src` to `dst` until `src` ends (then shuts `dst` for writing) or
    /// either fails, adding what reached `dst` to `count`.
    pub(super) async fn one_way(
        src: &TcpStream,
        dst: &TcpStream,
        count: &AtomicU64,
        pipe_size: Option<usize>,
    ) -> io::Result<()> {
        let (r, w) = pipe(pipe_size)?;
        let mut in_pipe = 0usize;
        loop {
            if in_pipe == 0 {
                let n = loop {
                    src.readable().await?;
                    if at_urgent_mark(src.as_raw_fd()) {
                        if past_urgent_mark(src, dst, count).await? {
                            continue;
                        }
                        break 0;
                    }
                    match src.try_io(Interest::READABLE, || {
                        splice(src.as_raw_fd(), w.as_raw_fd(), PIPE_BYTES)
                    }) {
                        Ok(n) => break n,
                        Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                        Err(e) => return Err(e),
                    }
                };
                if n == 0 {
                    // SAFETY: shutdown of a descriptor `dst` owns.
                    unsafe { libc::shutdown(dst.as_raw_fd(), libc::SHUT_WR) };
                    return Ok(());
                }
                in_pipe = n;
            }
            dst.writable().await?;
            match dst.try_io(Interest::WRITABLE, || {
                splice(r.as_raw_fd(), dst.as_raw_fd(), in_pipe)
            }) {
                Ok(n) => {
                    in_pipe -= n;
                    count.fetch_add(n as u64, Ordering::Relaxed);
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                Err(e) => return Err(e),
            }
        }
    }
}

/// An upstream connection that counts the bytes through it as they pass (so a tunnel cut short
/// still has its traffic counted).
pub(super) struct Counted<S> {
    pub(super) inner: S,
    pub(super) traffic: Arc<Traffic>,
}

impl<S: AsyncRead + Unpin> AsyncRead for Counted<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let r = Pin::new(&mut self.inner).poll_read(cx, buf);
        let n = (buf.filled().len() - before) as u64;
        self.traffic.bytes_in.fetch_add(n, Ordering::Relaxed);
        r
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Counted<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let r = Pin::new(&mut self.inner).poll_write(cx, buf);
        if let Poll::Ready(Ok(n)) = &r {
            self.traffic
                .bytes_out
                .fetch_add(*n as u64, Ordering::Relaxed);
        }
        r
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}
