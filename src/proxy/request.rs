//! What a request to the API asks for, read from its method, path and query as kube-apiserver's
//! request info reads them: the verb, the resource (group and plural), the namespace and name,
//! and for a watch where it starts.

use super::fault::Verb;

/// A request, as the faults see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiRequest {
    pub verb: Verb,
    /// `None` for what is not a resource (`/version`, `/apis`, `/openapi/v3`, ...).
    pub resource: Option<ResourcePath>,
    pub resource_version: Option<String>,
    /// `resourceVersionMatch`: `NotOlderThan` or `Exact`, when given.
    pub resource_version_match: Option<String>,
    /// A LIST page after the first (`continue=`), whose resourceVersion its token holds.
    pub continued: bool,
    /// `sendInitialEvents=true`: a watch-list, whose first events are the current state.
    pub send_initial_events: bool,
    /// `dryRun=All`: a write the server checks and does not commit.
    pub dry_run: bool,
    /// The watch or list it is, whatever its resourceVersion: the path with its selectors (a
    /// resumed watch has the same key as the one that ended).
    pub key: String,
    /// The field manager a write is recorded under: `fieldManager=`, else the User-Agent's
    /// first word (see [`ApiRequest::with_user_agent`]).
    pub manager: Option<String>,
}

/// The resource part of a path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourcePath {
    /// Empty for the legacy core group.
    pub group: String,
    pub plural: String,
    pub subresource: Option<String>,
    pub namespace: Option<String>,
    pub name: Option<String>,
}

impl ApiRequest {
    pub fn new(method: &http::Method, path: &str, query: Option<&str>) -> ApiRequest {
        let mut watch_param = false;
        let mut resource_version = None;
        let mut resource_version_match = None;
        let mut continued = false;
        let mut send_initial_events = false;
        let mut dry_run = false;
        let mut manager = None;
        let mut selectors = Vec::new();
        for (key, value) in form_urlencoded::parse(query.unwrap_or("").as_bytes()) {
            match key.as_ref() {
                "watch" => watch_param = matches!(value.as_ref(), "true" | "1"),
                "resourceVersion" => resource_version = Some(value.into_owned()),
                "resourceVersionMatch" if !value.is_empty() => {
                    resource_version_match = Some(value.into_owned())
                }
                "continue" => continued = !value.is_empty(),
                "sendInitialEvents" => send_initial_events = value == "true",
                "dryRun" => dry_run = value == "All",
                "fieldManager" if !value.is_empty() => manager = Some(value.into_owned()),
                "labelSelector" | "fieldSelector" => selectors.push(format!("{key}={value}")),
                _ => {}
            }
        }
        let (resource, legacy_watch) = resource_path(path);
        let verb = match *method {
            http::Method::POST => Verb::Create,
            http::Method::PUT => Verb::Update,
            http::Method::PATCH => Verb::Patch,
            http::Method::DELETE => Verb::Delete,
            _ if resource.is_none() => Verb::Get,
            _ if watch_param || legacy_watch => Verb::Watch,
            _ if resource.as_ref().is_some_and(|r| r.name.is_none()) => Verb::List,
            _ => Verb::Get,
        };
        let path = path.replacen("/watch/", "/", usize::from(legacy_watch));
        selectors.sort();
        let key = match selectors.is_empty() {
            true => path,
            false => format!("{path}?{}", selectors.join("&")),
        };
        ApiRequest {
            verb,
            resource,
            resource_version: resource_version.filter(|rv| !rv.is_empty()),
            resource_version_match,
            continued,
            send_initial_events,
            dry_run,
            key,
            manager,
        }
    }

    /// The field manager named by the client's `User-Agent` where the request names none, as
    /// kube-apiserver names it (`prefixFromUserAgent`): the part before the first `/`, its
    /// unprintable characters left out, at most 128 characters (`kube-controller-manager/v1.37.2
    /// (linux/amd64) kubernetes/...` is `kube-controller-manager`).
    pub fn with_user_agent(mut self, user_agent: Option<&str>) -> ApiRequest {
        if self.manager.is_none() {
            let first = user_agent.unwrap_or("").split('/').next().unwrap_or("");
            let name: String = first
                .chars()
                .filter(|c| !c.is_control())
                .take(128)
                .collect();
            self.manager = Some(name);
        }
        self
    }

    /// A watch from a resourceVersion it names (not "0", not a watch-list's initial events):
    /// one that carries on from where an earlier one ended.
    pub fn is_resume(&self) -> bool {
        self.verb == Verb::Watch
            && !self.send_initial_events
            && self.resource_version.as_deref().is_some_and(|rv| rv != "0")
    }

