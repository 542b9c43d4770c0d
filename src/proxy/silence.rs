//! A connection's bytes, stopped while it is silent: no read, no write, so that above it TLS and
//! HTTP/2 stop too (PINGs included), as when the peer is gone.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::watch;
use tokio::time::{Instant, Sleep};

pub struct Silenceable<T> {
    inner: T,
    silent_until: watch::Receiver<Option<Instant>>,
    sleep: Pin<Box<Sleep>>,
}

impl<T> Silenceable<T> {
    pub fn new(inner: T, silent_until: watch::Receiver<Option<Instant>>) -> Self {
        Silenceable {
            inner,
            silent_until,
            sleep: Box::pin(tokio::time::sleep_until(Instant::now())),
        }
    }

    /// Ready when the connection may move; else pending, woken when its silence ends.
    fn open(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        let until = *self.silent_until.borrow();
        match until {
            Some(until) if until > Instant::now() => {
                if self.sleep.deadline() != until {
                    self.sleep.as_mut().reset(until);
                }
                match self.sleep.as_mut().poll(cx) {
                    Poll::Ready(()) => Poll::Ready(()),
                    Poll::Pending => Poll::Pending,
                }
            }
            _ => Poll::Ready(()),
        }
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for Silenceable<T> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if this.open(cx).is_pending() {
            return Poll::Pending;
        }
        Pin::new(&mut this.inner).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for Silenceable<T> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        if this.open(cx).is_pending() {
            return Poll::Pending;
        }
        Pin::new(&mut this.inner).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if this.open(cx).is_pending() {
            return Poll::Pending;
        }
        Pin::new(&mut this.inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    #[tokio::test(start_paused = true)]
    async fn a_silent_connection_moves_no_byte_until_its_silence_ends() {
        let (near, mut far) = tokio::io::duplex(64);
        let silence = watch::channel(None).0;
        let mut gated = Silenceable::new(near, silence.subscribe());
        far.write_all(b"ping").await.unwrap();
        let mut buf = [0u8; 4];
        gated.read_exact(&mut buf).await.unwrap();
        let start = Instant::now();
        silence.send_replace(Some(start + std::time::Duration::from_secs(45)));
        far.write_all(b"pong").await.unwrap();
        gated.read_exact(&mut buf).await.unwrap();
        assert_eq!(&buf, b"pong");
        assert_eq!(Instant::now() - start, std::time::Duration::from_secs(45));
        silence.send_replace(Some(Instant::now() + std::time::Duration::from_secs(10)));
        let writing = Instant::now();
        gated.write_all(b"late").await.unwrap();
        assert_eq!(Instant::now() - writing, std::time::Duration::from_secs(10));
    }
}
