//! What counts as a controller's reaction to a write (`--react KIND`), parsed once from the
//! command line and written back as it was given.

/// `--reaction-timeout`'s default, for bench and tail alike: how long a reaction may take
/// before the write counts as without one.
pub const DEFAULT_TIMEOUT: &str = "30s";

/// What counts as the controller's reaction to a write:
///
/// - `observed-generation`: the object's `status.observedGeneration` reaches the generation the
///   write gave it;
/// - `owned:RESOURCE`: an object of RESOURCE whose ownerReferences name the written object is
///   created or updated after the write (its resourceVersion is newer than the write's);
/// - `condition:TYPE[=STATUS]`: the object's condition TYPE has STATUS (any, without one) for
///   the write: its `observedGeneration` reaches the write's generation, or, for a condition
///   without one, its status changes to STATUS after the write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reaction {
    ObservedGeneration,
    /// Objects of this resource (as the user named it) owned by the written object.
    Owned(String),
    Condition {
        kind: String,
        status: Option<String>,
    },
}

impl Reaction {
    /// Parses `--react`'s value; the error says what is wrong and what is valid (the flag and
    /// the text are the caller's to add).
    pub fn parse(text: &str) -> Result<Reaction, String> {
        let usage = "use observed-generation, owned:RESOURCE (e.g. owned:replicasets) or \
                     condition:TYPE[=STATUS] (e.g. condition:Available=True)";
        match text.split_once(':') {
            None if text == "observed-generation" => Ok(Reaction::ObservedGeneration),
            Some(("owned", resource)) if !resource.is_empty() && !resource.contains(',') => {
                Ok(Reaction::Owned(resource.to_string()))
            }
            Some(("condition", spec)) => {
                let (kind, status) = match spec.split_once('=') {
                    Some((kind, status)) => (kind, Some(status)),
                    None => (spec, None),
                };
                if kind.is_empty() || status.is_some_and(str::is_empty) {
                    return Err(format!("a condition needs a TYPE; {usage}"));
                }
                Ok(Reaction::Condition {
                    kind: kind.to_string(),
                    status: status.map(str::to_string),
                })
            }
            _ => Err(format!("not a reaction; {usage}")),
        }
    }

    /// Whether the reaction is read from the written object's `status` (observedGeneration, a
    /// condition), which a metadata-only watch does not carry; `owned:` reads ownerReferences.
    pub fn reads_status(&self) -> bool {
        !matches!(self, Reaction::Owned(_))
    }
}

impl std::fmt::Display for Reaction {
    /// As `--react` takes it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Reaction::ObservedGeneration => f.write_str("observed-generation"),
            Reaction::Owned(resource) => write!(f, "owned:{resource}"),
            Reaction::Condition { kind, status: None } => write!(f, "condition:{kind}"),
            Reaction::Condition {
                kind,
                status: Some(s),
            } => write!(f, "condition:{kind}={s}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn react_values_parse_and_bad_ones_say_what_is_expected() {
        assert_eq!(
            Reaction::parse("observed-generation"),
            Ok(Reaction::ObservedGeneration)
        );
        assert_eq!(
            Reaction::parse("owned:replicasets"),
            Ok(Reaction::Owned("replicasets".into()))
        );
        assert_eq!(
            Reaction::parse("condition:Available=True"),
            Ok(Reaction::Condition {
                kind: "Available".into(),
                status: Some("True".into())
            })
        );
        assert_eq!(
            Reaction::parse("condition:Ready"),
            Ok(Reaction::Condition {
                kind: "Ready".into(),
                status: None
            })
        );
        for bad in [
            "generation",
            "owned:",
            "condition:",
            "condition:=True",
            "condition:A=",
        ] {
            let err = Reaction::parse(bad).unwrap_err();
            assert!(err.contains("a condition needs a TYPE") || err.starts_with("not a reaction"));
            assert!(err.contains("observed-generation"), "{err}");
        }
    }

    #[test]
    fn a_reaction_is_written_back_as_it_was_given() {
        for text in [
            "observed-generation",
            "owned:rs",
            "condition:Available=True",
            "condition:Ready",
        ] {
            assert_eq!(Reaction::parse(text).unwrap().to_string(), text);
        }
        assert!(!Reaction::Owned("rs".into()).reads_status());
        assert!(Reaction::ObservedGeneration.reads_status());
    }
}
