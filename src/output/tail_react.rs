//! `tail --react` for people: what became of a write, as the line that follows the event that
//! decided it (`↳ generation 5: reacted in 84ms (status.observedGeneration 5)`), and the exit
//! summary's count of the writes, with the reaction latency's percentiles.

use super::text::qualified_kind;
use crate::format::{count, format_seconds, human};
use crate::react::{Covers, Fate, Reaction, Signal};
use crate::recording::ReactionEvent;
use crate::tail::{ReactConfig, ReactionStats};

/// What became of the write, after `↳ generation N: `.
pub fn describe_reaction(e: &ReactionEvent<'_>) -> String {
    let generation = e.resolved.write.generation;
    let fate = match &e.resolved.fate {
        Fate::Reacted { signal, took } => {
            format!("reacted in {} ({})", human(*took), shown_by(e, signal))
        }
        Fate::Superseded { newer, .. } => {
            format!("superseded by generation {newer} (coalesced into its reaction)")
        }
        Fate::TimedOut => format!("no reaction within {}", human(e.timeout)),
        Fate::Deleted => "no reaction before the object was deleted".to_string(),
    };
    format!("↳ generation {generation}: {fate}")
}

/// What showed the reaction: the status field (`status.observedGeneration 5`, `condition
/// Available=True, observedGeneration 5`) or the owned object (`replicaset.apps/web-7d9`).
fn shown_by(e: &ReactionEvent<'_>, signal: &Signal) -> String {
    if let (Some(owned), Some(watch)) = (&signal.owned, e.shown_by) {
        return format!(
            "{}/{owned}",
            qualified_kind(&watch.kind, &watch.api_version)
        );
    }
    let observed = match signal.covers {
        Covers::Generation(g) => Some(g),
        Covers::OlderThan(_) => None,
    };
    match (e.reaction, observed) {
        (Reaction::ObservedGeneration, Some(g)) => format!("status.observedGeneration {g}"),
        (Reaction::Condition { kind, status }, observed) => {
            let status = status
                .as_deref()
                .map(|s| format!("={s}"))
                .unwrap_or_default();
            match observed {
                Some(g) => format!("condition {kind}{status}, observedGeneration {g}"),
                None => format!("condition {kind}{status}"),
            }
        }
        (reaction, _) => reaction.to_string(),
    }
}

/// The RV a reaction line shows: the reaction's event's, else the write's.
pub fn reaction_resource_version(e: &ReactionEvent<'_>) -> String {
    match e.resolved.fate.signal() {
        Some(signal) => signal.resource_version.to_string(),
        None => e.resolved.write.resource_version.to_string(),
    }
}

