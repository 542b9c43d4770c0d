//! Objects made from a manifest, of any resource (a CRD included), and the spec change each
//! update makes: what a live bench writes (`bench --template FILE --mutate PATH=GENERATOR`) and
//! what conform writes (`conform --template FILE`).

use serde_json::{Map, Value};
use std::path::Path;

/// A manifest the generator makes its objects from: what the server sets (identity, status,
/// managedFields) removed; name and namespace set per object.
#[derive(Debug, Clone, PartialEq)]
pub struct Template {
    object: Value,
}

impl Template {
    /// Reads a YAML or JSON manifest of one object.
    pub fn load(path: &Path) -> Result<Template, String> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            format!(
                "cannot read --template {}: {e}: pass a YAML or JSON manifest of one object",
                path.display()
            )
        })?;
        Template::parse(&text).map_err(|e| format!("--template {}: {e}", path.display()))
    }

    /// Parses a manifest of one object (YAML, of which JSON is a part).
    pub fn parse(text: &str) -> Result<Template, String> {
        let mut object: Value = serde_saphyr::from_str(text).map_err(|e| {
            format!(
                "not a YAML or JSON manifest: {}",
                first_line(&e.to_string())
            )
        })?;
        let Some(map) = object.as_object_mut() else {
            return Err(
                "the manifest is not an object (a mapping with apiVersion and kind)".into(),
            );
        };
        for field in ["apiVersion", "kind"] {
            if !map.get(field).is_some_and(Value::is_string) {
                return Err(format!(
                    "the manifest has no {field}: give the object's apiVersion and kind"
                ));
            }
        }
        if map.get("kind").and_then(Value::as_str) == Some("List") || map.contains_key("items") {
            return Err("the manifest is a list: give one object".into());
        }
        map.remove("status");
        let metadata = map
            .entry("metadata")
            .or_insert_with(|| Value::Object(Map::new()));
        let Some(metadata) = metadata.as_object_mut() else {
            return Err("metadata is not a mapping".into());
        };
        for server_set in [
            "name",
            "generateName",
            "namespace",
            "uid",
            "resourceVersion",
            "generation",
            "creationTimestamp",
            "deletionTimestamp",
            "managedFields",
            "ownerReferences",
            "selfLink",
        ] {
            metadata.remove(server_set);
        }
        Ok(Template { object })
    }

    pub fn api_version(&self) -> &str {
        self.object["apiVersion"].as_str().unwrap_or_default()
    }

    pub fn kind(&self) -> &str {
        self.object["kind"].as_str().unwrap_or_default()
    }

    /// Whether it has a pod template (`spec.template.spec`), as workloads do.
    pub fn has_pod_template(&self) -> bool {
        self.object["spec"]["template"]["spec"].is_object()
    }

    /// The object named `name`, with `annotations` added to its metadata.
    pub fn instance(&self, name: &str, annotations: &[(&str, &str)]) -> Value {
        let mut object = self.object.clone();
        let metadata = &mut object["metadata"];
        metadata["name"] = Value::String(name.to_string());
        for (key, value) in annotations {
            metadata["annotations"][key] = Value::String(value.to_string());
        }
        object
    }
}

/// How a mutation's new values are made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Generator {
    /// The write's sequence number.
    Counter,
    /// Eight random hex digits.
    Random,
}

/// One `--mutate PATH=GENERATOR`: the field each update sets to a new value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mutation {
    /// The keys from the object's root; a key containing a dot is written with `\.`.
    pub path: Vec<String>,
    pub generator: Generator,
    /// Whether the field holds a number in the template (`counter` then writes numbers, e.g.
    /// for `spec.minReadySeconds`).
    pub numeric: bool,
}

/// The key bench's default mutation sets (an annotation of the pod template, or a label).
pub const DEFAULT_KEY: &str = "kubectl-informer/rev";

impl Mutation {
    /// Parses `PATH=GENERATOR` (`spec.template.metadata.annotations.rev=counter`).
    pub fn parse(text: &str) -> Result<Mutation, String> {
        let Some((path, generator)) = text.rsplit_once('=') else {
            return Err(format!(
                "--mutate {text}: expected PATH=GENERATOR, e.g. \
                 spec.template.metadata.annotations.rev=counter"
            ));
        };
        let generator = match generator {
            "counter" => Generator::Counter,
            "random" => Generator::Random,
            other => {
                return Err(format!(
                    "--mutate {text}: unknown generator \"{other}\": use counter or random"
                ))
            }
        };
        let path = split_path(path);
        if path.iter().any(String::is_empty) {
            return Err(format!(
                "--mutate {text}: a path of dot-separated keys, none empty (\\. for a dot in a key)"
            ));
        }
        if matches!(
            path.first().map(String::as_str),
            Some("apiVersion" | "kind" | "status")
        ) || path.starts_with(&["metadata".to_string(), "name".to_string()])
            || path.starts_with(&["metadata".to_string(), "namespace".to_string()])
        {
            return Err(format!(
                "--mutate {text}: {} is not a field an update may change: mutate the spec, a \
                 label or an annotation",
                path.join(".")
            ));
        }
        Ok(Mutation {
            path,
            generator,
            numeric: false,
        })
    }

