//! JSON values as YAML text laid out as `kubectl get -o yaml` does (keys in its order, block
//! mappings, a sequence under a key not indented), for `tail -o yaml` and `tail --diff`: a
//! string is plain only when YAML reads it back as the same string, double-quoted otherwise,
//! and a multi-line one is a literal block, so a diff of a ConfigMap's file shows the lines of it
//! that changed.

use serde_json::{Map, Value};
use std::cmp::Ordering;

/// `value` as a YAML document, ending with a line break.
pub fn to_yaml(value: &Value) -> String {
    let mut out = String::new();
    match value {
        Value::Object(map) if !map.is_empty() => mapping(map, 0, &mut out),
        Value::Array(items) if !items.is_empty() => sequence(items, 0, &mut out),
        scalar => self::scalar(scalar, 0, &mut out),
    }
    out
}

/// A mapping at `indent`, its keys in kubectl's order (see [`key_order`]).
fn mapping(map: &Map<String, Value>, indent: usize, out: &mut String) {
    let mut entries: Vec<(&String, &Value)> = map.iter().collect();
    merge_sort(&mut entries, &|a, b| key_order(a.0, b.0));
    for (key, value) in entries {
        pad(indent, out);
        if plain(key) {
            out.push_str(key);
        } else {
            double_quoted(key, out);
        }
        out.push(':');
        match value {
            Value::Object(m) if !m.is_empty() => {
                out.push('\n');
                mapping(m, indent + 2, out);
            }
            Value::Array(items) if !items.is_empty() => {
                out.push('\n');
                sequence(items, indent, out);
            }
            scalar => {
                out.push(' ');
                self::scalar(scalar, indent + 2, out);
            }
        }
    }
}

/// A sequence at `indent`: each item after `- `, a collection's first line on the dash's.
fn sequence(items: &[Value], indent: usize, out: &mut String) {
    for item in items {
        pad(indent, out);
        out.push_str("- ");
        let mut nested = String::new();
        match item {
            Value::Object(m) if !m.is_empty() => mapping(m, indent + 2, &mut nested),
            Value::Array(a) if !a.is_empty() => sequence(a, indent + 2, &mut nested),
            scalar => self::scalar(scalar, indent + 2, &mut nested),
        }
        // The nested collection's first line starts at indent + 2, where the dash's text does.
        out.push_str(
            nested
                .strip_prefix(&" ".repeat(indent + 2))
                .unwrap_or(&nested),
        );
    }
}

/// A scalar (or an empty collection) and its line break; a literal block's lines are indented
/// by `indent`.
fn scalar(value: &Value, indent: usize, out: &mut String) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&n.to_string()),
        Value::Object(_) => out.push_str("{}"),
        Value::Array(_) => out.push_str("[]"),
        Value::String(s) if plain(s) => out.push_str(s),
        Value::String(s) if literal(s) => {
            // Chomping: `-` drops the last line break, none keeps one, `+` keeps them all.
            let (chomp, body) = match s.strip_suffix('\n') {
                None => ("-", s.as_str()),
                Some(body) if body.ends_with('\n') => ("+", body),
                Some(body) => ("", body),
            };
            out.push('|');
            out.push_str(chomp);
            for line in body.split('\n') {
                out.push('\n');
                if !line.is_empty() {
                    pad(indent, out);
                    out.push_str(line);
                }
            }
        }
        Value::String(s) => double_quoted(s, out),
    }
    out.push('\n');
}

/// The order kubectl prints a mapping's keys in: `kubectl get -o yaml` turns the object into
/// YAML with go-yaml v2, which sorts keys rune by rune, a non-letter before a letter and runs of
/// digits by their value (`a2` before `a10`; of two equal values, the shorter run first), and a
/// key before the longer keys it starts.
pub fn key_order(a: &str, b: &str) -> Ordering {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    for i in 0..a.len().min(b.len()) {
        if a[i] == b[i] {
            continue;
        }
        let (al, bl) = (a[i].is_alphabetic(), b[i].is_alphabetic());
        if al && bl {
            return a[i].cmp(&b[i]);
        }
        if al || bl {
            return if bl {
                Ordering::Less
            } else {
                Ordering::Greater
            };
        }
        // Digits (or other non-letters): the runs of digits from here, by value. A zero inside
        // a number whose earlier digits are not all zeros counts as part of it.
        let (mut an, mut bn) = (0i64, 0i64);
        if (a[i] == '0' || b[i] == '0')
            && a[..i]
                .iter()
                .rev()
                .take_while(|c| c.is_ascii_digit())
                .any(|c| *c != '0')
        {
            (an, bn) = (1, 1);
        }
        let run = |s: &[char], mut n: i64| {
            let digits = s[i..].iter().take_while(|c| c.is_ascii_digit()).count();
            for c in &s[i..i + digits] {
                n = n.wrapping_mul(10).wrapping_add(i64::from(*c as u8 - b'0'));
            }
            (n, i + digits)
        };
        let ((an, ai), (bn, bi)) = (run(&a, an), run(&b, bn));
        if an != bn {
            return an.cmp(&bn);
        }
        if ai != bi {
            return ai.cmp(&bi);
        }
        return a[i].cmp(&b[i]);
    }
    a.len().cmp(&b.len())
}

