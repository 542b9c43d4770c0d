//! The client's unit tests: response bodies collected or refused, when a watch-list asks for
//! gzip, and the user read from a 403 message.

use super::body::Refused;
use super::classify::{can_i_resource, server_user, server_verb};
use super::*;

/// A body of `chunks`, each a frame, with `pause` before each frame after the first.
fn body(
    chunks: &[&'static str],
    pause: Duration,
) -> impl http_body::Body<Data = bytes::Bytes, Error = kube::Error> + Unpin {
    let chunks = chunks.to_vec();
    let frames = chunks
        .into_iter()
        .enumerate()
        .map(move |(i, c)| async move {
            if i > 0 {
                tokio::time::sleep(pause).await;
            }
            Ok::<_, kube::Error>(http_body::Frame::data(bytes::Bytes::from_static(
                c.as_bytes(),
            )))
        });
    http_body_util::StreamBody::new(Box::pin(futures::stream::iter(frames).then(|f| f)))
}

#[tokio::test(start_paused = true)]
async fn a_body_is_collected_whole_within_its_limits() {
    let got = collect(
        body(&["ab", "cd"], Duration::from_secs(1)),
        Some(Duration::from_secs(2)),
        4,
    );
    assert_eq!(got.await.unwrap(), Ok(b"abcd".to_vec()));
}

#[tokio::test(start_paused = true)]
async fn a_body_that_stops_moving_or_grows_too_large_is_refused() {
    let slow = body(&["ab", "cd"], Duration::from_secs(3));
    let limit = Duration::from_secs(2);
    assert_eq!(
        collect(slow, Some(limit), 100).await.unwrap(),
        Err(Refused::Stalled(limit))
    );
    let slow = body(&["ab", "cd"], Duration::from_secs(3));
    assert_eq!(
        collect(slow, None, 100).await.unwrap(),
        Ok(b"abcd".to_vec())
    );
    let large = body(&["ab", "cd", "e"], Duration::ZERO);
    assert_eq!(
        collect(large, None, 4).await.unwrap(),
        Err(Refused::TooLarge)
    );
}

#[tokio::test]
async fn a_watch_list_is_asked_gzipped_only_from_a_server_off_this_host() {
    let dir = tempfile::tempdir().unwrap();
    let written = std::cell::Cell::new(0);
    let connect = |server: &str, cluster_extra: &str| {
        written.set(written.get() + 1);
        let path = dir.path().join(format!("kubeconfig-{}", written.get()));
        std::fs::write(
            &path,
            format!(
                "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: \
                 {server}\n{cluster_extra}users:\n- name: u\n  user: {{token: t}}\n\
                 contexts:\n- name: x\n  context: {{cluster: c, user: u}}\ncurrent-context: x\n"
            ),
        )
        .unwrap();
        let selection = KubeconfigSelection {
            path: Some(path),
            ..Default::default()
        };
        async move {
            Cluster::connect(&selection, Transport::default())
                .await
                .unwrap()
                .gzip_watch_lists
        }
    };
    assert!(!connect("https://127.0.0.1:6443", "").await);
    assert!(!connect("https://[::1]:6443", "").await);
    assert!(!connect("https://localhost:6443", "").await);
    assert!(connect("https://10.0.0.1:6443", "").await);
    assert!(connect("https://api.example.com", "").await);
    assert!(
        connect(
            "https://127.0.0.1:6443",
            "    proxy-url: http://10.0.0.9:3128\n"
        )
        .await,
        "through a proxy"
    );
    assert!(
        !connect("https://10.0.0.1:6443", "    disable-compression: true\n").await,
        "compression disabled"
    );
}

#[test]
fn user_is_read_from_a_forbidden_message() {
    let msg = r#"configmaps is forbidden: User "nobody" cannot list resource "configmaps" in API group "" in the namespace "default""#;
    assert_eq!(server_user(msg).as_deref(), Some("nobody"));
    assert_eq!(server_user("forbidden"), None);
}

#[test]
fn the_verb_denied_is_read_from_a_forbidden_message() {
    let msg = r#"pods "op-1" is forbidden: User "nobody" cannot get resource "pods/portforward" in API group "" in the namespace "ops""#;
    assert_eq!(server_verb(msg).as_deref(), Some("get"));
    let msg = r#"configmaps is forbidden: User "nobody" cannot list resource "configmaps" in API group """#;
    assert_eq!(server_verb(msg).as_deref(), Some("list"));
    assert_eq!(
        server_verb("admission webhook denied: cannot do that"),
        None
    );
}

#[test]
fn kubectl_auth_can_i_takes_a_subresource_as_a_flag_and_a_url_as_it_is() {
    assert_eq!(
        can_i_resource("pods/portforward"),
        "pods --subresource=portforward"
    );
    assert_eq!(can_i_resource("/metrics"), "/metrics");
    assert_eq!(can_i_resource("configmaps"), "configmaps");
}
