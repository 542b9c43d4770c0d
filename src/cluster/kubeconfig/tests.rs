//! The kubeconfig's loading, selection and overrides, without a cluster.

use super::*;

#[test]
fn a_kubeconfig_that_is_not_yaml_is_one_line_without_the_files_text() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config");
    std::fs::write(
        &path,
        "users:\n- name: u\n  user:\n    token: s3cret-token\\ncontexts: x\n",
    )
    .unwrap();
    let err = read_merged(std::slice::from_ref(&path))
        .unwrap_err()
        .to_string();
    assert!(!err.contains('\n'), "one line: {err}");
    assert!(!err.contains("s3cret"), "no token: {err}");
    assert!(err.contains("line 4"), "says where: {err}");
}

#[test]
fn explicit_kubeconfig_wins_over_env_and_home() {
    let dir = tempfile::tempdir().unwrap();
    let explicit = dir.path().join("explicit");
    let env_file = dir.path().join("env");
    std::fs::write(&explicit, "").unwrap();
    std::fs::write(&env_file, "").unwrap();
    let source = find_source(
        Some(&explicit),
        Some(env_file.to_str().unwrap()),
        Some(dir.path()),
        true,
    )
    .unwrap();
    assert_eq!(source, Source::Files(vec![explicit]));
}

#[test]
fn missing_explicit_kubeconfig_is_an_error_even_when_env_is_set() {
    let dir = tempfile::tempdir().unwrap();
    let env_file = dir.path().join("env");
    std::fs::write(&env_file, "").unwrap();
    let err = find_source(
        Some(&dir.path().join("nope")),
        Some(env_file.to_str().unwrap()),
        None,
        false,
    )
    .unwrap_err();
    assert!(matches!(err, ClusterError::KubeconfigMissing { .. }));
    assert!(err.to_string().contains("--kubeconfig"), "{err}");
}

#[test]
fn kubeconfig_env_list_skips_missing_files_like_kubectl() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a");
    let b = dir.path().join("b");
    std::fs::write(&b, "").unwrap();
    let list = format!("{}:{}", a.display(), b.display());
    let source = find_source(None, Some(&list), Some(dir.path()), false).unwrap();
    assert_eq!(source, Source::Files(vec![b]));
}

#[test]
fn env_wins_over_home_and_home_over_in_cluster() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".kube")).unwrap();
    let home_cfg = dir.path().join(".kube").join("config");
    std::fs::write(&home_cfg, "").unwrap();
    let env_file = dir.path().join("env");
    std::fs::write(&env_file, "").unwrap();
    assert_eq!(
        find_source(None, env_file.to_str(), Some(dir.path()), true).unwrap(),
        Source::Files(vec![env_file])
    );
    assert_eq!(
        find_source(None, None, Some(dir.path()), true).unwrap(),
        Source::Files(vec![home_cfg])
    );
}

#[test]
fn no_kubeconfig_falls_back_to_in_cluster_or_fails_with_what_was_searched() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(
        find_source(None, None, Some(dir.path()), true).unwrap(),
        Source::InCluster
    );
    let err = find_source(None, None, Some(dir.path()), false).unwrap_err();
    assert!(err.to_string().contains(".kube/config"), "{err}");
}

fn two_file_merge() -> (tempfile::TempDir, Vec<PathBuf>) {
    let dir = tempfile::tempdir().unwrap();
    let first = dir.path().join("first");
    let second = dir.path().join("second");
    std::fs::write(
        &first,
        "apiVersion: v1\nkind: Config\ncurrent-context: one\nclusters:\n- name: c1\n  cluster: {server: 'https://127.0.0.1:1'}\ncontexts:\n- name: one\n  context: {cluster: c1, user: u1, namespace: ns-one}\nusers:\n- name: u1\n  user: {token: t1}\n",
    )
    .unwrap();
    std::fs::write(
        &second,
        "apiVersion: v1\nkind: Config\ncurrent-context: two\nclusters:\n- name: c2\n  cluster: {server: 'https://127.0.0.1:2'}\ncontexts:\n- name: two\n  context: {cluster: c2, user: u2}\n- name: one\n  context: {cluster: c2, user: u2, namespace: overridden}\nusers:\n- name: u2\n  user: {token: t2}\n",
    )
    .unwrap();
    (dir, vec![first, second])
}

#[tokio::test]
async fn merged_kubeconfig_keeps_the_first_files_values() {
    let (_dir, paths) = two_file_merge();
    let merged = read_merged(&paths).unwrap();
    let loaded = from_kubeconfig(merged, &KubeconfigSelection::default(), "test")
        .await
        .unwrap();
    assert_eq!(loaded.context, "one");
    assert_eq!(loaded.config.default_namespace, "ns-one");
    assert_eq!(loaded.config.cluster_url.port_u16(), Some(1));
}

#[tokio::test]
async fn context_from_the_second_file_is_usable_and_namespace_defaults_to_default() {
    let (_dir, paths) = two_file_merge();
    let merged = read_merged(&paths).unwrap();
    let selection = KubeconfigSelection {
        context: Some("two".into()),
        ..Default::default()
    };
    let loaded = from_kubeconfig(merged, &selection, "test").await.unwrap();
    assert_eq!(loaded.user, "u2");
    assert_eq!(loaded.config.default_namespace, "default");
    assert_eq!(loaded.config.cluster_url.port_u16(), Some(2));
}

