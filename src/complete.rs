//! `__complete`: answers kubectl's plugin completion (kubectl 1.26+ runs
//! `kubectl_complete-informer ARGS... TO_COMPLETE`) and the binary's own scripts in Cobra's
//! protocol: one candidate per line (`value\tdescription`), then a `:N` directive line. Never a
//! word on stderr (kubectl hands the plugin's stderr to the shell).

mod server;
mod values;

use crate::cli::{Cli, GlobalArgs};
use crate::cluster::kubeconfig;
use clap::{Args, CommandFactory, FromArgMatches};
use std::io::Write;
use values::Values;

/// Cobra's `ShellCompDirectiveDefault`: the shell may fall back to file names.
const DIRECTIVE_DEFAULT: u8 = 0;
/// Cobra's `ShellCompDirectiveNoSpace`: the value goes on (`KIND/`, `OPTION=`, `owned:`).
const DIRECTIVE_NO_SPACE: u8 = 2;
/// Cobra's `ShellCompDirectiveNoFileComp`.
const DIRECTIVE_NO_FILE: u8 = 4;

/// What a word under the cursor is.
#[derive(Debug, PartialEq, Eq)]
enum Slot {
    Subcommand,
    Flag {
        subcommand: Option<String>,
    },
    FlagValue {
        flag: String,
        subcommand: Option<String>,
    },
    Positional {
        subcommand: String,
        index: usize,
    },
}

/// Parsed words before the cursor.
#[derive(Debug, Default)]
struct Words {
    subcommand: Option<String>,
    /// The subcommand's positional arguments typed so far (`tail configmaps`).
    positionals: Vec<String>,
    /// The global flags (`--kubeconfig`, `--context`, `--server`, `--token`, `--as`, ...) as
    /// typed, each with its value: parsed as the real commands parse them to connect.
    global: Vec<String>,
}

impl Words {
    /// The global flags, parsed and validated as a real command's; `None` if they do not parse.
    /// (`-v=6` typed before the cursor is not kept: no request is logged into the shell.)
    fn global_config(&self) -> Option<server::Connection> {
        let command = GlobalArgs::augment_args(clap::Command::new("complete"))
            .args_override_self(true)
            .no_binary_name(true);
        let matches = command.try_get_matches_from(&self.global).ok()?;
        let args = GlobalArgs::from_arg_matches(&matches).ok()?;
        server::Connection::from_args(&args)
    }
}

/// Completes `args` (the last one is the word being completed) and writes the answer.
pub async fn exec(args: &[String], out: &mut impl Write) -> std::io::Result<()> {
    let (to_complete, before) = match args.split_last() {
        Some((last, rest)) => (last.as_str(), rest),
        None => ("", &[][..]),
    };
    let (words, slot) = classify(before, to_complete);
    let (prefix, partial) = split_word(&slot, to_complete);
    // A resource list names each resource once: those already in it are not offered again.
    let listed: Vec<&str> = prefix.split(',').collect();
    let (candidates, mut directive) = candidates(&slot, &words, partial).await;
    let offered: Vec<&(String, String)> = candidates
        .iter()
        .filter(|(v, _)| v.starts_with(partial) && !listed.contains(&v.as_str()))
        .collect();
    // A value that goes on (`deploy/`, `how=`, `owned:`) takes no space after it.
    if offered
        .iter()
        .any(|(v, _)| v.ends_with(['/', '=', ':', ',']))
    {
        directive |= DIRECTIVE_NO_SPACE;
    }
    for (value, help) in offered {
        if help.is_empty() {
            writeln!(out, "{prefix}{value}")?;
        } else {
            writeln!(out, "{prefix}{value}\t{help}")?;
        }
    }
    writeln!(out, ":{directive}")?;
    out.flush()
}

/// The word under the cursor as (what is kept, what is completed): the value of `--flag=value`
/// and the last resource of tail's list `deploy,rs,po` are completed, the rest kept in front.
fn split_word<'a>(slot: &Slot, to_complete: &'a str) -> (&'a str, &'a str) {
    let at = match slot {
        Slot::FlagValue { .. } => to_complete
            .split_once('=')
            .filter(|(flag, _)| flag.starts_with("--"))
            .map(|(flag, _)| flag.len() + 1),
        Slot::Positional {
            subcommand,
            index: 0,
        } if subcommand == "tail" => to_complete.rfind(',').map(|comma| comma + 1),
        _ => None,
    };
    to_complete.split_at(at.unwrap_or(0))
}

