//! The documentation stays true: the flag tables of the reference pages (docs/) are generated
//! from the command line's own definition (the one `--help` prints) and checked here, every
//! Markdown table is well formed, and every link to a file or a section leads somewhere.
//! Regenerate the flag tables with `UPDATE_DOCS=1 cargo test --test suite docs::`.

use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A flag as the tables show it: `-l, --selector SELECTOR`, `--insecure-skip-tls-verify[=BOOL]`.
fn flag_cell(arg: &clap::Arg) -> String {
    let mut names = Vec::new();
    if let Some(short) = arg.get_short() {
        names.push(format!("-{short}"));
    }
    if let Some(long) = arg.get_long() {
        names.push(format!("--{long}"));
    }
    let mut cell = names.join(", ");
    let takes_value = arg.get_num_args().is_some_and(|n| n.takes_values());
    if takes_value {
        let value = arg
            .get_value_names()
            .and_then(|v| v.first())
            .map(|v| v.to_string())
            .unwrap_or_else(|| arg.get_id().to_string().to_uppercase());
        if arg.get_num_args().is_some_and(|n| n.min_values() == 0) {
            cell.push_str(&format!("[={value}]"));
        } else {
            cell.push_str(&format!(" {value}"));
        }
    }
    format!("`{cell}`")
}

/// One line of Markdown from a help text: no line breaks, no unescaped `|`.
fn one_line(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace('|', "\\|")
}

fn meaning_cell(arg: &clap::Arg) -> String {
    let mut text = arg
        .get_long_help()
        .or(arg.get_help())
        .map(|h| one_line(&h.to_string()))
        .unwrap_or_default();
    let values: Vec<String> = arg
        .get_possible_values()
        .iter()
        .filter(|v| !v.is_hide_set())
        .map(|v| format!("`{}`", v.get_name()))
        .collect();
    let is_bool = values.len() == 2 && values[0] == "`true`";
    let named = values.iter().all(|v| text.contains(v.as_str()));
    if !values.is_empty() && !is_bool && !named {
        if !text.ends_with('.') {
            text.push('.');
        }
        text.push_str(&format!(" One of {}.", values.join(", ")));
    }
    text
}

fn default_cell(arg: &clap::Arg) -> String {
    let defaults: Vec<String> = arg
        .get_default_values()
        .iter()
        .map(|v| v.to_string_lossy().to_string())
        .collect();
    let takes_value = arg.get_num_args().is_some_and(|n| n.takes_values());
    if defaults.is_empty() || !takes_value || defaults == ["false"] {
        String::new()
    } else {
        format!("`{}`", defaults.join(","))
    }
}

/// The flag table of `command` (`None`: the global options), as README shows it.
fn flag_table(command: Option<&str>) -> String {
    let mut root = kubectl_informer::cli::command();
    root.build();
    let cmd = match command {
        Some(name) => root
            .find_subcommand(name)
            .unwrap_or_else(|| panic!("no command {name}"))
            .clone(),
        None => root.clone(),
    };
    let mut table = String::from("| Flag | Default | Meaning |\n|---|---|---|\n");
    for arg in cmd.get_arguments() {
        let global = arg.is_global_set();
        let wanted = match command {
            Some(_) => !global && !arg.is_hide_set(),
            None => global,
        };
        if !wanted || arg.is_positional() || matches!(arg.get_id().as_str(), "help" | "version") {
            continue;
        }
        table.push_str(&format!(
            "| {} | {} | {} |\n",
            flag_cell(arg),
            default_cell(arg),
            meaning_cell(arg)
        ));
    }
    table
}

/// Replaces what lies between `<!-- flags:NAME -->` and `<!-- /flags:NAME -->` in `text`.
fn with_section(text: &str, name: &str, body: &str) -> Option<String> {
    let open = format!("<!-- flags:{name} -->\n");
    let close = format!("<!-- /flags:{name} -->");
    let start = text.find(&open)? + open.len();
    let end = start + text[start..].find(&close)?;
    Some(format!("{}{}{}", &text[..start], body, &text[end..]))
}

#[test]
fn the_reference_pages_flag_tables_match_the_command_line() {
    let mut stale = Vec::new();
    for (file, section, command) in [
        ("docs/tail.md", "tail", Some("tail")),
        ("docs/diff.md", "diff", Some("diff")),
        ("docs/bench.md", "bench", Some("bench")),
        ("docs/conform.md", "conform", Some("conform")),
        ("docs/top.md", "top", Some("top")),
        ("docs/proxy.md", "proxy", Some("proxy")),
        ("docs/other-commands.md", "version", Some("version")),
        ("docs/global-options.md", "global", None),
    ] {
        let path = root().join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        let updated = with_section(&text, section, &flag_table(command)).unwrap_or_else(|| {
            panic!(
                "{file} has no `<!-- flags:{section} -->` ... `<!-- /flags:{section} -->` section"
            )
        });
        if updated == text {
            continue;
        }
        if std::env::var_os("UPDATE_DOCS").is_some() {
            std::fs::write(&path, updated).unwrap();
        } else {
            stale.push(file);
        }
    }
    assert!(
        stale.is_empty(),
        "the flag tables of {stale:?} differ from the command line's definition; regenerate them \
         with `UPDATE_DOCS=1 cargo test --test suite docs::`"
    );
}

