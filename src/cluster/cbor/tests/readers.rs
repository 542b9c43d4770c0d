//! The readers of whole items (a watch event, a LIST, an object's identity and labels, a
//! `Status`) on what the server wrote and on what ciborium writes, and what they refuse.

use super::*;

#[test]
fn the_api_servers_list_is_read_with_its_items_identity() {
    for body in [hex(LIST), hex(LIST_SHUFFLED)] {
        let list = list(&body).unwrap();
        assert_eq!(
            list.meta,
            ListMeta {
                resource_version: "1234".into(),
                continue_token: Some("next-page".into()),
                remaining_item_count: Some(7),
            }
        );
        assert_eq!(list.items.len(), 3);
        for (i, item) in list.items.iter().enumerate() {
            assert_eq!(item_len(item).unwrap(), Some(item.len()));
            let m = meta(item).unwrap();
            assert_eq!(at(item, &m.name), format!("w-{i}"));
            assert_eq!(at(item, &m.kind), "Widget");
            assert_eq!(at(item, &m.api_version), "example.com/v1");
            assert_eq!(at(item, &m.namespace), "default");
            assert_eq!(at(item, &m.uid), "6a1e7a8c-0d3b-4f4e-9b7a-2c1d0e9f8a7b");
            assert_eq!(at(item, &m.resource_version), format!("100{i}"));
            assert_eq!(m.generation, Some(i as i64 + 1));
            assert!(!m.initial_events_end);
            let labels = &item[m.labels.unwrap()];
            assert_eq!(label(labels, "app").as_deref(), Some("web"));
            assert_eq!(label(labels, "tier").as_deref(), Some("front"));
            assert_eq!(label(labels, "zone"), None);
        }
    }
}

#[test]
fn the_api_servers_watch_events_are_read() {
    let added = hex(ADDED);
    assert_eq!(item_len(&added).unwrap(), Some(added.len()));
    let event = watch_event(&added).unwrap();
    assert_eq!(event.event_type, "ADDED");
    assert_eq!(event.object, hex(OBJECT).as_slice());
    let m = meta(event.object).unwrap();
    assert_eq!(at(event.object, &m.name), "w-9");
    assert_eq!(at(event.object, &m.resource_version), "77");
    assert_eq!(m.generation, Some(2));

    let error = hex(ERROR);
    let event = watch_event(&error).unwrap();
    assert_eq!(event.event_type, "ERROR");
    assert_eq!(
        status(event.object).unwrap(),
        Status {
            status: "Failure".into(),
            message: "too old resource version: 1 (300)".into(),
            reason: "Expired".into(),
            code: 410,
        }
    );

    let bookmark = hex(BOOKMARK);
    let event = watch_event(&bookmark).unwrap();
    assert_eq!(event.event_type, "BOOKMARK");
    let m = meta(event.object).unwrap();
    assert!(m.initial_events_end);
    assert_eq!(at(event.object, &m.resource_version), "1300");
    assert_eq!((m.name, m.labels), (None, None));
}

#[test]
fn the_api_servers_two_encodings_of_one_object_have_one_digest() {
    let (one, other) = (hex(OBJECT), hex(OBJECT_SHUFFLED));
    assert_ne!(one, other, "the server shuffles map entries");
    assert_eq!(digest(&one).unwrap(), digest(&other).unwrap());
    let (one, other) = (hex(LIST), hex(LIST_SHUFFLED));
    assert_ne!(one, other);
    assert_eq!(digest(&one).unwrap(), digest(&other).unwrap());
    // The labels of the two encodings differ in their bytes, not in their digest.
    let labels = |object: &[u8]| object[meta(object).unwrap().labels.unwrap()].to_vec();
    assert_ne!(labels(&hex(OBJECT)), labels(&hex(OBJECT_SHUFFLED)));
    assert_eq!(
        digest(&labels(&hex(OBJECT))).unwrap(),
        digest(&labels(&hex(OBJECT_SHUFFLED))).unwrap()
    );
    // What the event carries is the object, digest and all.
    let added = hex(ADDED);
    assert_eq!(
        digest(watch_event(&added).unwrap().object).unwrap(),
        digest(&hex(OBJECT)).unwrap()
    );
}

