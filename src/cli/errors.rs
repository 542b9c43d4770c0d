//! clap's errors said in one line, as every error of ours is: an unknown flag as what it is and
//! where the flags are listed, a value a flag refuses as the flag, the value and why.

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

/// clap's answer to a value a flag refuses (`--timeout soon`, `--max-events x`, `-o yml`) is
/// several lines ending with a tip to try `--help`: said instead in one line, as the flag, the
/// value and why (`--timeout soon: not a duration (...)`), or for a flag with a fixed set of
/// values, which ones it takes.
pub(super) fn value_in_one_line(e: clap::Error) -> clap::Error {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    use std::error::Error as _;
    let (Some(ContextValue::String(arg)), Some(ContextValue::String(value))) = (
        e.get(ContextKind::InvalidArg),
        e.get(ContextKind::InvalidValue),
    ) else {
        return e;
    };
    // `--timeout <DURATION>`: the flag as it was written.
    let flag = arg.split_whitespace().next().unwrap_or(arg);
    let why = match (e.kind(), e.get(ContextKind::ValidValue)) {
        (ErrorKind::ValueValidation, _) => match e.source() {
            Some(reason) => reason.to_string(),
            None => return e,
        },
        (ErrorKind::InvalidValue, Some(ContextValue::Strings(valid))) if value.is_empty() => {
            format!("needs a value: one of {}", valid.join(", "))
        }
        (ErrorKind::InvalidValue, Some(ContextValue::Strings(valid))) => {
            format!("not one of {}", valid.join(", "))
        }
        _ => return e,
    };
    let said = if value.is_empty() {
        format!("{flag}: {why}")
    } else if value.contains(char::is_whitespace) {
        format!("{flag} '{value}': {why}")
    } else {
        format!("{flag} {value}: {why}")
    };
    clap::Error::raw(e.kind(), format!("{said}\n"))
}