#[tokio::test]
async fn unknown_context_cluster_and_user_list_what_exists() {
    let (_dir, paths) = two_file_merge();
    for (selection, needle) in [
        (
            KubeconfigSelection {
                context: Some("nope".into()),
                ..Default::default()
            },
            "context \"nope\" not found",
        ),
        (
            KubeconfigSelection {
                cluster: Some("nope".into()),
                ..Default::default()
            },
            "cluster \"nope\" not found",
        ),
        (
            KubeconfigSelection {
                user: Some("nope".into()),
                ..Default::default()
            },
            "user \"nope\" not found",
        ),
    ] {
        let merged = read_merged(&paths).unwrap();
        let err = from_kubeconfig(merged, &selection, "test")
            .await
            .unwrap_err()
            .to_string();
        assert!(err.contains(needle), "{err}");
        assert!(err.contains("available"), "{err}");
    }
}

#[tokio::test]
async fn cluster_and_user_flags_override_the_context() {
    let (_dir, paths) = two_file_merge();
    let merged = read_merged(&paths).unwrap();
    let selection = KubeconfigSelection {
        cluster: Some("c2".into()),
        user: Some("u2".into()),
        ..Default::default()
    };
    let loaded = from_kubeconfig(merged, &selection, "test").await.unwrap();
    assert_eq!(loaded.context, "one");
    assert_eq!(loaded.user, "u2");
    assert_eq!(loaded.config.cluster_url.port_u16(), Some(2));
}

#[tokio::test]
async fn flags_override_the_selected_cluster_and_user_as_clientcmd_does() {
    let (_dir, paths) = two_file_merge();
    let mut merged = read_merged(&paths).unwrap();
    {
        let c = merged.clusters[0].cluster.as_mut().unwrap();
        c.certificate_authority_data = Some("bm90IGEgY2VydA==".into());
        c.tls_server_name = Some("from-the-file".into());
    }
    let selection = KubeconfigSelection {
        overrides: Overrides {
            server: Some("https://127.0.0.1:3".into()),
            insecure_skip_tls_verify: true,
            token: Some("flag-token".into()),
            impersonate: Some("system:serviceaccount:ns:ctrl".into()),
            impersonate_groups: vec!["g1".into(), "g2".into()],
            ..Default::default()
        },
        ..Default::default()
    };
    let loaded = from_kubeconfig(merged, &selection, "test").await.unwrap();
    let config = loaded.config;
    assert_eq!(config.cluster_url.port_u16(), Some(3));
    // The insecure flag replaced the file's CA, and --server reset its tls-server-name.
    assert!(config.accept_invalid_certs);
    assert_eq!(config.root_cert, None);
    assert_eq!(config.tls_server_name, None);
    assert_eq!(
        config.auth_info.impersonate.as_deref(),
        Some("system:serviceaccount:ns:ctrl")
    );
    assert_eq!(
        config.auth_info.impersonate_groups,
        Some(vec!["g1".to_string(), "g2".to_string()])
    );
    assert!(config.auth_info.token.is_some());
    assert_eq!(loaded.context, "one");
    // The token is a credential: Debug never shows it.
    assert!(!format!("{selection:?}").contains("flag-token"));
}

#[tokio::test]
async fn server_flag_alone_is_a_configuration_without_any_kubeconfig() {
    let selection = KubeconfigSelection {
        overrides: Overrides {
            server: Some("https://127.0.0.1:4".into()),
            token: Some("t".into()),
            ..Default::default()
        },
        ..Default::default()
    };
    let loaded = from_kubeconfig(Kubeconfig::default(), &selection, "test")
        .await
        .unwrap();
    assert_eq!(loaded.config.cluster_url.port_u16(), Some(4));
    assert_eq!(loaded.config.default_namespace, "default");
    let err = from_kubeconfig(
        Kubeconfig::default(),
        &KubeconfigSelection::default(),
        "test",
    )
    .await
    .unwrap_err();
    assert!(err.to_string().contains("defines no clusters"), "{err}");
}

#[test]
fn a_manifest_of_another_kind_is_not_a_kubeconfig() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("crd.yaml");
    std::fs::write(
        &path,
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  \
         name: widgets.example.com\nspec:\n  group: example.com\n  scope: Namespaced\n",
    )
    .unwrap();
    let err = read_merged(std::slice::from_ref(&path))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("it is not a kubeconfig (its kind is CustomResourceDefinition, not Config)"),
        "{err}"
    );
    assert!(err.contains("pass a kubeconfig with --kubeconfig"), "{err}");
    assert!(!err.contains("current-context"), "{err}");
}

#[tokio::test]
async fn a_yaml_file_without_a_kind_or_any_entry_is_said_to_be_no_kubeconfig() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("values.yaml");
    std::fs::write(&path, "replicas: 3\nimage: web:1.2\n").unwrap();
    let kubeconfig = read_merged(std::slice::from_ref(&path)).unwrap();
    let err = from_kubeconfig(kubeconfig, &KubeconfigSelection::default(), "values.yaml")
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("kubeconfig values.yaml is unusable: it is not a kubeconfig"),
        "{err}"
    );
    assert!(err.contains("--kubeconfig"), "{err}");
}

#[tokio::test]
async fn a_kubeconfig_with_contexts_but_no_current_one_asks_for_context() {
    let kubeconfig = Kubeconfig::from_yaml(
        "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: 'https://127.0.0.1:1'}\n\
         contexts:\n- name: one\n  context: {cluster: c}\n",
    )
    .unwrap();
    let err = from_kubeconfig(kubeconfig, &KubeconfigSelection::default(), "test")
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("it has no current-context: pass --context"),
        "{err}"
    );
}
