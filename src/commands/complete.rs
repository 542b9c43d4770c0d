//! `__complete`: answers kubectl's plugin completion (kubectl 1.26+ runs
//! `kubectl_complete-informer ARGS... TO_COMPLETE`) in Cobra's protocol: one candidate per line
//! (`value\tdescription`), then a `:N` directive line.

use crate::cli::Cli;
use crate::cluster::{kubeconfig, Cluster, KubeconfigSelection, Operation, Transport};
use clap::CommandFactory;
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

/// Cobra's `ShellCompDirectiveDefault`: the shell may fall back to file names.
const DIRECTIVE_DEFAULT: u8 = 0;
/// Cobra's `ShellCompDirectiveNoFileComp`.
const DIRECTIVE_NO_FILE: u8 = 4;
/// Completion must never hang a shell: each request gets this long.
const REQUEST_LIMIT: Duration = Duration::from_secs(5);

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
    positionals: usize,
    kubeconfig: Option<PathBuf>,
    context: Option<String>,
}

/// Completes `args` (the last one is the word being completed) and writes the answer.
pub async fn exec(args: &[String], out: &mut impl Write) -> std::io::Result<()> {
    let (to_complete, before) = match args.split_last() {
        Some((last, rest)) => (last.as_str(), rest),
        None => ("", &[][..]),
    };
    let (words, slot) = classify(before, to_complete);
    let (prefix, partial) = match (&slot, to_complete.split_once('=')) {
        (Slot::FlagValue { .. }, Some((flag, value))) if flag.starts_with("--") => {
            (format!("{flag}="), value)
        }
        _ => (String::new(), to_complete),
    };
    let (candidates, directive) = candidates(&slot, &words).await;
    for (value, help) in candidates.iter().filter(|(v, _)| v.starts_with(partial)) {
        if help.is_empty() {
            writeln!(out, "{prefix}{value}")?;
        } else {
            writeln!(out, "{prefix}{value}\t{help}")?;
        }
    }
    writeln!(out, ":{directive}")?;
    out.flush()
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
            if !arg.get_action().takes_values() || arg.is_positional() {
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
            record_flag(&mut words, &flag, word);
            continue;
        }
        if let Some((flag, value)) = word.split_once('=').filter(|(f, _)| f.starts_with("--")) {
            record_flag(&mut words, flag, value);
        } else if word.starts_with('-') && word.len() > 1 {
            if value_flags(words.subcommand.as_deref()).contains(word) {
                pending_value = Some(word.clone());
            }
        } else if words.subcommand.is_none() {
            words.subcommand = Some(word.clone());
        } else {
            words.positionals += 1;
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
                index: words.positionals,
            },
        }
    };
    (words, slot)
}

fn record_flag(words: &mut Words, flag: &str, value: &str) {
    match flag {
        "--kubeconfig" => words.kubeconfig = Some(PathBuf::from(value)),
        "--context" => words.context = Some(value.to_string()),
        _ => {}
    }
}

async fn candidates(slot: &Slot, words: &Words) -> (Vec<(String, String)>, u8) {
    let root = Cli::command();
    match slot {
        Slot::Subcommand => (
            root.get_subcommands()
                .filter(|c| !c.is_hide_set())
                .map(|c| {
                    (
                        c.get_name().to_string(),
                        c.get_about().map(|a| a.to_string()).unwrap_or_default(),
                    )
                })
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
        Slot::FlagValue { flag, subcommand } => match flag.as_str() {
            "--kubeconfig" => (Vec::new(), DIRECTIVE_DEFAULT),
            "--context" => (
                plain(kubeconfig::context_names(words.kubeconfig.as_deref())),
                DIRECTIVE_NO_FILE,
            ),
            "-n" | "--namespace" => (plain(namespaces(words).await), DIRECTIVE_NO_FILE),
            other => match find_flag(subcommand.as_deref(), other) {
                Some(arg) if arg.get_value_hint() == clap::ValueHint::FilePath => {
                    (Vec::new(), DIRECTIVE_DEFAULT)
                }
                Some(arg) => (possible_values(&arg), DIRECTIVE_NO_FILE),
                None => (Vec::new(), DIRECTIVE_NO_FILE),
            },
        },
        Slot::Positional { subcommand, index } => match (subcommand.as_str(), index) {
            ("tail" | "diff" | "bench", 0) => {
                (plain(resource_names(words).await), DIRECTIVE_NO_FILE)
            }
            ("completion", 0) => (enum_positional(subcommand, "shell"), DIRECTIVE_NO_FILE),
            _ => (Vec::new(), DIRECTIVE_NO_FILE),
        },
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

fn enum_positional(subcommand: &str, id: &str) -> Vec<(String, String)> {
    let root = Cli::command();
    root.find_subcommand(subcommand)
        .and_then(|c| c.get_arguments().find(|a| a.get_id() == id))
        .map(possible_values)
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

async fn connect(words: &Words) -> Option<Cluster> {
    let selection = KubeconfigSelection {
        path: words.kubeconfig.clone(),
        context: words.context.clone(),
        ..Default::default()
    };
    Cluster::connect(
        &selection,
        Transport {
            request_timeout: Some(REQUEST_LIMIT),
            ..Transport::default()
        },
    )
    .await
    .ok()
}

/// Resource types that can be listed and watched, named as `kubectl api-resources -o name`.
async fn resource_names(words: &Words) -> Vec<String> {
    let Some(cluster) = connect(words).await else {
        return Vec::new();
    };
    let Ok(resources) = cluster.discover().await else {
        return Vec::new();
    };
    let mut names: Vec<String> = resources
        .iter()
        .filter(|r| r.preferred && r.supports("list") && r.supports("watch"))
        .map(|r| r.qualified_name())
        .collect();
    names.sort();
    names.dedup();
    names
}

async fn namespaces(words: &Words) -> Vec<String> {
    #[derive(serde::Deserialize)]
    struct Metadata {
        name: String,
    }
    #[derive(serde::Deserialize)]
    struct Item {
        metadata: Metadata,
    }
    #[derive(serde::Deserialize)]
    struct List {
        items: Vec<Item>,
    }
    let Some(cluster) = connect(words).await else {
        return Vec::new();
    };
    let op = Operation::new("list", "namespaces", None);
    let Ok(body) = cluster
        .get("/api/v1/namespaces", "application/json", &op)
        .await
    else {
        return Vec::new();
    };
    serde_json::from_slice::<List>(&body)
        .map(|l| l.items.into_iter().map(|i| i.metadata.name).collect())
        .unwrap_or_default()
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
