//! An unknown flag said as what it is, and where the flags are listed.

use super::command;

/// clap's answer to an unknown flag (`tail cm --since 5m`) when no flag is near it ends in "to
/// pass '--since' as a value, use '-- --since'", which sends a kubectl user the wrong way: no
/// argument of ours takes a value that starts with `-`. That error is said instead as what it
/// is, and where the flags are listed; clap's own "a similar argument exists" stays.
pub(super) fn without_trailing_tip(e: clap::Error, args: &[String]) -> clap::Error {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    let trailing_tip = matches!(
        e.get(ContextKind::Suggested),
        Some(ContextValue::StyledStrs(tips)) if tips.iter().any(|t| t.to_string().contains("as a value, use"))
    );
    let flag = match e.get(ContextKind::InvalidArg) {
        Some(ContextValue::String(flag)) if e.kind() == ErrorKind::UnknownArgument => flag,
        _ => return e,
    };
    if !trailing_tip {
        return e;
    }
    let cmd = command();
    let sub = args
        .iter()
        .skip(1)
        .find(|a| cmd.get_subcommands().any(|s| s.get_name() == a.as_str()));
    let listed = match sub {
        Some(sub) => format!("`kubectl informer {sub} --help` lists its flags"),
        None => "`kubectl informer --help` lists the commands".to_string(),
    };
    clap::Error::raw(
        ErrorKind::UnknownArgument,
        format!("unknown flag '{flag}': {listed}, `kubectl informer options` the global ones\n"),
    )
}
