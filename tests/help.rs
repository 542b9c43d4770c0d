//! The help as a kubectl user reads it: usage lines say `kubectl informer`, `help` works, every
//! command's help has its examples and exit status, and the global options are listed once, by
//! `kubectl informer options`.

mod common;

use common::*;

const COMMANDS: [&str; 3] = ["tail", "diff", "bench"];

#[test]
fn help_is_a_command_and_says_kubectl_informer() {
    let out = run(&["help"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(
        out.stdout.contains("Usage: kubectl informer <COMMAND>")
            || out
                .stdout
                .contains("Usage: kubectl informer [OPTIONS] <COMMAND>"),
        "{}",
        out.stdout
    );
    for command in COMMANDS.iter().chain(&["options", "schema", "completion"]) {
        assert!(
            out.stdout.contains(&format!("\n  {command} ")),
            "{command}: {}",
            out.stdout
        );
    }
    assert!(
        out.stdout.contains("kubectl informer options"),
        "{}",
        out.stdout
    );
    for command in COMMANDS {
        let via_help = run(&["help", command]);
        let via_flag = run(&[command, "--help"]);
        assert_eq!(via_help.code, Some(0), "{}", via_help.stderr);
        assert_eq!(via_help.stdout, via_flag.stdout, "help {command}");
        assert!(
            via_flag
                .stdout
                .contains(&format!("Usage: kubectl informer {command} ")),
            "{}",
            via_flag.stdout
        );
        assert!(
            !via_flag.stdout.contains("kubectl-informer"),
            "{command}: {}",
            via_flag.stdout
        );
    }
}

#[test]
fn global_options_are_listed_once_by_options_and_not_under_each_command() {
    let out = run(&["options"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    for flag in [
        "--kubeconfig",
        "--context",
        "--namespace",
        "--all-namespaces",
        "--request-timeout",
        "--server",
        "--token",
        "--as ",
        "--as-group",
        "--certificate-authority",
        "--insecure-skip-tls-verify",
        "--tls-server-name",
        "--v ",
    ] {
        assert!(out.stdout.contains(flag), "{flag}: {}", out.stdout);
    }
    for command in COMMANDS {
        let help = run(&[command, "--help"]).stdout;
        assert!(!help.contains("--kubeconfig"), "{command}: {help}");
        assert!(!help.contains("--as-group"), "{command}: {help}");
        assert!(
            help.contains("kubectl informer options"),
            "{command}: {help}"
        );
    }
    // Hidden from the help, the global options still work on every command.
    let out = run(&["tail", "cm", "--kubeconfig", "/nonexistent/kubeconfig"]);
    assert_one_line_error(&out, &["/nonexistent/kubeconfig"]);
}

#[test]
fn schema_prints_the_json_schemas_that_ship_with_the_source() {
    let out = run(&["schema"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let doc = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/json.md"),
    )
    .unwrap();
    assert_eq!(out.stdout, doc);
    assert!(out.stdout.contains("schemaVersion"));
}

#[test]
fn every_command_shows_examples_first_and_its_exit_status() {
    for command in COMMANDS.iter().chain(&["completion"]) {
        for flag in ["-h", "--help"] {
            let help = run(&[command, flag]).stdout;
            let usage = help.find("Usage: ").expect("usage");
            let examples = help
                .find("Examples:\n  ")
                .unwrap_or_else(|| panic!("{command} {flag}: no examples: {help}"));
            let status = help
                .find("Exit status: 0 ")
                .unwrap_or_else(|| panic!("{command} {flag}: no exit status: {help}"));
            let options = help.find("Options:\n").expect("options");
            assert!(
                usage < examples && examples < status && status < options,
                "{command} {flag}: usage, examples, exit status, options in that order: {help}"
            );
        }
    }
    // The main features appear in the examples.
    let tail = run(&["tail", "--help"]).stdout;
    for feature in ["--from-rv", "--until-rv", "--record", "--timeout", "--for"] {
        assert!(tail.contains(feature), "{feature}: {tail}");
    }
    let bench = run(&["bench", "--help"]).stdout;
    for gate in ["reconnects", "relists", "queueDuration", "p999"] {
        assert!(bench.contains(gate), "{gate}: {bench}");
    }
    assert!(run(&["tail", "--help"]).stdout.contains("124"));
    assert!(run(&["diff", "--help"]).stdout.contains("124"));
}

/// A flag no command has (a `kubectl logs` habit) is said in one line with where the flags are
/// listed, not with clap's tip to pass it after `--`, which no argument of ours wants; a flag
/// near one that exists still gets clap's "a similar argument exists".
#[test]
fn an_unknown_flag_says_where_the_flags_are_and_a_near_one_names_the_flag_meant() {
    let out = run(&["tail", "cm", "--since", "5m"]);
    assert_one_line_error(
        &out,
        &[
            "unknown flag '--since'",
            "kubectl informer tail --help",
            "kubectl informer options",
        ],
    );
    assert!(!out.stderr.contains("-- --since"), "{}", out.stderr);
    let out = run(&["tail", "cm", "--selectr", "app=web"]);
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert!(
        out.stderr
            .contains("a similar argument exists: '--selector'"),
        "{}",
        out.stderr
    );
    let out = run(&["tail", "cm", "--max-events", "0"]);
    assert_one_line_error(&out, &["--max-events 0", "at least 1"]);
}

#[test]
fn a_command_lists_arguments_only_when_it_has_some() {
    for (command, has_arguments) in [
        ("tail", true),
        ("diff", true),
        ("completion", true),
        ("version", false),
        ("proxy", false),
    ] {
        let out = run(&[command, "--help"]);
        assert_eq!(out.code, Some(0), "{command}: {}", out.stderr);
        assert_eq!(
            out.stdout.contains("\nArguments:\n"),
            has_arguments,
            "{command}: {}",
            out.stdout
        );
        assert!(
            out.stdout.contains("\nOptions:\n"),
            "{command}: {}",
            out.stdout
        );
        // Never a heading with nothing under it.
        assert!(
            !out.stdout.contains("Arguments:\n\n"),
            "{command}: {}",
            out.stdout
        );
    }
}
