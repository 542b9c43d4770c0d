//! What the clients of a run did, as the server answered it: the writes it committed, the
//! resources watched, the field managers of the writes, and when the last write and the last
//! LIST or watch were. The exploration plans from it, the end state is cut down to its managers,
//! and the workload's start and the end state wait on its times.

use super::fault::Verb;
use super::request::ApiRequest;
use tokio::time::Instant;

/// The writes the server committed, by verb and resource (`create secrets`), their kinds in the
/// order each first came, and the resources watched, in the order each was first.
#[derive(Debug, Clone, Default)]
pub struct Trace {
    pub writes: std::collections::BTreeMap<String, u64>,
    pub order: Vec<String>,
    pub watched: Vec<String>,
    /// The field managers of those writes, in the order each first came.
    pub managers: Vec<String>,
    /// When the server last committed one of them.
    pub last_write: Option<Instant>,
    /// When the server last answered a LIST or opened a watch for the clients.
    pub last_read: Option<Instant>,
}

impl Trace {
    /// Keeps what the server answered `request` with, at `now`: a write it committed (a 2xx
    /// answer, not a dry run), counted by verb and resource, with its field manager; a watch it
    /// opened, by resource; when a LIST or watch was last answered. Leader election's Leases
    /// are left out (see [`is_leader_election`]).
    pub fn record(&mut self, request: &ApiRequest, status: http::StatusCode, now: Instant) {
        let Some(r) = &request.resource else {
            return;
        };
        if !status.is_success() || request.dry_run || is_leader_election(r) {
            return;
        }
        let mut resource = r.plural.clone();
        if !r.group.is_empty() {
            resource = format!("{resource}.{}", r.group);
        }
        if matches!(request.verb, Verb::Watch | Verb::List) {
            self.last_read = Some(now);
        }
        if request.verb == Verb::Watch {
            if !self.watched.contains(&resource) {
                self.watched.push(resource);
            }
            return;
        }
        if !Verb::WRITES.contains(&request.verb) {
            return;
        }
        if let Some(sub) = &r.subresource {
            resource = format!("{resource}/{sub}");
        }
        if let Some(manager) = request.manager.as_ref().filter(|m| !m.is_empty()) {
            if !self.managers.contains(manager) {
                self.managers.push(manager.clone());
            }
        }
        self.last_write = Some(now);
        let key = format!("{} {resource}", request.verb.name());
        if !self.writes.contains_key(&key) {
            self.order.push(key.clone());
        }
        *self.writes.entry(key).or_default() += 1;
    }
}

/// Whether `resource` is leader election's (`leases.coordination.k8s.io`): a leader renews its
/// Lease every few seconds (client-go's retry period, 2 s by default) for as long as it runs.
/// That is not reconciling: counted, the renewals would keep the controller from ever being
/// quiet, and the exploration would plan crashes after a renewal and stale views of a resource
/// no reconcile reads.
fn is_leader_election(resource: &super::request::ResourcePath) -> bool {
    resource.group == "coordination.k8s.io" && resource.plural == "leases"
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(method: http::Method, path: &str) -> ApiRequest {
        ApiRequest::new(&method, path, None).with_user_agent(Some("op/v1.6.0 (linux/amd64)"))
    }

    #[test]
    fn leader_elections_lease_renewals_are_not_the_controllers_writes() {
        let mut trace = Trace::default();
        let now = Instant::now();
        let lease = "/apis/coordination.k8s.io/v1/namespaces/ns/leases/op-leader-election";
        trace.record(
            &request(http::Method::PUT, lease),
            http::StatusCode::OK,
            now,
        );
        assert!(
            trace.writes.is_empty() && trace.last_write.is_none(),
            "{trace:?}"
        );
        let sts = "/apis/apps/v1/namespaces/ns/statefulsets/web";
        trace.record(
            &request(http::Method::DELETE, sts),
            http::StatusCode::OK,
            now,
        );
        assert_eq!(trace.order, ["delete statefulsets.apps"]);
        assert_eq!(trace.managers, ["op"]);
        assert_eq!(trace.last_write, Some(now));
    }
}
