//! `--react` against the cluster, for `bench` and `tail` alike: the owned resource `owned:`
//! names, resolved as kubectl names it, and a reaction the resource's objects cannot show (by
//! their schema) refused before anything runs.

use super::{resolve_in, GlobalConfig};
use crate::cluster::{ApiResource, Cluster};
use crate::error::{Error, Result};
use crate::react::Reaction;

/// Checks that objects of `resource` can show `reaction`, and resolves `owned:`'s resource
/// among `resources` (which must be listable and watchable): that resource, for `owned:`.
pub async fn resolve(
    global: &GlobalConfig,
    cluster: &Cluster,
    resources: &[ApiResource],
    resource: &ApiResource,
    reaction: &Reaction,
) -> Result<Option<ApiResource>> {
    check_schema(global, cluster, resource, reaction).await?;
    let Reaction::Owned(name) = reaction else {
        return Ok(None);
    };
    let owned = resolve_in(
        global,
        cluster,
        resources,
        std::slice::from_ref(name),
        &["list", "watch"],
    )
    .map_err(|e| Error::Usage(format!("--react owned:{name}: {e}")))?
    .remove(0)
    .resource;
    Ok(Some(owned))
}

/// Refuses a reaction the resource's objects cannot show, by its schema: observedGeneration
/// or conditions in `status`. A schema that cannot tell (no OpenAPI v3, unknown fields kept)
/// lets the run go on.
async fn check_schema(
    global: &GlobalConfig,
    cluster: &Cluster,
    resource: &ApiResource,
    reaction: &Reaction,
) -> Result<()> {
    use crate::cluster::openapi::{field, Field};
    let path: &[&str] = match reaction {
        Reaction::ObservedGeneration => &["status", "observedGeneration"],
        Reaction::Condition { .. } => &["status", "conditions"],
        Reaction::Owned(_) => return Ok(()),
    };
    match field(cluster, resource, path).await? {
        Field::Declared => Ok(()),
        Field::Unknown => {
            global.log(1, || {
                format!(
                    "the schema of {} does not say whether it has {}: going on with --react {}",
                    resource.qualified_name(),
                    path.join("."),
                    reaction
                )
            });
            Ok(())
        }
        Field::Absent => Err(Error::Usage(format!(
            "--react {}: {} has no {} in its schema, so no controller can report a reaction \
             there; use owned:RESOURCE, or a condition the resource has",
            reaction,
            resource.qualified_name(),
            path.join(".")
        ))),
    }
}
