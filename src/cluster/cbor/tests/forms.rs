//! Items in the forms ciborium does not write (wide heads, chunks, indefinite lengths): their
//! length and digest; and hostile input, refused without a panic or an allocation.

use super::*;

/// Items written by hand in the forms ciborium does not write: wide heads, chunks, indefinite
/// lengths, each with what ciborium writes for the same value.
fn alike() -> Vec<(Vec<u8>, Value)> {
    vec![
        // Integers of every width.
        (vec![0x18, 0x01], int(1)),
        (vec![0x19, 0x00, 0x01], int(1)),
        (vec![0x1a, 0, 0, 0, 1], int(1)),
        (vec![0x1b, 0, 0, 0, 0, 0, 0, 0, 1], int(1)),
        (vec![0x39, 0x00, 0x09], int(-10)),
        // Floats of every width: 1.5, f16, f32, f64.
        (vec![0xfa, 0x3f, 0xc0, 0, 0], Value::Float(1.5)),
        (vec![0xfb, 0x3f, 0xf8, 0, 0, 0, 0, 0, 0], Value::Float(1.5)),
        (vec![0xf9, 0x3e, 0x00], Value::Float(1.5)),
        // A text string for a byte string, chunked, with a wide length.
        (vec![0x63, b'a', b'b', b'c'], b("abc")),
        (vec![0x5f, 0x41, b'a', 0x42, b'b', b'c', 0xff], b("abc")),
        (vec![0x7f, 0x62, b'a', b'b', 0x61, b'c', 0xff], t("abc")),
        (vec![0x58, 0x03, b'a', b'b', b'c'], b("abc")),
        (vec![0x5f, 0xff], b("")),
        // Indefinite arrays and maps.
        (
            vec![0x9f, 0x01, 0x02, 0xff],
            Value::Array(vec![int(1), int(2)]),
        ),
        (
            vec![0xbf, 0x41, b'a', 0x01, 0x61, b'b', 0x9f, 0xff, 0xff],
            map(&[(b("b"), Value::Array(vec![])), (t("a"), int(1))]),
        ),
        (vec![0x98, 0x01, 0x00], Value::Array(vec![int(0)])),
        // Self-described tags, one or several, or none.
        (vec![0xd9, 0xd9, 0xf7, 0xd9, 0xd9, 0xf7, 0xf6], Value::Null),
        (
            vec![0xa1, 0xd9, 0xd9, 0xf7, 0x41, b'k', 0xd9, 0xd9, 0xf7, 0x01],
            map(&[(b("k"), int(1))]),
        ),
        // A tag's number written wide.
        (vec![0xd8, 0x16, 0x40], Value::Tag(22, Box::new(b("")))),
    ]
}

#[test]
fn item_len_waits_for_every_prefix_and_ignores_what_follows() {
    let mut items: Vec<Vec<u8>> = alike().into_iter().map(|(bytes, _)| bytes).collect();
    items.extend([LIST, ADDED, ERROR, BOOKMARK].map(hex));
    items.push(cbor(&object("a", &[("k", "v")], &[("a", "b")])));
    for item in items {
        for cut in 0..item.len() {
            assert_eq!(
                item_len(&item[..cut]).unwrap(),
                None,
                "{item:02x?} cut at {cut}"
            );
        }
        assert_eq!(item_len(&item).unwrap(), Some(item.len()));
        let mut more = item.clone();
        more.extend_from_slice(&item);
        more.push(0xff);
        assert_eq!(item_len(&more).unwrap(), Some(item.len()));
    }
}

#[test]
fn digest_ignores_how_a_value_is_encoded() {
    for (bytes, value) in alike() {
        assert_eq!(
            digest(&bytes).unwrap(),
            digest(&cbor(&value)).unwrap(),
            "{bytes:02x?}"
        );
    }
    let one = object("a", &[("app", "web"), ("tier", "front")], &[("x", "y")]);
    let mut other = object("a", &[("tier", "front"), ("app", "web")], &[("x", "y")]);
    if let Value::Tag(_, inner) = other {
        other = *inner; // and no tag
    }
    if let Value::Map(entries) = &mut other {
        entries.reverse();
    }
    assert_eq!(digest(&cbor(&one)).unwrap(), digest(&cbor(&other)).unwrap());
}

