//! tail's arguments read into its config, without a server: what is refused (in one line,
//! before any request) and how flags combine.

use super::*;

fn config(args: &[&str]) -> Result<TailConfig> {
    let mut argv = vec!["kubectl-informer", "tail"];
    argv.extend_from_slice(args);
    let cli =
        crate::cli::parse_from(argv.into_iter().map(str::to_string).collect()).map_err(|e| {
            let said = e.to_string();
            Error::Usage(said.trim_start_matches("error: ").trim_end().to_string())
        })?;
    match cli.command {
        crate::cli::Command::Tail(t) => TailConfig::from_args(&t),
        _ => unreachable!(),
    }
}

#[test]
fn a_name_becomes_an_escaped_field_selector_joined_with_the_users() {
    let c = config(&["cm", "a=b,c", "--field-selector", "metadata.namespace=x"]).unwrap();
    assert_eq!(
        c.field_selector.as_deref(),
        Some(r"metadata.name=a\=b\,c,metadata.namespace=x")
    );
}

#[test]
fn bad_flags_fail_before_any_request() {
    for (args, needle) in [
        (vec!["cm", "-l", "app=we b"], "invalid label selector"),
        (
            vec!["cm", "--field-selector", "nope"],
            "invalid field selector",
        ),
        (vec!["cm", "--chunk-size", "0"], "--chunk-size"),
        (
            vec!["cm", "--timeout", "soon"],
            "--timeout soon: not a duration",
        ),
        (
            vec!["cm", "--for", "2"],
            "--for 2: a duration needs a unit, e.g. 2s or 2ms",
        ),
        (vec!["cm", "a/b"], "invalid object name"),
    ] {
        let err = config(&args).unwrap_err().to_string();
        assert!(err.contains(needle), "{args:?}: {err}");
    }
}

#[test]
fn several_resources_refuse_a_name_in_one_line_and_take_a_replay() {
    let c = config(&["deploy,rs,pods", "-l", "app=web"]).unwrap();
    assert_eq!(
        c.tailed,
        Tailed::Resources {
            resources: vec!["deploy".into(), "rs".into(), "pods".into()],
            name: None
        }
    );
    assert_eq!(c.label_selector.as_deref(), Some("app=web"));
    for (args, needle) in [
        (
            vec!["deploy,rs", "web"],
            "a name (web) cannot be given with several",
        ),
        (vec!["deploy,,rs"], "invalid resource list \"deploy,,rs\""),
        (vec!["deploy,"], "an empty name"),
    ] {
        let err = config(&args).unwrap_err().to_string();
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(!err.contains('\n'), "{err}");
    }
    // A replay of several: their resourceVersions are checked once the server says who
    // stores them.
    let c = config(&["deploy,rs", "--from-rv", "5", "--until-rv", "9"]).unwrap();
    assert!(matches!(&c.begin, Begin::Replay { rv, .. } if rv == "5"));
}

#[test]
fn react_is_parsed_once_and_refused_where_reactions_mean_nothing() {
    let c = config(&["deploy", "--react", "owned:rs", "--reaction-timeout", "5s"]).unwrap();
    assert_eq!(
        c.react,
        Some(ReactConfig {
            reaction: crate::react::Reaction::Owned("rs".into()),
            timeout: Duration::from_secs(5)
        })
    );
    let c = config(&["deploy", "--react", "observed-generation"]).unwrap();
    assert_eq!(c.react.unwrap().timeout, Duration::from_secs(30));
    assert!(config(&["deploy", "--react", "owned:rs", "--metadata-only"]).is_ok());
    for (args, needle) in [
        (
            vec!["deploy", "--react", "generation"],
            "--react generation: not a reaction; use observed-generation",
        ),
        (
            vec!["deploy", "--react", "condition:"],
            "a condition needs a TYPE",
        ),
        (
            vec!["deploy", "--reaction-timeout", "5s"],
            "--react is needed by a flag given",
        ),
        (
            vec![
                "deploy",
                "--react",
                "observed-generation",
                "--reaction-timeout",
                "0",
            ],
            "--reaction-timeout 0: a reaction needs some time",
        ),
        (
            vec!["deploy,rs", "--react", "observed-generation"],
            "deploy,rs are several: tail one resource",
        ),
        (
            vec!["deploy/web", "--follow-owned", "--react", "owned:rs"],
            "cannot be used with --follow-owned",
        ),
        (
            vec!["deploy", "--from-rv", "5", "--react", "observed-generation"],
            "cannot be used with --from-rv",
        ),
        (
            vec![
                "deploy",
                "--metadata-only",
                "--react",
                "condition:Available",
            ],
            "--react condition:Available cannot be used with --metadata-only",
        ),
    ] {
        let err = config(&args).unwrap_err().to_string();
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(!err.contains('\n'), "{err}");
    }
}

