//! The faults `proxy --fault` puts in front of a client, as written on the command line:
//! `KIND[:OPTION=VALUE,...]`. Some happen at moments (`at=D` once, `every=D` or `every=D1-D2`
//! over and over, timed from the proxy's start) and act on what is open then; the others act on
//! each request or watch in their scope, on a share of them (`share=P%`).

use crate::duration;
use std::fmt;
use std::time::Duration;

/// One `--fault`.
#[derive(Debug, Clone, PartialEq)]
pub struct Fault {
    pub kind: Kind,
    /// The resource it is limited to, as the user named it (resolved at start); `None`: all.
    pub resource: Option<String>,
    /// The verbs it is limited to (`error`, and the writes a `crash:after=` follows; the others
    /// say which verbs they act on).
    pub verbs: Vec<Verb>,
    /// When a timed fault happens.
    pub schedule: Option<Schedule>,
    /// The share of the requests (or watches) in scope it applies to, in (0, 1].
    pub share: f64,
    /// As the user wrote it, to name it in notices.
    pub text: String,
}

/// What a fault does.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// Every open watch in scope is cut: its stream ends cleanly (`end`, as at the server's
    /// timeout) or is reset (`reset`: HTTP/2 RST_STREAM, an HTTP/1.1 connection dropped).
    Sever { reset: bool },
    /// Every connection carrying a watch in scope stops: nothing read or written, HTTP/2 PINGs
    /// unanswered, for this long (a dead peer).
    Silence { length: Duration },
    /// Every open watch in scope sends nothing for this long, then what it held (a stalled
    /// watch cache; the connection answers PINGs).
    Stall { length: Duration },
    /// Every connection is closed and new ones are refused for this long (an API server
    /// restart).
    Refuse { length: Duration },
    /// A watch that resumes where one of the same resource ended is answered 410 Gone.
    Gone,
    /// BOOKMARK events are dropped: all of them, or only the initial-events-end one.
    DropBookmarks { initial_events_end_only: bool },
    /// Every event of a watch is held this long before it is sent (a lagging watch cache).
    Delay { by: Duration },
    /// Requests are answered with this status (and `Retry-After`, in whole seconds).
    Error {
        status: u16,
        retry_after: Option<u64>,
    },
    /// Each LIST request (each page) is answered this much later.
    SlowList { by: Duration },
    /// The controller the proxy started (`proxy ... -- CMD`) is killed with SIGKILL and started
    /// again: with `nth`, right after the server has committed the `nth` write in scope (of the
    /// fault's verbs), before the controller sees the answer, once; without it, at the fault's
    /// moments (`at`, `every`).
    Crash { nth: Option<u64> },
    /// A watch's events of one object within this window of its first are sent as one, the
    /// newest, at the place of the last (resourceVersion order kept), typed as a relist would
    /// show the change: what a client that relisted, or was slow, sees.
    Coalesce { window: Duration },
    /// LISTs, watch-lists, watches from "0" and resumed watches are served as an API server
    /// whose watch cache lags this far behind would serve them: from the resourceVersion the
    /// cluster had `by` ago, each watch event `by` after it happened. With `on_restart`, only
    /// once a `crash` has restarted the controller (it came back on a lagging API server); with
    /// `at`/`for`, only requests in that period (from the start, or from the last restart).
    Stale {
        by: Duration,
        length: Option<Duration>,
        on_restart: bool,
    },
}

/// When a timed fault happens, from the proxy's start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Schedule {
    At(Duration),
    /// Every `min`, or at a random time in `[min, max]` after the last one.
    Every {
        min: Duration,
        max: Duration,
    },
}

/// What a request does, as kube-apiserver's authorizer names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Verb {
    Get,
    List,
    Watch,
    Create,
    Update,
    Patch,
    Delete,
}

impl Verb {
    /// The verbs that write.
    pub const WRITES: [Verb; 4] = [Verb::Create, Verb::Update, Verb::Patch, Verb::Delete];

    pub const ALL: [Verb; 7] = [
        Verb::Get,
        Verb::List,
        Verb::Watch,
        Verb::Create,
        Verb::Update,
        Verb::Patch,
        Verb::Delete,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Verb::Get => "get",
            Verb::List => "list",
            Verb::Watch => "watch",
            Verb::Create => "create",
            Verb::Update => "update",
            Verb::Patch => "patch",
            Verb::Delete => "delete",
        }
    }
}