#[test]
fn a_watch_event_with_byte_string_keys_is_read() {
    let inner = cbor(&object("a", &[], &[]));
    for event in [
        tagged(map(&[
            (b("type"), b("MODIFIED")),
            (b("object"), object("a", &[], &[])),
        ])),
        // Text keys, the object first, no tags: read alike.
        map(&[
            (t("object"), object("a", &[], &[])),
            (t("type"), t("MODIFIED")),
        ]),
    ] {
        let bytes = cbor(&event);
        let read = watch_event(&bytes).unwrap();
        assert_eq!(read.event_type, "MODIFIED");
        assert_eq!(read.object, inner.as_slice());
    }
    let refused = |value: Value| watch_event(&cbor(&value)).unwrap_err().0;
    assert!(refused(map(&[(b("object"), object("a", &[], &[]))])).contains("no type"));
    assert!(refused(map(&[(b("type"), b("ADDED"))])).contains("no object"));
    assert!(refused(map(&[(b("type"), int(1)), (b("object"), int(1))])).contains("not a string"));
    assert!(refused(Value::Array(vec![])).contains("not a map"));
    assert!(refused(map(&[
        (b("type"), Value::Bytes(vec![0xff])),
        (b("object"), int(1))
    ]))
    .contains("not UTF-8"));
    assert!(refused(map(&[(b("type"), b("A")), (t("type"), b("B"))])).contains("repeats a key"));
    let mut two = cbor(&map(&[(b("type"), b("ADDED")), (b("object"), int(1))]));
    two.push(0xa0);
    assert!(watch_event(&two).unwrap_err().0.contains("follow"));
}

#[test]
fn a_list_gives_its_items_continue_and_remaining_count() {
    let items: Vec<Value> = ["a", "b", "c"]
        .iter()
        .map(|name| {
            map(&[
                (b("kind"), b("Widget")),
                (b("metadata"), map(&[(b("name"), b(name))])),
            ])
        })
        .collect();
    let body = cbor(&tagged(map(&[
        (b("items"), Value::Array(items.clone())),
        (
            b("metadata"),
            map(&[
                (b("remainingItemCount"), int(12)),
                (b("continue"), b("token")),
                (b("resourceVersion"), b("99")),
            ]),
        ),
        (b("kind"), b("WidgetList")),
        (b("apiVersion"), b("example.com/v1")),
    ])));
    let read = list(&body).unwrap();
    assert_eq!(read.meta.resource_version, "99");
    assert_eq!(read.meta.continue_token.as_deref(), Some("token"));
    assert_eq!(read.meta.remaining_item_count, Some(12));
    let expected: Vec<Vec<u8>> = items.iter().map(cbor).collect();
    let got: Vec<Vec<u8>> = read.items.iter().map(|item| item.to_vec()).collect();
    assert_eq!(got, expected);
    assert_eq!(at(read.items[1], &meta(read.items[1]).unwrap().name), "b");

    // The last page: an empty continue, no count, and null items (a nil Go slice).
    let body = cbor(&map(&[
        (
            b("metadata"),
            map(&[(b("continue"), b("")), (b("resourceVersion"), b("7"))]),
        ),
        (b("items"), Value::Null),
    ]));
    assert_eq!(
        list(&body).unwrap(),
        List {
            meta: ListMeta {
                resource_version: "7".into(),
                continue_token: None,
                remaining_item_count: None,
            },
            items: vec![],
        }
    );
    let refused = |value: Value| list(&cbor(&value)).unwrap_err().0;
    assert!(refused(map(&[(b("items"), map(&[]))])).contains("not an array"));
    assert!(refused(map(&[(b("metadata"), int(1))])).contains("not a map"));
    assert!(refused(int(1)).contains("not a map"));
    let mut trailing = cbor(&map(&[]));
    trailing.push(0x00);
    assert!(list(&trailing).unwrap_err().0.contains("follow"));
}

#[test]
fn meta_ranges_read_back_their_text() {
    let bytes = cbor(&object("web-1", &[("app", "web")], &[]));
    let m = meta(&bytes).unwrap();
    assert_eq!(at(&bytes, &m.kind), "Widget");
    assert_eq!(at(&bytes, &m.api_version), "example.com/v1");
    assert_eq!(at(&bytes, &m.name), "web-1");
    assert_eq!(at(&bytes, &m.namespace), "ns");
    assert_eq!(at(&bytes, &m.uid), "uid-web-1");
    assert_eq!(at(&bytes, &m.resource_version), "42");
    assert_eq!(m.generation, Some(3));
    assert!(!m.initial_events_end);
    let labels = m.labels.unwrap();
    assert_eq!(
        &bytes[labels],
        cbor(&map(&[(b("app"), b("web"))])).as_slice()
    );

    // Text strings, tagged strings, nulls, a negative generation.
    let bytes = cbor(&map(&[
        (t("kind"), tagged(t("Widget"))),
        (t("apiVersion"), Value::Null),
        (
            t("metadata"),
            map(&[
                (t("name"), tagged(t("x"))),
                (b("namespace"), Value::Null),
                (t("generation"), int(-2)),
                (t("labels"), Value::Null),
                (t("annotations"), Value::Null),
            ]),
        ),
    ]));
    let m = meta(&bytes).unwrap();
    assert_eq!(at(&bytes, &m.kind), "Widget");
    assert_eq!(at(&bytes, &m.name), "x");
    assert_eq!((m.api_version, m.namespace, m.labels), (None, None, None));
    assert_eq!(m.generation, Some(-2));

    // No metadata: nothing but the type.
    let bytes = cbor(&map(&[(b("kind"), b("Widget"))]));
    let m = meta(&bytes).unwrap();
    assert_eq!(
        Meta {
            kind: None,
            ..m.clone()
        },
        Meta::default()
    );
}

