//! A digest of an item's value ([`digest`]) that does not depend on how the value was encoded,
//! and the half-precision floats it reads.

use super::read::{head_at, integer, more, string, too_deep, untag, whole, Head};
use super::{Result, MAX_DEPTH};
use std::hash::{DefaultHasher, Hasher};

/// A digest of the item's value that does not depend on how it was encoded: map entries in any
/// order, integers of any width, a text or a byte string of the same bytes, a float of any width
/// for the same value, self-described tags or none, definite or indefinite lengths all give the
/// same digest; different values give different ones (with the odds of a 64-bit hash). Integers
/// and floats are different values, as are other tags and their content alone; NaNs are one
/// value. `item` must be exactly one item.
pub fn digest(item: &[u8]) -> Result<u64> {
    whole(item)?;
    Ok(value_digest(item, 0, 0)?.0)
}

/// The digest of the item at `at`, nested `depth` levels deep, and where it ends.
fn value_digest(bytes: &[u8], at: usize, depth: usize) -> Result<(u64, usize)> {
    if depth > MAX_DEPTH {
        return Err(too_deep());
    }
    let at = untag(bytes, at)?;
    let h = head_at(bytes, at)?;
    let mut hasher = DefaultHasher::new();
    let mut end = at + h.len;
    // Each kind of value writes a distinct first byte, and what follows has a fixed length or
    // ends with one, so that no two values write the same bytes.
    match h.major {
        0 | 1 => {
            let value = integer(bytes, at)?.unwrap_or_default();
            hasher.write_u8(b'i');
            hasher.write_i128(value);
        }
        2 | 3 => {
            let (content, string_end) = string(bytes, at)?.ok_or("a string cannot be read")?;
            hasher.write_u8(b's');
            hasher.write(&content.bytes);
            hasher.write_u64(content.bytes.len() as u64);
            end = string_end;
        }
        4 | 5 => end = hash_elements(bytes, &h, end, depth, &mut hasher)?,
        6 => {
            let (content, content_end) = value_digest(bytes, end, depth + 1)?;
            hasher.write_u8(b't');
            hasher.write_u64(h.arg);
            hasher.write_u64(content);
            end = content_end;
        }
        _ => hash_simple(&h, &mut hasher)?,
    }
    Ok((hasher.finish(), end))
}

/// Hashes the elements of the array or map whose head `h` ends at `end` (a map's entries
/// sorted), and says where it ends.
#[inline]
fn hash_elements(
    bytes: &[u8],
    h: &Head,
    mut end: usize,
    depth: usize,
    hasher: &mut DefaultHasher,
) -> Result<usize> {
    let mut digests = Vec::new();
    let mut left = (!h.indefinite()).then_some(h.arg);
    while more(bytes, end, left) {
        let (element, element_end) = value_digest(bytes, end, depth + 1)?;
        end = element_end;
        if h.major == 5 {
            let (value, value_end) = value_digest(bytes, end, depth + 1)?;
            end = value_end;
            digests.push(entry_digest(element, value));
        } else {
            digests.push(element);
        }
        left = left.map(|left| left - 1);
    }
    if h.indefinite() {
        end += 1;
    }
    if h.major == 5 {
        // The entries' order is the encoder's whim: hash them sorted.
        digests.sort_unstable();
    }
    hasher.write_u8(if h.major == 5 { b'm' } else { b'a' });
    for digest in &digests {
        hasher.write_u64(*digest);
    }
    hasher.write_u64(digests.len() as u64);
    Ok(end)
}

/// The digest of a map entry, from its key's and its value's, so that entries sort as wholes.
#[inline]
fn entry_digest(key: u64, value: u64) -> u64 {
    let mut entry = DefaultHasher::new();
    entry.write_u8(b'e');
    entry.write_u64(key);
    entry.write_u64(value);
    entry.finish()
}

/// Hashes a simple value or a float (major type 7) whose head is `h`: a float by its value at
/// any width, any other by its number.
// `always`: with a plain #[inline] the compiler kept a call for every simple value.
#[inline(always)]
fn hash_simple(h: &Head, hasher: &mut DefaultHasher) -> Result<()> {
    match h.info {
        25..=27 => {
            let value = match h.info {
                25 => f16_to_f64(h.arg as u16),
                26 => f64::from(f32::from_bits(h.arg as u32)),
                _ => f64::from_bits(h.arg),
            };
            let value = if value.is_nan() { f64::NAN } else { value };
            hasher.write_u8(b'f');
            hasher.write_u64(value.to_bits());
        }
        31 => return Err("a break outside an indefinite-length item".into()),
        _ => {
            hasher.write_u8(b'v');
            hasher.write_u64(h.arg);
        }
    }
    Ok(())
}

/// An IEEE 754 half-precision float's value.
pub(super) fn f16_to_f64(half: u16) -> f64 {
    let sign = if half & 0x8000 == 0 { 1.0 } else { -1.0 };
    let exponent = i32::from((half >> 10) & 0x1f);
    let mantissa = f64::from(half & 0x3ff);
    sign * match exponent {
        0 => mantissa * 2f64.powi(-24),
        31 if mantissa == 0.0 => f64::INFINITY,
        31 => f64::NAN,
        _ => (mantissa + 1024.0) * 2f64.powi(exponent - 25),
    }
}
