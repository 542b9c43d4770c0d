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