/// A fault's kind as the command line names it: the options it takes, whether one of them
/// must be given, and what it does in a few words (for completion).
#[derive(Debug, Clone, Copy)]
pub struct KindSpec {
    pub name: &'static str,
    pub options: &'static [&'static str],
    /// Some option is required (a moment, a length, a status): the kind alone does not parse.
    pub needs_options: bool,
    pub summary: &'static str,
}

const fn spec(
    name: &'static str,
    options: &'static [&'static str],
    needs_options: bool,
    summary: &'static str,
) -> KindSpec {
    KindSpec {
        name,
        options,
        needs_options,
        summary,
    }
}

/// The kinds, with the options each takes, for messages, help and completion.
pub const KINDS: [KindSpec; 13] = [
    spec(
        "sever",
        &["every", "at", "how", "resource"],
        true,
        "cut every open watch",
    ),
    spec(
        "silence",
        &["every", "at", "for", "resource"],
        true,
        "connections carrying a watch go dead",
    ),
    spec(
        "stall",
        &["every", "at", "for", "resource"],
        true,
        "open watches send nothing, then what they held",
    ),
    spec(
        "refuse",
        &["every", "at", "for"],
        true,
        "connections closed and refused (a server restart)",
    ),
    spec(
        "gone",
        &["share", "resource"],
        false,
        "a resumed watch is answered 410 Gone",
    ),
    spec(
        "drop-bookmarks",
        &["share", "resource"],
        false,
        "BOOKMARK events dropped",
    ),
    spec(
        "drop-initial-events-end",
        &["share", "resource"],
        false,
        "the initial-events-end bookmark dropped",
    ),
    spec(
        "delay",
        &["by", "share", "resource"],
        true,
        "every watch event sent later",
    ),
    spec(
        "error",
        &["status", "retry-after", "verb", "share", "resource"],
        true,
        "requests answered with an error status",
    ),
    spec(
        "slow-list",
        &["by", "share", "resource"],
        true,
        "every LIST page answered later",
    ),
    spec(
        "crash",
        &["after", "nth", "every", "at", "resource"],
        true,
        "the controller killed and started again",
    ),
    spec(
        "coalesce",
        &["window", "resource"],
        true,
        "an object's events within a window sent as one",
    ),
    spec(
        "stale",
        &["by", "on", "at", "for", "resource"],
        true,
        "served as by a lagging watch cache",
    ),
];

/// The values an option takes from a fixed set (`how=`, `on=`, the verbs of `verb=` and
/// `after=`, several joined by `+`); empty for the others (durations, numbers, resources).
pub fn option_values(option: &str) -> Vec<&'static str> {
    match option {
        "how" => vec!["reset", "end"],
        "on" => vec!["restart"],
        "verb" => Verb::ALL.iter().map(|v| v.name()).collect(),
        "after" => WRITES.iter().map(|v| v.name()).collect(),
        _ => Vec::new(),
    }
}

/// The verbs that write, which a `crash:after=` names.
const WRITES: [Verb; 4] = Verb::WRITES;

impl Fault {
    /// A crash right after the server has committed the controller's first `verb` of
    /// `resource`: `crash:after=VERB,resource=R`.
    pub fn crash_after(verb: Verb, resource: &str) -> Fault {
        Fault {
            kind: Kind::Crash { nth: Some(1) },
            resource: Some(resource.to_string()),
            verbs: vec![verb],
            schedule: None,
            share: 1.0,
            text: format!("crash:after={},resource={resource}", verb.name()),
        }
    }

    /// A view of `resource` lagging `by` from each restart of the controller, for as long
    /// again (then it catches up): `stale:by=D,on=restart,for=D,resource=R`.
    pub fn stale_on_restart(by: Duration, resource: &str) -> Fault {
        Fault {
            kind: Kind::Stale {
                by,
                length: Some(by),
                on_restart: true,
            },
            resource: Some(resource.to_string()),
            verbs: Vec::new(),
            schedule: None,
            share: 1.0,
            text: format!(
                "stale:by={0},on=restart,for={0},resource={resource}",
                crate::format::duration(by)
            ),
        }
    }

    /// The events of each object of `resource` within `window` sent as one:
    /// `coalesce:window=D,resource=R`.
    pub fn coalesce(window: Duration, resource: &str) -> Fault {
        Fault {
            kind: Kind::Coalesce { window },
            resource: Some(resource.to_string()),
            verbs: Vec::new(),
            schedule: None,
            share: 1.0,
            text: format!(
                "coalesce:window={},resource={resource}",
                crate::format::duration(window)
            ),
        }
    }

