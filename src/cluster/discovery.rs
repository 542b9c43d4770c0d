//! Discovery documents, as the API server serves them, turned into the one list of resources that
//! name resolution reads. Three shapes, asked for and read the way client-go's discovery client
//! does (`discovery_client.go`):
//!
//! - aggregated discovery `apidiscovery.k8s.io/v2` (Kubernetes 1.30+): `/api` and `/apis` each
//!   answer with every group, version and resource in one `APIGroupDiscoveryList`;
//! - the same document as `apidiscovery.k8s.io/v2beta1` (1.26-1.29; on by default from 1.27),
//!   of the same shape;
//! - legacy discovery, when neither is served: `/api` answers `APIVersions`, `/apis` an
//!   `APIGroupList`, and each group version's resources come from one more request
//!   (`/api/v1`, `/apis/<group>/<version>`) as an `APIResourceList`.
//!
//! All three give the same `ApiResource`s: subresources (`pods/log`) are left out, the
//! preferred version is marked, and versions keep the server's priority order.

use super::resolve::ApiResource;
use kube::core::discovery::v2::APIGroupDiscoveryList;
use serde::Deserialize;

/// The Accept header of `/api` and `/apis`: aggregated v2, else v2beta1, else legacy JSON
/// (client-go's `acceptDiscoveryFormats`).
pub const ACCEPT: &str = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,\
                          application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,\
                          application/json";

/// What `/api` or `/apis` answered.
#[derive(Debug)]
pub enum Root {
    /// An aggregated document (v2 or v2beta1), already flattened.
    Aggregated(Vec<ApiResource>),
    /// Legacy discovery: the group versions whose resources must be asked for one by one.
    Legacy(Vec<GroupVersion>),
}

/// One group version of legacy discovery, in the server's priority order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupVersion {
    /// Empty for the legacy core group.
    pub group: String,
    pub version: String,
    /// Whether this is the group's preferred version.
    pub preferred: bool,
}

impl GroupVersion {
    /// Where its `APIResourceList` is served: `/api/v1`, `/apis/apps/v1`.
    pub fn path(&self) -> String {
        if self.group.is_empty() {
            format!("/api/{}", self.version)
        } else {
            format!("/apis/{}/{}", self.group, self.version)
        }
    }

    /// `v1`, `apps/v1`.
    pub fn name(&self) -> String {
        if self.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }
}

impl Root {
    /// Reads the body of `/api` or `/apis`. Which document it is comes from its `kind` and
    /// `apiVersion`, which say what client-go reads from the Content-Type parameters. The error
    /// is a fragment saying what was found instead.
    pub fn parse(body: &[u8]) -> Result<Root, String> {
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct TypeMeta {
            #[serde(default)]
            kind: String,
            #[serde(default)]
            api_version: String,
        }
        let meta: TypeMeta = serde_json::from_slice(body)
            .map_err(|e| format!("something that is not JSON ({e})"))?;
        let json_error = |e: serde_json::Error| format!("a {} it cannot read ({e})", meta.kind);
        match (meta.kind.as_str(), meta.api_version.as_str()) {
            ("APIGroupDiscoveryList", "apidiscovery.k8s.io/v2" | "apidiscovery.k8s.io/v2beta1") => {
                let list: APIGroupDiscoveryList =
                    serde_json::from_slice(body).map_err(json_error)?;
                Ok(Root::Aggregated(flatten_aggregated(list)))
            }
            ("APIVersions", _) => {
                let versions: LegacyVersions = serde_json::from_slice(body).map_err(json_error)?;
                Ok(Root::Legacy(
                    versions
                        .versions
                        .into_iter()
                        .enumerate()
                        .map(|(index, version)| GroupVersion {
                            group: String::new(),
                            version,
                            preferred: index == 0,
                        })
                        .collect(),
                ))
            }
            ("APIGroupList", _) => {
                let list: LegacyGroupList = serde_json::from_slice(body).map_err(json_error)?;
                Ok(Root::Legacy(legacy_group_versions(list)))
            }
            ("", _) => Err("a JSON document without a kind".to_string()),
            (kind, api_version) => Err(format!(
                "a {kind} {api_version}, neither aggregated (APIGroupDiscoveryList) nor legacy \
                 (APIVersions, APIGroupList) discovery"
            )),
        }
    }