/// The exit summary's line of `--react`: `--react observed-generation: 12 writes: 10 reacted,
/// 2 superseded (...), ...; reaction latency p50 84ms, p90 ..., p99 ..., max ...`.
pub fn reaction_summary(config: &ReactConfig, stats: &ReactionStats) -> String {
    let latency = stats.latency.summary();
    let figures = match latency.count {
        0 => "no reaction to time".to_string(),
        _ => format!(
            "reaction latency p50 {}, p90 {}, p99 {}, max {}",
            format_seconds(latency.p50),
            format_seconds(latency.p90),
            format_seconds(latency.p99),
            format_seconds(latency.max)
        ),
    };
    format!(
        "summary: --react {}: {}: {} reacted, {} superseded (coalesced with a newer write), {} \
         without a reaction within {}, {} deleted before one, {} still waiting; {figures}",
        config.reaction,
        count(stats.writes(), "write"),
        stats.reacted,
        stats.superseded,
        stats.timed_out,
        human(config.timeout),
        stats.deleted,
        stats.waiting,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::react::{Resolved, Write};
    use std::time::{Duration, SystemTime};

    /// A resourceVersion as the formatter is given it, in a write or a signal.
    fn rv<T: std::str::FromStr>(text: &str) -> T
    where
        T::Err: std::fmt::Debug,
    {
        text.parse().unwrap()
    }

    fn said(reaction: &str, fate: Fate, owned: bool) -> String {
        let resolved = Resolved {
            write: Write {
                key: "app/web".into(),
                sent: SystemTime::UNIX_EPOCH,
                generation: 5,
                resource_version: rv("501"),
            },
            fate,
        };
        let deployments = crate::recording::StartNotice {
            resource: "deployments.apps".into(),
            api_version: "apps/v1".into(),
            kind: "Deployment".into(),
            ..crate::recording::writer::tests::configmaps()
        };
        let replicasets = crate::recording::StartNotice {
            resource: "replicasets.apps".into(),
            kind: "ReplicaSet".into(),
            ..deployments.clone()
        };
        let reaction = Reaction::parse(reaction).unwrap();
        describe_reaction(&ReactionEvent {
            watch: &deployments,
            shown_by: Some(if owned { &replicasets } else { &deployments }),
            reaction: &reaction,
            timeout: Duration::from_secs(30),
            uid: "u1",
            resolved: &resolved,
            at: SystemTime::UNIX_EPOCH,
        })
    }

    fn signal(covers: Covers, owned: Option<&str>) -> Signal {
        Signal {
            key: "app/web".into(),
            at: SystemTime::UNIX_EPOCH,
            covers,
            resource_version: rv("503"),
            owned: owned.map(str::to_string),
        }
    }

    #[test]
    fn a_write_s_fate_reads_as_what_showed_its_reaction() {
        let took = Duration::from_millis(84);
        let reacted = |covers, owned| Fate::Reacted {
            signal: signal(covers, owned),
            took,
        };
        assert_eq!(
            said(
                "observed-generation",
                reacted(Covers::Generation(5), None),
                false
            ),
            "↳ generation 5: reacted in 84ms (status.observedGeneration 5)"
        );
        assert_eq!(
            said(
                "owned:rs",
                reacted(Covers::OlderThan(rv("503")), Some("web-7d9")),
                true
            ),
            "↳ generation 5: reacted in 84ms (replicaset.apps/web-7d9)"
        );
        assert_eq!(
            said(
                "condition:Available=True",
                reacted(Covers::Generation(5), None),
                false
            ),
            "↳ generation 5: reacted in 84ms (condition Available=True, observedGeneration 5)"
        );
        assert_eq!(
            said(
                "condition:Ready",
                reacted(Covers::OlderThan(rv("503")), None),
                false
            ),
            "↳ generation 5: reacted in 84ms (condition Ready)"
        );
        let superseded = Fate::Superseded {
            signal: signal(Covers::Generation(6), None),
            newer: 6,
        };
        assert_eq!(
            said("observed-generation", superseded, false),
            "↳ generation 5: superseded by generation 6 (coalesced into its reaction)"
        );
        assert_eq!(
            said("observed-generation", Fate::TimedOut, false),
            "↳ generation 5: no reaction within 30s"
        );
        assert_eq!(
            said("observed-generation", Fate::Deleted, false),
            "↳ generation 5: no reaction before the object was deleted"
        );
    }

    #[test]
    fn the_summary_counts_every_write_and_gives_the_latency_s_percentiles() {
        let config = ReactConfig {
            reaction: Reaction::ObservedGeneration,
            timeout: Duration::from_secs(30),
        };
        let mut stats = ReactionStats {
            reacted: 2,
            superseded: 1,
            timed_out: 1,
            deleted: 0,
            waiting: 1,
            ..ReactionStats::default()
        };
        assert!(reaction_summary(&config, &stats).ends_with("; no reaction to time"));
        stats.latency.record(Duration::from_millis(200));
        stats.latency.record(Duration::from_millis(300));
        assert_eq!(
            reaction_summary(&config, &stats),
            "summary: --react observed-generation: 5 writes: 2 reacted, 1 superseded \
             (coalesced with a newer write), 1 without a reaction within 30s, 0 deleted before \
             one, 1 still waiting; reaction latency p50 200ms, p90 300ms, p99 300ms, max 300ms"
        );
    }
}