#[test]
fn digest_changes_with_the_value() {
    let digests: Vec<u64> = [
        int(1),
        int(-2),
        Value::Float(1.0),
        Value::Float(-0.0),
        Value::Float(0.0),
        int(0),
        b("1"),
        b(""),
        Value::Bool(true),
        Value::Bool(false),
        Value::Null,
        Value::Array(vec![]),
        Value::Array(vec![int(1)]),
        Value::Array(vec![int(1), int(1)]),
        map(&[]),
        map(&[(b("a"), int(1))]),
        map(&[(b("a"), int(2))]),
        map(&[(b("b"), int(1))]),
        map(&[(int(1), b("a"))]),
        // A duplicated entry does not cancel out.
        map(&[(b("a"), int(1)), (b("a"), int(1))]),
        map(&[(b("a"), int(1)), (b("a"), int(1)), (b("b"), int(2))]),
        map(&[(b("b"), int(2))]),
        Value::Tag(22, Box::new(b(""))),
        Value::Tag(21, Box::new(b(""))),
        Value::Array(vec![b("ab")]),
        Value::Array(vec![b("a"), b("b")]),
        Value::Array(vec![Value::Array(vec![])]),
        Value::Array(vec![map(&[])]),
        object("a", &[], &[]),
        object("b", &[], &[]),
        object("a", &[("app", "web")], &[]),
    ]
    .iter()
    .map(|value| digest(&cbor(value)).unwrap())
    .collect();
    let mut unique = digests.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), digests.len(), "{digests:x?}");
    // NaNs are one value whatever their payload and width.
    let nans = [
        vec![0xf9, 0x7e, 0x00],
        vec![0xfa, 0x7f, 0xc0, 0, 1],
        vec![0xfb, 0xff, 0xf8, 0, 0, 0, 0, 0, 0],
    ];
    let nan = digest(&nans[0]).unwrap();
    assert!(nans.iter().all(|bytes| digest(bytes).unwrap() == nan));
}

#[test]
fn hostile_input_is_refused_without_panicking() {
    let deep = |open: &[u8], leaf: &[u8]| -> Vec<u8> {
        let mut bytes = open.repeat(10_000);
        bytes.extend_from_slice(leaf);
        bytes
    };
    for bytes in [
        deep(&[0x81], &[0x00]),
        deep(&[0x9f], &[0x00]),
        deep(&[0xa1, 0x00], &[0x00]),
        deep(&[0xbf, 0x00], &[0x00]),
        deep(&[0xc6], &[0x00]),
        deep(&[0x81, 0xd9, 0xd9, 0xf7], &[0x00]),
    ] {
        let depth = item_len(&bytes).unwrap_err().0;
        assert!(depth.contains("deeper than 128"), "{depth}");
        assert!(digest(&bytes).is_err());
        assert!(meta(&bytes).is_err());
        assert!(list(&bytes).is_err());
        assert!(watch_event(&bytes).is_err());
        assert!(status(&bytes).is_err());
        assert_eq!(label(&bytes, "a"), None);
    }
    // 128 levels are read; self-described tags do not count.
    let bytes = deep(
        &[0xd9, 0xd9, 0xf7],
        &[[0x81].repeat(128), vec![0x00]].concat(),
    );
    assert_eq!(item_len(&bytes).unwrap(), Some(bytes.len()));
    digest(&bytes).unwrap();
    let bytes = [[0x81].repeat(129), vec![0x00]].concat();
    assert!(digest(&bytes).is_err());

    // Declared lengths: waited for while they could arrive, refused past memory, never
    // allocated.
    let waits: [&[u8]; 5] = [
        &[0x5b, 0x10, 0, 0, 0, 0, 0, 0, 0, b'a'],
        &[0x9b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00],
        &[0xbb, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff],
        &[0x7a, 0xff, 0xff, 0xff, 0xff],
        &[0x9f, 0x9f],
    ];
    for bytes in waits {
        assert_eq!(item_len(bytes).unwrap(), None, "{bytes:02x?}");
        assert!(digest(bytes).unwrap_err().0.contains("cut short"));
        assert!(meta(bytes).is_err() && list(bytes).is_err() && watch_event(bytes).is_err());
    }
    let refused: [&[u8]; 10] = [
        &[0x5b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff],
        &[0x5b, 0x80, 0, 0, 0, 0, 0, 0, 0],
        &[0xbb, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff],
        // Ill-formed: reserved information, an indefinite integer or tag, a stray break, a
        // break after a tag or a key, a chunk of another type, a two-byte simple value below 32.
        &[0x1c],
        &[0x1f],
        &[0xdf],
        &[0xff],
        &[0x9f, 0xd9, 0xd9, 0xf7, 0xff],
        &[0xbf, 0x00, 0xff],
        &[0x5f, 0x61, b'a', 0xff],
    ];
    for bytes in refused
        .iter()
        .chain([&[0xf8, 0x14][..], &[0x5f, 0x5f, 0xff, 0xff]].iter())
    {
        let err = item_len(bytes).unwrap_err().0;
        assert!(!err.contains('\n') && err.len() < 100, "{err}");
        assert!(digest(bytes).is_err());
    }
    // Truncated objects are refused whole, even where what was cut is not read.
    let object = cbor(&object("a", &[], &[]));
    for cut in 0..object.len() {
        assert!(meta(&object[..cut]).is_err());
        assert!(digest(&object[..cut]).is_err());
    }
    // A chain of 10,000 self-described tags is no nesting.
    let bytes = deep(&[0xd9, 0xd9, 0xf7], &[0xa0]);
    assert_eq!(meta(&bytes).unwrap(), Meta::default());
}
