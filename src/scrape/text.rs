//! The Prometheus text exposition format (0.0.4) and OpenMetrics text (1.0), read into samples:
//! what every client-go and controller-runtime process serves on `/metrics`. Comments, `# HELP`
//! and `# UNIT` are skipped, `# TYPE` is kept per family, a sample's timestamp and exemplar are
//! read past and dropped (a scrape is one instant), and OpenMetrics' `# EOF` ends the text.

use std::collections::HashMap;

/// A sample's labels, in the order written.
pub type Labels = Vec<(String, String)>;

/// One sample: `name{label="value",...} value`.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    pub name: String,
    pub labels: Labels,
    pub value: f64,
}

impl Sample {
    /// The value of label `name`, if the sample has it.
    pub fn label(&self, name: &str) -> Option<&str> {
        self.labels
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A family's declared type (`# TYPE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Counter,
    Gauge,
    Histogram,
    Summary,
    /// `untyped`, `unknown`, OpenMetrics' `info`, `stateset`, `gaugehistogram`.
    Other,
}

/// A whole scrape.
#[derive(Debug, Clone, Default)]
pub struct Exposition {
    pub samples: Vec<Sample>,
    /// The families' declared types, by family name.
    pub kinds: HashMap<String, Kind>,
}

impl Exposition {
    /// The samples named exactly `name`.
    pub fn named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Sample> + 'a {
        self.samples.iter().filter(move |s| s.name == name)
    }
}

/// Why a text is not an exposition: the line (from 1) and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {reason}")]
pub struct ParseError {
    pub line: usize,
    pub reason: String,
}

/// Reads a whole exposition. A text with no sample at all is refused too: whatever answered is
/// not serving metrics.
pub fn parse(text: &str) -> Result<Exposition, ParseError> {
    let mut exposition = Exposition::default();
    for (i, line) in text.lines().enumerate() {
        let error = |reason: String| ParseError {
            line: i + 1,
            reason,
        };
        let line = line.trim_end_matches('\r');
        if line.trim().is_empty() {
            continue;
        }
        if let Some(comment) = line.strip_prefix('#') {
            let mut words = comment.split_whitespace();
            match (words.next(), words.next(), words.next()) {
                (Some("EOF"), None, None) => break,
                (Some("TYPE"), Some(name), Some(kind)) => {
                    exposition.kinds.insert(name.to_string(), kind_of(kind));
                }
                _ => {}
            }
            continue;
        }
        let sample = sample(line).map_err(error)?;
        exposition.samples.push(sample);
    }
    if exposition.samples.is_empty() {
        return Err(ParseError {
            line: text.lines().count().max(1),
            reason: "no sample in the whole text".to_string(),
        });
    }
    Ok(exposition)
}

fn kind_of(word: &str) -> Kind {
    match word {
        "counter" => Kind::Counter,
        "gauge" => Kind::Gauge,
        "histogram" => Kind::Histogram,
        "summary" => Kind::Summary,
        _ => Kind::Other,
    }
}

/// One sample line: a name, labels in braces if any, a value, then an optional timestamp and
/// (OpenMetrics) an exemplar after ` # `.
fn sample(line: &str) -> Result<Sample, String> {
    let rest = line.trim_start();
    let name_end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':'))
        .unwrap_or(rest.len());
    let name = &rest[..name_end];
    if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
        return Err(format!("expected a metric name, found {:?}", clip(rest)));
    }
    let mut rest = &rest[name_end..];
    let mut labels = Vec::new();
    if let Some(inside) = rest.strip_prefix('{') {
        let (read, after) = label_set(inside)?;
        labels = read;
        rest = after;
    }
    let mut words = rest.split_whitespace();
    let value = words
        .next()
        .ok_or_else(|| format!("{name} has no value"))
        .and_then(|v| number(v).ok_or_else(|| format!("{name}: {v:?} is not a number")))?;
    let mut after_value = words.next();
    if after_value.is_some_and(|w| w != "#" && number(w).is_some()) {
        after_value = words.next();
    }
    if let Some(other) = after_value.filter(|w| *w != "#") {
        return Err(format!(
            "{name}: unexpected {:?} after the value",
            clip(other)
        ));
    }
    Ok(Sample {
        name: name.to_string(),
        labels,
        value,
    })
}