/// Flags (long and short forms) that take a value, for the subcommand or globally.
fn value_flags(subcommand: Option<&str>) -> Vec<String> {
    let root = Cli::command();
    let mut commands = vec![&root];
    if let Some(sub) = subcommand.and_then(|s| root.find_subcommand(s)) {
        commands.push(sub);
    }
    let mut flags = Vec::new();
    for cmd in commands {
        for arg in cmd.get_arguments() {
            // A value only after `=` (`--insecure-skip-tls-verify=false`) is not the next word.
            if !arg.get_action().takes_values()
                || arg.is_positional()
                || arg.is_require_equals_set()
            {
                continue;
            }
            if let Some(long) = arg.get_long() {
                flags.push(format!("--{long}"));
            }
            if let Some(short) = arg.get_short() {
                flags.push(format!("-{short}"));
            }
        }
    }
    flags
}

fn classify(before: &[String], to_complete: &str) -> (Words, Slot) {
    let mut words = Words::default();
    let mut pending_value: Option<String> = None;
    for word in before {
        if let Some(flag) = pending_value.take() {
            record_flag(&mut words, &flag, Some(word));
            continue;
        }
        if let Some((flag, value)) = word.split_once('=').filter(|(f, _)| f.starts_with("--")) {
            record_flag(&mut words, flag, Some(value));
        } else if word.starts_with('-') && word.len() > 1 {
            if value_flags(words.subcommand.as_deref()).contains(word) {
                pending_value = Some(word.clone());
            } else {
                record_flag(&mut words, word, None);
            }
        } else if words.subcommand.is_none() {
            words.subcommand = Some(word.clone());
        } else {
            words.positionals.push(word.clone());
        }
    }
    let subcommand = words.subcommand.clone();
    let slot = if let Some(flag) = pending_value {
        Slot::FlagValue { flag, subcommand }
    } else if let Some((flag, _)) = to_complete
        .split_once('=')
        .filter(|(f, _)| f.starts_with("--"))
    {
        Slot::FlagValue {
            flag: flag.to_string(),
            subcommand,
        }
    } else if to_complete.starts_with('-') {
        Slot::Flag { subcommand }
    } else {
        match subcommand {
            None => Slot::Subcommand,
            Some(sub) => Slot::Positional {
                subcommand: sub,
                index: words.positionals.len(),
            },
        }
    };
    (words, slot)
}

/// Keeps `flag` with its `value` (`None` for a switch) if it is a global flag.
fn record_flag(words: &mut Words, flag: &str, value: Option<&str>) {
    if find_flag(None, flag).is_none() {
        return;
    }
    match value {
        None => words.global.push(flag.to_string()),
        Some(value) if flag.starts_with("--") => words.global.push(format!("{flag}={value}")),
        Some(value) => words.global.extend([flag.to_string(), value.to_string()]),
    }
}

async fn candidates(slot: &Slot, words: &Words, partial: &str) -> (Vec<(String, String)>, u8) {
    let root = Cli::command();
    match slot {
        Slot::Subcommand => (
            root.get_subcommands()
                .filter(|c| !c.is_hide_set())
                .map(|c| (c.get_name().to_string(), about(c)))
                .collect(),
            DIRECTIVE_NO_FILE,
        ),
        Slot::Flag { subcommand } => {
            let mut out = Vec::new();
            let sub = subcommand.as_deref().and_then(|s| root.find_subcommand(s));
            for cmd in std::iter::once(&root).chain(sub) {
                for arg in cmd.get_arguments() {
                    if let Some(long) = arg.get_long() {
                        let help = arg.get_help().map(|h| h.to_string()).unwrap_or_default();
                        out.push((format!("--{long}"), help));
                    }
                }
            }
            (out, DIRECTIVE_NO_FILE)
        }
        Slot::FlagValue { flag, subcommand } => {
            flag_value(flag, subcommand.as_deref(), words, partial).await
        }
        Slot::Positional { subcommand, index } => (
            positional(subcommand, *index, words, partial).await,
            DIRECTIVE_NO_FILE,
        ),
    }
}

fn about(c: &clap::Command) -> String {
    c.get_about().map(|a| a.to_string()).unwrap_or_default()
}

