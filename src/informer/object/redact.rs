//! Redaction: an object's secret values replaced by markers of their length, for what prints
//! or records Secrets.

use super::RawObject;
use serde_json::value::RawValue;

impl RawObject {
    /// This object with each value of `data` and `stringData` (and kubectl's
    /// last-applied-configuration, which repeats them) replaced by a marker with its length in
    /// bytes; keys stay, so users still see which keys changed.
    pub fn redacted(&self) -> serde_json::Result<RawObject> {
        use serde_json::Value;
        let Some(json) = self.json() else {
            return Err(serde::de::Error::custom(
                "an object kept without its JSON (read in protobuf, or compacted) cannot be redacted",
            ));
        };
        let mut value: Value = serde_json::from_str(json)?;
        for (field, decoded_len) in [
            ("data", base64_len as fn(&str) -> usize),
            ("stringData", str::len),
        ] {
            if let Some(map) = value.get_mut(field).and_then(Value::as_object_mut) {
                for v in map.values_mut() {
                    let len = v.as_str().map(decoded_len).unwrap_or(0);
                    *v = Value::String(redaction_marker(len));
                }
            }
        }
        if let Some(v) = value.pointer_mut(&format!(
            "/metadata/annotations/{}",
            LAST_APPLIED.replace('/', "~1")
        )) {
            *v = Value::String(redaction_marker(v.as_str().map(str::len).unwrap_or(0)));
        }
        let hint = Some((self.kind(), self.api_version())).filter(|(kind, _)| !kind.is_empty());
        RawObject::parse(RawValue::from_string(serde_json::to_string(&value)?)?, hint)
    }
}

/// kubectl apply keeps the whole applied manifest here, Secret data included.
const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// The marker that replaces a secret value of `bytes` bytes.
pub fn redaction_marker(bytes: usize) -> String {
    format!("<redacted: {bytes} bytes>")
}

/// The decoded length of base64 text, without decoding it.
fn base64_len(text: &str) -> usize {
    let text = text.trim_end();
    let padding = text.bytes().rev().take_while(|b| *b == b'=').count();
    (text.len() / 4 * 3).saturating_sub(padding)
}
