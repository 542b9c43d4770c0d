//! Resource names as kubectl accepts them, resolved against discovery: plural, singular, kind,
//! short names, `resource.group` and `resource.version.group`, for built-ins and CRDs alike.

use super::ClusterError;

/// One resource type the server serves, at one version, as discovery describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiResource {
    /// API group; empty for the legacy core group.
    pub group: String,
    pub version: String,
    /// Plural name, as used in URLs (`configmaps`).
    pub plural: String,
    pub singular: String,
    pub kind: String,
    pub short_names: Vec<String>,
    pub namespaced: bool,
    pub verbs: Vec<String>,
    /// Whether `version` is the group's preferred version.
    pub preferred: bool,
}

impl ApiResource {
    /// `v1` or `apps/v1`.
    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }

    /// The name kubectl prints and accepts unambiguously: `configmaps`, `deployments.apps`.
    pub fn qualified_name(&self) -> String {
        if self.group.is_empty() {
            self.plural.clone()
        } else {
            format!("{}.{}", self.plural, self.group)
        }
    }

    /// The collection URL path, in `namespace` when the resource is namespaced and one is given.
    pub fn collection_path(&self, namespace: Option<&str>) -> String {
        let base = if self.group.is_empty() {
            format!("/api/{}", self.version)
        } else {
            format!("/apis/{}/{}", self.group, self.version)
        };
        match namespace {
            Some(ns) if self.namespaced => format!("{base}/namespaces/{ns}/{}", self.plural),
            _ => format!("{base}/{}", self.plural),
        }
    }

    /// Core `v1` Secrets: their values are redacted unless the user asks for them.
    pub fn is_secret(&self) -> bool {
        self.group.is_empty() && self.plural == "secrets"
    }

    /// Whether the server allows `verb` on this resource.
    pub fn supports(&self, verb: &str) -> bool {
        self.verbs.iter().any(|v| v == verb)
    }

    /// This resource, when the server allows every one of `verbs` on it.
    pub fn allowing(self, verbs: &[&str]) -> Result<Self, ClusterError> {
        let missing: Vec<&str> = verbs
            .iter()
            .copied()
            .filter(|v| !self.supports(v))
            .collect();
        if missing.is_empty() {
            return Ok(self);
        }
        Err(ClusterError::NotWatchable {
            resource: self.qualified_name(),
            missing: missing.join(" and "),
        })
    }

    fn is_named(&self, name: &str) -> bool {
        self.plural == name
            || self.singular == name
            || self.kind.eq_ignore_ascii_case(name)
            || self.short_names.iter().any(|s| s == name)
    }
}

/// Finds the resource `arg` names among `resources` (in discovery order), as kubectl would.
///
/// When the name matches in several groups, the legacy core group wins (kubectl's priority, so
/// `events` is `events` in `v1`, not `events.events.k8s.io`); any other tie is ambiguous and
/// the error lists the fully qualified candidates.
/// Resolves each of `args` (kubectl's `a,b,c`), in order; two names of one resource (`po,pods`)
/// are refused.
pub fn resolve_each(
    args: &[String],
    resources: &[ApiResource],
) -> Result<Vec<ApiResource>, ClusterError> {
    let mut resolved: Vec<ApiResource> = Vec::with_capacity(args.len());
    for arg in args {
        let resource = resolve(arg, resources)?;
        if let Some(j) = resolved.iter().position(|r| r == resource) {
            return Err(ClusterError::NamedTwice {
                first: args[j].clone(),
                second: arg.clone(),
                resource: resource.qualified_name(),
            });
        }
        resolved.push(resource.clone());
    }
    Ok(resolved)
}

