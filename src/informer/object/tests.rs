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
    // Compared with the JSON it came from by digesting that; not compacted twice.
    assert_eq!(o.same_content(&full), Some(true));
    assert_eq!(
        o.same_content(&parse("y", r#"{"app":"web","tier":"a"}"#)),
        Some(false)
    );
    assert!(o.compact().ptr_eq(&o));
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

/// A custom object as the watch cache may write it, and the same object with every map's keys
/// in another order, as the path from etcd may write it.
const WIDGET: &str = r#"{"apiVersion":"bench.informer.test/v1","kind":"Widget","metadata":{"name":"w-1","namespace":"ns","uid":"u-1","resourceVersion":"42","generation":2,"labels":{"app":"bench","shard":"1"},"annotations":{"owner":"team-1"},"managedFields":[{"manager":"m","operation":"Update","fieldsV1":{"f:spec":{".":{},"f:image":{}}}}]},"spec":{"replicas":2,"image":"r/w:v1","settings":{"a":"1","b":"2"},"ports":[{"name":"http","port":8080},{"name":"metrics","port":9090}],"weight":0.5,"paused":false,"note":null},"status":{"conditions":[{"type":"Ready","status":"True"}]}}"#;
const WIDGET_REORDERED: &str = r#"{"status":{"conditions":[{"status":"True","type":"Ready"}]},"spec":{"note":null,"paused":false,"weight":0.5,"ports":[{"port":8080,"name":"http"},{"port":9090,"name":"metrics"}],"settings":{"b":"2","a":"1"},"image":"r/w:v1","replicas":2},"metadata":{"managedFields":[{"fieldsV1":{"f:spec":{"f:image":{},".":{}}},"operation":"Update","manager":"m"}],"annotations":{"owner":"team-1"},"labels":{"shard":"1","app":"bench"},"generation":2,"resourceVersion":"42","uid":"u-1","namespace":"ns","name":"w-1"},"kind":"Widget","apiVersion":"bench.informer.test/v1"}"#;

fn kept(text: &str) -> RawObject {
    RawObject::read_kept(text, None).unwrap()
}

#[test]
fn an_object_kept_from_json_has_its_identity_and_no_text() {
    let o = kept(WIDGET);
    assert_eq!(
        (o.kind(), o.api_version(), o.key().as_str(), o.uid()),
        ("Widget", "bench.informer.test/v1", "ns/w-1", "u-1")
    );
    assert_eq!((o.resource_version(), o.generation()), ("42", Some(2)));
    assert_eq!(o.label("shard").as_deref(), Some("1"));
    assert_eq!(o.label("none"), None);
    assert_eq!((o.json(), o.encoding()), (None, Encoding::Json));
    assert!(!o.initial_events_end());
    let whole = RawObject::parse(RawValue::from_string(WIDGET.into()).unwrap(), None).unwrap();
    assert_eq!(o.same_content(&whole), Some(true));
    assert!(o.compact().ptr_eq(&o));
    // A LIST's item carries no kind: the hint's, and the same digest.
    let item = r#"{"metadata":{"name":"w-1","namespace":"ns","resourceVersion":"42","annotations":{"k8s.io/initial-events-end":"true"}}}"#;
    let listed = RawObject::read_kept(item, Some(("Widget", "bench.informer.test/v1"))).unwrap();
    assert_eq!((listed.kind(), listed.key().as_str()), ("Widget", "ns/w-1"));
    assert!(listed.initial_events_end());
    let watched = format!(r#"{{"kind":"Widget","apiVersion":"x/v1",{}"#, &item[1..]);
    assert_eq!(kept(&watched).same_content(&listed), Some(true));
}

#[test]
fn the_json_digest_ignores_key_order_escapes_and_spaces_but_not_content() {
    let o = kept(WIDGET);
    assert_eq!(o.same_content(&kept(WIDGET_REORDERED)), Some(true));
    // (No string of WIDGET holds a comma or a brace.)
    let spaced = WIDGET.replace(',', " ,\n ").replace('{', "{ ");
    assert_eq!(o.same_content(&kept(&spaced)), Some(true));
    let escaped = WIDGET.replace(r#""r/w:v1""#, r#""r\/w\u003av1""#);
    assert_eq!(o.same_content(&kept(&escaped)), Some(true));
    // The compacted whole object and the one read kept agree.
    let whole = RawObject::parse(
        RawValue::from_string(WIDGET_REORDERED.into()).unwrap(),
        None,
    );
    assert_eq!(o.same_content(&whole.unwrap().compact()), Some(true));
    for (what, from, to) in [
        ("a nested value", r#""b":"2""#, r#""b":"3""#),
        ("an integer for a float", r#""weight":0.5"#, r#""weight":1"#),
        (
            "a float for an integer",
            r#""replicas":2"#,
            r#""replicas":2.0"#,
        ),
        (
            "a string for a number",
            r#""replicas":2"#,
            r#""replicas":"2""#,
        ),
        ("null for false", r#""paused":false"#, r#""paused":null"#),
        (
            "an added key",
            r#""note":null"#,
            r#""note":null,"extra":{}"#,
        ),
        ("a removed key", r#","note":null"#, ""),
        ("a key renamed", r#""note":null"#, r#""notes":null"#),
        (
            "two list items swapped",
            r#"{"name":"http","port":8080},{"name":"metrics","port":9090}"#,
            r#"{"name":"metrics","port":9090},{"name":"http","port":8080}"#,
        ),
        (
            "a value moved to another key",
            r#""settings":{"a":"1","b":"2"}"#,
            r#""settings":{"a":"2","b":"1"}"#,
        ),
        (
            "a list item's content",
            r#""type":"Ready""#,
            r#""type":"Available""#,
        ),
        ("a label", r#""shard":"1""#, r#""shard":"2""#),
        ("an annotation", r#""team-1""#, r#""team-2""#),
        ("managed fields", r#""f:image":{}"#, r#""f:replicas":{}"#),
        (
            "an empty map for an empty list",
            r#""extra":{}"#,
            r#""extra":[]"#,
        ),
    ] {
        let base = if what == "an empty map for an empty list" {
            WIDGET.replace(r#""note":null"#, r#""note":null,"extra":{}"#)
        } else {
            WIDGET.to_string()
        };
        assert!(base.contains(from), "{what}");
        let changed = base.replacen(from, to, 1);
        assert_eq!(
            kept(&base).same_content(&kept(&changed)),
            Some(false),
            "{what}: {changed}"
        );
    }
}

#[test]
fn reading_kept_refuses_what_parsing_whole_refuses() {
    for bad in [
        "[]",
        r#""x""#,
        r#"{"metadata":[1]}"#,
        r#"{"metadata":{"name":1}}"#,
        r#"{"metadata":{"generation":1.5}}"#,
        r#"{"metadata":{"annotations":"x"}}"#,
        r#"{"kind":"A","kind":"B"}"#,
        r#"{"metadata":{"name":"a","name":"b"}}"#,
        r#"{"kind":null,"kind":"A"}"#,
        r#"{"metadata":{"uid":null,"uid":"u"}}"#,
        r#"{"metadata":{"generation":null,"generation":1}}"#,
        r#"{"metadata":{"labels":{},"labels":{}}}"#,
        r#"{"metadata":{"annotations":{"k8s.io/initial-events-end":null}}}"#,
        r#"{"metadata":null,"metadata":{}}"#,
        r#"{"metadata":{}"#,
        r#"{"metadata":{}} x"#,
    ] {
        assert!(RawObject::read_kept(bad, None).is_err(), "{bad}");
        let whole = RawValue::from_string(bad.into())
            .map_err(|e| e.to_string())
            .and_then(|raw| RawObject::parse(raw, None).map_err(|e| e.to_string()));
        assert!(whole.is_err(), "{bad}");
    }
}
