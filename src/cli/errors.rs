//! clap's errors said in one line, as every error of ours is: what failed, why, and what to do
//! (an unknown flag as what it is and where the flags are listed, a value a flag refuses as the
//! flag, the value and why), with a suggestion only when it is a near spelling of what was
//! written. clap's own several lines (a usage block, "tip:" lines, "For more information") are
//! never printed; `--help` and `--version` are not errors and pass through as they are.

use super::command;
use clap::error::{ContextKind, ContextValue, ErrorKind};

/// `e` as one line; the help and the version, which clap returns as errors too, unchanged.
pub(super) fn in_one_line(e: clap::Error, args: &[String]) -> clap::Error {
    if !e.use_stderr() || e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
        return e;
    }
    let path = command_path(&e, args);
    let said = match e.kind() {
        ErrorKind::UnknownArgument => unknown_argument(&e, &path),
        ErrorKind::InvalidSubcommand => unknown_command(&e, &path),
        ErrorKind::InvalidValue | ErrorKind::ValueValidation => refused_value(&e, &path),
        ErrorKind::ArgumentConflict => conflict(&e, &path),
        ErrorKind::MissingRequiredArgument => missing(&e, &path),
        ErrorKind::MissingSubcommand => {
            Some(format!("\"{path}\" needs a command: see {path} --help"))
        }
        ErrorKind::NoEquals => string(&e, ContextKind::InvalidArg).map(|arg| {
            let flag = flag_of(arg);
            format!("{flag} takes its value after \"=\", e.g. {flag}=VALUE")
        }),
        _ => None,
    };
    let said = said.unwrap_or_else(|| fallback(&e, &path));
    clap::Error::raw(e.kind(), format!("{said}\n"))
}

/// What `-v` alone is told: kubectl's `-v` needs a level too.
const LEVEL_NEEDED: &str = "-v needs a level, e.g. -v=6 (0 to 9, as kubectl's: 1 says the \
     context, server and user, 6 every request)";

/// The command the error is about, as its help names it (`kubectl informer tail`): from clap's
/// usage line when the error has one, else the first word of `args` that names a command.
fn command_path(e: &clap::Error, args: &[String]) -> String {
    if let Some(ContextValue::StyledStr(usage)) = e.get(ContextKind::Usage) {
        let usage = usage.to_string();
        let words: Vec<&str> = usage
            .trim()
            .trim_start_matches("Usage:")
            .split_whitespace()
            .take_while(|w| !w.starts_with(['[', '<', '-']))
            .collect();
        if words.len() >= 2 {
            return words.join(" ");
        }
    }
    let root = command();
    let sub = args
        .iter()
        .skip(1)
        .find(|a| root.get_subcommands().any(|s| s.get_name() == a.as_str()));
    match sub {
        Some(sub) => format!("kubectl informer {sub}"),
        None => "kubectl informer".to_string(),
    }
}

/// `path`'s command (`kubectl informer tail` is `tail`), built, so that it has the global
/// options too.
fn command_at(path: &str) -> clap::Command {
    let mut root = command();
    root.build();
    match path.split_whitespace().nth(2) {
        Some(name) => root.find_subcommand(name).cloned().unwrap_or(root),
        None => root,
    }
}

fn string(e: &clap::Error, kind: ContextKind) -> Option<&str> {
    match e.get(kind) {
        Some(ContextValue::String(s)) => Some(s),
        _ => None,
    }
}

/// The flag of clap's `--timeout <DURATION>` or `--stats[=<BOOL>]`: `--timeout`, `--stats`;
/// the name of a positional `<RESOURCE>`: `RESOURCE`.
fn flag_of(arg: &str) -> &str {
    match arg.starts_with('-') {
        true => arg.split(['=', ' ', '[']).next().unwrap_or(arg),
        false => arg.trim_matches(['<', '>']),
    }
}

