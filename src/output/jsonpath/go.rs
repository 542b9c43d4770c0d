//! Values printed as kubectl's Go code prints them, so that a template's output is kubectl's
//! byte for byte: `fmt.Print` (a string raw, a float as `%v`: `1e+06`), `fmt.Sprint` of maps and
//! slices (`map[a:1 b:[x y]]`, custom-columns' cells), `encoding/json` (keys sorted, `<>&`
//! escaped, floats as Go writes them) and its indented form, Go's type names and `%q`.

use serde_json::{Number, Value};
use std::fmt::Write;

/// `fmt.Print` of a scalar (a map or an array is printed as JSON by the template instead).
pub(super) fn text(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => number_v(n),
        Value::String(s) => s.clone(),
        other => json(other),
    }
}

/// `fmt.Sprint` of any value: maps as `map[k:v ...]` by sorted key, slices as `[a b]`, null
/// as `<nil>`.
pub fn sprint(v: &Value) -> String {
    match v {
        Value::Null => "<nil>".into(),
        Value::Array(a) => {
            let items: Vec<String> = a.iter().map(sprint).collect();
            format!("[{}]", items.join(" "))
        }
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            let items: Vec<String> = keys
                .into_iter()
                .map(|k| format!("{k}:{}", sprint(&m[k.as_str()])))
                .collect();
            format!("map[{}]", items.join(" "))
        }
        other => text(other),
    }
}

/// The Go type a value of an unstructured object has, as error messages name it.
pub(super) fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "<nil>",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_i64() => "int64",
        Value::Number(_) => "float64",
        Value::String(_) => "string",
        Value::Array(_) => "[]interface {}",
        Value::Object(_) => "map[string]interface {}",
    }
}

/// A number as `%v` prints it: an integer in full, a float in the shortest form that reads
/// back, with an exponent (`1e+06`, `1.5e-05`) below 1e-4 and from 1e6 on.
fn number_v(n: &Number) -> String {
    match n.as_i64() {
        Some(i) => i.to_string(),
        None => {
            let f = n.as_f64().unwrap_or(f64::NAN);
            let exp = exponent(f);
            if f != 0.0 && !(-4..6).contains(&exp) {
                with_exponent(f, true)
            } else {
                f.to_string()
            }
        }
    }
}

/// A number as `encoding/json` writes it: a float with an exponent only below 1e-6 and from
/// 1e21 on (`1e+21`, `1e-7`).
fn number_json(n: &Number) -> String {
    match n.as_i64() {
        Some(i) => i.to_string(),
        None => {
            let f = n.as_f64().unwrap_or(f64::NAN);
            let abs = f.abs();
            if abs != 0.0 && !(1e-6..1e21).contains(&abs) {
                with_exponent(f, false)
            } else {
                f.to_string()
            }
        }
    }
}

/// The decimal exponent of `f`'s shortest digits (`1500.0` is 3).
fn exponent(f: f64) -> i32 {
    let e = format!("{f:e}");
    e.split_once('e')
        .and_then(|(_, x)| x.parse().ok())
        .unwrap_or(0)
}

/// `f` in Go's `%e` with the shortest digits: `1.5e+06`; `padded`: the exponent has two
/// digits at least (`fmt`), else a negative one has as many as it needs (`encoding/json`).
fn with_exponent(f: f64, padded: bool) -> String {
    let e = format!("{f:e}");
    let (mantissa, exp) = e.split_once('e').unwrap_or((&e, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let sign = if exp < 0 { '-' } else { '+' };
    if padded || exp >= 0 {
        format!("{mantissa}e{sign}{:02}", exp.abs())
    } else {
        format!("{mantissa}e{sign}{}", exp.abs())
    }
}

/// `json.Marshal`: compact, keys sorted, HTML characters escaped.
pub(super) fn json(v: &Value) -> String {
    let mut out = String::new();
    write_json(&mut out, v, None, 0);
    out
}

/// `json.MarshalIndent(v, "", "    ")`.
pub(super) fn json_indented(v: &Value) -> String {
    let mut out = String::new();
    write_json(&mut out, v, Some("    "), 0);
    out
}

fn write_json(out: &mut String, v: &Value, indent: Option<&str>, depth: usize) {
    let newline = |out: &mut String, depth: usize| {
        if let Some(unit) = indent {
            out.push('\n');
            out.push_str(&unit.repeat(depth));
        }
    };
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&number_json(n)),
        Value::String(s) => write_json_string(out, s),
        Value::Array(a) if a.is_empty() => out.push_str("[]"),
        Value::Object(m) if m.is_empty() => out.push_str("{}"),
        Value::Array(a) => {
            out.push('[');
            for (i, item) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(out, depth + 1);
                write_json(out, item, indent, depth + 1);
            }
            newline(out, depth);
            out.push(']');
        }
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            out.push('{');
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(out, depth + 1);
                write_json_string(out, k);
                out.push_str(if indent.is_some() { ": " } else { ":" });
                write_json(out, &m[k.as_str()], indent, depth + 1);
            }
            newline(out, depth);
            out.push('}');
        }
    }
}

/// The escapes Go's JSON and `%q` share.
fn escape(c: char) -> Option<&'static str> {
    Some(match c {
        '"' => "\\\"",
        '\\' => "\\\\",
        '\n' => "\\n",
        '\r' => "\\r",
        '\t' => "\\t",
        _ => return None,
    })
}

fn write_json_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        if let Some(e) = escape(c) {
            out.push_str(e);
            continue;
        }
        match c {
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            // HTML's characters, JavaScript's line breaks and the control characters.
            c if matches!(c, '<' | '>' | '&' | '\u{2028}' | '\u{2029}') || (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Go's `%q` of a string, as kubectl quotes a template in its error.
pub(super) fn quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        if let Some(e) = escape(c) {
            out.push_str(e);
            continue;
        }
        match c {
            c if c.is_control() => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
