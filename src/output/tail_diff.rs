//! `tail --diff` in text: a MODIFIED object's change as a unified diff (3 lines of context) of
//! its two versions rendered as YAML, headed by the object's name and the two RVs, colored as
//! `git diff` does on a terminal.

use super::yaml::to_yaml;
use crate::informer::patch::{ObjectDiff, NOISE};
use std::io::Write;

const RED: &str = "\x1b[31m";
const GREEN: &str = "\x1b[32m";
const CYAN: &str = "\x1b[36m";
const BOLD: &str = "\x1b[1m";
const RESET: &str = "\x1b[0m";

/// Writes `diff` of the object `name` (`configmap/x`) as a unified diff; when nothing compared
/// changed, one line in parentheses saying what did.
pub fn write_unified(
    out: &mut impl Write,
    diff: &ObjectDiff,
    name: &str,
    color: bool,
) -> std::io::Result<()> {
    if diff.is_empty() {
        let noise = NOISE.map(|f| format!("metadata.{f}")).join(", ");
        let also = if diff.redacted {
            ", or redacted values"
        } else {
            ""
        };
        return writeln!(out, "(only {noise}{also} changed)");
    }
    let (old, new) = (to_yaml(&diff.old), to_yaml(&diff.new));
    let text = similar::TextDiff::from_lines(&old, &new);
    let unified = text
        .unified_diff()
        .context_radius(3)
        .header(
            &format!("{name} rv={}", diff.old_resource_version),
            &format!("{name} rv={}", diff.new_resource_version),
        )
        .to_string();
    for (i, line) in unified.lines().enumerate() {
        let code = match line.as_bytes().first() {
            _ if i < 2 => BOLD,
            Some(b'@') => CYAN,
            Some(b'-') => RED,
            Some(b'+') => GREEN,
            _ => "",
        };
        if color && !code.is_empty() {
            writeln!(out, "{code}{line}{RESET}")?;
        } else {
            writeln!(out, "{line}")?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn diff(old: serde_json::Value, new: serde_json::Value, redacted: bool) -> ObjectDiff {
        ObjectDiff {
            old_resource_version: "12".into(),
            new_resource_version: "15".into(),
            old,
            new,
            redacted,
        }
    }

    fn written(d: &ObjectDiff, color: bool) -> String {
        let mut out = Vec::new();
        write_unified(&mut out, d, "configmap/x", color).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn a_change_is_a_unified_diff_with_three_lines_of_context_named_by_object_and_rvs() {
        let data: serde_json::Map<String, serde_json::Value> = (0..10)
            .map(|i| (format!("k{i}"), json!(i.to_string())))
            .collect();
        let mut changed = data.clone();
        changed.insert("k5".into(), json!("five"));
        let d = diff(json!({"data": data}), json!({"data": changed}), false);
        assert_eq!(
            written(&d, false),
            "--- configmap/x rv=12\n\
             +++ configmap/x rv=15\n\
             @@ -4,7 +4,7 @@\n   \
               k2: \"2\"\n   \
               k3: \"3\"\n   \
               k4: \"4\"\n\
             -  k5: \"5\"\n\
             +  k5: five\n   \
               k6: \"6\"\n   \
               k7: \"7\"\n   \
               k8: \"8\"\n"
        );
    }

    #[test]
    fn colors_only_when_asked_and_only_the_markers_lines() {
        let d = diff(
            json!({"a": "1", "b": "x"}),
            json!({"a": "2", "b": "x"}),
            false,
        );
        let colored = written(&d, true);
        assert!(
            colored.contains(&format!("{RED}-a: \"1\"{RESET}\n")),
            "{colored}"
        );
        assert!(
            colored.contains(&format!("{GREEN}+a: \"2\"{RESET}\n")),
            "{colored}"
        );
        assert!(
            colored.contains(&format!("{CYAN}@@ -1,2 +1,2 @@{RESET}\n")),
            "{colored}"
        );
        assert!(colored.contains("\n b: x\n"), "{colored}");
        assert!(!written(&d, false).contains('\x1b'));
    }

    #[test]
    fn a_change_of_noise_alone_is_one_line_saying_so() {
        let same = json!({"a": "1"});
        assert_eq!(
            written(&diff(same.clone(), same.clone(), false), true),
            "(only metadata.resourceVersion, metadata.managedFields, metadata.generation changed)\n"
        );
        assert_eq!(
            written(&diff(same.clone(), same, true), false),
            "(only metadata.resourceVersion, metadata.managedFields, metadata.generation, or \
             redacted values changed)\n"
        );
    }
}