/// Every Markdown file of the project, docs/ included.
fn markdown_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = ["README.md", "BENCHMARKS.md", "CONTRIBUTING.md"]
        .iter()
        .map(|f| root().join(f))
        .filter(|p| p.exists())
        .collect();
    if let Ok(entries) = std::fs::read_dir(root().join("docs")) {
        for entry in entries.flatten() {
            if entry.path().extension().is_some_and(|e| e == "md") {
                files.push(entry.path());
            }
        }
    }
    files.sort();
    files
}

/// The cells of a table row: split on `|` that are not escaped and not inside `code`.
fn cells(line: &str) -> usize {
    let inner = line.trim().trim_start_matches('|').trim_end_matches('|');
    let mut count = 1;
    let mut in_code = false;
    let mut escaped = false;
    for c in inner.chars() {
        match c {
            '\\' if !escaped => {
                escaped = true;
                continue;
            }
            '`' if !escaped => in_code = !in_code,
            '|' if !escaped && !in_code => count += 1,
            _ => {}
        }
        escaped = false;
    }
    count
}

#[test]
fn every_markdown_table_is_well_formed() {
    let files = markdown_files();
    assert!(files.len() >= 2, "{files:?}");
    let mut problems = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let mut in_fence = false;
        let mut i = 0;
        while i < lines.len() {
            let line = lines[i];
            if line.trim_start().starts_with("```") {
                in_fence = !in_fence;
            }
            if in_fence || !line.trim_start().starts_with('|') {
                i += 1;
                continue;
            }
            // A table: header, separator, rows, all with the header's number of cells, and a
            // blank line (or a marker) before it.
            let at = format!("{}:{}", path.display(), i + 1);
            let header = cells(line);
            if i > 0 && !lines[i - 1].trim().is_empty() && !lines[i - 1].starts_with("<!--") {
                problems.push(format!("{at}: no blank line before the table"));
            }
            match lines.get(i + 1) {
                Some(sep)
                    if sep.trim().starts_with('|')
                        && sep.chars().all(|c| "|-: ".contains(c))
                        && cells(sep) == header => {}
                _ => problems.push(format!("{at}: the header is not followed by a separator")),
            }
            let mut j = i + 2;
            let mut rows = 0;
            while j < lines.len() && lines[j].trim_start().starts_with('|') {
                if cells(lines[j]) != header {
                    problems.push(format!(
                        "{}:{}: {} cells where the header has {header}",
                        path.display(),
                        j + 1,
                        cells(lines[j])
                    ));
                }
                rows += 1;
                j += 1;
            }
            if rows == 0 {
                problems.push(format!("{at}: a table without rows"));
            }
            i = j;
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// GitHub's anchor of a heading: lowercase, punctuation dropped, spaces to hyphens.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

#[test]
fn every_link_to_a_section_or_file_leads_somewhere() {
    let mut broken = Vec::new();
    for path in markdown_files() {
        let text = std::fs::read_to_string(&path).unwrap();
        let mut in_fence = false;
        let mut anchors = Vec::new();
        for line in text.lines() {
            if line.trim_start().starts_with("```") {
                in_fence = !in_fence;
            }
            if !in_fence && line.starts_with('#') {
                anchors.push(slug(line.trim_start_matches('#')));
            }
        }
        let dir = path.parent().unwrap();
        for (i, _) in text.match_indices("](") {
            let rest = &text[i + 2..];
            let Some(end) = rest.find(')') else { continue };
            let target = &rest[..end];
            if target.starts_with("http") || target.contains(' ') {
                continue;
            }
            let (file, anchor) = target.split_once('#').unwrap_or((target, ""));
            let file_ok = file.is_empty() || dir.join(file).exists();
            let anchor_ok = anchor.is_empty()
                || if file.is_empty() {
                    anchors.iter().any(|a| a == anchor)
                } else {
                    let other = std::fs::read_to_string(dir.join(file)).unwrap_or_default();
                    other
                        .lines()
                        .filter(|l| l.starts_with('#'))
                        .any(|l| slug(l.trim_start_matches('#')) == anchor)
                };
            if !file_ok || !anchor_ok {
                broken.push(format!("{}: ({target})", path.display()));
            }
        }
    }
    assert!(
        broken.is_empty(),
        "links that lead nowhere:\n{}",
        broken.join("\n")
    );
}