/// A stable merge sort by `less`, which need not be a total order: the standard library's sort
/// may panic on one that is not, and go-yaml's key order is not one everywhere.
fn merge_sort<T: Copy>(items: &mut [T], order: &dyn Fn(&T, &T) -> Ordering) {
    if items.len() < 2 {
        return;
    }
    let mid = items.len() / 2;
    merge_sort(&mut items[..mid], order);
    merge_sort(&mut items[mid..], order);
    let mut merged = Vec::with_capacity(items.len());
    let (mut l, mut r) = (0, mid);
    while l < mid && r < items.len() {
        if order(&items[r], &items[l]) == Ordering::Less {
            merged.push(items[r]);
            r += 1;
        } else {
            merged.push(items[l]);
            l += 1;
        }
    }
    merged.extend_from_slice(&items[l..mid]);
    merged.extend_from_slice(&items[r..]);
    items.copy_from_slice(&merged);
}

fn pad(indent: usize, out: &mut String) {
    out.extend(std::iter::repeat_n(' ', indent));
}

/// Whether `s` reads back as the same string written plain, by YAML 1.1 and 1.2 parsers alike:
/// it starts with a letter, `/` or `_` (no number, timestamp, indicator or `.inf`), or with a
/// digit where it cannot be a number (see [`not_a_number`]), holds only
/// ASCII letters, digits and `-_./:=@+,()` and inner spaces, no `: ` and no final `:`, and is
/// none of the words read as booleans or null.
fn plain(s: &str) -> bool {
    const WORDS: [&str; 9] = ["true", "false", "yes", "no", "on", "off", "y", "n", "null"];
    let mut chars = s.chars();
    (chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '/' || c == '_')
        || not_a_number(s))
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=@+,() ".contains(c))
        && !s.ends_with([' ', ':'])
        && !s.contains(": ")
        && !WORDS.iter().any(|w| w.eq_ignore_ascii_case(s))
}

/// Whether `s`, which starts with a digit (a uid, `6h`, `3d2c`), cannot be read as a number
/// or a timestamp by YAML 1.1 or 1.2: it holds a letter no number has (any but `e`, which
/// exponents use), no `:` (times and 1.1's sexagesimal numbers), and no `0x`, `0o` or `0b`
/// prefix.
fn not_a_number(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_digit())
        && !["0x", "0o", "0b"].iter().any(|p| s.starts_with(p))
        && !s.contains(':')
        && s.chars()
            .any(|c| c.is_ascii_alphabetic() && !c.eq_ignore_ascii_case(&'e'))
}

/// Whether `s` can be a literal block: several lines of printable text (no carriage return),
/// whose first line starts the content (not empty, no leading blank) so its indentation is the
/// block's.
fn literal(s: &str) -> bool {
    s.contains('\n')
        && s.chars()
            .all(|c| c == '\n' || (printable(c) && c != '\r' && !is_break(c)))
        && s.split('\n')
            .next()
            .is_some_and(|first| !first.is_empty() && !first.starts_with([' ', '\t']))
}

/// YAML's `c-printable`, tab included.
fn printable(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | ' '..='~' | '\u{85}' | '\u{a0}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'..)
        && c != '\u{feff}'
}

/// Characters YAML 1.1 reads as line breaks, which would split a line.
fn is_break(c: char) -> bool {
    matches!(c, '\u{85}' | '\u{2028}' | '\u{2029}')
}

