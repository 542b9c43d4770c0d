//! kubectl's JSONPath templates (`-o jsonpath=`, `-o custom-columns=`'s paths), in the dialect
//! of client-go's `util/jsonpath`: read once into a typed tree (`parser`), run on an object's
//! JSON (`eval`), and printed as kubectl's Go code prints values (`go`).

mod eval;
mod go;
mod parser;

pub use go::sprint;

use serde_json::Value;

/// A template, read and checked.
#[derive(Debug, Clone, PartialEq)]
pub struct Template {
    source: String,
    segments: Vec<parser::Segment>,
}

/// A template that does not read, said as kubectl says it:
/// `error parsing jsonpath {.a, unclosed action`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("error parsing jsonpath {template}, {reason}")]
pub struct ParseError {
    pub template: String,
    pub reason: String,
}

/// A template that failed on an object (a key missing where none may be, an index out of
/// bounds, values that cannot be compared), said as kubectl says it after its "unable to output
/// the provided object:" (without its dump of the object, which is Go's).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("error executing jsonpath {}: Error executing template: {reason}", go::quote(.template))]
pub struct ExecError {
    pub template: String,
    pub reason: String,
}

impl Template {
    pub fn parse(text: &str) -> Result<Self, ParseError> {
        match parser::parse(text) {
            Ok(segments) => Ok(Template {
                source: text.to_string(),
                segments,
            }),
            Err(reason) => Err(ParseError {
                template: text.to_string(),
                reason,
            }),
        }
    }

    /// The text the template was read from.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// What each of the template's actions (and texts) finds in `data`, in order.
    pub fn find(&self, data: &Value, allow_missing: bool) -> Result<Vec<Vec<Value>>, ExecError> {
        let mut found = Vec::new();
        eval::run(&self.segments, data, allow_missing, &mut found).map_err(|reason| ExecError {
            template: self.source.clone(),
            reason,
        })?;
        Ok(found)
    }

    /// The template run on `data` and printed as `kubectl -o jsonpath=` prints it: strings
    /// raw, maps and arrays as JSON, the several values of one action joined by a space; with
    /// `as_json` (`-o jsonpath-as-json=`), each action's values as an indented JSON array.
    pub fn print(
        &self,
        data: &Value,
        allow_missing: bool,
        as_json: bool,
    ) -> Result<String, ExecError> {
        let mut out = String::new();
        for values in self.find(data, allow_missing)? {
            if as_json {
                out.push_str(&go::json_indented(&Value::Array(values)));
                out.push('\n');
                continue;
            }
            for (i, v) in values.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                match v {
                    Value::Object(_) | Value::Array(_) => out.push_str(&go::json(v)),
                    other => out.push_str(&go::text(other)),
                }
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests;
