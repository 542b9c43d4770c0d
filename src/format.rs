//! How numbers and times are written for people and documents, in one place: timestamps
//! (RFC 3339 for JSON, local wall-clock time for text), latencies and counts.

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

/// A wait, to the millisecond, as humantime writes it: `1s 600ms`.
pub fn wait(d: Duration) -> String {
    humantime::format_duration(Duration::from_millis((d.as_secs_f64() * 1000.0) as u64)).to_string()
}

/// Seconds as people read a latency: `850µs`, `12.3ms`, `1.52s`.
pub fn format_seconds(s: f64) -> String {
    if s == 0.0 {
        "0".to_string()
    } else if s < 1e-3 {
        format!("{:.0}µs", s * 1e6)
    } else if s < 1.0 {
        format!("{:.1}ms", s * 1e3)
    } else {
        format!("{s:.2}s")
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latencies_and_counts_read_as_people_write_them() {
        assert_eq!(format_seconds(0.000_85), "850µs");
        assert_eq!(format_seconds(1.5), "1.50s");
        assert_eq!(format_number(3.0), "3");
        assert_eq!(format_number(2.25), "2.2");
        assert_eq!(wait(Duration::from_millis(1600)), "1s 600ms");
        assert_eq!(
            rfc3339_millis(SystemTime::UNIX_EPOCH),
            "1970-01-01T00:00:00.000Z"
        );
    }
}