    /// Parses `--fault TEXT`; the error reads well after `--fault TEXT: `.
    pub fn parse(text: &str) -> Result<Fault, String> {
        let text = text.trim();
        let (name, options) = text.split_once(':').unwrap_or((text, ""));
        let Some((name, allowed)) = KINDS
            .iter()
            .find(|k| k.name == name)
            .map(|k| (k.name, k.options))
        else {
            let kinds: Vec<&str> = KINDS.iter().map(|k| k.name).collect();
            return Err(format!(
                "unknown fault \"{name}\": use one of {}",
                kinds.join(", ")
            ));
        };
        let mut given = Options::default();
        for option in options.split(',').filter(|o| !o.trim().is_empty()) {
            let (key, value) = option.split_once('=').ok_or_else(|| {
                format!(
                    "\"{option}\" is not OPTION=VALUE: {name} takes {}",
                    allowed.join(", ")
                )
            })?;
            let (key, value) = (key.trim(), value.trim());
            if !allowed.contains(&key) {
                return Err(format!(
                    "{name} has no option \"{key}\": it takes {}",
                    allowed.join(", ")
                ));
            }
            given.set(key, value)?;
        }
        given.into_fault(name, text)
    }

    /// Whether it happens at moments (`at`/`every`) rather than on each request (the engine
    /// reads `schedule` itself).
    #[cfg(test)]
    fn is_timed(&self) -> bool {
        self.schedule.is_some()
    }

    /// The kind's name, as written.
    pub fn name(&self) -> &'static str {
        match self.kind {
            Kind::Sever { .. } => "sever",
            Kind::Silence { .. } => "silence",
            Kind::Stall { .. } => "stall",
            Kind::Refuse { .. } => "refuse",
            Kind::Gone => "gone",
            Kind::DropBookmarks {
                initial_events_end_only: false,
            } => "drop-bookmarks",
            Kind::DropBookmarks {
                initial_events_end_only: true,
            } => "drop-initial-events-end",
            Kind::Delay { .. } => "delay",
            Kind::Error { .. } => "error",
            Kind::SlowList { .. } => "slow-list",
            Kind::Crash { .. } => "crash",
            Kind::Coalesce { .. } => "coalesce",
            Kind::Stale { .. } => "stale",
        }
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// The options as given, each checked on its own; [`Options::into_fault`] checks them together.
#[derive(Default)]
struct Options {
    every: Option<(Duration, Duration)>,
    at: Option<Duration>,
    length: Option<Duration>,
    by: Option<Duration>,
    reset: Option<bool>,
    share: Option<f64>,
    resource: Option<String>,
    status: Option<u16>,
    retry_after: Option<u64>,
    verbs: Vec<Verb>,
    after: Vec<Verb>,
    nth: Option<u64>,
    window: Option<Duration>,
    on_restart: bool,
}

impl Options {
    fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
        let length =
            |value: &str| duration::parse(value).map_err(|e| format!("{key}={value}: {e}"));
        let positive = |value: &str| match length(value)? {
            d if d.is_zero() => Err(format!("{key}={value}: must be above 0")),
            d => Ok(d),
        };
        match key {
            "every" => {
                // `D1-D2`; a leading `-` is a sign, which the duration refuses.
                let (min, max) = match value.split_once('-') {
                    Some((min, max)) if !min.is_empty() => (positive(min)?, positive(max)?),
                    _ => (positive(value)?, positive(value)?),
                };
                if max < min {
                    return Err(format!(
                        "every={value}: a range is written low-high, e.g. every=5s-20s"
                    ));
                }
                self.every = Some((min, max));
            }
            "at" => self.at = Some(length(value)?),
            "for" => self.length = Some(positive(value)?),
            "by" => self.by = Some(positive(value)?),
            "window" => self.window = Some(positive(value)?),
            "on" => self.on_restart = on(value)?,
            "how" => {
                self.reset = Some(match value {
                    "reset" => true,
                    "end" => false,
                    _ => return Err(format!("how={value}: use how=reset or how=end")),
                })
            }
            "share" => self.share = Some(share(value)?),
            "resource" if value.is_empty() => {
                return Err("resource= needs a resource, e.g. resource=deployments".into())
            }
            "resource" => self.resource = Some(value.to_string()),
            "status" => {
                self.status = Some(
                    value
                        .parse::<u16>()
                        .ok()
                        .filter(|s| (400..=599).contains(s))
                        .ok_or_else(|| {
                            format!(
                            "status={value}: use an HTTP error status, 400 to 599, e.g. 429 or 500"
                        )
                        })?,
                )
            }
            "retry-after" => {
                let d = length(value)?;
                if d.subsec_nanos() != 0 {
                    return Err(format!(
                        "retry-after={value}: Retry-After is whole seconds, e.g. retry-after=1s"
                    ));
                }
                self.retry_after = Some(d.as_secs());
            }
            "verb" => self.verbs = verbs(value, &Verb::ALL, "verb", "a verb")?,
            "after" => self.after = verbs(value, &WRITES, "after", "a write")?,
            "nth" => {
                self.nth = Some(
                    value
                        .parse::<u64>()
                        .ok()
                        .filter(|n| *n > 0)
                        .ok_or_else(|| {
                            format!(
                                "nth={value}: write which write it is, counted from 1, e.g. nth=2"
                            )
                        })?,
                )
            }
            _ => unreachable!("every option a kind allows is set here"),
        }
        Ok(())
    }

