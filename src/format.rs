//! How numbers and times are written for people and documents, in one place: timestamps
//! (RFC 3339 for JSON, local wall-clock time for text), latencies and counts, and foreign text
//! (a server's body, a line that failed to decode) quoted on one line.

use std::time::{Duration, SystemTime};

/// `2026-11-22T01:02:03.456Z`: every timestamp of the JSON outputs.
pub fn rfc3339_millis(t: SystemTime) -> String {
    humantime::format_rfc3339_millis(t).to_string()
}

/// Local wall-clock time with milliseconds: `14:03:07.512`.
pub fn local_time(t: SystemTime) -> String {
    let dt: chrono::DateTime<chrono::Local> = t.into();
    dt.format("%H:%M:%S%.3f").to_string()
}

/// A duration for people, the one way every command writes one: `850µs`, `12.3ms`, `1.47s`,
/// `45s`, `2m30s`, `1h5m`; three significant figures below a minute, no trailing zeros.
pub fn human(d: Duration) -> String {
    let s = d.as_secs_f64();
    // A number with up to `places` decimals, its trailing zeros dropped.
    let trimmed = |v: f64, places: usize, unit: &str| {
        let text = format!("{v:.places$}");
        let text = match text.contains('.') {
            true => text.trim_end_matches('0').trim_end_matches('.').to_string(),
            false => text,
        };
        format!("{text}{unit}")
    };
    match s {
        _ if d.is_zero() => "0s".to_string(),
        s if s < 1e-3 => trimmed(s * 1e6, 0, "µs"),
        s if s < 0.1 => trimmed(s * 1e3, 1, "ms"),
        s if s < 1.0 => trimmed(s * 1e3, 0, "ms"),
        s if s < 10.0 => trimmed(s, 2, "s"),
        s if s < 60.0 => trimmed(s, 1, "s"),
        _ => {
            let secs = d.as_secs() + u64::from(d.subsec_millis() >= 500);
            let (h, m, s) = (secs / 3600, secs / 60 % 60, secs % 60);
            let mut out = String::new();
            if h > 0 {
                out += &format!("{h}h");
            }
            if m > 0 {
                out += &format!("{m}m");
            }
            if s > 0 && h == 0 {
                out += &format!("{s}s");
            }
            out
        }
    }
}

/// A wait, for people: [`human`].
pub fn wait(d: Duration) -> String {
    human(d)
}

/// A duration as a flag takes it (Go's forms, what `duration::parse` reads back exactly):
/// `1m30s`, `1.5s`, `500ms`, `250us` (ASCII, to be typed back), `0s`.
pub fn duration(d: Duration) -> String {
    let nanos = d.as_nanos();
    // `whole` units of `unit` nanoseconds plus a fraction without trailing zeros.
    let decimal = |n: u128, unit: u128, name: &str| {
        let (whole, rest) = (n / unit, n % unit);
        if rest == 0 {
            return format!("{whole}{name}");
        }
        let width = unit.ilog10() as usize;
        let fraction = format!("{rest:0width$}");
        format!("{whole}.{}{name}", fraction.trim_end_matches('0'))
    };
    match nanos {
        0 => "0s".to_string(),
        1..1_000 => format!("{nanos}ns"),
        1_000..1_000_000 => decimal(nanos, 1_000, "us"),
        1_000_000..1_000_000_000 => decimal(nanos, 1_000_000, "ms"),
        _ => {
            let secs = d.as_secs();
            let (h, m) = (secs / 3600, secs / 60 % 60);
            let mut out = String::new();
            if h > 0 {
                out += &format!("{h}h");
            }
            if m > 0 {
                out += &format!("{m}m");
            }
            let s = u128::from(secs % 60) * 1_000_000_000 + u128::from(d.subsec_nanos());
            if s > 0 {
                out += &decimal(s, 1_000_000_000, "s");
            }
            out
        }
    }
}

/// Seconds as people read a latency, as [`human`] writes durations: `850µs`, `12.3ms`,
/// `1.52s`, `0s`.
pub fn format_seconds(s: f64) -> String {
    match s.is_finite() && s > 0.0 {
        true => human(Duration::from_secs_f64(s)),
        false => "0s".to_string(),
    }
}

/// A count or rate: integers without decimals.
pub fn format_number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

/// `n` and the noun, plural unless `n` is 1: `1 object`, `0 objects`, `3 pages`.
pub fn count(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// Foreign `text` on one line: runs of spaces, tabs and line ends (`\n`, `\r\n`) as one space,
/// other control characters (escapes, NUL, a lone `\r`) escaped, cut after `max` characters with
/// an ellipsis.
pub fn one_line(text: &str, max: usize) -> String {
    let mut out = String::new();
    let mut chars = 0;
    let mut space = false;
    let mut rest = text.trim().chars().peekable();
    while let Some(c) = rest.next() {
        if chars >= max {
            out.push('…');
            break;
        }
        if matches!(c, ' ' | '\t' | '\n') || (c == '\r' && rest.peek() == Some(&'\n')) {
            space = true;
            continue;
        }
        if std::mem::take(&mut space) {
            out.push(' ');
            chars += 1;
        }
        if c.is_control() {
            let escaped = c.escape_default();
            chars += escaped.len();
            out.extend(escaped);
        } else {
            chars += 1;
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn foreign_text_is_one_line_escaped_and_cut() {
        assert_eq!(
            one_line("<html>\n  <body>\tNot\r\nFound</body>\n", 100),
            "<html> <body> Not Found</body>"
        );
        assert_eq!(
            one_line("a\u{1b}[31mb\u{7}\rc", 100),
            "a\\u{1b}[31mb\\u{7}\\rc"
        );
        assert_eq!(one_line("abcdef", 3), "abc…");
        assert_eq!(one_line("abc", 3), "abc");
    }

    #[test]
    fn latencies_and_counts_read_as_people_write_them() {
        assert_eq!(format_seconds(0.000_85), "850µs");
        assert_eq!(format_seconds(1.5), "1.5s");
        assert_eq!(format_seconds(0.0), "0s");
        assert_eq!(format_seconds(0.012_34), "12.3ms");
        assert_eq!(format_seconds(0.25), "250ms");
        assert_eq!(wait(Duration::from_millis(1467)), "1.47s");
        assert_eq!(wait(Duration::from_secs(45)), "45s");
        assert_eq!(wait(Duration::from_secs(150)), "2m30s");
        assert_eq!(wait(Duration::from_secs(3900)), "1h5m");
        assert_eq!(format_number(3.0), "3");
        assert_eq!(format_number(2.25), "2.2");
        assert_eq!(wait(Duration::from_millis(1600)), "1.6s");
        assert_eq!(duration(Duration::from_secs(90)), "1m30s");
        assert_eq!(duration(Duration::from_secs(3600)), "1h");
        assert_eq!(duration(Duration::from_millis(1500)), "1.5s");
        assert_eq!(duration(Duration::from_micros(2500)), "2.5ms");
        assert_eq!(duration(Duration::from_micros(250)), "250us");
        assert_eq!(
            duration(Duration::from_nanos(3_600_000_000_001)),
            "1h0.000000001s"
        );
        assert_eq!(duration(Duration::ZERO), "0s");
        assert_eq!(
            rfc3339_millis(SystemTime::UNIX_EPOCH),
            "1970-01-01T00:00:00.000Z"
        );
    }

    #[test]
    fn a_count_is_plural_unless_it_is_one() {
        assert_eq!(count(1, "object"), "1 object");
        assert_eq!(count(0, "object"), "0 objects");
        assert_eq!(count(3, "page"), "3 pages");
    }
}
