//! kubectl's `-o custom-columns=NAME:PATH,...` and `-o custom-columns-file=FILE` (a line of
//! headers, a line of paths, separated by whitespace): each path a JSONPath with or without
//! braces and its leading dot, as kubectl's `RelaxedJSONPathExpression` takes it; each cell the
//! values found, as Go's `fmt.Sprint` prints them, joined by commas, `<none>` when none.

use super::jsonpath::{sprint, ExecError, Template};
use serde_json::Value;

/// The columns, read and checked.
#[derive(Debug, Clone, PartialEq)]
pub struct Columns {
    columns: Vec<Column>,
}

#[derive(Debug, Clone, PartialEq)]
struct Column {
    header: String,
    template: Template,
}

/// What kubectl says of a line that is not a header and a path.
const FILE_FORMAT: &str =
    "Expected format is one line of space separated headers, one line of space separated column specs.";

impl Columns {
    /// `NAME:PATH,NAME:PATH`.
    pub fn from_spec(spec: &str) -> Result<Self, String> {
        if spec.is_empty() {
            return Err("custom-columns format specified but no custom columns given".into());
        }
        let columns = spec
            .split(',')
            .map(|part| match part.split_once(':') {
                Some((header, path)) => column(header, path),
                None => Err(format!(
                    "unexpected custom-columns spec: {part}, expected <header>:<json-path-expr>"
                )),
            })
            .collect::<Result<_, _>>()?;
        Ok(Columns { columns })
    }

    /// A file's text: its first line the headers, its second the paths.
    pub fn from_file(text: &str) -> Result<Self, String> {
        let mut lines = text.lines();
        let Some(headers) = lines.next() else {
            return Err(format!(
                "invalid template, missing header line. {FILE_FORMAT}"
            ));
        };
        let Some(paths) = lines.next() else {
            return Err(format!(
                "invalid template, missing spec line. {FILE_FORMAT}"
            ));
        };
        let headers: Vec<&str> = headers.split_whitespace().collect();
        let paths: Vec<&str> = paths.split_whitespace().collect();
        if headers.len() != paths.len() {
            return Err(format!(
                "number of headers ({}) and field specifications ({}) don't match",
                headers.len(),
                paths.len()
            ));
        }
        let columns = headers
            .iter()
            .zip(&paths)
            .map(|(h, p)| column(h, p))
            .collect::<Result<_, _>>()?;
        Ok(Columns { columns })
    }

    /// The header line, cells separated by tabs.
    pub fn header(&self) -> String {
        let headers: Vec<&str> = self.columns.iter().map(|c| c.header.as_str()).collect();
        format!("{}\n", headers.join("\t"))
    }

    /// `data`'s row, cells separated by tabs (missing keys are always allowed, as kubectl
    /// allows them here).
    pub fn row(&self, data: &Value) -> Result<String, ExecError> {
        let mut cells = Vec::with_capacity(self.columns.len());
        for column in &self.columns {
            let found = column.template.find(data, true)?;
            let mut values: Vec<String> = Vec::new();
            if found.first().is_none_or(Vec::is_empty) {
                values.push("<none>".into());
            }
            for v in found.iter().flatten() {
                values.push(escape_terminal(&sprint(v)));
            }
            cells.push(values.join(","));
        }
        Ok(format!("{}\n", cells.join("\t")))
    }
}

fn column(header: &str, path: &str) -> Result<Column, String> {
    let expression = relaxed(path)?;
    let template = Template::parse(&expression).map_err(|e| e.to_string())?;
    Ok(Column {
        header: header.to_string(),
        template,
    })
}

/// `metadata.name`, `.metadata.name`, `{metadata.name}` and `{.metadata.name}`, each as
/// `{.metadata.name}`.
fn relaxed(path: &str) -> Result<String, String> {
    if path.is_empty() {
        return Ok(String::new());
    }
    let no_braces = |s: &str| !s.is_empty() && !s.contains(['{', '}']);
    let braced = path
        .strip_prefix('{')
        .and_then(|p| p.strip_suffix('}'))
        .map(|p| p.strip_prefix('.').unwrap_or(p))
        .filter(|p| no_braces(p));
    let bare = Some(path.strip_prefix('.').unwrap_or(path)).filter(|p| no_braces(p));
    match braced.or(bare) {
        Some(field) => Ok(format!("{{.{field}}}")),
        None => Err(
            "unexpected path string, expected a 'name1.name2' or '.name1.name2' or \
                     '{name1.name2}' or '{.name1.name2}'"
                .into(),
        ),
    }
}

/// cli-runtime's `EscapeTerminal`: an escape character and a carriage return made visible.
fn escape_terminal(s: &str) -> String {
    s.replace('\x1b', "^[").replace('\r', "\\r")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_path_is_taken_with_or_without_braces_and_its_leading_dot() {
        for path in [
            "metadata.name",
            ".metadata.name",
            "{metadata.name}",
            "{.metadata.name}",
        ] {
            assert_eq!(relaxed(path).unwrap(), "{.metadata.name}");
        }
        assert!(relaxed("{.a}{.b}").is_err());
    }

    #[test]
    fn cells_are_go_values_joined_by_commas_or_none() {
        let columns =
            Columns::from_spec("NAME:.metadata.name,DATA:.data,KEYS:.list[*],X:.missing").unwrap();
        let object =
            json!({"metadata": {"name": "a"}, "data": {"y": "2", "x": "1"}, "list": [1, "b"]});
        assert_eq!(columns.header(), "NAME\tDATA\tKEYS\tX\n");
        assert_eq!(
            columns.row(&object).unwrap(),
            "a\tmap[x:1 y:2]\t1,b\t<none>\n"
        );
    }

    #[test]
    fn a_file_is_a_line_of_headers_and_a_line_of_paths() {
        let columns =
            Columns::from_file("NAME   RV\n.metadata.name  {.metadata.resourceVersion}\n").unwrap();
        assert_eq!(columns.header(), "NAME\tRV\n");
        assert!(Columns::from_file("A B\n.a\n")
            .unwrap_err()
            .contains("number of headers (2) and field specifications (1) don't match"));
        assert!(Columns::from_file("A\n")
            .unwrap_err()
            .starts_with("invalid template, missing spec line."));
        assert!(Columns::from_spec("NAME")
            .unwrap_err()
            .starts_with("unexpected custom-columns spec: NAME"));
    }
}