/// The labels after `{`, up to and past the closing `}`: `name="value"` pairs separated by
/// commas (a trailing comma allowed), values with the escapes `\\`, `\"` and `\n`.
fn label_set(mut rest: &str) -> Result<(Labels, &str), String> {
    let mut labels = Vec::new();
    loop {
        rest = rest.trim_start();
        if let Some(after) = rest.strip_prefix('}') {
            return Ok((labels, after));
        }
        let name_end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        let name = &rest[..name_end];
        if name.is_empty() {
            return Err(format!("expected a label name, found {:?}", clip(rest)));
        }
        rest = rest[name_end..].trim_start();
        rest = rest
            .strip_prefix('=')
            .ok_or_else(|| format!("label {name} has no '='"))?
            .trim_start();
        rest = rest
            .strip_prefix('"')
            .ok_or_else(|| format!("label {name}'s value is not quoted"))?;
        let (value, after) =
            quoted(rest).ok_or_else(|| format!("label {name}'s value is not closed"))?;
        labels.push((name.to_string(), value));
        rest = after.trim_start();
        if let Some(after) = rest.strip_prefix(',') {
            rest = after;
        } else if !rest.starts_with('}') {
            return Err(format!("expected ',' or '}}' after label {name}"));
        }
    }
}

/// A quoted value's text up to its closing quote, unescaped, and what follows the quote.
fn quoted(text: &str) -> Option<(String, &str)> {
    let mut value = String::new();
    let mut chars = text.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Some((value, &text[i + 1..])),
            '\\' => match chars.next()?.1 {
                'n' => value.push('\n'),
                other => value.push(other),
            },
            c => value.push(c),
        }
    }
    None
}

/// A value as Go's `strconv.ParseFloat` reads it, `NaN` and `±Inf` included.
fn number(text: &str) -> Option<f64> {
    match text.to_ascii_lowercase().as_str() {
        "nan" => Some(f64::NAN),
        "inf" | "+inf" => Some(f64::INFINITY),
        "-inf" => Some(f64::NEG_INFINITY),
        _ => text.parse().ok(),
    }
}

/// The start of a text, for an error message.
fn clip(text: &str) -> String {
    crate::format::one_line(text, 40)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_labels_and_types_are_read() {
        let e = parse(concat!(
            "# HELP workqueue_depth Current depth of workqueue\n",
            "# TYPE workqueue_depth gauge\n",
            "workqueue_depth{name=\"deployment\"} 3\n",
            "workqueue_depth{name=\"replicaset\",} 0\n",
            "# TYPE workqueue_queue_duration_seconds histogram\n",
            "workqueue_queue_duration_seconds_bucket{name=\"deployment\",le=\"9.999999999999999e-06\"} 1\n",
            "workqueue_queue_duration_seconds_bucket{name=\"deployment\",le=\"+Inf\"} 4\n",
            "process_start_time_seconds 1.76e+09\n",
        ))
        .unwrap();
        assert_eq!(e.samples.len(), 5);
        assert_eq!(e.kinds["workqueue_depth"], Kind::Gauge);
        assert_eq!(e.kinds["workqueue_queue_duration_seconds"], Kind::Histogram);
        let depth: Vec<_> = e.named("workqueue_depth").collect();
        assert_eq!(depth[0].label("name"), Some("deployment"));
        assert_eq!(depth[0].value, 3.0);
        assert_eq!(depth[1].labels, vec![("name".into(), "replicaset".into())]);
        let bucket = &e.samples[2];
        assert_eq!(bucket.label("le"), Some("9.999999999999999e-06"));
        assert_eq!(e.samples[4].value, 1.76e9);
    }

    #[test]
    fn escapes_special_values_timestamps_and_openmetrics_are_read() {
        let e = parse(concat!(
            "a{path=\"C:\\\\DIR\\\\FILE.TXT\",error=\"Cannot find file:\\n\\\"FILE.TXT\\\"\"} 1.458255915e9\n",
            "b NaN\n",
            "c{x=\"}\"} -Inf 1395066363000\n",
            "d_total 17 # {trace_id=\"abc\"} 1.0 1.5\n",
            "# EOF\n",
            "this is after the end\n",
        ))
        .unwrap();
        assert_eq!(e.samples[0].label("path"), Some("C:\\DIR\\FILE.TXT"));
        assert_eq!(
            e.samples[0].label("error"),
            Some("Cannot find file:\n\"FILE.TXT\"")
        );
        assert!(e.samples[1].value.is_nan());
        assert_eq!(e.samples[2].label("x"), Some("}"));
        assert_eq!(e.samples[2].value, f64::NEG_INFINITY);
        assert_eq!(e.samples[3].value, 17.0);
        assert_eq!(e.samples.len(), 4);
    }

    #[test]
    fn what_is_not_metrics_is_refused_with_its_line() {
        let html = "<!DOCTYPE html>\n<html><body>hello</body></html>\n";
        assert_eq!(parse(html).unwrap_err().line, 1);
        assert_eq!(parse("").unwrap_err().reason, "no sample in the whole text");
        assert_eq!(
            parse("# only comments\n").unwrap_err().reason,
            "no sample in the whole text"
        );
        let e = parse("ok 1\nbroken{le=\"1\" 2\n").unwrap_err();
        assert_eq!(e.line, 2, "{e}");
        assert!(parse("x{a=\"unclosed} 1\n").is_err());
        assert!(parse("x 1 2 3\n").is_err());
        assert!(parse("x one\n").is_err());
    }
}
