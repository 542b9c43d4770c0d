//! The list-watch unit tests: LIST and watch event decoding, error statuses, a watch body split
//! across chunks or cut, and whether an event is there without waiting.

use super::*;
use futures::StreamExt;

#[test]
fn an_empty_metadata_list_s_null_items_are_no_items() {
    // What kube-apiserver v1.34 sends for an empty namespace with
    // `Accept: ...;as=PartialObjectMetadataList`.
    let body = br#"{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"812"},"items":null}"#;
    let list: WireList = serde_json::from_slice(body).unwrap();
    assert_eq!(list.metadata.resource_version, "812");
    assert!(list.items.unwrap_or_default().is_empty());
}

#[test]
fn bookmark_with_initial_events_end_is_decoded() {
    let line = br#"{"type":"BOOKMARK","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":"42","annotations":{"k8s.io/initial-events-end":"true"}}}}
"#;
    match decode_event(line).unwrap() {
        WatchEvent::Bookmark {
            resource_version,
            initial_events_end,
        } => {
            assert_eq!(resource_version, "42");
            assert!(initial_events_end);
        }
        other => panic!("unexpected {other:?}"),
    }
}

#[test]
fn error_event_carries_the_status() {
    let line = br#"{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure","message":"too old resource version: 5 (90)","reason":"Expired","code":410}}"#;
    match decode_event(line).unwrap() {
        WatchEvent::Error(s) => {
            assert_eq!(s.code, 410);
            assert_eq!(s.reason, "Expired");
            assert!(s.message.contains("too old"));
        }
        other => panic!("unexpected {other:?}"),
    }
}

#[test]
fn malformed_and_unknown_events_are_errors_with_a_snippet() {
    let err = decode_event(b"{\"type\":\"ADDED\",\"object\":{").unwrap_err();
    assert!(err.to_string().contains("cannot be decoded"), "{err}");
    let err = decode_event(br#"{"type":"WHAT","object":{}}"#).unwrap_err();
    assert!(err.to_string().contains("unknown event type"), "{err}");
}

#[tokio::test]
async fn stream_reassembles_events_split_across_chunks_and_reports_a_cut() {
    let chunks: Vec<std::io::Result<Vec<u8>>> = vec![
        Ok(br#"{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"n","resourceVersion":"1"}}}"#[..50].to_vec()),
        Ok(br#"{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"n","resourceVersion":"1"}}}"#[50..].to_vec()),
        Ok(b"\n{\"type\":\"MODIFIED\",\"obj".to_vec()),
    ];
    let reader = futures::stream::iter(chunks).into_async_read();
    let mut stream = WatchStream::new(Box::pin(reader));
    match stream.next().await.unwrap() {
        Some(WatchEvent::Added(o)) => assert_eq!(o.key(), "n/a"),
        other => panic!("unexpected {other:?}"),
    }
    assert!(matches!(stream.next().await, Err(StreamError::Io(_))));
}

#[tokio::test]
async fn has_event_says_whether_next_returns_without_waiting() {
    let line = |name: &str| {
        format!(
            r#"{{"type":"ADDED","object":{{"kind":"ConfigMap","apiVersion":"v1","metadata":{{"name":"{name}","namespace":"n","resourceVersion":"1"}}}}}}"#
        )
    };
    let chunks: Vec<std::io::Result<Vec<u8>>> = vec![Ok(format!(
        "{}\n{}\n{{\"type\":\"MODIFIED\"",
        line("a"),
        line("b")
    )
    .into_bytes())];
    // The rest of the third event has not arrived (and never does).
    let body = futures::stream::iter(chunks).chain(futures::stream::pending());
    let mut stream = WatchStream::new(Box::pin(body.into_async_read()));
    for name in ["a", "b"] {
        assert!(stream.has_event(), "{name}");
        match stream.next().await.unwrap() {
            Some(WatchEvent::Added(o)) => assert_eq!(o.name(), name),
            other => panic!("unexpected {other:?}"),
        }
    }
    assert!(!stream.has_event());
    // Blank lines are skipped by `next`, which would wait for what follows them.
    let blank: Vec<std::io::Result<Vec<u8>>> = vec![Ok(b"\n \n".to_vec())];
    let body = futures::stream::iter(blank).chain(futures::stream::pending());
    let mut stream = WatchStream::new(Box::pin(body.into_async_read()));
    assert!(!stream.has_event());
    // An error the look found is not lost: the next read reports it.
    let cut: Vec<std::io::Result<Vec<u8>>> = vec![
        Ok(format!("{}\n", line("c")).into_bytes()),
        Err(std::io::Error::new(
            std::io::ErrorKind::ConnectionReset,
            "reset",
        )),
    ];
    let mut stream = WatchStream::new(Box::pin(futures::stream::iter(cut).into_async_read()));
    assert!(matches!(
        stream.next().await,
        Ok(Some(WatchEvent::Added(_)))
    ));
    assert!(!stream.has_event());
    assert!(matches!(stream.next().await, Err(StreamError::Io(_))));
}

use futures::TryStreamExt;
