//! The help as a kubectl user reads it: usage lines say `kubectl informer`, `help` works, every
//! command's help has its examples and exit status, and the global options are listed once, by
//! `kubectl informer options`.

use crate::common::*;

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
/// listed, not with clap's tip to pass it after `--`, which no argument of ours wants, nor with
/// clap's far-fetched "similar" flags (`--until-rv` for `--tail`); a near spelling of a flag
/// names the flag meant.
#[test]
fn an_unknown_flag_says_where_the_flags_are_and_a_near_one_names_the_flag_meant() {
    for (args, flag) in [
        (&["tail", "cm", "--since", "5m"][..], "--since"),
        (&["tail", "cm", "--tail", "10"], "--tail"),
        (&["tail", "cm", "--tail=10"], "--tail"),
        (&["tail", "cm", "--sort-by"], "--sort-by"),
    ] {
        let out = run(args);
        assert_one_line_error(
            &out,
            &[
                &format!("unknown flag {flag} for \"kubectl informer tail\": see kubectl informer tail --help"),
                "kubectl informer options",
            ],
        );
        for wrong in ["-- --", "--until-rv", "--show-managed-fields", "tip:"] {
            assert!(!out.stderr.contains(wrong), "{args:?}: {}", out.stderr);
        }
    }
    let out = run(&["tail", "cm", "--selectr", "app=web"]);
    assert_one_line_error(
        &out,
        &["unknown flag --selectr for \"kubectl informer tail\": did you mean --selector?"],
    );
    let out = run(&["tail", "cm", "--max-events", "0"]);
    assert_one_line_error(&out, &["--max-events 0", "at least 1"]);
}

/// Every kind of error clap finds in a command line is one line, exit 2, with no usage block
/// and no "For more information" tip: what failed, why, what to do.
#[test]
fn every_command_line_error_is_one_line() {
    for (args, said) in [
        (
            &["tial", "cm"][..],
            "unknown command \"tial\" for \"kubectl informer\": did you mean tail?",
        ),
        (
            &["frobnicate"],
            "unknown command \"frobnicate\" for \"kubectl informer\": see kubectl informer --help",
        ),
        (
            &["tail"],
            "\"kubectl informer tail\" needs RESOURCE: see kubectl informer tail --help",
        ),
        (
            &["tail", "cm", "a", "b"],
            "unexpected argument \"b\" for \"kubectl informer tail\": it takes RESOURCE [NAME]",
        ),
        (
            &["version", "x"],
            "unexpected argument \"x\" for \"kubectl informer version\": it takes no arguments",
        ),
        (
            &["tail", "cm", "--from-rv", "5", "--initial", "list"],
            "--from-rv cannot be used with --initial",
        ),
        (
            &["tail", "cm", "--owned-kinds", "rs"],
            "--follow-owned is needed by a flag given",
        ),
        (
            &["-A"],
            "\"kubectl informer\" needs a command: see kubectl informer --help",
        ),
        (
            &["tail", "cm", "-o"],
            "--output needs a value: one of text, wide, json, yaml, name",
        ),
        (
            &["tail", "cm", "--timeout"],
            "--timeout needs a value: --timeout DURATION",
        ),
        (
            &["tail", "cm", "--for", "-o", "json"],
            "--for needs a value: --for DURATION, not the flag -o",
        ),
        (
            &["tail", "cm", "-x"],
            "unknown flag -x for \"kubectl informer tail\"",
        ),
        (
            &["--foo", "tail", "cm"],
            "unknown flag --foo for \"kubectl informer\"",
        ),
        (
            &["tail", "cm", "--all-namespaces=maybe"],
            "--all-namespaces maybe: not one of true, false",
        ),
        (&["tail", "cm", "-v"], "-v needs a level, e.g. -v=6"),
    ] {
        let out = run(args);
        assert_one_line_error(&out, &[said]);
        assert!(!out.stderr.contains("Usage:"), "{args:?}: {}", out.stderr);
        assert!(
            !out.stderr.contains("--help' for more"),
            "{args:?}: {}",
            out.stderr
        );
    }
    // Help and the version are not errors: as they were, on stdout, exit 0.
    for args in [
        &["--help"][..],
        &["tail", "--help"],
        &["--version"],
        &["help", "tail"],
    ] {
        let out = run(args);
        assert_eq!(out.code, Some(0), "{args:?}: {}", out.stderr);
        assert!(out.stderr.is_empty(), "{args:?}: {}", out.stderr);
        assert!(!out.stdout.is_empty(), "{args:?}");
    }
}

/// A negative duration is refused by the duration parser, saying so, for every duration flag:
/// never taken by clap for a flag `-1`.
#[test]
fn a_negative_duration_is_refused_as_negative_for_every_duration_flag() {
    for (command, flag) in [
        ("tail", "--for"),
        ("tail", "--timeout"),
        ("tail", "--initial-events-timeout"),
        ("tail", "--server-timeout"),
        ("tail", "--request-timeout"),
        ("tail", "--health-check"),
        ("diff", "--settle"),
        ("diff", "--every"),
        ("diff", "--for"),
        ("diff", "--timeout"),
        ("diff", "--initial-events-timeout"),
        ("bench", "--for"),
        ("bench", "--warmup"),
        ("bench", "--reaction-timeout"),
        ("bench", "--resync"),
        ("conform", "--initial-events-timeout"),
        ("conform", "--delivery-limit"),
        ("top", "--interval"),
        ("top", "--for"),
        ("proxy", "--for"),
    ] {
        let target: &[&str] = match command {
            "tail" | "diff" | "conform" => &["cm"],
            "top" => &["pod/x"],
            _ => &[],
        };
        for written in [
            vec![flag.to_string(), "-1s".into()],
            vec![format!("{flag}=-1s")],
        ] {
            let mut args = vec![command];
            args.extend(target);
            args.extend(written.iter().map(String::as_str));
            let out = run(&args);
            assert_one_line_error(
                &out,
                &[&format!("{flag} -1s: a duration cannot be negative")],
            );
        }
    }
}

#[test]
fn a_command_lists_arguments_only_when_it_has_some() {
    for (command, has_arguments) in [
        ("tail", true),
        ("diff", true),
        ("completion", true),
        ("version", false),
        ("proxy", true),
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

/// kubectl's `-v` needs a level, and so does ours: the documents never show `-v` without one,
/// and conform's example of it is a command line that parses.
#[test]
fn the_documents_write_v_with_a_level() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<_> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    files.push(root.join("README.md"));
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        for (i, span) in text.split('`').enumerate().filter(|(i, _)| i % 2 == 1) {
            assert!(
                span != "-v" && !span.ends_with(" -v") && !span.contains(" -v "),
                "{}: `{span}` (inline code {i}): -v needs a level, e.g. -v=1",
                file.display()
            );
        }
    }
    let conform = std::fs::read_to_string(root.join("docs/conform.md")).unwrap();
    let example = "kubectl informer conform configmaps -v=1";
    assert!(conform.contains(&format!("`{example}`")), "docs/conform.md");
    let args: Vec<String> = std::iter::once("kubectl-informer")
        .chain(example.split_whitespace().skip(2))
        .map(str::to_string)
        .collect();
    let cli = kubectl_informer::cli::parse_from(args).unwrap();
    assert_eq!(cli.global.verbose, 1);
}