    /// A crash happens after a write (`after=`, counted by `nth=`) or at moments, one of them.
    fn check_crash(&self, timed: bool) -> Result<(), String> {
        match (timed, self.after.is_empty()) {
            (true, false) => Err(
                "crash: give after=VERB (right after a write) or at=D/every=D, not both".into(),
            ),
            (false, true) => Err("crash needs a moment: after=VERB (right after the server committed a write of the controller's, e.g. after=create) or at=D/every=D".into()),
            (true, true) if self.nth.is_some() => {
                Err("crash: nth= counts the writes of after=VERB; with at/every it means nothing".into())
            }
            _ => Ok(()),
        }
    }

    /// A `stale`: `by`, and a period from the start (`at`, `for`) or from each restart.
    fn stale(&self, schedule: Option<Schedule>) -> Result<Kind, String> {
        let by = self.by.ok_or_else(|| {
            "stale needs by=D, how far behind the served state is (e.g. by=30s)".to_string()
        })?;
        if self.on_restart && schedule.is_some() {
            return Err("stale: on=restart starts at each restart; at=D means nothing with it (for=D says how long it lasts)".into());
        }
        Ok(Kind::Stale {
            by,
            length: self.length,
            on_restart: self.on_restart,
        })
    }

    fn into_fault(self, name: &str, text: &str) -> Result<Fault, String> {
        let schedule = match (self.at, self.every) {
            (Some(_), Some(_)) => {
                return Err(format!(
                    "{name}: give at (once) or every (again and again), not both"
                ))
            }
            (Some(at), None) => Some(Schedule::At(at)),
            (None, Some((min, max))) => Some(Schedule::Every { min, max }),
            (None, None) => None,
        };
        let timed = KINDS
            .iter()
            .any(|k| k.name == name && k.options.contains(&"every"));
        if name == "crash" {
            self.check_crash(schedule.is_some())?;
        } else if timed && schedule.is_none() {
            return Err(format!(
                "{name} needs a time: at=D (once) or every=D (e.g. every=10s)"
            ));
        }
        let length = || {
            self.length
                .ok_or_else(|| format!("{name} needs for=D, how long it lasts (e.g. for=1m)"))
        };
        let by = || {
            self.by
                .ok_or_else(|| format!("{name} needs by=D, how much later (e.g. by=2s)"))
        };
        let kind = match name {
            "sever" => Kind::Sever {
                reset: self.reset.unwrap_or(true),
            },
            "silence" => Kind::Silence { length: length()? },
            "stall" => Kind::Stall { length: length()? },
            "refuse" => Kind::Refuse { length: length()? },
            "gone" => Kind::Gone,
            "drop-bookmarks" | "drop-initial-events-end" => Kind::DropBookmarks {
                initial_events_end_only: name == "drop-initial-events-end",
            },
            "delay" => Kind::Delay { by: by()? },
            "error" => Kind::Error {
                status: self.status.ok_or_else(|| {
                    "error needs status=CODE, e.g. status=429 or status=500".to_string()
                })?,
                retry_after: self.retry_after,
            },
            "slow-list" => Kind::SlowList { by: by()? },
            "coalesce" => Kind::Coalesce {
                window: self.window.ok_or_else(|| {
                    "coalesce needs window=D, how long an object's events are gathered (e.g. window=5s)"
                        .to_string()
                })?,
            },
            "stale" => self.stale(schedule)?,
            "crash" => Kind::Crash {
                nth: (!self.after.is_empty()).then(|| self.nth.unwrap_or(1)),
            },
            _ => unreachable!("every kind in KINDS is built here"),
        };
        let verbs = match (&kind, self.verbs.is_empty()) {
            (Kind::Error { .. }, true) => vec![Verb::List, Verb::Watch],
            (Kind::Crash { .. }, _) => self.after,
            _ => self.verbs,
        };
        Ok(Fault {
            kind,
            resource: self.resource,
            verbs,
            schedule,
            share: self.share.unwrap_or(1.0),
            text: text.to_string(),
        })
    }
}

