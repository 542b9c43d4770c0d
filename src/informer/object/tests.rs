//! The object's unit tests: parsing, identity, labels, the digest bodies, redaction.

use super::*;

#[test]
fn owner_references_are_read_when_asked_and_none_when_absent_or_malformed() {
    let parse =
        |text: &str| RawObject::parse(RawValue::from_string(text.into()).unwrap(), None).unwrap();
    let pod = parse(
        r#"{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p","uid":"u","ownerReferences":[
            {"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web-1","uid":"rs-1","controller":true},
            {"apiVersion":"v1","kind":"ConfigMap","name":"c","uid":"cm-1"}]}}"#,
    );
    let owners = pod.owner_references();
    assert_eq!(owners.len(), 2);
    assert_eq!(
        (owners[0].kind.as_str(), owners[0].uid.as_str()),
        ("ReplicaSet", "rs-1")
    );
    assert_eq!(owners[0].controller, Some(true));
    assert_eq!(owners[1].controller, None);
    assert!(parse(r#"{"metadata":{"name":"a"}}"#)
        .owner_references()
        .is_empty());
    assert!(parse(r#"{"metadata":{"name":"a","ownerReferences":"x"}}"#)
        .owner_references()
        .is_empty());
}

#[test]
fn list_items_get_kind_and_api_version_spliced_in() {
    let raw = RawValue::from_string(
        r#"{"metadata":{"name":"a","namespace":"ns","resourceVersion":"7","uid":"u"}}"#.into(),
    )
    .unwrap();
    let obj = RawObject::parse(raw, Some(("ConfigMap", "v1"))).unwrap();
    assert_eq!(obj.kind(), "ConfigMap");
    assert_eq!(obj.key(), "ns/a");
    let v: serde_json::Value = serde_json::from_str(obj.json().unwrap()).unwrap();
    assert_eq!(v["kind"], "ConfigMap");
    assert_eq!(v["apiVersion"], "v1");
    assert_eq!(v["metadata"]["resourceVersion"], "7");
}

#[test]
fn plain_identity_strings_are_positions_in_the_json_not_copies() {
    let text = r#"{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"ns","uid":"u-1","resourceVersion":"7","annotations":{"x":"y","k8s.io/initial-events-end":"true"}}}"#;
    let owned = RawObject::parse(RawValue::from_string(text.into()).unwrap(), None).unwrap();
    let page: Box<RawValue> = RawValue::from_string(text.into()).unwrap();
    let borrowed = RawObject::parse_borrowed(&page, None).unwrap();
    let listed = RawObject::parse(
        RawValue::from_string(r#"{"metadata":{"name":"a","namespace":"ns"}}"#.into()).unwrap(),
        Some(("ConfigMap", "v1")),
    )
    .unwrap();
    for obj in [&owned, &borrowed, &listed] {
        assert_eq!(obj.extra_len(), 0, "{obj:?}");
        assert_eq!((obj.kind(), obj.key().as_str()), ("ConfigMap", "ns/a"));
    }
    assert!(owned.initial_events_end());
    assert_eq!((owned.uid(), owned.resource_version()), ("u-1", "7"));
}

#[test]
fn objects_that_carry_their_kind_are_left_verbatim() {
    let text = r#"{"kind":"Node","apiVersion":"v1","metadata":{"name":"n1"}}"#;
    let obj = RawObject::parse(
        RawValue::from_string(text.into()).unwrap(),
        Some(("X", "y")),
    )
    .unwrap();
    assert_eq!(obj.json().unwrap(), text);
    assert_eq!(obj.key(), "n1");
}

#[test]
fn an_object_read_in_protobuf_keeps_its_identity_and_a_digest_not_its_bytes() {
    use crate::cluster::protobuf::encode;
    let data = |value: &str| {
        let mut entry = Vec::new();
        encode::bytes(&mut entry, 1, b"k");
        encode::bytes(&mut entry, 2, value.as_bytes());
        let mut rest = Vec::new();
        encode::bytes(&mut rest, 2, &entry);
        rest
    };
    let bytes = |value: &str, labels: &[(&str, &str)]| {
        encode::object("web", "ns", "u-1", "10", labels, &data(&value.repeat(900)))
    };
    let read = |b: &[u8]| RawObject::from_protobuf(b, ("ConfigMap", "v1")).unwrap();
    let o = read(&bytes("x", &[("app", "web")]));
    assert_eq!(
        (o.kind(), o.api_version(), o.name(), o.namespace()),
        ("ConfigMap", "v1", "web", Some("ns"))
    );
    assert_eq!((o.uid(), o.resource_version()), ("u-1", "10"));
    assert_eq!(o.label("app").as_deref(), Some("web"));
    assert_eq!((o.json(), o.encoding()), (None, Encoding::Protobuf));
    // The 900 bytes of data are not kept: the identity strings are.
    assert_eq!(o.extra_len(), "ConfigMapv1webnsu-110".len());
    assert_eq!(
        o.same_content(&read(&bytes("x", &[("app", "web")]))),
        Some(true)
    );
    assert_eq!(
        o.same_content(&read(&bytes("y", &[("app", "web")]))),
        Some(false)
    );
    assert!(o.same_labels(&read(&bytes("y", &[("app", "web")]))));
    assert!(!o.same_labels(&read(&bytes("x", &[("app", "api")]))));
    let json = r#"{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"web"}}"#;
    let json = RawObject::parse(RawValue::from_string(json.into()).unwrap(), None).unwrap();
    assert_eq!(o.same_content(&json), None);
    assert!(o.owner_references().is_empty());
    assert!(o.redacted().is_err());
}

#[test]
fn a_compacted_object_keeps_its_identity_labels_and_a_digest_not_its_json() {
    let parse = |data: &str, labels: &str| {
        let text = format!(
            r#"{{"kind":"Pod","apiVersion":"v1","metadata":{{"name":"web-1","namespace":"ns","uid":"u-1","resourceVersion":"10","generation":3,"labels":{labels}}},"spec":{{"x":"{data}"}}}}"#
        );
        RawObject::parse(RawValue::from_string(text).unwrap(), None).unwrap()
    };
    let full = parse(&"x".repeat(900), r#"{"app":"web","tier":"a"}"#);
    let o = full.compact();
    assert_eq!(
        (o.kind(), o.api_version(), o.key().as_str(), o.uid()),
        ("Pod", "v1", "ns/web-1", "u-1")
    );
    assert_eq!((o.resource_version(), o.generation()), ("10", Some(3)));
    assert_eq!(o.label("app").as_deref(), Some("web"));
    assert_eq!(o.label("none"), None);
    assert_eq!((o.json(), o.encoding()), (None, Encoding::Json));
    assert_eq!(o.extra_len(), "Podv1web-1nsu-110".len());
    assert!(o.same_labels(&full));
    let other = |data: &str, labels: &str| parse(data, labels).compact();
    let same = other(&"x".repeat(900), r#"{"app":"web","tier":"a"}"#);
    assert_eq!(o.same_content(&same), Some(true));
    assert_eq!(
        o.same_content(&other("y", r#"{"app":"web","tier":"a"}"#)),
        Some(false)
    );
    assert!(!o.same_labels(&other("y", r#"{"app":"api","tier":"a"}"#)));
    // Never compared with the JSON it came from, nor compacted twice.
    assert_eq!(o.same_content(&full), None);
    assert_eq!(o.compact().same_content(&o), Some(true));
    assert!(o.redacted().is_err());
}

#[test]
fn secret_values_and_last_applied_are_redacted_but_keys_stay() {
    let text = r#"{"kind":"Secret","apiVersion":"v1","metadata":{"name":"s","annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{\"data\":{\"password\":\"aHVudGVyMg==\"}}","other":"x"}},"data":{"password":"aHVudGVyMg=="},"stringData":{"token":"hunter2"}}"#;
    let obj = RawObject::parse(RawValue::from_string(text.into()).unwrap(), None).unwrap();
    let red = obj.redacted().unwrap();
    let out = red.json().unwrap();
    assert!(
        !out.contains("aHVudGVyMg") && !out.contains("hunter2"),
        "{out}"
    );
    let v: serde_json::Value = serde_json::from_str(out).unwrap();
    assert_eq!(v["data"]["password"], "<redacted: 7 bytes>");
    assert_eq!(v["stringData"]["token"], "<redacted: 7 bytes>");
    let last = &v["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"];
    assert!(last.as_str().unwrap().starts_with("<redacted: "), "{last}");
    assert_eq!(v["metadata"]["annotations"]["other"], "x");
    assert_eq!(red.key(), "s");
}

#[test]
fn empty_object_splice_stays_valid_json() {
    let obj = RawObject::parse(
        RawValue::from_string("{}".into()).unwrap(),
        Some(("K", "v1")),
    )
    .unwrap();
    assert_eq!(obj.json().unwrap(), r#"{"kind":"K","apiVersion":"v1"}"#);
}

#[test]
fn identity_is_read_from_spliced_list_items() {
    let raw = RawValue::from_string(
        r#"  { "metadata":{"name":"a","namespace":"ns","uid":"u-1","resourceVersion":"7","generation":3,"labels":{"app":"web","tier":"db"}},"data":{"k":"v"}}"#.into(),
    )
    .unwrap();
    let obj = RawObject::parse(raw, Some(("ConfigMap", "v1"))).unwrap();
    assert_eq!(
        (obj.kind(), obj.api_version(), obj.name(), obj.namespace()),
        ("ConfigMap", "v1", "a", Some("ns"))
    );
    assert_eq!((obj.uid(), obj.resource_version()), ("u-1", "7"));
    assert_eq!(obj.generation(), Some(3));
    assert_eq!(obj.label("tier").as_deref(), Some("db"));
    assert_eq!(obj.label("nope"), None);
    let v: serde_json::Value = serde_json::from_str(obj.json().unwrap()).unwrap();
    assert_eq!(v["data"]["k"], "v");
}

#[test]
fn escaped_identity_strings_are_unescaped_and_the_json_stays_verbatim() {
    let text = r#"{"kind":"Con\u0066igMap","apiVersion":"v1","metadata":{"name":"a\u002db","namespace":"ns","resourceVersion":"1","annotations":{"k8s.io/initial-events-end":"true"}}}"#;
    let obj = RawObject::parse(RawValue::from_string(text.into()).unwrap(), None).unwrap();
    assert_eq!(obj.json().unwrap(), text);
    assert_eq!(obj.kind(), "ConfigMap");
    assert_eq!(obj.key(), "ns/a-b");
    assert_eq!(obj.extra_len(), "ConfigMap".len() + "a-b".len());
    assert!(obj.initial_events_end());
    assert_eq!(obj.uid(), "");
}

#[test]
fn a_hinted_kind_that_needs_escapes_is_still_read_back() {
    let raw = RawValue::from_string(r#"{"metadata":{"name":"a"}}"#.into()).unwrap();
    let obj = RawObject::parse(raw, Some(("We\"ird", "v1"))).unwrap();
    assert_eq!(obj.kind(), "We\"ird");
    let v: serde_json::Value = serde_json::from_str(obj.json().unwrap()).unwrap();
    assert_eq!(v["kind"], "We\"ird");
    assert_eq!(obj.name(), "a");
}

#[test]
fn cluster_scoped_and_empty_namespaces_key_by_name() {
    for text in [
        r#"{"metadata":{"name":"n1"}}"#,
        r#"{"metadata":{"name":"n1","namespace":""}}"#,
    ] {
        let obj = RawObject::parse(RawValue::from_string(text.into()).unwrap(), None).unwrap();
        assert_eq!((obj.namespace(), obj.key().as_str()), (None, "n1"));
    }
    assert_eq!(split_key("ns/a"), ("ns", "a"));
    assert_eq!(split_key("n1"), ("", "n1"));
}

#[test]
fn labels_compare_by_their_text() {
    let a = |labels: &str| {
        let text = format!(r#"{{"metadata":{{"name":"a","labels":{labels}}}}}"#);
        RawObject::parse(RawValue::from_string(text).unwrap(), None).unwrap()
    };
    assert!(a(r#"{"x":"1"}"#).same_labels(&a(r#"{"x":"1"}"#)));
    assert!(!a(r#"{"x":"1"}"#).same_labels(&a(r#"{"x":"2"}"#)));
    assert!(a("null").same_labels(
        &RawObject::parse(
            RawValue::from_string(r#"{"metadata":{"name":"a"}}"#.into()).unwrap(),
            None
        )
        .unwrap()
    ));
}
