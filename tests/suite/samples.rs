//! Every sample output the docs mark with `<!-- sample: tests/samples/NAME.sh -->` is what the
//! binary prints: the script runs against the test control plane (with the real kubectl making
//! the changes the sample shows) and each line of the sample, times, numbers, durations, uids
//! and generated names aside, must be a line the binary printed now; the command line shown
//! first must be the one run. `UPDATE_SAMPLES=1 cargo test --test suite samples:: -- --ignored`
//! writes every sample anew from the current output.

use crate::common::*;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Where a marked sample is: its file, the script, and the lines of its block (the fences
/// excluded).
struct Marked {
    file: PathBuf,
    script: String,
    /// Line indexes of the block's body: `start..end`.
    start: usize,
    end: usize,
    /// The block's indentation (a block in a list item is indented as the item).
    indent: String,
}

const MARKER: &str = "<!-- sample: ";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The marked samples of README.md and docs/, in file order.
fn marked() -> Vec<Marked> {
    let mut files = vec![root().join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    let mut found = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let Some(rest) = line.trim().strip_prefix(MARKER) else {
                continue;
            };
            let script = rest.trim_end_matches("-->").trim().to_string();
            let fence = lines.get(i + 1).map(|l| l.trim()).unwrap_or_default();
            assert!(
                fence.starts_with("```"),
                "{}:{}: a sample marker must stand right above its code block",
                file.display(),
                i + 1
            );
            let end = (i + 2..lines.len())
                .find(|&j| lines[j].trim() == "```")
                .unwrap_or_else(|| panic!("{}:{}: the block never ends", file.display(), i + 2));
            let indent =
                lines[i + 1][..lines[i + 1].len() - lines[i + 1].trim_start().len()].to_string();
            found.push(Marked {
                file: file.clone(),
                script,
                start: i + 2,
                end,
                indent,
            });
        }
    }
    found
}

/// Runs a sample script in the namespace `demo`, as the docs name it; its output.
fn produce(script: &str) -> String {
    let ns = "demo";
    let mut cmd = std::process::Command::new("bash");
    cmd.arg(root().join(script))
        .current_dir(root())
        .env("B", env!("CARGO_BIN_EXE_kubectl-informer"))
        .env("K", tool("kubectl"))
        .env("KUBECONFIG", kubeconfig_path())
        .env("NS", ns)
        .env("NO_COLOR", "1")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let out = run_with_limit(cmd, Duration::from_secs(180));
    assert_eq!(
        out.code,
        Some(0),
        "{script}:\n{}\n{}",
        out.stdout,
        out.stderr
    );
    out.stdout
}

/// Whether `word` is a name part Kubernetes generates (a pod-template hash, a Pod's or a
/// scratch namespace's suffix): 5 to 10 characters of its alphabet, which has no vowels, with a
/// letter among them (a number such as RV 25694 is made of that alphabet's digits alone).
fn generated(word: &str) -> bool {
    // A duration (`682ms`) is a number with a unit, masked as one below, not a generated name.
    let number = ["ms", "us", "s", "m", "h"]
        .iter()
        .find_map(|unit| word.strip_suffix(unit))
        .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit() || c == '.'));
    !number
        && (5..=10).contains(&word.len())
        && word
            .chars()
            .all(|c| "bcdfghjklmnpqrstvwxz2456789".contains(c))
        && word.chars().any(|c| c.is_ascii_alphabetic())
}

/// Whether `word` is a uid: 8-4-4-4-12 hex digits.
fn uid(word: &str) -> bool {
    let parts: Vec<&str> = word.split('-').collect();
    parts.iter().map(|p| p.len()).eq([8, 4, 4, 4, 12])
        && parts
            .iter()
            .all(|p| p.chars().all(|c| c.is_ascii_hexdigit()))
}

