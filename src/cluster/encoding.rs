//! The encodings a LIST or WATCH body comes in, what a request accepts to get one, and which
//! one a response is in, read from its `Content-Type`: the one place that decides it, for the
//! reflector's LIST pages and watch streams, the client's error bodies and the proxy's relay.

use super::{cbor, protobuf};

/// The encoding a body (and an object in it) arrived in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    Json,
    Protobuf,
    /// CBOR (RFC 8949), which kube-apiserver serves with its `CBORServingAndStorage` gate on.
    Cbor,
}

impl Encoding {
    pub fn name(self) -> &'static str {
        match self {
            Encoding::Json => "JSON",
            Encoding::Protobuf => "protobuf",
            Encoding::Cbor => "CBOR",
        }
    }

    /// As `--encoding` spells it, and the JSON reports.
    pub fn value(self) -> &'static str {
        match self {
            Encoding::Json => "json",
            Encoding::Protobuf => "protobuf",
            Encoding::Cbor => "cbor",
        }
    }

    /// What a LIST or WATCH accepts to be answered in this encoding: the server picks protobuf
    /// where it can encode the type in it (built-in types), CBOR where it serves it (with its
    /// `CBORServingAndStorage` gate on), and JSON otherwise.
    pub fn accept(self) -> &'static str {
        match self {
            Encoding::Json => "application/json",
            Encoding::Protobuf => "application/vnd.kubernetes.protobuf, application/json",
            Encoding::Cbor => "application/cbor, application/json",
        }
    }

    /// Whether a request's `Accept` header lets the server answer in this encoding: it names
    /// the encoding's media type, `*/*` or `application/*` (parameters, spaces and letter case
    /// aside), or there is no header at all.
    pub fn accepted_by(self, accept: &str) -> bool {
        let own = match self {
            Encoding::Json => "application/json",
            Encoding::Protobuf => protobuf::MEDIA_TYPE,
            Encoding::Cbor => cbor::MEDIA_TYPE,
        };
        accept.trim().is_empty()
            || accept.split(',').any(|media| {
                let media = media.split(';').next().unwrap_or_default().trim();
                [own, "*/*", "application/*"]
                    .iter()
                    .any(|m| media.eq_ignore_ascii_case(m))
            })
    }

    /// The encoding of a body whose `Content-Type` is `content_type`. kube-apiserver names a
    /// LIST `application/json`, `application/vnd.kubernetes.protobuf` or `application/cbor`, and
    /// a watch `application/json`, `application/vnd.kubernetes.protobuf;stream=watch` or
    /// `application/cbor-seq` (RFC 8742: its events are data items one after the other). The
    /// media type is compared without its parameters, spaces or letter case (RFC 9110 8.3.1);
    /// anything else, or no `Content-Type`, is read as JSON: what every [`Encoding::accept`]
    /// falls back to.
    pub fn of_content_type(content_type: &str) -> Encoding {
        let media = content_type.split(';').next().unwrap_or_default().trim();
        let is = |name: &str| media.eq_ignore_ascii_case(name);
        if is(protobuf::MEDIA_TYPE) {
            Encoding::Protobuf
        } else if is(cbor::MEDIA_TYPE) || is(cbor::SEQUENCE_MEDIA_TYPE) {
            Encoding::Cbor
        } else {
            Encoding::Json
        }
    }
}

/// The name and resourceVersion of the one object `body` holds (a write's answer), read in the
/// encoding its `Content-Type` names; `None` when it names none or cannot be read (CBOR bodies
/// are not read here).
pub fn object_name(content_type: &str, body: &[u8]) -> Option<(String, Option<String>)> {
    match Encoding::of_content_type(content_type) {
        Encoding::Json => {
            #[derive(serde::Deserialize)]
            struct Meta {
                name: Option<String>,
                #[serde(rename = "resourceVersion")]
                resource_version: Option<String>,
            }
            #[derive(serde::Deserialize)]
            struct Object {
                metadata: Meta,
            }
            let object: Object = serde_json::from_slice(body).ok()?;
            Some((object.metadata.name?, object.metadata.resource_version))
        }
        Encoding::Protobuf => {
            let raw = protobuf::envelope(body).ok()?.raw;
            let meta = protobuf::meta(raw).ok()?;
            let text = |range: std::ops::Range<usize>| {
                std::str::from_utf8(raw.get(range)?)
                    .ok()
                    .map(str::to_string)
            };
            Some((text(meta.name?)?, meta.resource_version.and_then(text)))
        }
        Encoding::Cbor => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_media_type_the_server_sends_names_its_encoding() {
        for (content_type, encoding) in [
            ("application/json", Encoding::Json),
            ("application/json;stream=watch", Encoding::Json),
            ("application/vnd.kubernetes.protobuf", Encoding::Protobuf),
            (
                "application/vnd.kubernetes.protobuf;stream=watch",
                Encoding::Protobuf,
            ),
            ("application/cbor", Encoding::Cbor),
            ("application/cbor-seq", Encoding::Cbor),
            // Parameters, spaces and letter case do not change the media type.
            ("application/json; charset=utf-8", Encoding::Json),
            (
                "application/vnd.kubernetes.protobuf ; stream=watch",
                Encoding::Protobuf,
            ),
            ("  application/cbor-seq  ", Encoding::Cbor),
            ("Application/CBOR; charset=binary", Encoding::Cbor),
            ("APPLICATION/VND.KUBERNETES.PROTOBUF", Encoding::Protobuf),
            // What is none of them is read as JSON.
            ("", Encoding::Json),
            (";stream=watch", Encoding::Json),
            ("text/plain; charset=utf-8", Encoding::Json),
            ("application/cbor-sequence", Encoding::Json),
            ("application/vnd.kubernetes.protobuf-x", Encoding::Json),
            ("application/yaml", Encoding::Json),
        ] {
            assert_eq!(
                Encoding::of_content_type(content_type),
                encoding,
                "{content_type:?}"
            );
        }
    }

    #[test]
    fn json_is_accepted_unless_the_client_names_only_other_encodings() {
        for (accept, json) in [
            ("", true),
            ("application/json", true),
            (Encoding::Protobuf.accept(), true),
            (
                "application/vnd.kubernetes.protobuf;stream=watch,application/json;q=0.9",
                true,
            ),
            ("*/*", true),
            ("application/vnd.kubernetes.protobuf", false),
            ("application/cbor", false),
        ] {
            assert_eq!(Encoding::Json.accepted_by(accept), json, "{accept:?}");
        }
        assert!(Encoding::Protobuf.accepted_by(Encoding::Protobuf.accept()));
        assert!(!Encoding::Cbor.accepted_by("application/json"));
    }

    #[test]
    fn what_a_request_accepts_is_read_back_as_the_encoding_it_asks_for() {
        for encoding in [Encoding::Json, Encoding::Protobuf, Encoding::Cbor] {
            let accepted: Vec<Encoding> = encoding
                .accept()
                .split(',')
                .map(Encoding::of_content_type)
                .collect();
            assert_eq!(accepted[0], encoding, "{}", encoding.accept());
            assert_eq!(accepted.last(), Some(&Encoding::Json), "JSON otherwise");
        }
    }
}
