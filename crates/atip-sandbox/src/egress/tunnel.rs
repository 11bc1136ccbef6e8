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
            Some(&splice::LARGE_PIPES)
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

    /// The pipe of a tunnel's download direction while the process has one of its
    /// [`MAX_LARGE_PIPES`] free: 512 KiB (128 pages). Other pipes keep the default 64 KiB
    /// (16 pages). With default pipes both ways a 1 GiB download ran at half the rate
    /// (BENCHMARKS.md).
    pub(super) const DOWNLOAD_PIPE_BYTES: usize = 512 * 1024;

    /// Download pipes of [`DOWNLOAD_PIPE_BYTES`] the process holds at once, across all runs:
    /// one run's [`super::super::MAX_CONNECTIONS`]. Pipes are bought with the kernel's budget
    /// per user (`pipe-user-pages-soft`, 16,384 pages), beyond which every new pipe of the
    /// user — the runner's and any other program's — shrinks to two pages. One full run takes
    /// 9,216 pages; with the bound, about 280 tunnels (four runs of 64 at once) stay within
    /// the budget instead of 113, and later tunnels get default pipes (slower bulk downloads).
    pub(super) const MAX_LARGE_PIPES: usize = super::super::MAX_CONNECTIONS;

    /// The process's [`MAX_LARGE_PIPES`] permits.
    pub(super) static LARGE_PIPES: tokio::sync::Semaphore =
        tokio::sync::Semaphore::const_new(MAX_LARGE_PIPES);

    /// A pipe: of [`DOWNLOAD_PIPE_BYTES`] when `large` has a permit free (held with the
    /// pipe) and the kernel grants the size, else of the default size.
    pub(super) fn pipe(
        large: Option<&'static tokio::sync::Semaphore>,
    ) -> io::Result<(
        OwnedFd,
        OwnedFd,
        Option<tokio::sync::SemaphorePermit<'static>>,
    )> {
        let mut fds = [0 as libc::c_int; 2];
        // SAFETY: pipe2 into a local array; both descriptors are new and owned here.
        let (r, w) = unsafe {
            if libc::pipe2(fds.as_mut_ptr(), libc::O_NONBLOCK | libc::O_CLOEXEC) != 0 {
                return Err(io::Error::last_os_error());
            }
            (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1]))
        };
        let permit = large.and_then(|l| l.try_acquire().ok()).filter(|_| {
            // SAFETY: fcntl on a descriptor owned here.
            unsafe {
                libc::fcntl(
                    w.as_raw_fd(),
                    libc::F_SETPIPE_SZ,
                    DOWNLOAD_PIPE_BYTES as libc::c_int,
                ) >= 0
            }
        });
        Ok((r, w, permit))
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
        large: Option<&'static tokio::sync::Semaphore>,
    ) -> io::Result<()> {
        let (r, w, _large) = pipe(large)?;
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

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use std::os::fd::{AsRawFd, OwnedFd};

    use super::splice::{pipe, DOWNLOAD_PIPE_BYTES, LARGE_PIPES, MAX_LARGE_PIPES};

    fn size(fd: &OwnedFd) -> usize {
        // SAFETY: fcntl on a descriptor the test holds.
        unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_GETPIPE_SZ) as usize }
    }

    /// Large download pipes come out of the process's permits: once they are all held, a
    /// tunnel gets a default pipe; when one is closed, its permit serves the next.
    #[test]
    fn large_pipes_are_bounded_across_the_process() {
        static LARGE: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(2);
        let first = pipe(Some(&LARGE)).unwrap();
        let second = pipe(Some(&LARGE)).unwrap();
        assert_eq!(size(&first.1), DOWNLOAD_PIPE_BYTES);
        assert_eq!(size(&second.1), DOWNLOAD_PIPE_BYTES);
        let third = pipe(Some(&LARGE)).unwrap();
        assert!(third.2.is_none());
        assert!(size(&third.1) < DOWNLOAD_PIPE_BYTES, "{}", size(&third.1));
        let upload = pipe(None).unwrap();
        assert!(upload.2.is_none() && size(&upload.1) < DOWNLOAD_PIPE_BYTES);
        drop(first);
        let fourth = pipe(Some(&LARGE)).unwrap();
        assert_eq!(size(&fourth.1), DOWNLOAD_PIPE_BYTES);
        assert_eq!(LARGE.available_permits(), 0);
    }

    /// A tunnel's download pipe is one of the process's large pipes while the tunnel is open.
    #[tokio::test]
    async fn an_open_tunnel_holds_a_large_pipe() {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        use tokio::net::{TcpListener, TcpStream};
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let mut command = TcpStream::connect(addr).await.unwrap();
        let (client, _) = listener.accept().await.unwrap();
        let upstream = TcpStream::connect(addr).await.unwrap();
        let (mut host, _) = listener.accept().await.unwrap();
        let traffic = std::sync::Arc::new(super::Traffic::default());
        let tunnel = tokio::spawn(super::tcp_tunnel(client, upstream, traffic));
        host.write_all(b"x").await.unwrap();
        let mut byte = [0u8; 1];
        command.read_exact(&mut byte).await.unwrap();
        assert!(LARGE_PIPES.available_permits() < MAX_LARGE_PIPES);
        drop((command, host));
        tunnel.await.unwrap();
    }
}