#[test]
fn diff_all_implies_diff() {
    let diff = |args: &[&str]| config(args).unwrap().diff;
    assert_eq!(diff(&["cm"]), None);
    assert_eq!(diff(&["cm", "--diff"]), Some(DiffFields::Content));
    assert_eq!(diff(&["cm", "--diff-all"]), Some(DiffFields::All));
    assert_eq!(diff(&["cm", "--diff", "--diff-all"]), Some(DiffFields::All));
}

#[test]
fn server_timeout_takes_whole_seconds_and_0_means_the_server_s_choice() {
    assert_eq!(
        config(&["cm", "--server-timeout", "1m"])
            .unwrap()
            .server_timeout,
        Some(60)
    );
    assert_eq!(
        config(&["cm", "--server-timeout", "0"])
            .unwrap()
            .server_timeout,
        None
    );
    for (value, choice) in [("1500ms", "use 1s or 2s"), ("0.5s", "use 1s")] {
        let err = config(&["cm", "--server-timeout", value])
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            format!(
                "--server-timeout {value}: the watch's timeoutSeconds takes whole seconds: \
                 {choice}"
            )
        );
    }
}

#[test]
fn timeout_needs_an_end_condition_and_points_to_for_without_one() {
    let err = config(&["cm", "--timeout", "1m"]).unwrap_err().to_string();
    assert!(err.contains("use --for 1m"), "{err}");
    for end in [["--until-rv", "5"], ["--max-events", "3"]] {
        let c = config(&["cm", "--timeout", "90s", end[0], end[1]]).unwrap();
        assert_eq!(c.timeout, Some(Duration::from_secs(90)));
    }
    let c = config(&["cm", "--for", "1m30s", "--timeout", "0"]).unwrap();
    assert_eq!(
        (c.run_for, c.timeout),
        (Some(Duration::from_secs(90)), None)
    );
}

#[test]
fn kubectls_watch_flags_are_taken_as_kubectl_users_type_them() {
    let plain = config(&["cm"]).unwrap();
    let watch = config(&["cm", "-w"]).unwrap();
    assert_eq!(watch.begin, plain.begin);
    assert_eq!(config(&["cm", "--watch"]).unwrap().begin, plain.begin);
    assert_eq!(plain.begin, Begin::List { shown: true });
    assert_eq!(
        config(&["cm", "-w", "--watch-only"]).unwrap().begin,
        Begin::List { shown: false }
    );
    let err = config(&["cm", "--watch-only", "--initial", "list"]).unwrap_err();
    assert!(err.to_string().contains("--initial"), "{err}");
}

#[test]
fn resource_versions_kube_apiserver_cannot_read_are_refused_before_connecting() {
    for (args, needle) in [
        (
            vec!["cm", "--from-rv", "abc"],
            "--from-rv \"abc\" is not a resourceVersion: kube-apiserver takes an unsigned 64-bit",
        ),
        (
            vec!["cm", "--from-rv", "340282366920938463463374607431768211456"],
            "is above 18446744073709551615 (2^64-1), the largest",
        ),
        (vec!["cm", "--from-rv", "00"], "is not a point in history"),
        (
            vec!["cm", "--until-rv", "18446744073709551616"],
            "--until-rv \"18446744073709551616\" is above",
        ),
        (vec!["cm", "--until-rv", "+5"], "is not a resourceVersion"),
    ] {
        let err = config(&args).unwrap_err();
        assert!(matches!(err, Error::Usage(_)), "{args:?}: {err:?}");
        assert!(err.to_string().contains(needle), "{args:?}: {err}");
    }
    let replay = config(&["cm", "--from-rv", "0042"]).unwrap();
    assert!(
        matches!(&replay.begin, Begin::Replay { rv, .. } if rv == "42"),
        "{:?}",
        replay.begin
    );
}

#[test]
fn filters_take_kubectls_event_types_in_any_case_and_field_paths_with_or_without_a_dot() {
    let c = config(&[
        "cm",
        "--types",
        "added,DELETED",
        "--ignore-field",
        ".status",
        "--ignore-field",
        "metadata.annotations",
    ])
    .unwrap();
    assert_eq!(
        c.filter,
        Filter {
            types: Some(vec![EventType::Added, EventType::Deleted]),
            ignored: vec!["status".into(), "metadata.annotations".into()],
        }
    );
    for (args, needle) in [
        (
            vec!["cm", "--types", "BOOKMARK"],
            "--types \"BOOKMARK\": not an event type",
        ),
        (vec!["cm", "--ignore-field", "spec..x"], "not a field path"),
        (vec!["cm", "--ignore-field", "."], "not a field path"),
    ] {
        let err = config(&args).unwrap_err();
        assert!(matches!(err, Error::Usage(_)), "{args:?}: {err:?}");
        assert!(err.to_string().contains(needle), "{args:?}: {err}");
    }
}