    /// Every group version it names, in order (to fall back to legacy discovery when only the
    /// other root served an aggregated document, as client-go does).
    pub fn group_versions(&self) -> Vec<GroupVersion> {
        match self {
            Root::Legacy(gvs) => gvs.clone(),
            Root::Aggregated(resources) => {
                let mut out: Vec<GroupVersion> = Vec::new();
                for r in resources {
                    if !out
                        .iter()
                        .any(|gv| gv.group == r.group && gv.version == r.version)
                    {
                        out.push(GroupVersion {
                            group: r.group.clone(),
                            version: r.version.clone(),
                            preferred: r.preferred,
                        });
                    }
                }
                out
            }
        }
    }
}

/// Flattens aggregated discovery into one entry per resource and version, in priority order.
pub fn flatten_aggregated(list: APIGroupDiscoveryList) -> Vec<ApiResource> {
    let mut out = Vec::new();
    for group in list.items {
        let group_name = group.metadata.and_then(|m| m.name).unwrap_or_default();
        for (index, version) in group.versions.into_iter().enumerate() {
            let version_name = version.version.unwrap_or_default();
            for r in version.resources {
                let Some(plural) = r.resource else { continue };
                let kind = r
                    .response_kind
                    .as_ref()
                    .and_then(|k| k.kind.clone())
                    .unwrap_or_default();
                out.push(ApiResource {
                    group: group_name.clone(),
                    version: version_name.clone(),
                    singular: singular_or_kind(r.singular_resource, &kind),
                    plural,
                    kind,
                    short_names: r.short_names,
                    namespaced: r.scope.as_deref() == Some("Namespaced"),
                    verbs: r.verbs,
                    preferred: index == 0,
                });
            }
        }
    }
    out
}

/// Reads one group version's legacy `APIResourceList`, without its subresources.
pub fn parse_resource_list(gv: &GroupVersion, body: &[u8]) -> Result<Vec<ApiResource>, String> {
    let list: LegacyResourceList = serde_json::from_slice(body)
        .map_err(|e| format!("not an APIResourceList of {} ({e})", gv.name()))?;
    Ok(list
        .resources
        .into_iter()
        // `pods/log`, `deployments/scale`: subresources, which aggregated discovery nests.
        .filter(|r| !r.name.contains('/'))
        .map(|r| ApiResource {
            group: gv.group.clone(),
            version: gv.version.clone(),
            singular: singular_or_kind(r.singular_name, &r.kind),
            plural: r.name,
            kind: r.kind,
            short_names: r.short_names,
            namespaced: r.namespaced,
            verbs: r.verbs,
            preferred: gv.preferred,
        })
        .collect())
}

/// Servers before 1.27 leave the singular name of built-ins empty; kubectl then uses the kind.
fn singular_or_kind(singular: Option<String>, kind: &str) -> String {
    singular
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| kind.to_ascii_lowercase())
}

/// Group versions of an `APIGroupList`, each group's versions in the order served (highest
/// priority first), its `preferredVersion` marked.
fn legacy_group_versions(list: LegacyGroupList) -> Vec<GroupVersion> {
    let mut out = Vec::new();
    for group in list.groups {
        let preferred = group.preferred_version.map(|p| p.version);
        for (index, v) in group.versions.into_iter().enumerate() {
            let is_preferred = match &preferred {
                Some(p) => *p == v.version,
                None => index == 0,
            };
            out.push(GroupVersion {
                group: group.name.clone(),
                version: v.version,
                preferred: is_preferred,
            });
        }
    }
    out
}