/// The values of `flag`, which `partial` begins.
async fn flag_value(
    flag: &str,
    subcommand: Option<&str>,
    words: &Words,
    partial: &str,
) -> (Vec<(String, String)>, u8) {
    let values = match flag {
        "--kubeconfig" => return (Vec::new(), DIRECTIVE_DEFAULT),
        "--context" => {
            let path = words.global_config().and_then(|g| g.selection.path);
            plain(kubeconfig::context_names(path.as_deref()))
        }
        "-n" | "--namespace" | "--metrics-namespace" => {
            plain(server::namespaces(words.global_config()).await)
        }
        "--fault" => from_server(values::fault(partial), words).await,
        "--react" => from_server(values::react(partial), words).await,
        "--state" | "--owned-kinds" => from_server(values::resource_list(partial), words).await,
        "--metrics-from" => from_server(values::metrics_target(partial), words).await,
        "--metrics-token-from" => from_server(values::service_account(partial), words).await,
        other => match find_flag(subcommand, other) {
            Some(arg) if arg.get_value_hint() == clap::ValueHint::FilePath => {
                return (Vec::new(), DIRECTIVE_DEFAULT)
            }
            Some(arg) => possible_values(&arg),
            None => Vec::new(),
        },
    };
    (values, DIRECTIVE_NO_FILE)
}

/// The candidates for the `index`th positional argument of `subcommand`.
async fn positional(
    subcommand: &str,
    index: usize,
    words: &Words,
    partial: &str,
) -> Vec<(String, String)> {
    let first = words.positionals.first().map(String::as_str);
    match (subcommand, index) {
        // `tail TYPE/NAME`, as kubectl's get takes it: the objects of TYPE.
        ("tail", 0) if partial.contains('/') => {
            let kind = partial.split('/').next().unwrap_or_default();
            from_server(Values::Names { kind: kind.into() }, words).await
        }
        ("tail" | "diff" | "bench", 0) => {
            plain(server::resource_types(words.global_config()).await)
        }
        // `tail RESOURCE NAME`: the objects of the one resource typed.
        ("tail", 1) => match first {
            Some(resource) if !resource.contains([',', '/']) => {
                plain(server::object_names(words.global_config(), resource).await)
            }
            _ => Vec::new(),
        },
        ("top", 0) => from_server(values::metrics_target(partial), words).await,
        _ => enum_positional(subcommand, index),
    }
}

/// `values`, with what it leaves to the server asked of it.
async fn from_server(values: Values, words: &Words) -> Vec<(String, String)> {
    match values {
        Values::Fixed(values) => values,
        Values::ResourceTypes { prefix } => server::resource_types(words.global_config())
            .await
            .into_iter()
            .map(|r| (format!("{prefix}{r}"), String::new()))
            .collect(),
        Values::Names { kind } => server::object_names(words.global_config(), &kind)
            .await
            .into_iter()
            .map(|name| (format!("{kind}/{name}"), String::new()))
            .collect(),
    }
}

fn plain(values: Vec<String>) -> Vec<(String, String)> {
    values.into_iter().map(|v| (v, String::new())).collect()
}

/// The flag `flag` (`-o`, `--from-file`) of `subcommand` or of the root.
fn find_flag(subcommand: Option<&str>, flag: &str) -> Option<clap::Arg> {
    let root = Cli::command();
    let sub = subcommand.and_then(|s| root.find_subcommand(s));
    let found = std::iter::once(&root)
        .chain(sub)
        .flat_map(|c| c.get_arguments())
        .find(|a| {
            a.get_long().map(|l| format!("--{l}")).as_deref() == Some(flag)
                || a.get_short().map(|s| format!("-{s}")).as_deref() == Some(flag)
        })
        .cloned();
    found
}

/// The possible values of the `index`th positional argument (`completion SHELL`, `schema
/// DOCUMENT`).
fn enum_positional(subcommand: &str, index: usize) -> Vec<(String, String)> {
    let root = Cli::command();
    root.find_subcommand(subcommand)
        .and_then(|c| c.get_positionals().nth(index).map(possible_values))
        .unwrap_or_default()
}

