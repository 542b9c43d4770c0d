//! Progress bars on stderr (indicatif), shown only when stderr is a terminal.

use crate::diff::compare::PageProgress;
use indicatif::{ProgressBar, ProgressStyle};
use std::sync::Mutex;

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

/// The bar of a LIST diff compares, from its first page that says more follow (a LIST of one
/// page shows none), cleared at its last; nothing unless `shown` (stderr is a terminal).
pub struct ListProgress {
    shown: bool,
    bar: Mutex<Option<ProgressBar>>,
}

impl ListProgress {
    pub fn new(shown: bool) -> Self {
        ListProgress {
            shown,
            bar: Mutex::new(None),
        }
    }

    fn bar(&self) -> std::sync::MutexGuard<'_, Option<ProgressBar>> {
        self.bar.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl PageProgress for ListProgress {
    fn begin(&self) {
        if let Some(bar) = self.bar().take() {
            bar.finish_and_clear();
        }
    }

    fn page(&self, objects: usize, remaining: Option<i64>, more: bool) {
        let mut bar = self.bar();
        if bar.is_none() && more && self.shown {
            let total = objects as u64 + remaining.unwrap_or(0).max(0) as u64;
            *bar = Some(list_bar(total));
        }
        if let Some(b) = bar.as_ref() {
            b.inc(objects as u64);
        }
        if !more {
            if let Some(b) = bar.take() {
                b.finish_and_clear();
            }
        }
    }
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

/// A line for people above a progress bar while it is shown, else on stderr.
pub fn say_above(bar: Option<&ProgressBar>, line: String) {
    match bar {
        Some(bar) => bar.println(line),
        None => super::say(&line),
    }
}
