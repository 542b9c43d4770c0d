//! Durations as the command line writes them: the one parser behind every duration-valued flag
//! and gate value, with Go's `time.ParseDuration` forms (what kubectl accepts: `1h`, `1m30s`,
//! `1.5s`, `500ms`, `250us`, `µs`, `10ns`) and one rule for bare numbers: `0` means none (no
//! limit), any other bare number is refused, because `2` could mean 2 s or 2 ms.

use std::time::Duration;

/// Why a text is not a duration; each reads well after `--flag TEXT: `.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DurationError {
    /// A bare number other than 0 (kubectl: "Non-zero values should contain a corresponding
    /// time unit").
    #[error("a duration needs a unit, e.g. {0}s or {0}ms")]
    NoUnit(String),
    #[error(
        "not a duration ({0}): write numbers with units (h, m, s, ms, us or µs, ns), e.g. 30s, \
         1m30s, 1.5s"
    )]
    Invalid(String),
    #[error("a duration cannot be negative")]
    Negative,
    #[error("too long: a duration is at most 2562047h (about 292 years)")]
    TooLong,
}

/// The longest duration accepted: Go's, so that whatever kubectl takes, this takes.
const MAX_NANOS: u128 = i64::MAX as u128;

/// Each unit's name and length in nanoseconds.
const UNITS: [(&str, u128); 8] = [
    ("ns", 1),
    ("us", 1_000),
    ("µs", 1_000),
    ("μs", 1_000),
    ("ms", 1_000_000),
    ("s", 1_000_000_000),
    ("m", 60_000_000_000),
    ("h", 3_600_000_000_000),
];

/// Parses `text` (surrounding whitespace ignored): one or more `<number><unit>` terms, each
/// number with an optional fraction, added up; or a bare `0`.
pub fn parse(text: &str) -> Result<Duration, DurationError> {
    let text = text.trim();
    match text.strip_prefix('-') {
        // `-0s` is zero, as in Go; anything else below zero is refused.
        Some(rest) => match unsigned(rest, text) {
            Ok(d) if d.is_zero() => Ok(d),
            Ok(_) | Err(DurationError::NoUnit(_)) => Err(DurationError::Negative),
            Err(e) => Err(e),
        },
        None => unsigned(text.strip_prefix('+').unwrap_or(text), text),
    }
}

/// `body` without its sign; `text` is what the user wrote, for messages.
fn unsigned(body: &str, text: &str) -> Result<Duration, DurationError> {
    if is_bare_number(body) {
        return if body.bytes().all(|b| b == b'0' || b == b'.') {
            Ok(Duration::ZERO)
        } else {
            Err(DurationError::NoUnit(body.to_string()))
        };
    }
    if body.is_empty() {
        return Err(DurationError::Invalid("it is empty".into()));
    }
    let mut total: u128 = 0;
    let mut rest = body;
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let (number, after) = rest.split_at(digits);
        let unit_len = after
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(after.len());
        let (unit, next) = after.split_at(unit_len);
        let nanos = term(number, unit, text)?;
        total = total
            .checked_add(nanos)
            .filter(|t| *t <= MAX_NANOS)
            .ok_or(DurationError::TooLong)?;
        rest = next;
    }
    Ok(Duration::from_nanos(total as u64))
}

/// Digits with at most one `.`, and at least one digit.
fn is_bare_number(text: &str) -> bool {
    text.bytes().any(|b| b.is_ascii_digit())
        && text.bytes().all(|b| b.is_ascii_digit() || b == b'.')
        && text.bytes().filter(|b| *b == b'.').count() <= 1
}

