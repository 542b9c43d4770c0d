//! Being asked to stop from outside: Ctrl-C (SIGINT), or on Unix SIGTERM, what `timeout`,
//! systemd, CI runners and Kubernetes send. Every command takes both alike: it stops, removes what
//! it made (bench's and conform's scratch namespace), prints what it prints at any end (tail's
//! summary) and exits with 128 plus the signal's number: 130 after Ctrl-C, 143 after SIGTERM,
//! the code a shell gives a process that such a signal killed.

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};

/// Interrupted by Ctrl-C (128 + SIGINT).
pub const EXIT_INTERRUPTED: u8 = 130;
/// Stopped by SIGTERM (128 + SIGTERM), as gracefully as by Ctrl-C.
pub const EXIT_TERMINATED: u8 = 143;

/// Set when a SIGTERM was what stopped the run.
static TERMINATED: AtomicBool = AtomicBool::new(false);

/// Resolves at the first Ctrl-C or SIGTERM after the call. SIGTERM is caught from the call on;
/// Ctrl-C from the first poll (poll it once at once, e.g. with `now_or_never`, to catch it from
/// then). Where no handler can be installed, Ctrl-C's resolves at once, as tokio's does.
// Not an `async fn`: SIGTERM's handler is installed by the call itself (on Unix).
#[cfg_attr(not(unix), allow(clippy::manual_async_fn))]
pub fn requested() -> impl Future<Output = ()> + Send {
    #[cfg(unix)]
    let terminate = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
    async move {
        #[cfg(unix)]
        if let Some(mut terminate) = terminate {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = terminate.recv() => TERMINATED.store(true, Ordering::SeqCst),
            }
            return;
        }
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// The exit code of a run that [`requested`] stopped: 143 after a SIGTERM, else 130.
pub fn exit_code() -> u8 {
    if TERMINATED.load(Ordering::SeqCst) {
        EXIT_TERMINATED
    } else {
        EXIT_INTERRUPTED
    }
}