/// A line as the comparison sees it: every number `N`, a number with a unit of time `D`, a uid
/// `UID`, a generated name part `X`, runs of spaces and table rules as one space.
fn normalized(line: &str) -> String {
    let words: Vec<String> = line
        .split_whitespace()
        .map(|word| {
            let core = word.trim_matches(|c: char| !c.is_alphanumeric() && c != '-');
            if uid(core) {
                return word.replace(core, "UID");
            }
            // A commit the binary was built from (`version`), which every commit changes.
            let commit = core.trim_end_matches("-dirty");
            if commit.len() == 12 && commit.chars().all(|c| c.is_ascii_hexdigit()) {
                return "COMMIT".to_string();
            }
            word.split('-')
                .map(|part| {
                    let name = part.trim_end_matches(|c: char| !c.is_alphanumeric());
                    if generated(name) {
                        part.replacen(name, "X", 1)
                    } else {
                        part.to_string()
                    }
                })
                .collect::<Vec<_>>()
                .join("-")
        })
        .collect();
    let text = words.join(" ");
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_ascii_digit() {
            while chars
                .peek()
                .is_some_and(|c| c.is_ascii_digit() || *c == '.')
            {
                chars.next();
            }
            let unit: String = chars.clone().take_while(|c| c.is_alphabetic()).collect();
            if ["ns", "µs", "us", "ms", "s", "m", "h"].contains(&unit.as_str()) {
                for _ in 0..unit.chars().count() {
                    chars.next();
                }
                out.push('D');
            } else {
                out.push('N');
            }
        } else if "─═┄╌".contains(c) {
            if !out.ends_with('─') {
                out.push('─');
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[test]
#[ignore = "needs the test control plane and the test tools (controlplane.sh up, tools/tools.sh build): cargo test -- --ignored"]
fn every_marked_sample_is_what_the_binary_prints() {
    let samples = marked();
    assert!(samples.len() >= 6, "{} marked samples", samples.len());
    let update = std::env::var_os("UPDATE_SAMPLES").is_some();
    let mut stale = Vec::new();
    // What to write with UPDATE_SAMPLES: per file, each stale block and its new body.
    let mut rewrites: Vec<(&Marked, Vec<String>)> = Vec::new();
    for sample in &samples {
        let output = produce(&sample.script);
        let text = std::fs::read_to_string(&sample.file).unwrap();
        let shown: Vec<&str> = text.lines().collect::<Vec<_>>()[sample.start..sample.end]
            .iter()
            .map(|l| l.strip_prefix(sample.indent.as_str()).unwrap_or(l))
            .collect();
        let printed: BTreeSet<String> = output.lines().map(normalized).collect();
        let mut problems: Vec<String> = shown
            .iter()
            .filter(|l| !l.trim().is_empty() && !printed.contains(&normalized(l)))
            .map(|l| format!("not printed now: {l}"))
            .collect();
        if shown.first() != output.lines().next().as_ref() {
            problems.push("the command line shown is not the one run".into());
        }
        if update {
            let body = output
                .lines()
                .map(|l| format!("{}{l}", sample.indent).trim_end().to_string())
                .collect();
            rewrites.push((sample, body));
        } else if !problems.is_empty() {
            stale.push(format!(
                "{} ({}):\n  {}\nprinted now:\n{output}",
                sample.file.display(),
                sample.script,
                problems.join("\n  ")
            ));
        }
    }
    // Last block first, so that the line indexes of the earlier ones still hold.
    rewrites.sort_by_key(|(m, _)| std::cmp::Reverse((m.file.clone(), m.start)));
    for (sample, body) in rewrites {
        let text = std::fs::read_to_string(&sample.file).unwrap();
        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        lines.splice(sample.start..sample.end, body);
        std::fs::write(&sample.file, lines.join("\n") + "\n").unwrap();
    }
    assert!(
        stale.is_empty(),
        "samples the binary no longer prints (regenerate with `UPDATE_SAMPLES=1 cargo test \
         --test suite samples:: -- --ignored`):\n{}",
        stale.join("\n\n")
    );
}

#[test]
fn the_comparison_sees_through_times_numbers_uids_and_generated_names_only() {
    assert_eq!(
        normalized("19:29:37.982  ADDED     266       demo/web-78dd8797f8-jtxp6  (initial)"),
        normalized("01:02:03.004  ADDED     9         demo/web-5b7dc6b5ff-lzx8x  (initial)")
    );
    assert_eq!(
        normalized("p99 88µs 36b9b48e-4a4c-4f1c-a5a9-bb0c5f0d581b"),
        normalized("p99 1.20ms 00000000-1111-2222-3333-444444444444")
    );
    assert_ne!(
        normalized("listed 1 objects in 1 page(s)"),
        normalized("listed 1 object in 1 page")
    );
    assert_ne!(normalized("demo/app-1"), normalized("demo/app-x"));
    // An RV made only of digits a generated name may hold is a number all the same.
    assert_eq!(
        normalized("ADDED 25694 demo/a"),
        normalized("ADDED 38403 demo/a")
    );
}