pub fn resolve<'a>(
    arg: &str,
    resources: &'a [ApiResource],
) -> Result<&'a ApiResource, ClusterError> {
    let lower = arg.to_ascii_lowercase();
    let parts: Vec<&str> = lower.splitn(3, '.').collect();
    let matches: Vec<&ApiResource> = match parts.as_slice() {
        [name] => resources.iter().filter(|r| r.is_named(name)).collect(),
        [name, rest @ ..] => {
            // `resource.version.group` first, then `resource.group` (kubectl's order).
            let full: Vec<&ApiResource> = match rest {
                [version, group] => resources
                    .iter()
                    .filter(|r| r.version == *version && r.group == *group && r.is_named(name))
                    .collect(),
                _ => Vec::new(),
            };
            if full.is_empty() {
                let group = rest.join(".");
                resources
                    .iter()
                    .filter(|r| r.group == group && r.is_named(name))
                    .collect()
            } else {
                full
            }
        }
        [] => Vec::new(),
    };
    if matches.is_empty() {
        return Err(unknown(arg, &parts[0..1].concat(), resources));
    }
    let mut groups: Vec<&str> = Vec::new();
    for r in &matches {
        if !groups.contains(&r.group.as_str()) {
            groups.push(&r.group);
        }
    }
    let group = match groups.as_slice() {
        [one] => *one,
        many if many.contains(&"") => "",
        many => {
            let mut candidates: Vec<String> = many
                .iter()
                .filter_map(|g| matches.iter().find(|r| r.group == *g))
                .map(|r| r.qualified_name())
                .collect();
            candidates.sort();
            candidates.dedup();
            return Err(ClusterError::AmbiguousResource {
                name: arg.to_string(),
                candidates,
            });
        }
    };
    let in_group = matches.iter().filter(|r| r.group == group);
    let chosen = in_group
        .clone()
        .find(|r| r.preferred)
        .or_else(|| in_group.clone().next())
        .copied();
    chosen.ok_or_else(|| unknown(arg, &lower, resources))
}

fn unknown(arg: &str, name: &str, resources: &[ApiResource]) -> ClusterError {
    let suggestions = suggest(name, resources);
    let hint = if suggestions.is_empty() {
        ": list what it serves with `kubectl api-resources`".to_string()
    } else {
        format!(
            ": did you mean {}? (all names: `kubectl api-resources`)",
            suggestions.join(", ")
        )
    };
    ClusterError::UnknownResource {
        name: arg.to_string(),
        hint,
    }
}

/// Up to three resource names closest to `name` by edit distance.
fn suggest(name: &str, resources: &[ApiResource]) -> Vec<String> {
    let limit = (name.len() / 3).max(2);
    let mut scored: Vec<(usize, String)> = Vec::new();
    for r in resources.iter().filter(|r| r.preferred) {
        let best = std::iter::once(&r.plural)
            .chain(std::iter::once(&r.singular))
            .chain(r.short_names.iter())
            .map(|n| edit_distance(name, n))
            .min()
            .unwrap_or(usize::MAX);
        if best <= limit {
            scored.push((best, r.qualified_name()));
        }
    }
    scored.sort();
    scored.dedup_by(|a, b| a.1 == b.1);
    scored.into_iter().take(3).map(|(_, n)| n).collect()
}