/// A flag no command has (`--since`, a `kubectl logs` habit), or an argument too many.
fn unknown_argument(e: &clap::Error, path: &str) -> Option<String> {
    let arg = string(e, ContextKind::InvalidArg)?;
    if !arg.starts_with('-') || arg == "--" || arg.len() == 1 {
        return Some(argument_too_many(arg, path));
    }
    let flag = flag_of(arg);
    let cmd = command_at(path);
    let known = cmd.get_arguments().flat_map(|a| {
        let long = a.get_long().map(|l| format!("--{l}"));
        let short = a.get_short().map(|s| format!("-{s}"));
        long.into_iter().chain(short)
    });
    Some(match nearest(flag, known) {
        Some(meant) => {
            format!("unknown flag {flag} for \"{path}\": did you mean {meant}? (see {path} --help)")
        }
        None => format!(
            "unknown flag {flag} for \"{path}\": see {path} --help, and kubectl informer \
             options for the global flags"
        ),
    })
}

/// `tail cm name extra`: what the command takes instead.
fn argument_too_many(arg: &str, path: &str) -> String {
    let cmd = command_at(path);
    let takes: Vec<String> = cmd
        .get_positionals()
        .filter(|a| !a.is_hide_set())
        .map(|a| {
            let name = a
                .get_value_names()
                .and_then(|v| v.first())
                .map_or_else(|| a.get_id().to_string(), |v| v.to_string());
            match a.is_required_set() {
                true => name,
                false => format!("[{name}]"),
            }
        })
        .collect();
    let takes = match takes.is_empty() {
        true => "it takes no arguments".to_string(),
        false => format!("it takes {}", takes.join(" ")),
    };
    format!("unexpected argument \"{arg}\" for \"{path}\": {takes} (see {path} --help)")
}

/// `kubectl informer tial`.
fn unknown_command(e: &clap::Error, path: &str) -> Option<String> {
    let sub = string(e, ContextKind::InvalidSubcommand)?;
    let cmd = command_at(path);
    let names = cmd
        .get_subcommands()
        .filter(|c| !c.is_hide_set())
        .map(|c| c.get_name().to_string());
    Some(match nearest(sub, names) {
        Some(meant) => format!(
            "unknown command \"{sub}\" for \"{path}\": did you mean {meant}? (see {path} --help)"
        ),
        None => format!("unknown command \"{sub}\" for \"{path}\": see {path} --help"),
    })
}

/// A value a flag refuses (`--timeout soon`, `--max-events x`, `-o yml`), or none given (`-v`
/// last): the flag, the value and why, or for a flag with a fixed set of values, which ones
/// it takes.
fn refused_value(e: &clap::Error, path: &str) -> Option<String> {
    use std::error::Error as _;
    let arg = string(e, ContextKind::InvalidArg)?;
    let value = string(e, ContextKind::InvalidValue)?;
    let flag = flag_of(arg);
    let valid = match e.get(ContextKind::ValidValue) {
        Some(ContextValue::Strings(valid)) if !valid.is_empty() => Some(valid.join(", ")),
        _ => None,
    };
    // A duration flag takes a value that starts with `-` (`--for -1s`), so `--for -o json`
    // took `-o`: the value is missing, as when the flag is last.
    let a_flag = value.starts_with('-')
        && value
            .trim_start_matches('-')
            .starts_with(char::is_alphabetic);
    if (value.is_empty() && e.kind() == ErrorKind::InvalidValue) || a_flag {
        return Some(match (flag, valid) {
            ("--v", _) => LEVEL_NEEDED.to_string(),
            (_, Some(valid)) => format!("{flag} needs a value: one of {valid}"),
            (_, None) => {
                let name = arg.split_once(' ').map_or("VALUE", |(_, n)| {
                    n.trim_matches(|c| matches!(c, '<' | '>' | '[' | ']' | '.' | '='))
                });
                let before = match a_flag {
                    true => format!(", not the flag {value}"),
                    false => String::new(),
                };
                format!("{flag} needs a value: {flag} {name}{before} (see {path} --help)")
            }
        });
    }
    let why = match (e.kind(), valid) {
        (ErrorKind::ValueValidation, _) => e.source()?.to_string(),
        (ErrorKind::InvalidValue, Some(valid)) => format!("not one of {valid}"),
        _ => return None,
    };
    Some(if value.is_empty() || value.contains(char::is_whitespace) {
        format!("{flag} '{value}': {why}")
    } else {
        format!("{flag} {value}: {why}")
    })
}