/// `VERB+VERB`, each one of `allowed`; `key` and `what` name them in the error.
fn verbs(value: &str, allowed: &[Verb], key: &str, what: &str) -> Result<Vec<Verb>, String> {
    value
        .split('+')
        .map(|verb| {
            allowed
                .iter()
                .copied()
                .find(|v| v.name() == verb)
                .ok_or_else(|| {
                    let names: Vec<&str> = allowed.iter().map(|v| v.name()).collect();
                    format!(
                        "{key}={value}: \"{verb}\" is not {what}: use {} (several joined by +)",
                        names.join(", ")
                    )
                })
        })
        .collect()
}

/// `on=restart`, the one moment a `stale` starts at other than the proxy's start.
fn on(value: &str) -> Result<bool, String> {
    match value {
        "restart" => Ok(true),
        _ => Err(format!(
            "on={value}: use on=restart (served stale once a crash restarted the controller)"
        )),
    }
}

/// `P%`, a share above 0 and at most 100%.
fn share(value: &str) -> Result<f64, String> {
    let percent = value
        .strip_suffix('%')
        .and_then(|p| p.trim().parse::<f64>().ok())
        .filter(|p| p.is_finite())
        .ok_or_else(|| format!("share={value}: write a percentage, e.g. share=20%"))?;
    if percent <= 0.0 || percent > 100.0 {
        return Err(format!(
            "share={value}: a share is above 0% and at most 100%"
        ));
    }
    Ok(percent / 100.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secs(s: u64) -> Duration {
        Duration::from_secs(s)
    }

    #[test]
    fn a_kind_parses_alone_exactly_when_the_table_says_it_needs_no_option() {
        for kind in KINDS {
            assert_eq!(
                Fault::parse(kind.name).is_err(),
                kind.needs_options,
                "{}",
                kind.name
            );
            for option in kind.options {
                for value in option_values(option) {
                    let text = format!("{}:{option}={value}", kind.name);
                    let refused = Fault::parse(&text).err().unwrap_or_default();
                    assert!(!refused.contains(value), "{text}: {refused}");
                }
            }
        }
    }

    #[test]
    fn timed_faults_take_a_moment_or_a_period_and_the_rest_a_share() {
        let sever = Fault::parse("sever:every=5s-20s,how=end,resource=deployments.apps").unwrap();
        assert_eq!(sever.kind, Kind::Sever { reset: false });
        assert_eq!(
            sever.schedule,
            Some(Schedule::Every {
                min: secs(5),
                max: secs(20)
            })
        );
        assert_eq!(sever.resource.as_deref(), Some("deployments.apps"));
        assert!(sever.is_timed());
        let silence = Fault::parse("silence:at=30s,for=2m").unwrap();
        assert_eq!(silence.kind, Kind::Silence { length: secs(120) });
        assert_eq!(silence.schedule, Some(Schedule::At(secs(30))));
        assert_eq!(
            Fault::parse("sever:every=3s").unwrap().kind,
            Kind::Sever { reset: true }
        );
        let error = Fault::parse("error:status=429,retry-after=1s,share=20%").unwrap();
        assert_eq!(
            error.kind,
            Kind::Error {
                status: 429,
                retry_after: Some(1)
            }
        );
        assert_eq!(error.verbs, vec![Verb::List, Verb::Watch]);
        assert!((error.share - 0.2).abs() < 1e-12);
        assert!(!error.is_timed());
        let gets = Fault::parse("error:status=500,verb=get+create").unwrap();
        assert_eq!(gets.verbs, vec![Verb::Get, Verb::Create]);
        assert_eq!(
            Fault::parse("drop-initial-events-end").unwrap().kind,
            Kind::DropBookmarks {
                initial_events_end_only: true
            }
        );
        let crash = Fault::parse("crash:after=create+patch,nth=2,resource=configmaps").unwrap();
        assert_eq!(crash.kind, Kind::Crash { nth: Some(2) });
        assert_eq!(crash.verbs, vec![Verb::Create, Verb::Patch]);
        assert!(!crash.is_timed());
        assert_eq!(
            Fault::parse("crash:after=delete").unwrap().kind,
            Kind::Crash { nth: Some(1) },
            "the first write, unless told"
        );
        assert_eq!(
            Fault::parse("coalesce:window=5s,resource=configmaps")
                .unwrap()
                .kind,
            Kind::Coalesce { window: secs(5) }
        );
        let timed = Fault::parse("crash:every=30s").unwrap();
        assert_eq!(timed.kind, Kind::Crash { nth: None });
        assert!(timed.is_timed());
        assert_eq!(Fault::parse("gone").unwrap().share, 1.0);
        assert_eq!(Fault::parse("gone").unwrap().name(), "gone");
    }

    #[test]
    fn stale_takes_its_lag_and_a_period_from_the_start_or_from_each_restart() {
        let stale = Fault::parse("stale:by=30s,at=1m,for=2m,resource=configmaps").unwrap();
        assert_eq!(
            stale.kind,
            Kind::Stale {
                by: secs(30),
                length: Some(secs(120)),
                on_restart: false
            }
        );
        assert_eq!(stale.schedule, Some(Schedule::At(secs(60))));
        assert_eq!(
            Fault::parse("stale:by=1m").unwrap().kind,
            Kind::Stale {
                by: secs(60),
                length: None,
                on_restart: false
            },
            "the whole run, unless told"
        );
        assert_eq!(
            Fault::parse("stale:by=30s,on=restart,for=1m").unwrap().kind,
            Kind::Stale {
                by: secs(30),
                length: Some(secs(60)),
                on_restart: true
            }
        );
    }

    #[test]
    fn bad_faults_say_what_is_wrong_and_what_to_write() {
        let cases = [
            (
                "explode",
                "unknown fault \"explode\": use one of sever, silence",
            ),
            ("sever", "sever needs a time: at=D (once) or every=D"),
            (
                "sever:every=-5s",
                "every=-5s: a duration cannot be negative",
            ),
            ("sever:every=0s", "every=0s: must be above 0"),
            ("sever:every=20s-5s", "a range is written low-high"),
            (
                "sever:at=1s,every=2s",
                "give at (once) or every (again and again), not both",
            ),
            ("sever:how=gently,every=1s", "use how=reset or how=end"),
            (
                "sever:for=1s,every=1s",
                "sever has no option \"for\": it takes every, at, how",
            ),
            ("silence:at=1s", "silence needs for=D"),
            ("delay", "delay needs by=D"),
            (
                "gone:share=150%",
                "share=150%: a share is above 0% and at most 100%",
            ),
            ("gone:share=0%", "a share is above 0%"),
            ("gone:share=0.5", "write a percentage, e.g. share=20%"),
            ("error:share=10%", "error needs status=CODE"),
            ("error:status=200", "use an HTTP error status, 400 to 599"),
            (
                "error:status=429,retry-after=1.5s",
                "Retry-After is whole seconds",
            ),
            ("error:status=500,verb=frob", "\"frob\" is not a verb"),
            ("gone:resource=", "resource= needs a resource"),
            ("gone:share", "\"share\" is not OPTION=VALUE"),
            ("crash", "crash needs a moment: after=VERB"),
            (
                "crash:after=list",
                "\"list\" is not a write: use create, update",
            ),
            ("crash:after=create,every=5s", "not both"),
            (
                "crash:every=5s,nth=2",
                "nth= counts the writes of after=VERB",
            ),
            ("crash:after=create,nth=0", "counted from 1"),
            ("stale", "stale needs by=D"),
            ("stale:by=0s", "by=0s: must be above 0"),
            ("stale:by=5s,every=1m", "stale has no option \"every\""),
            ("stale:by=5s,on=start", "use on=restart"),
            ("stale:by=5s,on=restart,at=1m", "at=D means nothing with it"),
            (
                "crash:after=create,share=5%",
                "crash has no option \"share\"",
            ),
        ];
        for (text, expected) in cases {
            let e = Fault::parse(text).expect_err(text);
            assert!(e.contains(expected), "{text}: {e}");
            assert!(!e.contains('\n'), "{text}: {e}");
        }
    }
}