/// Levenshtein distance over bytes (resource names are ASCII).
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn res(group: &str, version: &str, plural: &str, kind: &str, short: &[&str]) -> ApiResource {
        ApiResource {
            group: group.into(),
            version: version.into(),
            plural: plural.into(),
            singular: kind.to_ascii_lowercase(),
            kind: kind.into(),
            short_names: short.iter().map(|s| s.to_string()).collect(),
            namespaced: true,
            verbs: vec!["list".into(), "watch".into()],
            preferred: true,
        }
    }

    fn catalog() -> Vec<ApiResource> {
        let mut hpa_v2 = res(
            "autoscaling",
            "v2",
            "horizontalpodautoscalers",
            "HorizontalPodAutoscaler",
            &["hpa"],
        );
        hpa_v2.preferred = true;
        let mut hpa_v1 = hpa_v2.clone();
        hpa_v1.version = "v1".into();
        hpa_v1.preferred = false;
        let mut ns = res("", "v1", "namespaces", "Namespace", &["ns"]);
        ns.namespaced = false;
        vec![
            res("", "v1", "configmaps", "ConfigMap", &["cm"]),
            res("", "v1", "pods", "Pod", &["po"]),
            res("", "v1", "events", "Event", &["ev"]),
            ns,
            res("apps", "v1", "deployments", "Deployment", &["deploy"]),
            hpa_v2,
            hpa_v1,
            res("events.k8s.io", "v1", "events", "Event", &["ev"]),
            res("a.example.com", "v1", "widgets", "Widget", &["wd"]),
            res("b.example.com", "v1", "widgets", "Widget", &["wd"]),
            res("b.example.com", "v1", "gadgets", "Gadget", &["gd"]),
        ]
    }

    fn name_of(arg: &str) -> String {
        let c = catalog();
        let r = resolve(arg, &c).unwrap();
        format!("{}.{}.{}", r.plural, r.version, r.group)
    }

    #[test]
    fn plural_singular_kind_and_short_name_all_resolve() {
        for arg in ["configmaps", "configmap", "ConfigMap", "CONFIGMAPS", "cm"] {
            assert_eq!(name_of(arg), "configmaps.v1.", "{arg}");
        }
        assert_eq!(name_of("deploy"), "deployments.v1.apps");
        assert_eq!(name_of("po"), "pods.v1.");
    }

    #[test]
    fn resource_group_and_resource_version_group_resolve() {
        assert_eq!(name_of("deployments.apps"), "deployments.v1.apps");
        assert_eq!(name_of("deployment.v1.apps"), "deployments.v1.apps");
        assert_eq!(
            name_of("hpa.autoscaling"),
            "horizontalpodautoscalers.v2.autoscaling"
        );
        assert_eq!(
            name_of("hpa.v1.autoscaling"),
            "horizontalpodautoscalers.v1.autoscaling"
        );
        assert_eq!(name_of("widgets.a.example.com"), "widgets.v1.a.example.com");
        assert_eq!(name_of("gd"), "gadgets.v1.b.example.com");
    }

    #[test]
    fn preferred_version_wins_within_a_group() {
        assert_eq!(name_of("hpa"), "horizontalpodautoscalers.v2.autoscaling");
    }

    #[test]
    fn core_group_wins_a_tie_like_kubectl() {
        assert_eq!(name_of("events"), "events.v1.");
        assert_eq!(name_of("events.events.k8s.io"), "events.v1.events.k8s.io");
    }

    #[test]
    fn a_name_in_two_non_core_groups_is_ambiguous_and_lists_both() {
        let c = catalog();
        let err = resolve("wd", &c).unwrap_err().to_string();
        assert!(err.contains("ambiguous"), "{err}");
        assert!(
            err.contains("widgets.a.example.com, widgets.b.example.com"),
            "{err}"
        );
    }

    #[test]
    fn unknown_name_suggests_the_closest() {
        let c = catalog();
        let err = resolve("configmap5", &c).unwrap_err().to_string();
        assert!(err.contains("unknown resource \"configmap5\""), "{err}");
        assert!(err.contains("did you mean configmaps"), "{err}");
        let err = resolve("deployment.apps2", &c).unwrap_err().to_string();
        assert!(err.contains("unknown resource"), "{err}");
        let err = resolve("zzzzzzzzzz", &c).unwrap_err().to_string();
        assert!(err.contains("kubectl api-resources"), "{err}");
        assert!(!err.contains("did you mean"), "{err}");
    }

    #[test]
    fn collection_paths_follow_scope() {
        let c = catalog();
        let cm = resolve("cm", &c).unwrap();
        assert_eq!(
            cm.collection_path(Some("x")),
            "/api/v1/namespaces/x/configmaps"
        );
        assert_eq!(cm.collection_path(None), "/api/v1/configmaps");
        let ns = resolve("ns", &c).unwrap();
        assert_eq!(ns.collection_path(Some("x")), "/api/v1/namespaces");
        let deploy = resolve("deploy", &c).unwrap();
        assert_eq!(
            deploy.collection_path(Some("x")),
            "/apis/apps/v1/namespaces/x/deployments"
        );
    }

    #[test]
    fn edit_distance_counts_single_edits() {
        assert_eq!(edit_distance("pods", "pod"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }
}