#[test]
fn meta_refuses_what_is_not_an_object() {
    let refused = |value: Value| meta(&cbor(&value)).unwrap_err().0;
    assert!(refused(b("Widget")).contains("the object is not a map"));
    assert!(refused(map(&[(b("metadata"), Value::Null)])).contains("metadata is not a map"));
    assert!(
        refused(map(&[(b("metadata"), Value::Array(vec![]))])).contains("metadata is not a map")
    );
    assert!(
        refused(map(&[(b("metadata"), map(&[(b("name"), int(1))]))]))
            .contains("metadata.name is not a string")
    );
    assert!(refused(map(&[(
        b("metadata"),
        map(&[(b("name"), Value::Bytes(vec![b'a', 0xc3]))])
    )]))
    .contains("metadata.name is not UTF-8"));
    assert!(refused(map(&[(
        b("metadata"),
        map(&[
            (b("uid"), Value::Text("ok".into())),
            (b("generation"), Value::Float(1.5))
        ])
    )]))
    .contains("metadata.generation is not an integer"));
    assert!(refused(map(&[(
        b("metadata"),
        map(&[(b("generation"), Value::Integer(u64::MAX.into()))])
    )]))
    .contains("too large"));
    assert!(
        refused(map(&[(b("metadata"), map(&[(b("labels"), b("a=b"))]))]))
            .contains("metadata.labels is not a map")
    );
    assert!(
        refused(map(&[(b("metadata"), map(&[(b("annotations"), int(0))]))]))
            .contains("metadata.annotations is not a map")
    );
    // A name in chunks has no one range to give.
    let chunked = [
        &[0xa1, 0x48][..],
        b"metadata",
        &[0xa1, 0x44],
        b"name",
        &[0x5f, 0x41, b'a', 0x41, b'b', 0xff],
    ]
    .concat();
    assert!(meta(&chunked).unwrap_err().0.contains("indefinite-length"));
}

#[test]
fn labels_are_looked_up_by_key_and_the_initial_events_end_is_seen() {
    let bytes = cbor(&object(
        "a",
        &[("app", "web"), ("tier", "front"), ("empty", "")],
        &[("k8s.io/initial-events-end", "true"), ("other", "x")],
    ));
    let m = meta(&bytes).unwrap();
    assert!(m.initial_events_end);
    let labels = &bytes[m.labels.unwrap()];
    assert_eq!(label(labels, "tier").as_deref(), Some("front"));
    assert_eq!(label(labels, "app").as_deref(), Some("web"));
    assert_eq!(label(labels, "empty").as_deref(), Some(""));
    assert_eq!(label(labels, "zone"), None);
    // Tagged, text keys: alike; not a map, or cut short: no label.
    let labels = cbor(&tagged(map(&[(t("app"), t("db"))])));
    assert_eq!(label(&labels, "app").as_deref(), Some("db"));
    assert_eq!(label(&cbor(&b("app")), "app"), None);
    assert_eq!(label(&labels[..labels.len() - 1], "app"), None);
    for value in ["false", "True", ""] {
        let bytes = cbor(&object("a", &[], &[("k8s.io/initial-events-end", value)]));
        assert!(!meta(&bytes).unwrap().initial_events_end, "{value}");
    }
}

#[test]
fn status_reads_its_fields_and_refuses_another_kind() {
    let bytes = cbor(&tagged(map(&[
        (b("kind"), b("Status")),
        (b("apiVersion"), b("v1")),
        (b("metadata"), map(&[])),
        (b("status"), b("Failure")),
        (b("message"), t("gone")),
        (b("reason"), b("Gone")),
        (b("code"), int(410)),
    ])));
    assert_eq!(
        status(&bytes).unwrap(),
        Status {
            status: "Failure".into(),
            message: "gone".into(),
            reason: "Gone".into(),
            code: 410,
        }
    );
    // No kind is fine; a code past u16 reads as 0.
    let bytes = cbor(&map(&[(b("code"), int(70_000)), (b("reason"), int(1))]));
    assert_eq!(status(&bytes).unwrap(), Status::default());
    let bytes = cbor(&object("a", &[], &[]));
    assert!(status(&bytes).unwrap_err().0.contains("not Status"));
    assert!(status(&cbor(&int(1))).unwrap_err().0.contains("not a map"));
}
