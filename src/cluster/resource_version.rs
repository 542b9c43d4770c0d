//! resourceVersions as numbers that can be compared, the way the API server defines them since
//! Kubernetes 1.35 (KEP-5504, "comparable resource version").
//!
//! A resourceVersion is opaque to clients until 1.35; from then the API server promises that
//! each is a decimal integer without leading zeros, and that a larger one is newer. It does not
//! promise 64 bits: an API server backed by another store may hand out longer numbers. So two
//! are compared as KEP-5504 says (as decimal strings: the longer is larger, and between equal
//! lengths the digits decide), never through `u64`; a value that is not such a number is refused
//! with its text, so that a caller reports it instead of waiting for a number that never comes.

use std::cmp::Ordering;
use std::fmt;

/// A resourceVersion known to be a comparable number (decimal digits, no leading zero; `"0"`
/// itself is the one number that starts with a zero).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ResourceVersion(String);

impl std::str::FromStr for ResourceVersion {
    type Err = NotComparable;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        ResourceVersion::parse(text)
    }
}

/// A resourceVersion that is not a comparable number: its text, for the message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("resourceVersion {0:?} is not a decimal number without leading zeros, so it cannot be ordered (KEP-5504)")]
pub struct NotComparable(pub String);

impl ResourceVersion {
    /// Checks `text` and keeps it.
    pub fn parse(text: &str) -> Result<ResourceVersion, NotComparable> {
        let digits = !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
        if digits && (text == "0" || !text.starts_with('0')) {
            Ok(ResourceVersion(text.to_string()))
        } else {
            Err(NotComparable(text.to_string()))
        }
    }
}

impl Ord for ResourceVersion {
    fn cmp(&self, other: &Self) -> Ordering {
        // Without leading zeros the longer number is the larger; equal lengths compare as text.
        self.0
            .len()
            .cmp(&other.0.len())
            .then_with(|| self.0.cmp(&other.0))
    }
}

impl PartialOrd for ResourceVersion {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for ResourceVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Why a resourceVersion the user gave cannot be sent: kube-apiserver reads one as an unsigned
/// 64-bit decimal number (`strconv.ParseUint(rv, 10, 64)` in its storage layer), and answers
/// anything else with a 500 (not a number) or never reaches it (above 2^64-1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotSendable {
    NotANumber,
    TooLarge,
}

impl ResourceVersion {
    /// `text` as kube-apiserver would read it, written as it prints it (`007` is `7`).
    pub fn sendable(text: &str) -> Result<ResourceVersion, NotSendable> {
        if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
            return Err(NotSendable::NotANumber);
        }
        let value: u64 = text.parse().map_err(|_| NotSendable::TooLarge)?;
        Ok(ResourceVersion(value.to_string()))
    }
}

impl NotSendable {
    /// What is wrong with `flag`'s `text`, and what to pass instead, in one line.
    pub fn explain(self, flag: &str, text: &str) -> String {
        let why = match self {
            NotSendable::NotANumber => "is not a resourceVersion",
            NotSendable::TooLarge => "is above 18446744073709551615 (2^64-1), the largest",
        };
        format!(
            "{flag} \"{text}\" {why}: kube-apiserver takes an unsigned 64-bit decimal number; \
             pass one that tail or kubectl printed"
        )
    }
}

/// Compares two resourceVersions as KEP-5504 orders them; an error names the one that is not a
/// number.
pub fn compare(a: &str, b: &str) -> Result<Ordering, NotComparable> {
    Ok(ResourceVersion::parse(a)?.cmp(&ResourceVersion::parse(b)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_kube_apiserver_reads_as_a_resource_version_is_sendable_and_written_as_it_prints_it() {
        let sent = |t: &str| ResourceVersion::sendable(t).map(|rv| rv.to_string());
        assert_eq!(sent("42").unwrap(), "42");
        assert_eq!(sent("007").unwrap(), "7");
        assert_eq!(
            sent("18446744073709551615").unwrap(),
            "18446744073709551615"
        );
        assert_eq!(sent("18446744073709551616"), Err(NotSendable::TooLarge));
        assert_eq!(
            sent("340282366920938463463374607431768211456"),
            Err(NotSendable::TooLarge)
        );
        for bad in ["", "abc", "+5", "-1", " 5", "5 ", "1e3", "0x10"] {
            assert_eq!(sent(bad), Err(NotSendable::NotANumber), "{bad:?}");
        }
    }

    #[test]
    fn numbers_compare_by_length_then_digits_beyond_64_bits() {
        let less = |a: &str, b: &str| compare(a, b).unwrap() == Ordering::Less;
        assert!(less("9", "10"));
        assert!(less("99", "100"));
        assert!(less("123", "124"));
        assert_eq!(compare("42", "42"), Ok(Ordering::Equal));
        // u64::MAX is 18446744073709551615: one past it, and a 30-digit number, still order.
        assert!(less("18446744073709551615", "18446744073709551616"));
        assert!(less(
            "18446744073709551616",
            "100000000000000000000000000000"
        ));
        assert!(less("0", "1"));
    }

    #[test]
    fn what_is_not_a_number_is_refused_with_its_text() {
        for bad in [
            "", "01", "00", "-1", "1.5", " 1", "1 ", "abc", "1e3", "+1", "١٢",
        ] {
            let err = ResourceVersion::parse(bad).unwrap_err();
            assert_eq!(err, NotComparable(bad.to_string()));
            assert!(err.to_string().contains(&format!("{bad:?}")), "{err}");
        }
        assert_eq!(
            compare("5", "x5"),
            Err(NotComparable("x5".to_string())),
            "the error names the value that is not a number"
        );
    }
}
