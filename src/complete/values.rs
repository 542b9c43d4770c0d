//! The values of flags that are small languages of their own, completed piece by piece:
//! `--fault KIND[:OPTION=VALUE,...]`, `--react KIND`, and comma-separated resource lists. Pure:
//! where a piece is a resource type or an object's name, the answer says so and the engine asks
//! the server.

use crate::proxy::fault::{self, KINDS};
use crate::scrape::workload::Kind as MetricsKind;

/// What a value under the cursor completes to.
#[derive(Debug, PartialEq, Eq)]
pub enum Values {
    /// These candidates, each the whole value (`value`, `description`).
    Fixed(Vec<(String, String)>),
    /// `prefix` followed by each resource type the server serves (`owned:`, `deploy,`).
    ResourceTypes { prefix: String },
    /// `KIND/` followed by the name of each object of KIND in the namespace.
    Names { kind: String },
}

/// `--fault`'s value: the kinds; after `KIND:`, its options not given yet (`OPTION=`); after
/// `OPTION=`, the option's fixed values, or resource types for `resource=`.
pub fn fault(partial: &str) -> Values {
    let Some((name, options)) = partial.split_once(':') else {
        let kinds = KINDS.iter().map(|k| {
            let value = match k.needs_options {
                true => format!("{}:", k.name),
                false => k.name.to_string(),
            };
            (value, k.summary.to_string())
        });
        return Values::Fixed(kinds.collect());
    };
    let Some(kind) = KINDS.iter().find(|k| k.name == name) else {
        return Values::Fixed(Vec::new());
    };
    // What is kept: the kind and the options before the last comma.
    let (done, last) = match options.rfind(',') {
        Some(comma) => options.split_at(comma + 1),
        None => ("", options),
    };
    let kept = format!("{name}:{done}");
    if let Some((option, value)) = last.split_once('=') {
        if option == "resource" {
            return Values::ResourceTypes {
                prefix: format!("{kept}resource="),
            };
        }
        // `verb=get+list`: the last verb is completed, those before kept.
        let before = value.rfind('+').map_or("", |plus| &value[..=plus]);
        let values = fault::option_values(option)
            .into_iter()
            .map(|v| (format!("{kept}{option}={before}{v}"), String::new()));
        return Values::Fixed(values.collect());
    }
    let given: Vec<&str> = done
        .split(',')
        .filter_map(|o| o.split_once('=').map(|(k, _)| k))
        .collect();
    let options = kind.options.iter().filter(|o| !given.contains(o));
    Values::Fixed(
        options
            .map(|o| (format!("{kept}{o}="), String::new()))
            .collect(),
    )
}

/// `--react`'s value: the reactions; after `owned:`, resource types.
pub fn react(partial: &str) -> Values {
    if partial.starts_with("owned:") {
        return Values::ResourceTypes {
            prefix: "owned:".to_string(),
        };
    }
    Values::Fixed(vec![
        (
            "observed-generation".to_string(),
            "status.observedGeneration reaches the write's generation".to_string(),
        ),
        (
            "owned:".to_string(),
            "an object of RESOURCE owned by the written one".to_string(),
        ),
        (
            "condition:".to_string(),
            "condition TYPE[=STATUS] for the write".to_string(),
        ),
    ])
}

/// A comma-separated list of resource types (`--state`, `--owned-kinds`): the last one.
pub fn resource_list(partial: &str) -> Values {
    let prefix = partial.rfind(',').map_or("", |comma| &partial[..=comma]);
    Values::ResourceTypes {
        prefix: prefix.to_string(),
    }
}

/// A metrics target (`top TARGET`, `bench --metrics-from`): `KIND/`, then `KIND/NAME`.
pub fn metrics_target(partial: &str) -> Values {
    match partial.split_once('/') {
        Some((kind, _)) if MetricsKind::parse(kind).is_some() => Values::Names {
            kind: kind.to_string(),
        },
        Some(_) => Values::Fixed(Vec::new()),
        None => Values::Fixed(
            MetricsKind::ALL
                .iter()
                .map(|k| (format!("{}/", k.short()), String::new()))
                .collect(),
        ),
    }
}

/// A service account as `sa/NAME` (`--metrics-token-from`).
pub fn service_account(partial: &str) -> Values {
    match partial.split_once('/') {
        Some((kind, _)) => Values::Names {
            kind: kind.to_string(),
        },
        None => Values::Fixed(vec![("sa/".to_string(), String::new())]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixed(values: Values) -> Vec<String> {
        match values {
            Values::Fixed(v) => v.into_iter().map(|(value, _)| value).collect(),
            other => panic!("not fixed: {other:?}"),
        }
    }

    #[test]
    fn a_fault_completes_its_kind_then_its_options_then_their_values() {
        let kinds = fixed(fault(""));
        assert!(kinds.contains(&"sever:".to_string()), "{kinds:?}");
        assert!(kinds.contains(&"gone".to_string()), "{kinds:?}");
        assert_eq!(
            fixed(fault("sever:")),
            ["sever:every=", "sever:at=", "sever:how=", "sever:resource="]
        );
        // An option given is not offered again.
        assert_eq!(
            fixed(fault("sever:every=5s,")),
            [
                "sever:every=5s,at=",
                "sever:every=5s,how=",
                "sever:every=5s,resource="
            ]
        );
        assert_eq!(
            fixed(fault("sever:every=5s,how=")),
            ["sever:every=5s,how=reset", "sever:every=5s,how=end"]
        );
        assert_eq!(
            fixed(fault("crash:after=create+")),
            [
                "crash:after=create+create",
                "crash:after=create+update",
                "crash:after=create+patch",
                "crash:after=create+delete"
            ]
        );
        assert_eq!(
            fault("gone:share=10%,resource=dep"),
            Values::ResourceTypes {
                prefix: "gone:share=10%,resource=".into()
            }
        );
        assert!(fixed(fault("nosuch:")).is_empty());
        assert!(fixed(fault("delay:by=")).is_empty(), "a duration is typed");
    }

    #[test]
    fn a_reaction_completes_its_kind_and_owned_a_resource_type() {
        assert_eq!(
            fixed(react("")),
            ["observed-generation", "owned:", "condition:"]
        );
        assert_eq!(
            react("owned:rep"),
            Values::ResourceTypes {
                prefix: "owned:".into()
            }
        );
    }

    #[test]
    fn metrics_targets_complete_a_kind_then_its_objects() {
        let kinds = fixed(metrics_target(""));
        assert_eq!(kinds, ["deploy/", "sts/", "ds/", "rs/", "svc/", "pod/"]);
        assert_eq!(
            metrics_target("deploy/web"),
            Values::Names {
                kind: "deploy".into()
            }
        );
        assert!(fixed(metrics_target("https://")).is_empty());
        assert_eq!(
            resource_list("secrets,config"),
            Values::ResourceTypes {
                prefix: "secrets,".into()
            }
        );
    }
}