/// Two flags that exclude each other (`--from-rv` and `--initial`), or one given twice.
fn conflict(e: &clap::Error, path: &str) -> Option<String> {
    let arg = flag_of(string(e, ContextKind::InvalidArg)?);
    let others: Vec<&str> = match e.get(ContextKind::PriorArg) {
        Some(ContextValue::String(other)) => vec![flag_of(other)],
        Some(ContextValue::Strings(others)) => others.iter().map(|o| flag_of(o)).collect(),
        _ => Vec::new(),
    };
    Some(match others.as_slice() {
        [] => format!("{arg} cannot be used with the other flags given (see {path} --help)"),
        [other] if *other == arg => format!("{arg} cannot be given twice: give it once"),
        _ => format!(
            "{arg} cannot be used with {}: give one of them (see {path} --help)",
            others.join(", ")
        ),
    })
}

/// A required argument or flag left out (`tail` without a resource, `--owned-kinds` without
/// `--follow-owned`).
fn missing(e: &clap::Error, path: &str) -> Option<String> {
    let Some(ContextValue::Strings(required)) = e.get(ContextKind::InvalidArg) else {
        return None;
    };
    let (flags, arguments): (Vec<&str>, Vec<&str>) = required
        .iter()
        .map(|r| flag_of(r))
        .partition(|r| r.starts_with('-'));
    Some(match flags.is_empty() {
        true => format!(
            "\"{path}\" needs {}: see {path} --help",
            arguments.join(" and ")
        ),
        false => format!(
            "{} is needed by a flag given: add it, or drop the flag that needs it (see {path} \
             --help)",
            flags.join(" and ")
        ),
    })
}

/// Any other error: clap's first line, and where the command's help is.
fn fallback(e: &clap::Error, path: &str) -> String {
    let rendered = e.render().to_string();
    let first = rendered
        .lines()
        .next()
        .unwrap_or_default()
        .trim_start_matches("error: ")
        .trim();
    format!("{first}: see {path} --help")
}

/// The candidate nearest to `written` when it is a near spelling of it (one edit for a word of
/// up to 4 letters, two for a longer one, dashes left out; never for a one-letter flag); clap's own
/// suggestions go further (`--tail` for `--until-rv`) and are not used.
fn nearest(written: &str, candidates: impl Iterator<Item = String>) -> Option<String> {
    let bare = written.trim_start_matches('-');
    let dashes = written.len() - bare.len();
    // Every letter is one edit from every other: `-a` is not a misspelling of `-A`.
    if dashes == 1 {
        return None;
    }
    let limit = if bare.chars().count() <= 4 { 1 } else { 2 };
    candidates
        .filter(|c| c.len() - c.trim_start_matches('-').len() == dashes)
        .map(|c| (edit_distance(bare, c.trim_start_matches('-')), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// The edits (a letter inserted, deleted, replaced, or two neighbours swapped: `tial` is one
/// from `tail`) that turn `a` into `b`: the optimal string alignment distance.
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    // d[i][j]: the distance between the first i letters of a and the first j of b.
    let mut d = vec![vec![0; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    d[0] = (0..=b.len()).collect();
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let replace = d[i - 1][j - 1] + usize::from(a[i - 1] != b[j - 1]);
            d[i][j] = replace.min(d[i - 1][j] + 1).min(d[i][j - 1] + 1);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d[i][j] = d[i][j].min(d[i - 2][j - 2] + 1);
            }
        }
    }
    d[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_distance_counts_insertions_deletions_and_substitutions() {
        assert_eq!(edit_distance("selectr", "selector"), 1);
        assert_eq!(edit_distance("tail", "until-rv"), 6);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("tial", "tail"), 1);
    }

    #[test]
    fn only_a_near_spelling_is_suggested() {
        let flags = || {
            [
                "--selector",
                "--until-rv",
                "--show-managed-fields",
                "--all",
                "-A",
            ]
            .into_iter()
            .map(String::from)
        };
        assert_eq!(nearest("--selectr", flags()).as_deref(), Some("--selector"));
        assert_eq!(nearest("--tail", flags()), None);
        assert_eq!(nearest("--show-labels", flags()), None);
        assert_eq!(nearest("--al", flags()).as_deref(), Some("--all"));
        assert_eq!(nearest("-a", flags()), None);
    }
}