    /// bench's default: an annotation of the pod template when there is one (a spec change, so
    /// a new generation), else a label.
    pub fn default_for(template: &Template) -> Mutation {
        let path: &[&str] = if template.has_pod_template() {
            &["spec", "template", "metadata", "annotations", DEFAULT_KEY]
        } else {
            &["metadata", "labels", DEFAULT_KEY]
        };
        Mutation {
            path: path.iter().map(|s| s.to_string()).collect(),
            generator: Generator::Counter,
            numeric: false,
        }
    }

    /// This mutation checked against `template`, writing numbers where the template has one.
    pub fn for_template(mut self, template: &Template) -> Result<Mutation, String> {
        self.check(template)?;
        self.numeric = self.read(&template.object).is_some_and(Value::is_number);
        if self.numeric && self.generator == Generator::Random {
            return Err(format!(
                "--mutate {}=random: the template has a number there; use counter",
                self.path.join(".")
            ));
        }
        Ok(self)
    }

    /// Checks that the path goes through mappings of `template` (or through fields it does not
    /// have, which the write adds), never into a value that is not a mapping.
    pub fn check(&self, template: &Template) -> Result<(), String> {
        let mut at = &template.object;
        for (depth, key) in self.path.iter().enumerate() {
            match at {
                Value::Object(map) => match map.get(key) {
                    Some(next) => at = next,
                    None => return Ok(()),
                },
                Value::Null => return Ok(()),
                _ => {
                    return Err(format!(
                        "--mutate {}: {} in the template is not a mapping, so it has no key {key}",
                        self.path.join("."),
                        self.path[..depth].join(".")
                    ))
                }
            }
        }
        match at {
            Value::Object(_) | Value::Array(_) => Err(format!(
                "--mutate {}: the template has a mapping or list there; name a field that holds a \
                 string",
                self.path.join(".")
            )),
            _ => Ok(()),
        }
    }

    /// The value of the `seq`-th write (`random` draws from `random`).
    pub fn value(&self, seq: u64, random: u64) -> Value {
        match self.generator {
            Generator::Counter if self.numeric => Value::from(seq),
            Generator::Counter => Value::String(seq.to_string()),
            Generator::Random => Value::String(format!("{:08x}", random & 0xffff_ffff)),
        }
    }

    /// The JSON merge patch (RFC 7386) that sets the field to `value`.
    pub fn patch(&self, value: &Value) -> Value {
        self.path.iter().rev().fold(value.clone(), |inner, key| {
            let mut map = Map::new();
            map.insert(key.clone(), inner);
            Value::Object(map)
        })
    }

    /// The field's value in `object` (a write's answer), to check the server kept it.
    pub fn read<'o>(&self, object: &'o Value) -> Option<&'o Value> {
        self.path.iter().try_fold(object, |at, key| at.get(key))
    }
}

/// `a.b\.c.d` → `["a", "b.c", "d"]`.
fn split_path(path: &str) -> Vec<String> {
    let mut keys = Vec::new();
    let mut key = String::new();
    let mut chars = path.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'.') => {
                chars.next();
                key.push('.');
            }
            '.' => keys.push(std::mem::take(&mut key)),
            c => key.push(c),
        }
    }
    keys.push(key);
    keys
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const DEPLOYMENT: &str = "
apiVersion: apps/v1
kind: Deployment
metadata:
  name: from-the-file
  namespace: elsewhere
  resourceVersion: \"12\"
  labels: {app: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: app, image: registry.invalid/app:1}]
