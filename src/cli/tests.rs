//! The command line's unit tests: worker threads, -v's forms, kubectl's forms of boolean flags,
//! refusals in one line.

use super::*;

#[test]
fn only_a_replay_runs_on_one_worker() {
    let workers = |args: &[&str]| {
        let cli =
            Cli::try_parse_from(std::iter::once("kubectl-informer").chain(args.iter().copied()))
                .unwrap();
        worker_threads(&cli)
    };
    assert_eq!(workers(&["bench", "--from-file", "rec.jsonl"]), Some(1));
    assert_eq!(workers(&["bench", "--objects", "10"]), None);
    assert_eq!(workers(&["tail", "cm"]), None);
    assert_eq!(workers(&["diff", "cm"]), None);
}

#[test]
fn verbosity_is_written_as_kubectl_writes_it() {
    let parse = |args: &[&str]| {
        Cli::try_parse_from(std::iter::once("kubectl-informer").chain(args.iter().copied()))
    };
    for args in [
        &["tail", "pods", "-v=6"][..],
        &["tail", "pods", "--v=6"],
        &["tail", "pods", "-v", "6"],
        &["tail", "pods", "--v", "6"],
        &["tail", "pods", "-v6"],
        &["-v=6", "tail", "pods"],
        &["tail", "pods", "-vv"],
    ] {
        let cli = parse(args).unwrap_or_else(|e| panic!("{args:?}: {e}"));
        assert_eq!(cli.global.verbose, 6, "{args:?}");
        let Command::Tail(tail) = cli.command else {
            panic!("{args:?}: not tail")
        };
        // `-v 6` is a level, never the object name of `tail RESOURCE [NAME]`.
        assert_eq!(
            (tail.resource.as_str(), tail.name.as_deref()),
            ("pods", None)
        );
    }
    assert_eq!(parse(&["tail", "pods"]).unwrap().global.verbose, 0);
    assert_eq!(parse(&["tail", "pods", "-v=1"]).unwrap().global.verbose, 1);
    assert!(parse(&["tail", "pods", "-v=x"]).is_err());
    assert!(parse(&["tail", "pods", "-v"]).is_err());
}

#[test]
fn insecure_skip_tls_verify_takes_kubectls_forms() {
    let parse = |args: &[&str]| {
        Cli::try_parse_from(std::iter::once("kubectl-informer").chain(args.iter().copied()))
            .map(|cli| cli.global.insecure_skip_tls_verify)
    };
    assert!(!parse(&["tail", "cm"]).unwrap());
    assert!(parse(&["tail", "cm", "--insecure-skip-tls-verify"]).unwrap());
    assert!(parse(&["tail", "cm", "--insecure-skip-tls-verify=true"]).unwrap());
    assert!(!parse(&["tail", "cm", "--insecure-skip-tls-verify=false"]).unwrap());
    // The flag takes no separate value: `cm2` stays tail's NAME.
    let cli = Cli::try_parse_from([
        "kubectl-informer",
        "tail",
        "cm",
        "--insecure-skip-tls-verify",
        "cm2",
    ])
    .unwrap();
    let Command::Tail(tail) = cli.command else {
        panic!()
    };
    assert_eq!(tail.name.as_deref(), Some("cm2"));
}

#[test]
fn a_value_a_flag_refuses_is_one_line_naming_the_flag_the_value_and_why() {
    let error = |args: &[&str]| {
        let line: Vec<String> = std::iter::once("kubectl-informer")
            .chain(args.iter().copied())
            .map(str::to_string)
            .collect();
        match parse_from(line) {
            Ok(_) => panic!("{args:?} parsed"),
            Err(e) => e.to_string(),
        }
    };
    assert_eq!(
        error(&["bench", "--warmup", "2"]),
        "error: --warmup 2: a duration needs a unit, e.g. 2s or 2ms\n"
    );
    assert_eq!(
        error(&["tail", "cm", "--timeout=soon"]),
        "error: --timeout soon: not a duration (unknown unit \"soon\" in \"soon\"): write numbers \
         with units (h, m, s, ms, us or µs, ns), e.g. 30s, 1m30s, 1.5s\n"
    );
    assert_eq!(
        error(&["tail", "cm", "--max-events", "x"]),
        "error: --max-events x: invalid digit found in string\n"
    );
    assert_eq!(
        error(&["tail", "cm", "-o", "yml"]),
        "error: --output yml: not one of text, wide, json, yaml, name, jsonpath=, jsonpath-file=, \
         jsonpath-as-json=, custom-columns=, custom-columns-file= (each = followed by its \
         template or file)\n"
    );
    assert_eq!(
        error(&["tail", "cm", "--for", "-1s"]),
        "error: --for -1s: a duration cannot be negative\n"
    );
    assert_eq!(
        error(&["tail", "cm", "-v"]),
        "error: -v needs a level, e.g. -v=6 (0 to 9, as kubectl's: 1 says the context, server \
         and user, 6 every request)\n"
    );
}

fn line(args: &[&str]) -> Vec<String> {
    std::iter::once("kubectl-informer")
        .chain(args.iter().copied())
        .map(str::to_string)
        .collect()
}

