//! Label and field selectors checked before any request, with the apimachinery grammar, so a typo
//! fails at once with a message that points at the bad term.

/// Checks a label selector (`app=web,tier!=db,env in (a,b),!legacy`); returns a one-line reason.
pub fn validate_label_selector(selector: &str) -> Result<(), String> {
    if selector.trim().is_empty() {
        return Ok(());
    }
    for term in split_terms(selector) {
        validate_label_term(term.trim()).map_err(|why| {
            format!(
                "invalid label selector \"{selector}\": {why} (in \"{}\")",
                term.trim()
            )
        })?;
    }
    Ok(())
}

/// Checks a field selector (`metadata.name=foo,status.phase!=Running`).
pub fn validate_field_selector(selector: &str) -> Result<(), String> {
    if selector.trim().is_empty() {
        return Ok(());
    }
    for term in split_terms(selector) {
        let term = term.trim();
        let op = ["!=", "==", "="]
            .iter()
            .find_map(|op| term.find(op).map(|at| (at, op.len())));
        let bad =
            |why: &str| format!("invalid field selector \"{selector}\": {why} (in \"{term}\")");
        match op {
            None => return Err(bad("expected key=value, key==value or key!=value")),
            Some((0, _)) => return Err(bad("the field name is empty")),
            Some(_) => {}
        }
    }
    Ok(())
}

/// Splits on commas that are not inside parentheses (`env in (a,b)` is one term).
fn split_terms(selector: &str) -> Vec<&str> {
    let mut terms = Vec::new();
    let (mut depth, mut start) = (0i32, 0usize);
    for (i, c) in selector.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                terms.push(&selector[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    terms.push(&selector[start..]);
    terms
}

fn validate_label_term(term: &str) -> Result<(), String> {
    if term.is_empty() {
        return Err("empty requirement (a stray comma?)".into());
    }
    if let Some(key) = term.strip_prefix('!') {
        return validate_key(key.trim());
    }
    for op in ["!=", "==", "=", ">", "<"] {
        if let Some(at) = term.find(op) {
            let (key, value) = (term[..at].trim(), term[at + op.len()..].trim());
            validate_key(key)?;
            if op == ">" || op == "<" {
                return value
                    .parse::<i64>()
                    .map(|_| ())
                    .map_err(|_| format!("\"{value}\" is not an integer, which {op} needs"));
            }
            return validate_value(value);
        }
    }
    let words: Vec<&str> = term.splitn(2, char::is_whitespace).collect();
    if let [key, rest] = words.as_slice() {
        let rest = rest.trim_start();
        let set = rest
            .strip_prefix("notin")
            .or_else(|| rest.strip_prefix("in"))
            .map(str::trim);
        let Some(set) = set else {
            return Err(format!(
                "unknown operator \"{rest}\": use =, ==, !=, in, notin, exists or !"
            ));
        };
        validate_key(key)?;
        let inner = set
            .strip_prefix('(')
            .and_then(|s| s.strip_suffix(')'))
            .ok_or("the values of in/notin go in parentheses: key in (a,b)")?;
        for value in inner.split(',') {
            validate_value(value.trim())?;
        }
        return Ok(());
    }
    validate_key(term)
}

/// Whether `name` is a DNS-1123 subdomain (what most objects' names are): dot-separated labels
/// of lowercase letters, digits and '-', at most 253 characters.
pub fn is_dns_subdomain(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 253
        && name.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && label
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
                && !label.starts_with('-')
                && !label.ends_with('-')
        })
}

/// A label key: an optional DNS subdomain prefix and `/`, then a name of at most 63 characters.
fn validate_key(key: &str) -> Result<(), String> {
    let (prefix, name) = match key.split_once('/') {
        Some((p, n)) => (Some(p), n),
        None => (None, key),
    };
    if let Some(prefix) = prefix {
        if !is_dns_subdomain(prefix) {
            return Err(format!(
                "label key prefix \"{prefix}\" is not a DNS subdomain"
            ));
        }
    }
    if name.is_empty() {
        return Err("a label key is empty".into());
    }
    check_name_chars(name).map_err(|why| format!("label key \"{key}\" {why}"))
}

fn validate_value(value: &str) -> Result<(), String> {
    if value.is_empty() {
        return Ok(());
    }
    check_name_chars(value).map_err(|why| format!("label value \"{value}\" {why}"))
}

fn check_name_chars(s: &str) -> Result<(), String> {
    if s.len() > 63 {
        return Err("is longer than 63 characters".into());
    }
    let alnum = |b: u8| b.is_ascii_alphanumeric();
    let bytes = s.as_bytes();
    if !bytes
        .iter()
        .all(|&b| alnum(b) || b == b'-' || b == b'_' || b == b'.')
    {
        return Err("may only contain letters, digits, '-', '_' and '.'".into());
    }
    if !alnum(bytes[0]) || !alnum(bytes[bytes.len() - 1]) {
        return Err("must start and end with a letter or digit".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_label_selectors_pass() {
        for s in [
            "",
            "app=web",
            "app==web,tier!=db",
            "env in (prod, staging),!legacy",
            "example.com/team notin (a,b)",
            "app",
            "replicas>3",
            "app=",
        ] {
            assert_eq!(validate_label_selector(s), Ok(()), "{s}");
        }
    }

    #[test]
    fn invalid_label_selectors_say_which_term_and_why() {
        for (s, needle) in [
            ("app=we b", "label value \"we b\""),
            ("app=web,", "empty requirement"),
            ("-app=web", "must start and end"),
            ("env in prod", "parentheses"),
            ("app ~ web", "unknown operator"),
            ("Bad_Prefix/app=x", "not a DNS subdomain"),
            ("replicas>three", "not an integer"),
        ] {
            let err = validate_label_selector(s).unwrap_err();
            assert!(err.contains(needle), "{s}: {err}");
            assert!(err.starts_with("invalid label selector"), "{err}");
        }
    }

    #[test]
    fn field_selectors_need_an_operator_and_a_key() {
        assert_eq!(
            validate_field_selector("metadata.name=x,status.phase!=Running"),
            Ok(())
        );
        assert!(validate_field_selector("metadata.name")
            .unwrap_err()
            .contains("expected key=value"));
        assert!(validate_field_selector("=x")
            .unwrap_err()
            .contains("field name is empty"));
    }
}
