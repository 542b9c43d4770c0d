//! A link of limited bandwidth between the benchmark's children and the API server: a TCP
//! forwarder on a loopback port that paces the bytes it passes, each direction at `rate` bytes
//! a second shared by all its connections, as a network link of that speed would. TLS and
//! HTTP/2 pass through it untouched. It runs on a runtime of its own (on its own thread), so
//! that the benchmark blocking on its children does not slow it.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::time::Instant;

/// One direction's pacing: when the link is next free to send.
#[derive(Clone)]
struct Pace {
    rate: f64,
    free_at: Arc<Mutex<Instant>>,
}

impl Pace {
    fn new(rate: f64) -> Self {
        Pace {
            rate,
            free_at: Arc::new(Mutex::new(Instant::now())),
        }
    }

    /// Waits until `bytes` have passed the link.
    async fn pass(&self, bytes: usize) {
        let done = {
            let mut free_at = self.free_at.lock().unwrap();
            let start = (*free_at).max(Instant::now());
            *free_at = start + Duration::from_secs_f64(bytes as f64 / self.rate);
            *free_at
        };
        tokio::time::sleep_until(done).await;
    }
}

/// Starts the link to `upstream` at `bits_per_second`; returns the address to dial instead.
pub fn start(upstream: SocketAddr, bits_per_second: f64) -> SocketAddr {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("the link's runtime");
        runtime.block_on(async move {
            let listener = TcpListener::bind("127.0.0.1:0")
                .await
                .expect("bind the link");
            tx.send(listener.local_addr().unwrap()).unwrap();
            let down = Pace::new(bits_per_second / 8.0);
            let up = Pace::new(bits_per_second / 8.0);
            loop {
                let Ok((client, _)) = listener.accept().await else {
                    continue;
                };
                let (down, up) = (down.clone(), up.clone());
                tokio::spawn(async move {
                    let Ok(server) = TcpStream::connect(upstream).await else {
                        return;
                    };
                    let _ = client.set_nodelay(true);
                    let _ = server.set_nodelay(true);
                    let (client_read, client_write) = client.into_split();
                    let (server_read, server_write) = server.into_split();
                    tokio::join!(
                        copy(client_read, server_write, up),
                        copy(server_read, client_write, down)
                    );
                });
            }
        });
    });
    rx.recv().expect("the link's address")
}

async fn copy(
    mut from: tokio::net::tcp::OwnedReadHalf,
    mut to: tokio::net::tcp::OwnedWriteHalf,
    pace: Pace,
) {
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        match from.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                pace.pass(n).await;
                if to.write_all(&buf[..n]).await.is_err() {
                    break;
                }
            }
        }
    }
    let _ = to.shutdown().await;
}