/// Every boolean flag of every command (its own and the global ones), in `(command, flag)`
/// pairs, from the command line's definition.
fn boolean_flags() -> Vec<(String, clap::Arg)> {
    let mut root = command();
    root.build();
    let mut flags = Vec::new();
    for sub in root.get_subcommands() {
        for arg in sub.get_arguments() {
            let bool_valued =
                arg.get_value_parser().type_id() == clap::builder::ValueParser::bool().type_id();
            if arg.get_long().is_some() && bool_valued && arg.get_id() != "help" {
                flags.push((sub.get_name().to_string(), arg.clone()));
            }
        }
    }
    flags
}

#[test]
fn every_boolean_flag_takes_kubectls_three_forms() {
    let flags = boolean_flags();
    assert!(flags.len() > 30, "{}", flags.len());
    for (command, arg) in flags {
        let long = format!("--{}", arg.get_long().unwrap());
        let short = arg.get_short().map(|s| format!("-{s}"));
        let forms = [
            (long.clone(), true),
            (format!("{long}=true"), true),
            (format!("{long}=false"), false),
        ];
        let short_forms = short.iter().flat_map(|s| {
            [
                (s.clone(), true),
                (format!("{s}=true"), true),
                (format!("{s}=false"), false),
            ]
        });
        for (written, want) in forms.into_iter().chain(short_forms) {
            // Only the flag's own value is looked at: a flag that needs another is not refused
            // for that here.
            let matches = super::command()
                .ignore_errors(true)
                .try_get_matches_from(line(&[&command, &written]))
                .unwrap_or_else(|e| panic!("{command} {written}: {e}"));
            let (_, sub) = matches.subcommand().unwrap();
            assert_eq!(
                sub.get_one::<bool>(arg.get_id().as_str()).copied(),
                Some(want),
                "{command} {written}"
            );
        }
        let matches = super::command()
            .ignore_errors(true)
            .try_get_matches_from(line(&[&command]))
            .unwrap();
        let (_, sub) = matches.subcommand().unwrap();
        // kubectl's own flags that are on by default (--allow-missing-template-keys) stay so.
        let default = arg
            .get_default_values()
            .first()
            .is_some_and(|v| v == "true");
        assert_eq!(
            sub.get_one::<bool>(arg.get_id().as_str()).copied(),
            Some(default),
            "{command} without {long}"
        );
    }
}

#[test]
fn boolean_flags_parse_into_the_commands_fields() {
    let parse = |args: &[&str]| parse_from(line(args)).unwrap_or_else(|e| panic!("{args:?}: {e}"));
    let cli = parse(&[
        "tail",
        "cm",
        "-A=false",
        "--watch-only=true",
        "--stats=false",
    ]);
    assert!(!cli.global.all_namespaces);
    let Command::Tail(tail) = cli.command else {
        panic!()
    };
    assert!(tail.watch_only && !tail.stats);
    assert!(
        parse(&["tail", "cm", "--all-namespaces=true"])
            .global
            .all_namespaces
    );
    assert!(parse(&["tail", "cm", "-A"]).global.all_namespaces);
    assert!(
        parse(&["tail", "cm", "--insecure-skip-tls-verify=true"])
            .global
            .insecure_skip_tls_verify
    );
    // Short flags still cluster: `-Aw` is -A and -w.
    let cli = parse(&["tail", "cm", "-Aw"]);
    assert!(cli.global.all_namespaces);
    // `--flag true` with a space is the flag, then `true` as an argument, as in kubectl.
    let Command::Tail(tail) = parse(&["tail", "cm", "--metadata-only", "true"]).command else {
        panic!()
    };
    assert!(tail.metadata_only);
    assert_eq!(tail.name.as_deref(), Some("true"));
    let Command::Proxy(proxy) = parse(&["proxy", "--plain-http=false"]).command else {
        panic!()
    };
    assert!(!proxy.plain_http);
}

/// What `tail --from-rv` says after a 410 is advice that works: each flag it suggests adding is
/// taken together with --from-rv, and starting from the current state is done by dropping
/// --from-rv (`--initial`, which --from-rv refuses, is not suggested).
#[test]
fn the_hint_after_an_expired_from_rv_suggests_only_flags_taken_with_it() {
    let hint = crate::informer::reflector::ReflectorError::ReplayExpired {
        resource: "configmaps".into(),
        resource_version: "5".into(),
        message: "too old resource version: 5 (90)".into(),
    }
    .to_string();
    assert!(
        hint.contains("drop --from-rv to start from the current state"),
        "{hint}"
    );
    let words: Vec<&str> = hint
        .split_whitespace()
        .map(|w| w.trim_end_matches([',', '.', ';', ')']))
        .collect();
    let mut suggested = 0;
    for (i, word) in words.iter().enumerate() {
        if !word.starts_with("--") || *word == "--from-rv" {
            continue;
        }
        let mut args = vec!["tail", "cm", "--from-rv", "5", word];
        if let Some(value) = words.get(i + 1).filter(|v| !v.starts_with('-')) {
            args.push(value);
        }
        parse_from(line(&args)).unwrap_or_else(|e| panic!("{args:?}, as {hint:?} says: {e}"));
        suggested += 1;
    }
    assert_eq!(suggested, 1, "{hint}");
}
