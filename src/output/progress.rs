//! Progress bars on stderr (indicatif), shown only when stderr is a terminal.

use indicatif::{ProgressBar, ProgressStyle};

/// A bar for a LIST of `total` objects (0 when the server did not say how many).
pub fn list_bar(total: u64) -> ProgressBar {
    let bar = if total > 0 {
        ProgressBar::new(total)
    } else {
        ProgressBar::new_spinner()
    };
    let style =
        ProgressStyle::with_template("{spinner} LIST {pos}/{len} objects [{bar:30}] {per_sec}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> ");
    bar.set_style(style);
    bar
}

/// A spinner with a status line for `bench` (elapsed, events/s, backlog, depth).
pub fn bench_bar() -> ProgressBar {
    let bar = ProgressBar::new_spinner();
    bar.set_style(
        ProgressStyle::with_template("{spinner} bench {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    bar.enable_steady_tick(std::time::Duration::from_millis(100));
    bar
}