status: {replicas: 2}
";

    #[test]
    fn a_manifest_loses_what_the_server_sets_and_each_instance_gets_its_name() {
        let t = Template::parse(DEPLOYMENT).unwrap();
        assert_eq!((t.api_version(), t.kind()), ("apps/v1", "Deployment"));
        assert!(t.has_pod_template());
        let o = t.instance("bench-000001", &[("kubectl-informer/sent-at", "x")]);
        assert_eq!(o["metadata"]["name"], "bench-000001");
        assert!(o["metadata"].get("namespace").is_none());
        assert!(o["metadata"].get("resourceVersion").is_none());
        assert!(o.get("status").is_none());
        assert_eq!(o["metadata"]["labels"]["app"], "web");
        assert_eq!(
            o["metadata"]["annotations"]["kubectl-informer/sent-at"],
            "x"
        );
        assert_eq!(o["spec"]["replicas"], 2);
        // JSON is YAML too.
        let json = Template::parse(r#"{"apiVersion":"v1","kind":"ConfigMap","data":{"a":"1"}}"#);
        assert!(!json.unwrap().has_pod_template());
    }

    #[test]
    fn a_manifest_that_is_not_one_object_is_refused_saying_why() {
        for (text, needle) in [
            ("kind: Deployment", "no apiVersion"),
            ("apiVersion: v1", "no kind"),
            ("- a\n- b", "not an object"),
            ("apiVersion: v1\nkind: List\nitems: []", "a list"),
            (
                "apiVersion: v1\nkind: X\nmetadata: 3",
                "metadata is not a mapping",
            ),
            ("{ nope", "not a YAML or JSON manifest"),
        ] {
            let err = Template::parse(text).unwrap_err();
            assert!(err.contains(needle), "{text}: {err}");
            assert!(!err.contains('\n'), "{err}");
        }
    }

    #[test]
    fn mutations_parse_into_a_merge_patch_and_read_back() {
        let m = Mutation::parse(r"spec.template.metadata.annotations.example\.com/rev=counter")
            .unwrap();
        assert_eq!(
            m.path,
            [
                "spec",
                "template",
                "metadata",
                "annotations",
                "example.com/rev"
            ]
        );
        assert_eq!(m.value(7, 0), json!("7"));
        let patch = m.patch(&json!("7"));
        assert_eq!(
            patch,
            json!({"spec": {"template": {"metadata": {"annotations": {"example.com/rev": "7"}}}}})
        );
        assert_eq!(m.read(&patch), Some(&json!("7")));
        assert_eq!(m.read(&json!({"spec": {}})), None);
        let r = Mutation::parse("metadata.labels.x=random").unwrap();
        assert_eq!(r.value(1, 0xdead_beef_1234), json!("beef1234"));
    }

    #[test]
    fn bad_mutations_are_refused_in_one_line() {
        let t = Template::parse(DEPLOYMENT).unwrap();
        for (text, needle) in [
            ("spec.replicas", "expected PATH=GENERATOR"),
            ("spec..x=counter", "none empty"),
            ("spec.x=sometimes", "unknown generator \"sometimes\""),
            ("status.phase=counter", "not a field an update may change"),
            ("metadata.name=counter", "not a field an update may change"),
        ] {
            let err = Mutation::parse(text).unwrap_err();
            assert!(err.contains(needle), "{text}: {err}");
        }
        let through_a_number = Mutation::parse("spec.replicas.x=counter").unwrap();
        let err = through_a_number.check(&t).unwrap_err();
        assert!(
            err.contains("spec.replicas in the template is not a mapping"),
            "{err}"
        );
        let onto_a_map = Mutation::parse("spec.selector=counter").unwrap();
        assert!(onto_a_map.check(&t).unwrap_err().contains("holds a string"));
        assert!(Mutation::parse("spec.paused=counter")
            .unwrap()
            .check(&t)
            .is_ok());
        // A number in the template: counter writes numbers, random is refused.
        let replicas = Mutation::parse("spec.replicas=counter")
            .unwrap()
            .for_template(&t)
            .unwrap();
        assert_eq!(replicas.value(3, 0), json!(3));
        let label = Mutation::parse("metadata.labels.app=counter")
            .unwrap()
            .for_template(&t)
            .unwrap();
        assert_eq!(label.value(3, 0), json!("3"));
        let err = Mutation::parse("spec.replicas=random")
            .unwrap()
            .for_template(&t)
            .unwrap_err();
        assert!(err.contains("use counter"), "{err}");
    }

    #[test]
    fn the_default_changes_the_pod_template_when_there_is_one_else_a_label() {
        let t = Template::parse(DEPLOYMENT).unwrap();
        assert_eq!(
            Mutation::default_for(&t).path,
            ["spec", "template", "metadata", "annotations", DEFAULT_KEY]
        );
        let cm = Template::parse("apiVersion: v1\nkind: ConfigMap").unwrap();
        assert_eq!(
            Mutation::default_for(&cm).path,
            ["metadata", "labels", DEFAULT_KEY]
        );
    }
}
