//! The small questions commands ask the server beyond discovery: whether a namespace exists, the
//! server's version; and what a namespace's name must be (a DNS-1123 label).

use super::{Cluster, ClusterError, Operation};
use serde_json::Value;

/// A namespace name: a DNS-1123 label.
pub fn validate_dns_label(name: &str) -> Result<(), String> {
    if name.is_empty() || name.len() > 63 {
        return Err("must be 1 to 63 characters".into());
    }
    let b = name.as_bytes();
    let ok_char = |c: &u8| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-';
    if !b.iter().all(ok_char) {
        return Err("may only contain lowercase letters, digits and '-'".into());
    }
    if b[0] == b'-' || b[b.len() - 1] == b'-' {
        return Err("must start and end with a letter or digit".into());
    }
    Ok(())
}

impl Cluster {
    /// The namespace a command watches `resource` in: `namespace` (-n), else the context's;
    /// `None` for all namespaces (-A) or a cluster-scoped resource.
    pub fn scope_of(
        &self,
        resource: &super::ApiResource,
        namespace: Option<&str>,
        all_namespaces: bool,
    ) -> Option<String> {
        match resource.namespaced && !all_namespaces {
            true => Some(namespace.unwrap_or(&self.default_namespace).to_string()),
            false => None,
        }
    }

    /// Whether `namespace` exists, as far as the server says: `Some(false)` on a 404; `None`
    /// when it cannot tell (the user may not get namespaces, or the request failed), which
    /// callers treat as "maybe".
    pub async fn namespace_exists(&self, namespace: &str) -> Option<bool> {
        let op = Operation::new("get", "namespaces", None);
        let path = format!("/api/v1/namespaces/{namespace}");
        match self.get(&path, "application/json", &op).await {
            Ok(_) => Some(true),
            Err(e) if e.status_code() == Some(404) => Some(false),
            Err(_) => None,
        }
    }

    /// The name the API server knows the user by (a SelfSubjectReview, as `kubectl auth whoami`
    /// asks): what a TokenReview of the user's token answers too.
    pub async fn user_name(&self) -> Result<String, ClusterError> {
        let op = Operation::new("create", "selfsubjectreviews.authentication.k8s.io", None);
        let body = serde_json::json!({
            "apiVersion": "authentication.k8s.io/v1",
            "kind": "SelfSubjectReview",
        });
        let answer = self
            .send(
                http::Method::POST,
                "/apis/authentication.k8s.io/v1/selfsubjectreviews",
                "application/json",
                body.to_string().into_bytes(),
                &op,
            )
            .await?;
        let review: serde_json::Value =
            serde_json::from_slice(&answer).map_err(|e| ClusterError::Decode {
                what: "a SelfSubjectReview".into(),
                reason: e.to_string(),
            })?;
        review["status"]["userInfo"]["username"]
            .as_str()
            .map(str::to_string)
            .ok_or_else(|| ClusterError::Decode {
                what: "a SelfSubjectReview".into(),
                reason: "it names no user".into(),
            })
    }

    /// Who stores `group/version`'s resources, as its APIService says: `None` when
    /// kube-apiserver serves them itself (no `spec.service`: from its own storage, where one
    /// etcd revision orders every resource), else the aggregated API server's Service
    /// (`namespace/name`), whose resourceVersions are its own.
    pub async fn aggregated_by(
        &self,
        group: &str,
        version: &str,
    ) -> Result<Option<String>, ClusterError> {
        let name = format!("{version}.{group}");
        let op = Operation::new("get", "apiservices.apiregistration.k8s.io", None);
        let path = format!("/apis/apiregistration.k8s.io/v1/apiservices/{name}");
        let body = self.get(&path, "application/json", &op).await?;
        let service: Value = serde_json::from_slice(&body).map_err(|e| ClusterError::Decode {
            what: format!("APIService {name}"),
            reason: e.to_string(),
        })?;
        let service = &service["spec"]["service"];
        Ok(service.is_object().then(|| {
            format!(
                "{}/{}",
                service["namespace"].as_str().unwrap_or_default(),
                service["name"].as_str().unwrap_or_default()
            )
        }))
    }

    /// The server's `/version` document, checked to carry a `gitVersion` (`v1.37.2`), as
    /// `kubectl version -o json` prints it under `serverVersion`.
    pub async fn server_version(&self) -> Result<Value, ClusterError> {
        let op = Operation::new("get", "/version", None);
        let body = self.get("/version", "application/json", &op).await?;
        let decode = |reason: String| ClusterError::Decode {
            what: "get /version".into(),
            reason,
        };
        let version: Value = serde_json::from_slice(&body).map_err(|e| decode(e.to_string()))?;
        match version["gitVersion"].is_string() {
            true => Ok(version),
            false => Err(decode(
                "it has no gitVersion: the server is not a Kubernetes API server".into(),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn namespaces_must_be_dns_labels() {
        assert!(validate_dns_label("kube-system").is_ok());
        assert!(validate_dns_label("Kube").is_err());
        assert!(validate_dns_label("-a").is_err());
        assert!(validate_dns_label("").is_err());
    }
}