    /// How a notice names it: `watch deployments.apps -n demo from rv 12`.
    pub fn describe(&self) -> String {
        let Some(r) = &self.resource else {
            return format!("{} {}", self.verb.name(), self.key);
        };
        let mut out = format!("{} {}", self.verb.name(), r.plural);
        if !r.group.is_empty() {
            out.push('.');
            out.push_str(&r.group);
        }
        if let Some(name) = &r.name {
            out.push('/');
            out.push_str(name);
        }
        if let Some(sub) = &r.subresource {
            out.push('/');
            out.push_str(sub);
        }
        match &r.namespace {
            Some(ns) => out.push_str(&format!(" -n {ns}")),
            None if r.name.is_none() => out.push_str(" -A"),
            None => {}
        }
        if self.send_initial_events {
            out.push_str(" with initial events");
        }
        if let Some(rv) = &self.resource_version {
            out.push_str(&format!(" from rv {rv}"));
        }
        out
    }
}

/// The resource a path names, and whether it is a legacy `/watch/` path.
fn resource_path(path: &str) -> (Option<ResourcePath>, bool) {
    let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
    let (group, mut rest) = match parts.as_slice() {
        ["api", _version, rest @ ..] => (String::new(), rest),
        ["apis", group, _version, rest @ ..] => (group.to_string(), rest),
        _ => return (None, false),
    };
    let legacy_watch = rest.first() == Some(&"watch");
    if legacy_watch {
        rest = &rest[1..];
    }
    // `namespaces/NS/RESOURCE...`, unless it is a namespace's own subresource.
    let mut namespace = None;
    if let ["namespaces", ns, resource, ..] = rest {
        if !matches!(*resource, "status" | "finalize") {
            namespace = Some(ns.to_string());
            rest = &rest[2..];
        }
    }
    let resource = match rest {
        [plural, tail @ ..] if tail.len() <= 2 => ResourcePath {
            group,
            plural: plural.to_string(),
            name: tail.first().map(|n| n.to_string()),
            subresource: tail.get(1).map(|s| s.to_string()),
            namespace,
        },
        _ => return (None, false),
    };
    (Some(resource), legacy_watch)
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::Method;

    fn get(path: &str, query: &str) -> ApiRequest {
        ApiRequest::new(&Method::GET, path, Some(query))
    }

    #[test]
    fn verbs_resources_and_namespaces_are_read_as_the_api_server_reads_them() {
        let watch = get(
            "/apis/apps/v1/namespaces/demo/deployments",
            "watch=true&resourceVersion=12&timeoutSeconds=300&labelSelector=a%3Db",
        );
        assert_eq!(watch.verb, Verb::Watch);
        let r = watch.resource.clone().unwrap();
        assert_eq!(
            (r.group.as_str(), r.plural.as_str()),
            ("apps", "deployments")
        );
        assert_eq!(r.namespace.as_deref(), Some("demo"));
        assert!(watch.is_resume());
        assert_eq!(
            watch.key,
            "/apis/apps/v1/namespaces/demo/deployments?labelSelector=a=b"
        );
        assert_eq!(
            watch.describe(),
            "watch deployments.apps -n demo from rv 12"
        );
        let list = get("/api/v1/pods", "limit=500");
        assert_eq!(list.verb, Verb::List);
        assert_eq!(list.describe(), "list pods -A");
        let watch_list = get(
            "/api/v1/pods",
            "watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=",
        );
        assert_eq!(watch_list.verb, Verb::Watch);
        assert!(!watch_list.is_resume());
        assert!(!get("/api/v1/pods", "watch=1&resourceVersion=0").is_resume());
        let legacy = get("/api/v1/watch/namespaces/demo/pods", "resourceVersion=5");
        assert_eq!(legacy.verb, Verb::Watch);
        assert_eq!(legacy.key, "/api/v1/namespaces/demo/pods");
        let status = ApiRequest::new(
            &Method::PUT,
            "/apis/apps/v1/namespaces/demo/deployments/web/status",
            None,
        );
        assert_eq!(status.verb, Verb::Update);
        assert_eq!(
            status.describe(),
            "update deployments.apps/web/status -n demo"
        );
        let namespace = get("/api/v1/namespaces/demo", "");
        assert_eq!(namespace.verb, Verb::Get);
        assert_eq!(namespace.resource.unwrap().name.as_deref(), Some("demo"));
        let finalize = ApiRequest::new(&Method::PUT, "/api/v1/namespaces/demo/finalize", None);
        assert_eq!(
            finalize.resource.unwrap().subresource.as_deref(),
            Some("finalize")
        );
        let version = get("/version", "");
        assert_eq!((version.verb, version.resource), (Verb::Get, None));
        assert_eq!(get("/apis/apps/v1", "").resource, None);
    }
}