/// One `<number><unit>` term in nanoseconds (a fraction below a nanosecond is dropped, as Go
/// drops it).
fn term(number: &str, unit: &str, text: &str) -> Result<u128, DurationError> {
    let invalid = |why: String| DurationError::Invalid(why);
    let scale = match UNITS.iter().find(|(name, _)| *name == unit) {
        Some((_, scale)) => *scale,
        None if unit.is_empty() => {
            return Err(invalid(format!("\"{number}\" in \"{text}\" has no unit")))
        }
        None => return Err(invalid(format!("unknown unit \"{unit}\" in \"{text}\""))),
    };
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    if whole.is_empty() && fraction.is_empty() {
        return Err(invalid(format!(
            "no number before \"{unit}\" in \"{text}\""
        )));
    }
    if fraction.contains('.') {
        return Err(invalid(format!(
            "\"{number}\" in \"{text}\" is not a number"
        )));
    }
    let whole: u128 = if whole.is_empty() {
        0
    } else {
        // More digits than any duration has: too long (a u128 holds 38).
        if whole.trim_start_matches('0').len() > 30 {
            return Err(DurationError::TooLong);
        }
        whole.parse().map_err(|_| DurationError::TooLong)?
    };
    // 18 digits of fraction are below a nanosecond of any unit up to an hour.
    let kept = &fraction[..fraction.len().min(18)];
    let frac_nanos = if kept.is_empty() {
        0
    } else {
        let digits: u128 = kept
            .parse()
            .map_err(|_| invalid(format!("bad number in \"{text}\"")))?;
        digits * scale / 10u128.pow(kept.len() as u32)
    };
    whole
        .checked_mul(scale)
        .and_then(|n| n.checked_add(frac_nanos))
        .filter(|n| *n <= MAX_NANOS)
        .ok_or(DurationError::TooLong)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn go_and_kubectl_forms_parse() {
        for (text, want) in [
            ("0", Duration::ZERO),
            ("0s", Duration::ZERO),
            ("1h", Duration::from_secs(3600)),
            ("1m30s", Duration::from_secs(90)),
            ("1h2m3s", Duration::from_secs(3723)),
            ("1.5s", ms(1500)),
            (".5s", ms(500)),
            ("1.s", ms(1000)),
            ("0.5m", Duration::from_secs(30)),
            ("1.5h", Duration::from_secs(5400)),
            ("500ms", ms(500)),
            ("250us", Duration::from_micros(250)),
            ("250µs", Duration::from_micros(250)),
            ("250μs", Duration::from_micros(250)),
            ("10ns", Duration::from_nanos(10)),
            ("1s500ms", ms(1500)),
            ("2.5ms", Duration::from_micros(2500)),
            (" 30s ", Duration::from_secs(30)),
            ("+5s", Duration::from_secs(5)),
            ("-0", Duration::ZERO),
            ("0.000000001s", Duration::from_nanos(1)),
            ("2562047h", Duration::from_secs(2562047 * 3600)),
        ] {
            assert_eq!(parse(text), Ok(want), "{text}");
        }
    }

    #[test]
    fn bare_numbers_other_than_zero_are_refused_with_a_unit_to_add() {
        assert_eq!(parse("00"), Ok(Duration::ZERO));
        assert_eq!(parse("0.0"), Ok(Duration::ZERO));
        for text in ["2", "5", "1.5", "30"] {
            let e = parse(text).unwrap_err();
            assert_eq!(e, DurationError::NoUnit(text.into()));
            assert_eq!(
                e.to_string(),
                format!("a duration needs a unit, e.g. {text}s or {text}ms")
            );
        }
    }

    #[test]
    fn malformed_durations_say_what_is_wrong() {
        for (text, why) in [
            ("", "empty"),
            ("soon", "unknown unit \"soon\""),
            ("1d", "unknown unit \"d\""),
            ("1m30", "\"30\" in \"1m30\" has no unit"),
            ("s", "no number before \"s\""),
            (".s", "no number before \"s\""),
            ("1..5s", "\"1..5\" in \"1..5s\" is not a number"),
            ("1h 30m", "unknown unit \"h \""),
            ("1.2.3s", "is not a number"),
        ] {
            let e = parse(text).unwrap_err().to_string();
            assert!(e.contains(why), "{text}: {e}");
        }
        assert_eq!(parse("-5s"), Err(DurationError::Negative));
        assert_eq!(parse("-1"), Err(DurationError::Negative));
        assert_eq!(parse("-0s"), Ok(Duration::ZERO));
        assert_eq!(parse("2562048h"), Err(DurationError::TooLong));
        assert_eq!(
            parse("99999999999999999999999999999999999999999h"),
            Err(DurationError::TooLong)
        );
    }

    proptest! {
        #[test]
        fn a_duration_written_in_parts_is_their_sum(
            h in 0u64..1000, m in 0u64..1000, s in 0u64..1000, milli in 0u64..1000,
            micro in 0u64..1000, nano in 0u64..1000,
        ) {
            let text = format!("{h}h{m}m{s}s{milli}ms{micro}us{nano}ns");
            let want = Duration::from_secs(h * 3600 + m * 60 + s)
                + Duration::from_nanos(milli * 1_000_000 + micro * 1_000 + nano);
            prop_assert_eq!(parse(&text), Ok(want));
        }

        #[test]
        fn a_fraction_is_exact_to_the_nanosecond(whole in 0u64..100_000, frac in 0u64..1_000_000_000) {
            let text = format!("{whole}.{frac:09}s");
            prop_assert_eq!(parse(&text), Ok(Duration::new(whole, frac as u32)));
        }

        #[test]
        fn every_duration_reads_back_as_formatted(nanos in 0u64..(i64::MAX as u64)) {
            let d = Duration::from_nanos(nanos);
            prop_assert_eq!(parse(&crate::format::duration(d)), Ok(d));
        }

        #[test]
        fn any_text_parses_or_gives_an_error_without_panicking(text in "\\PC{0,12}") {
            let _ = parse(&text);
        }

        #[test]
        fn a_bare_nonzero_number_is_never_a_duration(n in 1u64..1_000_000) {
            prop_assert_eq!(parse(&n.to_string()), Err(DurationError::NoUnit(n.to_string())));
        }
    }
}