fn possible_values(arg: &clap::Arg) -> Vec<(String, String)> {
    arg.get_possible_values()
        .iter()
        .map(|v| {
            (
                v.get_name().to_string(),
                v.get_help().map(|h| h.to_string()).unwrap_or_default(),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slot(words: &[&str], to_complete: &str) -> Slot {
        let words: Vec<String> = words.iter().map(|s| s.to_string()).collect();
        classify(&words, to_complete).1
    }

    #[test]
    fn cursor_positions_are_classified() {
        assert_eq!(slot(&[], "ta"), Slot::Subcommand);
        assert_eq!(slot(&["-n", "x"], ""), Slot::Subcommand);
        assert_eq!(
            slot(&["tail"], "c"),
            Slot::Positional {
                subcommand: "tail".into(),
                index: 0
            }
        );
        assert_eq!(
            slot(&["tail", "-n"], "ku"),
            Slot::FlagValue {
                flag: "-n".into(),
                subcommand: Some("tail".into())
            }
        );
        assert_eq!(
            slot(&["tail", "cm"], "--ini"),
            Slot::Flag {
                subcommand: Some("tail".into())
            }
        );
        assert_eq!(
            slot(&["tail", "cm", "--all-namespaces"], ""),
            Slot::Positional {
                subcommand: "tail".into(),
                index: 1
            }
        );
    }

    #[test]
    fn the_last_resource_of_a_tail_list_is_completed_and_the_rest_kept() {
        let tail = Slot::Positional {
            subcommand: "tail".into(),
            index: 0,
        };
        assert_eq!(split_word(&tail, "deploy,r"), ("deploy,", "r"));
        assert_eq!(split_word(&tail, "deploy,rs,"), ("deploy,rs,", ""));
        assert_eq!(split_word(&tail, "deploy"), ("", "deploy"));
        // diff and bench take one resource: a comma is no list there.
        let diff = Slot::Positional {
            subcommand: "diff".into(),
            index: 0,
        };
        assert_eq!(split_word(&diff, "deploy,r"), ("", "deploy,r"));
        let namespace = slot(&["tail"], "--namespace=ku");
        assert_eq!(
            split_word(&namespace, "--namespace=ku"),
            ("--namespace=", "ku")
        );
    }

    #[test]
    fn global_flags_before_the_cursor_are_parsed_as_a_real_command_parses_them() {
        let words: Vec<String> = [
            "--server",
            "10.0.0.1:6443",
            "tail",
            "--token=t0ken",
            "--as",
            "nobody",
            "--as-group",
            "devs",
            "-A",
            "--insecure-skip-tls-verify",
            "cm",
            "-o",
            "json",
            "--kubeconfig",
            "/k/config",
            "--context=other",
        ]
        .map(String::from)
        .to_vec();
        let (words, slot) = classify(&words, "");
        assert_eq!(
            slot,
            Slot::Positional {
                subcommand: "tail".into(),
                index: 1
            }
        );
        assert!(!words.global.iter().any(|w| w == "-o" || w == "json"));
        let global = words.global_config().expect("the global flags parse");
        let overrides = &global.selection.overrides;
        assert_eq!(overrides.server.as_deref(), Some("https://10.0.0.1:6443"));
        assert_eq!(overrides.token.as_deref(), Some("t0ken"));
        assert_eq!(overrides.impersonate.as_deref(), Some("nobody"));
        assert_eq!(overrides.impersonate_groups, ["devs"]);
        assert!(overrides.insecure_skip_tls_verify);
        assert!(global.all_namespaces);
        assert_eq!(
            global.selection.path.as_deref(),
            Some(std::path::Path::new("/k/config"))
        );
        assert_eq!(global.selection.context.as_deref(), Some("other"));
        // Flags a real command would refuse connect to nothing.
        let (words, _) = classify(&["--as-group".into(), "devs".into(), "tail".into()], "");
        assert!(words.global_config().is_none());
    }

    #[tokio::test]
    async fn flags_and_enum_values_complete_without_a_cluster() {
        let mut out = Vec::new();
        exec(
            &["tail".into(), "cm".into(), "-o".into(), "".into()],
            &mut out,
        )
        .await
        .unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("text\t"), "{text}");
        assert!(text.contains("json\t"), "{text}");
        // `jsonpath=` goes on: no space after it (Cobra's NoSpace, 2).
        assert!(text.ends_with(":6\n"), "{text}");
        let mut out = Vec::new();
        exec(&["tail".into(), "-o".into(), "ya".into()], &mut out)
            .await
            .unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.starts_with("yaml\t"), "{text}");
        assert!(text.ends_with(":4\n"), "{text}");

        let mut out = Vec::new();
        exec(&["tail".into(), "--initial=n".into()], &mut out)
            .await
            .unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.starts_with("--initial=none"), "{text}");
        assert!(!text.contains("list"), "{text}");

        let mut out = Vec::new();
        exec(&["".into()], &mut out).await.unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("tail\t"), "{text}");
        assert!(text.contains("completion\t"), "{text}");
        assert!(text.contains("bench\t"), "{text}");
        assert!(!text.contains("__complete"), "{text}");

        // A file flag leaves the completion to the shell's file names.
        let mut out = Vec::new();
        exec(&["bench".into(), "--from-file".into(), "".into()], &mut out)
            .await
            .unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            format!(":{DIRECTIVE_DEFAULT}\n")
        );
    }
}
