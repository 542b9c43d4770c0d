//! Property tests: `item_len` agrees with ciborium, no reader panics on random or damaged
//! bytes, and a digest does not change when a value is written otherwise.

use super::super::hash::f16_to_f64;
use super::*;
use proptest::prelude::*;

/// A nested value of the kinds the server writes, and tags.
fn value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        any::<i64>().prop_map(int),
        any::<u64>().prop_map(|v| Value::Integer(v.into())),
        any::<f64>().prop_map(Value::Float),
        any::<f32>().prop_map(|v| Value::Float(v.into())),
        "[a-c]{0,3}".prop_map(Value::Text),
        prop::collection::vec(any::<u8>(), 0..4).prop_map(Value::Bytes),
        any::<bool>().prop_map(Value::Bool),
        Just(Value::Null),
    ];
    leaf.prop_recursive(5, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((inner.clone(), inner.clone()), 0..6).prop_map(Value::Map),
            (0u64..30, inner).prop_map(|(tag, value)| Value::Tag(tag, Box::new(value))),
        ]
    })
}

/// `value` written otherwise: its maps' entries shuffled, text strings as byte strings and
/// byte strings that are UTF-8 as text, self-described tags added here and there.
fn rewritten(value: &Value, seed: &mut u64) -> Value {
    *seed ^= *seed << 13;
    *seed ^= *seed >> 7;
    *seed ^= *seed << 17;
    let out = match value {
        Value::Text(text) => Value::Bytes(text.as_bytes().to_vec()),
        Value::Bytes(bytes) => match String::from_utf8(bytes.clone()) {
            Ok(text) => Value::Text(text),
            Err(_) => value.clone(),
        },
        Value::Array(items) => Value::Array(items.iter().map(|v| rewritten(v, seed)).collect()),
        Value::Map(entries) => {
            let mut entries: Vec<(Value, Value)> = entries
                .iter()
                .map(|(k, v)| (rewritten(k, seed), rewritten(v, seed)))
                .collect();
            for i in (1..entries.len()).rev() {
                entries.swap(i, (*seed % (i as u64 + 1)) as usize);
            }
            Value::Map(entries)
        }
        Value::Tag(tag, inner) => Value::Tag(*tag, Box::new(rewritten(inner, seed))),
        other => other.clone(),
    };
    if seed.is_multiple_of(3) {
        tagged(out)
    } else {
        out
    }
}

/// Every reader, on any bytes: an answer or an error of one line, never a panic.
fn read_all(bytes: &[u8]) {
    for err in [
        item_len(bytes).err(),
        watch_event(bytes).err(),
        meta(bytes).err(),
        list(bytes).err(),
        status(bytes).err(),
        digest(bytes).err(),
    ]
    .into_iter()
    .flatten()
    {
        assert!(!err.0.contains('\n'), "{err}");
    }
    let _ = label(bytes, "a");
}

/// Bytes rich in heads that open, close and tag items.
fn heads() -> impl Strategy<Value = Vec<u8>> {
    let byte = prop_oneof![
        prop::sample::select(vec![
            0xff, 0x5f, 0x7f, 0x9f, 0xbf, 0xd9, 0xf7, 0xf8, 0x81, 0xa1, 0x61, 0x41
        ]),
        any::<u8>(),
    ];
    prop::collection::vec(byte, 0..24)
}

proptest! {
    #[test]
    fn item_len_agrees_with_ciborium(bytes in heads()) {
        let mut rest = &bytes[..];
        let theirs = ciborium::from_reader::<Value, _>(&mut rest).map(|_| bytes.len() - rest.len());
        match (theirs, item_len(&bytes)) {
            (Ok(theirs), Ok(ours)) => prop_assert_eq!(Some(theirs), ours),
            // What RFC 8949 calls not well-formed and ciborium reads all the same.
            (Ok(_), Err(e)) => prop_assert!(
                e.0.contains("simple value below 32") || e.0.contains("chunk"),
                "{bytes:02x?}: {e}"
            ),
            // ciborium refuses more: text that is not UTF-8, simple values it has no name for.
            (Err(_), _) => {}
        }
    }

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        read_all(&bytes);
    }

    #[test]
    fn damaged_items_never_panic(
        value in value(),
        cut in any::<prop::sample::Index>(),
        flip in any::<(prop::sample::Index, u8)>(),
    ) {
        let bytes = cbor(&value);
        prop_assert_eq!(item_len(&bytes).unwrap(), Some(bytes.len()));
        read_all(&bytes);
        read_all(&bytes[..cut.index(bytes.len())]);
        let mut flipped = bytes.clone();
        let at = flip.0.index(flipped.len());
        flipped[at] ^= flip.1;
        read_all(&flipped);
    }

    #[test]
    fn digest_is_invariant_under_rewriting(value in value(), seed in 1u64..) {
        let mut seed = seed;
        let other = rewritten(&value, &mut seed);
        prop_assert_eq!(digest(&cbor(&value)).unwrap(), digest(&cbor(&other)).unwrap());
    }

    #[test]
    fn half_floats_read_as_ciborium_reads_them(bits in any::<u16>()) {
        let bytes = [0xf9, (bits >> 8) as u8, bits as u8];
        let Value::Float(theirs) = ciborium::from_reader::<Value, _>(&bytes[..]).unwrap() else {
            panic!("not a float");
        };
        let ours = f16_to_f64(bits);
        prop_assert!(ours.to_bits() == theirs.to_bits() || (ours.is_nan() && theirs.is_nan()));
    }
}
