//! Writes messages in the encoding: for the tests of what reads it, and the proxy's ERROR events.

use super::MAGIC;

/// Appends `value` as a varint.
pub fn varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// Appends a length-delimited field.
pub fn bytes(out: &mut Vec<u8>, field: u64, value: &[u8]) {
    varint(out, field << 3 | 2);
    varint(out, value.len() as u64);
    out.extend_from_slice(value);
}

/// Appends a varint field.
pub fn number(out: &mut Vec<u8>, field: u64, value: u64) {
    varint(out, field << 3);
    varint(out, value);
}

/// `raw` in an envelope of type `api_version`/`kind`.
pub fn envelope(api_version: &str, kind: &str, raw: &[u8]) -> Vec<u8> {
    let mut type_meta = Vec::new();
    bytes(&mut type_meta, 1, api_version.as_bytes());
    bytes(&mut type_meta, 2, kind.as_bytes());
    let mut out = MAGIC.to_vec();
    bytes(&mut out, 1, &type_meta);
    bytes(&mut out, 2, raw);
    bytes(&mut out, 3, b"");
    bytes(&mut out, 4, b"");
    out
}

/// An object message with an `ObjectMeta` of these fields and `rest` after it.
pub fn object(
    name: &str,
    namespace: &str,
    uid: &str,
    resource_version: &str,
    labels: &[(&str, &str)],
    rest: &[u8],
) -> Vec<u8> {
    let mut meta = Vec::new();
    bytes(&mut meta, 1, name.as_bytes());
    bytes(&mut meta, 3, namespace.as_bytes());
    bytes(&mut meta, 5, uid.as_bytes());
    bytes(&mut meta, 6, resource_version.as_bytes());
    for (k, v) in labels {
        let mut entry = Vec::new();
        bytes(&mut entry, 1, k.as_bytes());
        bytes(&mut entry, 2, v.as_bytes());
        bytes(&mut meta, 11, &entry);
    }
    let mut out = Vec::new();
    bytes(&mut out, 1, &meta);
    out.extend_from_slice(rest);
    out
}

/// One watch frame: the length, then a `WatchEvent` of `event_type` around `object`
/// (enveloped).
pub fn frame(event_type: &str, object: &[u8]) -> Vec<u8> {
    let mut extension = Vec::new();
    bytes(&mut extension, 1, object);
    let mut event = Vec::new();
    bytes(&mut event, 1, event_type.as_bytes());
    bytes(&mut event, 2, &extension);
    let mut out = (event.len() as u32).to_be_bytes().to_vec();
    out.extend_from_slice(&event);
    out
}

/// A LIST body: `items` (object messages) with a `ListMeta` of `resource_version` and
/// `continue_token`, enveloped as `kind`.
pub fn list(
    api_version: &str,
    kind: &str,
    resource_version: &str,
    continue_token: &str,
    items: &[Vec<u8>],
) -> Vec<u8> {
    let mut meta = Vec::new();
    bytes(&mut meta, 2, resource_version.as_bytes());
    bytes(&mut meta, 3, continue_token.as_bytes());
    let mut raw = Vec::new();
    bytes(&mut raw, 1, &meta);
    for item in items {
        bytes(&mut raw, 2, item);
    }
    envelope(api_version, kind, &raw)
}
