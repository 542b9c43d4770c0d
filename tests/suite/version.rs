//! `version` prints the client's version and the commit it was built from; `--client` asks no
//! server. (The server's version, read on every supported minor: `older::version`.)

use crate::common::*;

/// `git rev-parse --short=12 HEAD` of this repository, when git can say.
pub(crate) fn head_commit() -> Option<String> {
    let out = std::process::Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// The value of `Name: value` on stdout.
pub(crate) fn field<'a>(out: &'a Output, name: &str) -> &'a str {
    out.stdout
        .lines()
        .find_map(|l| l.strip_prefix(&format!("{name}: ")))
        .unwrap_or_else(|| panic!("no {name} in:\n{}", out.stdout))
}

#[test]
fn client_asks_no_server_and_a_server_that_cannot_be_asked_still_leaves_the_client_lines() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let closed = format!("https://{}", listener.local_addr().unwrap());
    drop(listener);
    let out = run(&["version", "--client", "--server", &closed]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(!out.stdout.contains("Server Version"), "{}", out.stdout);
    let out = run(&["version", "--server", &closed]);
    assert_one_line_error(&out, &["cannot connect to"]);
    assert!(
        out.stdout.starts_with("Client Version: v"),
        "{}",
        out.stdout
    );
    // -o json: the document without serverVersion, then the error.
    let out = run(&["version", "-o", "json", "--server", &closed]);
    assert_one_line_error(&out, &["cannot connect to"]);
    let doc: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert!(doc["clientVersion"]["gitVersion"].is_string(), "{doc}");
    assert!(doc.get("serverVersion").is_none(), "{doc}");
    let out = run(&["version", "--client", "-o", "yaml", "--server", &closed]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(out.stdout.starts_with("clientVersion:\n"), "{}", out.stdout);
}