/// `s` double-quoted, with YAML's escapes for `"`, `\`, line breaks and whatever is not
/// printable.
fn double_quoted(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if printable(c) && !is_break(c) => out.push(c),
            c => out.push_str(&format!("\\u{:04x}", c as u32)),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    use serde_json::json;

    #[test]
    fn keys_come_in_go_yamls_order() {
        let mut keys = vec![
            "k10", "k9", "b", "_x", "K", "a2", "a02", "a", "ab", "-d", "k1",
        ];
        merge_sort(&mut keys, &|a, b| key_order(a, b));
        assert_eq!(
            keys,
            ["-d", "_x", "K", "a", "a2", "a02", "ab", "b", "k1", "k9", "k10"]
        );
    }

    #[test]
    fn a_string_that_starts_with_a_digit_is_plain_only_where_it_cannot_be_a_number() {
        for s in ["9bedb5df-497e-446b-8369-c1bca0fba69b", "6h", "3d2c"] {
            assert!(plain(s), "{s:?} may stay plain");
        }
        for s in [
            "10.0.0.1",
            "1e5",
            "0x1f",
            "0b1",
            "12:30",
            "2026-11-25",
            "42",
        ] {
            assert!(!plain(s), "{s:?} must be quoted");
        }
    }

    #[test]
    fn an_object_reads_as_kubectl_prints_it() {
        let pod = json!({
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "web", "labels": {"app": "web"}, "annotations": {}},
            "spec": {
                "containers": [{"name": "c", "image": "nginx:1.27", "ports": [{"containerPort": 80}], "args": []}],
                "nodeSelector": null,
                "matrix": [[1, 2], []],
                "hostNetwork": false,
            },
        });
        assert_eq!(
            to_yaml(&pod),
            "apiVersion: v1\n\
             kind: Pod\n\
             metadata:\n  \
               annotations: {}\n  \
               labels:\n    \
                 app: web\n  \
               name: web\n\
             spec:\n  \
               containers:\n  \
               - args: []\n    \
                 image: nginx:1.27\n    \
                 name: c\n    \
                 ports:\n    \
                 - containerPort: 80\n  \
               hostNetwork: false\n  \
               matrix:\n  \
               - - 1\n    \
                 - 2\n  \
               - []\n  \
               nodeSelector: null\n"
        );
    }

    #[test]
    fn strings_that_yaml_would_read_otherwise_are_quoted() {
        for s in [
            "",
            "true",
            "No",
            "y",
            "NULL",
            "~",
            "1",
            "0x1f",
            "1e3",
            "2024-01-01",
            "1:20",
            ".inf",
            "-",
            "- x",
            "a: b",
            "a:",
            "a #b",
            " lead",
            "trail ",
            "*ref",
            "&a",
            "!tag",
            "{x}",
            "[x]",
            "'x'",
            "\"x\"",
            "%x",
            "@x",
            "`x`",
            "|x",
            ">x",
            "?x",
            "ü",
            "tab\tin",
        ] {
            assert!(!plain(s), "{s:?} must be quoted");
        }
        for s in [
            "web",
            "nginx:1.27",
            "app.kubernetes.io/name",
            "a b",
            "http://x/y",
            "_x",
            "Always",
        ] {
            assert!(plain(s), "{s:?} may stay plain");
        }
        let mut out = String::new();
        double_quoted("a\"b\\c\td\u{7f}e\u{2028}f\rü", &mut out);
        assert_eq!(out, r#""a\"b\\c\td\u007fe\u2028f\rü""#);
        assert_eq!(
            to_yaml(&json!({"1": "", "a b:": "x"})),
            "\"1\": \"\"\n\"a b:\": x\n"
        );
    }

    #[test]
    fn multi_line_strings_are_literal_blocks_with_the_right_chomping() {
        let data = json!({"data": {
            "clip": "a: 1\n  b: 2\n",
            "strip": "x\n\ny",
            "keep": "x\n\n",
            "lead": "  indented\nfirst",
            "cr": "a\r\nb",
        }, "list": ["one\ntwo"]});
        assert_eq!(
            to_yaml(&data),
            "data:\n  \
               clip: |\n    \
                 a: 1\n      b: 2\n  \
               cr: \"a\\r\\nb\"\n  \
               keep: |+\n    \
                 x\n\n  \
               lead: \"  indented\\nfirst\"\n  \
               strip: |-\n    \
                 x\n\n    \
                 y\n\
             list:\n\
             - |-\n  \
               one\n  \
               two\n"
        );
    }

    fn json() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        // Strings made of the pieces that YAML reads specially.
        const PIECES: [&str; 42] = [
            "a", "B", " ", ":", ": ", "#", " #", "\n", "-", "- ", "1", "0x1", ".", "yes", "true",
            "null", "~", "\"", "'", "\\", "\t", "\r", "ü", "\u{85}", "\u{2028}", "\u{7f}", "{",
            "[", "*", "&", "!", "|", ">", "%", "@", "`", "?", "/", "_", "=", ",", "\n\n",
        ];
        // A letter first, mostly: strings that may be plain, to be caught by what follows.
        let text = (
            proptest::option::weighted(0.7, Just("a")),
            proptest::collection::vec(proptest::sample::select(&PIECES[..]), 0..5),
        )
            .prop_map(|(first, pieces)| format!("{}{}", first.unwrap_or(""), pieces.concat()));
        let scalar = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            prop_oneof![Just(0.5), Just(-1.25e10), Just(3.0)].prop_map(Value::from),
            text.clone().prop_map(Value::from),
            prop_oneof![
                Just("yes"),
                Just("No"),
                Just("~"),
                Just("0o17"),
                Just("1_000"),
                Just(".nan")
            ]
            .prop_map(Value::from),
        ];
        scalar.prop_recursive(4, 40, 5, move |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..5).prop_map(Value::from),
                proptest::collection::btree_map(text.clone(), inner, 0..5)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest::proptest! {
        /// A YAML parser reads back the very value that was rendered.
        #[test]
        fn a_yaml_parser_reads_back_the_value(value in json()) {
            let text = to_yaml(&value);
            let read: Value = serde_saphyr::from_str(&text)
                .map_err(|e| proptest::test_runner::TestCaseError::fail(format!("{e}\n{text}")))?;
            proptest::prop_assert_eq!(read, value, "{}", text);
        }
    }
}