/// `/api` in legacy discovery (`metav1.APIVersions`).
#[derive(Deserialize)]
struct LegacyVersions {
    #[serde(default)]
    versions: Vec<String>,
}

/// `/apis` in legacy discovery (`metav1.APIGroupList`).
#[derive(Deserialize)]
struct LegacyGroupList {
    #[serde(default)]
    groups: Vec<LegacyGroup>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct LegacyGroup {
    name: String,
    #[serde(default)]
    versions: Vec<LegacyGroupVersion>,
    preferred_version: Option<LegacyGroupVersion>,
}

#[derive(Deserialize)]
struct LegacyGroupVersion {
    version: String,
}

/// One group version's resources in legacy discovery (`metav1.APIResourceList`).
#[derive(Deserialize)]
struct LegacyResourceList {
    #[serde(default)]
    resources: Vec<LegacyResource>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct LegacyResource {
    name: String,
    singular_name: Option<String>,
    #[serde(default)]
    namespaced: bool,
    #[serde(default)]
    kind: String,
    #[serde(default)]
    verbs: Vec<String>,
    #[serde(default)]
    short_names: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::resolve;

    /// The same cluster (core v1 with a subresource, apps v1, autoscaling v2 preferred over v1,
    /// events in two groups, a CRD) as the three documents a server may serve.
    fn aggregated(api_version: &str) -> (String, String) {
        let core = format!(
            r#"{{"kind":"APIGroupDiscoveryList","apiVersion":"{api_version}","items":[
          {{"metadata":{{"name":""}},"versions":[{{"version":"v1","resources":[
            {{"resource":"configmaps","responseKind":{{"group":"","version":"v1","kind":"ConfigMap"}},"scope":"Namespaced","singularResource":"configmap","verbs":["get","list","watch"],"shortNames":["cm"]}},
            {{"resource":"events","responseKind":{{"group":"","version":"v1","kind":"Event"}},"scope":"Namespaced","singularResource":"event","verbs":["list","watch"],"shortNames":["ev"]}},
            {{"resource":"namespaces","responseKind":{{"group":"","version":"v1","kind":"Namespace"}},"scope":"Cluster","singularResource":"namespace","verbs":["list","watch"],"shortNames":["ns"]}},
            {{"resource":"pods","responseKind":{{"group":"","version":"v1","kind":"Pod"}},"scope":"Namespaced","singularResource":"pod","verbs":["list","watch"],"shortNames":["po"],
              "subresources":[{{"subresource":"log","responseKind":{{"group":"","version":"v1","kind":"Pod"}},"verbs":["get"]}}]}}]}}]}}]}}"#
        );
        let apis = format!(
            r#"{{"kind":"APIGroupDiscoveryList","apiVersion":"{api_version}","items":[
          {{"metadata":{{"name":"apps"}},"versions":[{{"version":"v1","resources":[
            {{"resource":"deployments","responseKind":{{"group":"apps","version":"v1","kind":"Deployment"}},"scope":"Namespaced","singularResource":"deployment","verbs":["list","watch"],"shortNames":["deploy"],
              "subresources":[{{"subresource":"scale","responseKind":{{"group":"autoscaling","version":"v1","kind":"Scale"}},"verbs":["get","update"]}}]}}]}}]}},
          {{"metadata":{{"name":"autoscaling"}},"versions":[
            {{"version":"v2","resources":[{{"resource":"horizontalpodautoscalers","responseKind":{{"group":"autoscaling","version":"v2","kind":"HorizontalPodAutoscaler"}},"scope":"Namespaced","singularResource":"horizontalpodautoscaler","verbs":["list","watch"],"shortNames":["hpa"]}}]}},
            {{"version":"v1","resources":[{{"resource":"horizontalpodautoscalers","responseKind":{{"group":"autoscaling","version":"v1","kind":"HorizontalPodAutoscaler"}},"scope":"Namespaced","singularResource":"horizontalpodautoscaler","verbs":["list","watch"],"shortNames":["hpa"]}}]}}]}},
          {{"metadata":{{"name":"events.k8s.io"}},"versions":[{{"version":"v1","resources":[
            {{"resource":"events","responseKind":{{"group":"events.k8s.io","version":"v1","kind":"Event"}},"scope":"Namespaced","singularResource":"event","verbs":["list","watch"],"shortNames":["ev"]}}]}}]}},
          {{"metadata":{{"name":"informer.test"}},"versions":[{{"version":"v1","resources":[
            {{"resource":"widgets","responseKind":{{"group":"informer.test","version":"v1","kind":"Widget"}},"scope":"Namespaced","singularResource":"widget","verbs":["create","list","watch"],"shortNames":["wd"]}}]}}]}},
          {{"metadata":{{"name":"authentication.k8s.io"}},"versions":[{{"version":"v1","resources":[
            {{"resource":"tokenreviews","responseKind":{{"group":"authentication.k8s.io","version":"v1","kind":"TokenReview"}},"scope":"Cluster","singularResource":"tokenreview","verbs":["create"]}}]}}]}}]}}"#
        );
        (core, apis)
    }

    const LEGACY_API: &str = r#"{"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":[{"clientCIDR":"0.0.0.0/0","serverAddress":"127.0.0.1:6443"}]}"#;
    const LEGACY_APIS: &str = r#"{"kind":"APIGroupList","apiVersion":"v1","groups":[
      {"name":"apps","versions":[{"groupVersion":"apps/v1","version":"v1"}],"preferredVersion":{"groupVersion":"apps/v1","version":"v1"}},
      {"name":"autoscaling","versions":[{"groupVersion":"autoscaling/v2","version":"v2"},{"groupVersion":"autoscaling/v1","version":"v1"}],"preferredVersion":{"groupVersion":"autoscaling/v2","version":"v2"}},
      {"name":"events.k8s.io","versions":[{"groupVersion":"events.k8s.io/v1","version":"v1"}],"preferredVersion":{"groupVersion":"events.k8s.io/v1","version":"v1"}},
      {"name":"informer.test","versions":[{"groupVersion":"informer.test/v1","version":"v1"}],"preferredVersion":{"groupVersion":"informer.test/v1","version":"v1"}},
      {"name":"authentication.k8s.io","versions":[{"groupVersion":"authentication.k8s.io/v1","version":"v1"}],"preferredVersion":{"groupVersion":"authentication.k8s.io/v1","version":"v1"}}]}"#;

    /// The `APIResourceList` of `gv`, as a legacy server answers `/api/v1` or `/apis/<gv>`.
    fn legacy_resources(gv: &str) -> &'static str {
        match gv {
            "v1" => {
                r#"{"kind":"APIResourceList","groupVersion":"v1","resources":[
              {"name":"configmaps","singularName":"configmap","namespaced":true,"kind":"ConfigMap","verbs":["get","list","watch"],"shortNames":["cm"],"storageVersionHash":"qFsyl6wFWjQ="},
              {"name":"events","singularName":"event","namespaced":true,"kind":"Event","verbs":["list","watch"],"shortNames":["ev"]},
              {"name":"namespaces","singularName":"namespace","namespaced":false,"kind":"Namespace","verbs":["list","watch"],"shortNames":["ns"]},
              {"name":"pods","singularName":"pod","namespaced":true,"kind":"Pod","verbs":["list","watch"],"shortNames":["po"],"categories":["all"]},
              {"name":"pods/log","singularName":"","namespaced":true,"kind":"Pod","verbs":["get"]}]}"#
            }
            "apps/v1" => {
                r#"{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"apps/v1","resources":[
              {"name":"deployments","singularName":"deployment","namespaced":true,"kind":"Deployment","verbs":["list","watch"],"shortNames":["deploy"]},
              {"name":"deployments/scale","singularName":"","namespaced":true,"group":"autoscaling","version":"v1","kind":"Scale","verbs":["get","update"]}]}"#
            }
            "autoscaling/v2" => {
                r#"{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"autoscaling/v2","resources":[
              {"name":"horizontalpodautoscalers","singularName":"horizontalpodautoscaler","namespaced":true,"kind":"HorizontalPodAutoscaler","verbs":["list","watch"],"shortNames":["hpa"]}]}"#
            }
            "autoscaling/v1" => {
                r#"{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"autoscaling/v1","resources":[
              {"name":"horizontalpodautoscalers","singularName":"horizontalpodautoscaler","namespaced":true,"kind":"HorizontalPodAutoscaler","verbs":["list","watch"],"shortNames":["hpa"]}]}"#
            }
            "events.k8s.io/v1" => {
                r#"{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"events.k8s.io/v1","resources":[
              {"name":"events","singularName":"event","namespaced":true,"kind":"Event","verbs":["list","watch"],"shortNames":["ev"]}]}"#
            }
            "informer.test/v1" => {
                r#"{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"informer.test/v1","resources":[
              {"name":"widgets","singularName":"widget","namespaced":true,"kind":"Widget","verbs":["create","list","watch"],"shortNames":["wd"]}]}"#
            }
            "authentication.k8s.io/v1" => {
                r#"{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"authentication.k8s.io/v1","resources":[
              {"name":"tokenreviews","singularName":"tokenreview","namespaced":false,"kind":"TokenReview","verbs":["create"]}]}"#
            }
            other => panic!("no fixture for {other}"),
        }
    }

    /// What discovery makes of the two roots, following group versions as `Cluster::discover`.
    fn discover(api: &str, apis: &str) -> Vec<ApiResource> {
        let roots = [
            Root::parse(api.as_bytes()).unwrap(),
            Root::parse(apis.as_bytes()).unwrap(),
        ];
        let mut out = Vec::new();
        match roots {
            [Root::Aggregated(core), Root::Aggregated(groups)] => {
                out.extend(core);
                out.extend(groups);
            }
            roots => {
                for gv in roots.iter().flat_map(Root::group_versions) {
                    let body = legacy_resources(&gv.name());
                    out.extend(parse_resource_list(&gv, body.as_bytes()).unwrap());
                }
            }
        }
        out
    }

    fn all_three() -> [(&'static str, Vec<ApiResource>); 3] {
        let (v2_api, v2_apis) = aggregated("apidiscovery.k8s.io/v2");
        let (beta_api, beta_apis) = aggregated("apidiscovery.k8s.io/v2beta1");
        [
            ("v2", discover(&v2_api, &v2_apis)),
            ("v2beta1", discover(&beta_api, &beta_apis)),
            ("legacy", discover(LEGACY_API, LEGACY_APIS)),
        ]
    }

    #[test]
    fn aggregated_v2_v2beta1_and_legacy_discovery_give_the_same_resources() {
        let [(_, v2), (_, beta), (_, legacy)] = all_three();
        assert_eq!(v2.len(), 10, "{v2:#?}");
        assert_eq!(v2, beta);
        assert_eq!(v2, legacy);
    }

    #[test]
    fn names_resolve_identically_on_every_discovery_path() {
        for (path, resources) in all_three() {
            let got = |arg: &str| {
                let r = resolve(arg, &resources).unwrap_or_else(|e| panic!("{path}: {arg}: {e}"));
                format!(
                    "{} {} {} {}",
                    r.qualified_name(),
                    r.api_version(),
                    r.kind,
                    r.namespaced
                )
            };
            for arg in ["cm", "configmap", "configmaps", "ConfigMap"] {
                assert_eq!(got(arg), "configmaps v1 ConfigMap true", "{path}: {arg}");
            }
            for arg in [
                "deploy",
                "deployments.apps",
                "deployment.v1.apps",
                "Deployment",
            ] {
                assert_eq!(
                    got(arg),
                    "deployments.apps apps/v1 Deployment true",
                    "{path}: {arg}"
                );
            }
            assert_eq!(got("ns"), "namespaces v1 Namespace false", "{path}");
            // The preferred version wins, and a named version is taken as named.
            assert_eq!(
                got("hpa"),
                "horizontalpodautoscalers.autoscaling autoscaling/v2 HorizontalPodAutoscaler true",
                "{path}"
            );
            assert_eq!(
                got("hpa.v1.autoscaling"),
                "horizontalpodautoscalers.autoscaling autoscaling/v1 HorizontalPodAutoscaler true",
                "{path}"
            );
            // The core group wins a tie; the other group is reached by its qualified name.
            assert_eq!(got("events"), "events v1 Event true", "{path}");
            assert_eq!(
                got("events.events.k8s.io"),
                "events.events.k8s.io events.k8s.io/v1 Event true",
                "{path}"
            );
            assert_eq!(
                got("wd"),
                "widgets.informer.test informer.test/v1 Widget true",
                "{path}"
            );
            // Subresources are not resources: `pods/log` and `scale` resolve to nothing.
            assert!(resolve("scale", &resources).is_err(), "{path}");
            assert!(resolve("pods/log", &resources).is_err(), "{path}");
            // Verbs come through, for the list/watch check.
            let tr = resolve("tokenreviews", &resources).unwrap();
            assert!(tr.supports("create") && !tr.supports("watch"), "{path}");
            let cm = resolve("cm", &resources).unwrap();
            assert!(cm.supports("list") && cm.supports("watch"), "{path}");
        }
    }

    #[test]
    fn legacy_group_list_marks_the_preferred_version_even_when_not_listed_first() {
        let body = r#"{"kind":"APIGroupList","apiVersion":"v1","groups":[
          {"name":"g.test","versions":[{"groupVersion":"g.test/v1beta1","version":"v1beta1"},{"groupVersion":"g.test/v1","version":"v1"}],
           "preferredVersion":{"groupVersion":"g.test/v1","version":"v1"}}]}"#;
        let Root::Legacy(gvs) = Root::parse(body.as_bytes()).unwrap() else {
            panic!("legacy expected")
        };
        let preferred: Vec<(&str, bool)> = gvs
            .iter()
            .map(|gv| (gv.version.as_str(), gv.preferred))
            .collect();
        assert_eq!(preferred, vec![("v1beta1", false), ("v1", true)]);
        assert_eq!(gvs[1].path(), "/apis/g.test/v1");
    }

    #[test]
    fn an_empty_singular_name_falls_back_to_the_kind() {
        let gv = GroupVersion {
            group: String::new(),
            version: "v1".into(),
            preferred: true,
        };
        let body = r#"{"kind":"APIResourceList","groupVersion":"v1","resources":[
          {"name":"configmaps","singularName":"","namespaced":true,"kind":"ConfigMap","verbs":["list"]}]}"#;
        let list = parse_resource_list(&gv, body.as_bytes()).unwrap();
        assert_eq!(list[0].singular, "configmap");
    }

    #[test]
    fn documents_that_are_not_discovery_say_what_they_are() {
        let err = Root::parse(b"<html>proxy login</html>").unwrap_err();
        assert!(err.starts_with("something that is not JSON"), "{err}");
        let err = Root::parse(br#"{"kind":"Status","apiVersion":"v1"}"#).unwrap_err();
        assert!(err.starts_with("a Status v1, neither aggregated"), "{err}");
        let err = Root::parse(br#"{"items":[]}"#).unwrap_err();
        assert_eq!(err, "a JSON document without a kind");
        // A future aggregated version is not read as if it were v2.
        let err = Root::parse(
            br#"{"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v3","items":[]}"#,
        )
        .unwrap_err();
        assert!(
            err.contains("APIGroupDiscoveryList apidiscovery.k8s.io/v3"),
            "{err}"
        );
    }
}
