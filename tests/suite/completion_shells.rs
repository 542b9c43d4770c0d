//! The completion scripts of `completions/` (what `kubectl-informer completion SHELL` prints) in
//! real shells: fish completes through its own engine (`complete -C`, what <TAB> runs); bash and
//! zsh run the script's function as <TAB> would, with kubectl-informer on
//! PATH, and the candidates it gives are the binary's own `__complete` answer, so that commands,
//! flags and their values complete without a cluster, and resource types and namespaces from the
//! test control plane. The tests that run zsh or fish are ignored by plain `cargo test` (a machine
//! may not have them) and run by `cargo test -- --ignored`, after tests/run.sh installs them.
//! zsh's completion widgets need a terminal; its builtins the function calls
//! (`compadd`, `_files`, `compdef`) are stood in for by functions that print what they are given.

use crate::common::*;
use std::path::Path;
use std::process::Command;

fn script(file: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("completions")
        .join(file)
        .display()
        .to_string()
}

/// PATH with the binary's directory first, as an installed kubectl-informer is.
fn path() -> String {
    let bin = Path::new(env!("CARGO_BIN_EXE_kubectl-informer"))
        .parent()
        .unwrap()
        .display()
        .to_string();
    format!("{bin}:{}", std::env::var("PATH").unwrap_or_default())
}

/// Runs `shell` with `args` (the binary on PATH, the test kubeconfig) and returns the values it
/// printed, one per line, without their `\tdescription`; `strict`: the shell must succeed (zsh's
/// function returns 1 when it offers nothing, as completion functions do).
fn offered(shell: &str, args: &[&str], strict: bool) -> Vec<String> {
    let out = Command::new(shell)
        .args(args)
        .env("PATH", path())
        .env("KUBECONFIG", kubeconfig_path())
        .output()
        .unwrap_or_else(|e| {
            panic!("{shell}: {e}: tests/run.sh installs it (Debian's package {shell})")
        });
    assert!(
        !strict || out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter_map(|l| l.split('\t').next())
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect()
}

/// What bash's completion function offers for the command line `line` (the cursor at its end).
fn bash(line: &str) -> Vec<String> {
    let program = format!(
        "source {}; COMP_LINE=\"$1\"; COMP_POINT=${{#COMP_LINE}}; _kubectl_informer; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
        script("kubectl-informer.bash")
    );
    offered("bash", &["-c", &program, "bash", line], true)
}

/// What zsh's completion function adds for `words` (the last one under the cursor); `FILES` when
/// it falls back to file names.
fn zsh(words: &[&str]) -> Vec<String> {
    let program = format!(
        r#"compdef() {{ :; }}
compadd() {{ local -a names; while (($#)); do case $1 in -a) shift; names=("$@"); break;; -d|-S) shift 2;; *) shift;; esac; done; local n; for n in $names; do print -l -- ${{(P)n}}; done; }}
_files() {{ print FILES; }}
source {}
words=("$@"); CURRENT=$#; _kubectl-informer"#,
        script("_kubectl-informer")
    );
    let mut args = vec!["-f", "-c", &program, "zsh"];
    args.extend(words);
    offered("zsh", &args, false)
}

/// What fish's own completion engine offers for the command line `line`, values only.
fn fish(line: &str) -> Vec<String> {
    let program = format!(
        "source {}; complete -C $argv[1]",
        script("kubectl-informer.fish")
    );
    offered("fish", &["--no-config", "-c", &program, line], true)
}

#[test]
#[ignore = "needs zsh and fish (tests/run.sh installs them, Debian's packages zsh and fish): cargo test -- --ignored"]
fn fish_completes_commands_flags_and_flag_values_through_its_own_engine() {
    assert_eq!(fish("kubectl-informer ta"), ["tail"]);
    assert_eq!(fish("kubectl-informer tail --output=y"), ["--output=yaml"]);
    let root = env!("CARGO_MANIFEST_DIR");
    assert_eq!(
        fish(&format!("kubectl-informer tail --record {root}/Cargo.t")),
        [format!("{root}/Cargo.toml")],
        "a file flag's value falls back to file names"
    );
}

#[test]
fn bash_completes_commands_flags_and_flag_values_from_the_binary() {
    assert_eq!(bash("kubectl-informer ta"), ["tail"]);
    assert!(bash("kubectl-informer ").contains(&"proxy".to_string()));
    let flags = bash("kubectl-informer tail --ou");
    assert_eq!(flags, ["--output", "--output-watch-events"]);
    // `--output=` is one word to the command; bash replaces only what follows the `=`.
    assert_eq!(
        bash("kubectl-informer tail --output=y"),
        ["yaml"],
        "the part after = is what bash replaces"
    );
    let values = bash("kubectl-informer tail -o ");
    assert!(values.contains(&"yaml".to_string()), "{values:?}");
}

#[test]
#[ignore = "needs zsh and fish (tests/run.sh installs them, Debian's packages zsh and fish): cargo test -- --ignored"]
fn zsh_completes_commands_flags_and_flag_values_from_the_binary() {
    assert_eq!(zsh(&["kubectl-informer", "ta"]), ["tail"]);
    assert_eq!(
        zsh(&["kubectl-informer", "tail", "--ou"]),
        ["--output", "--output-watch-events"]
    );
    assert_eq!(
        zsh(&["kubectl-informer", "tail", "--output=y"]),
        ["--output=yaml"]
    );
    // A file flag's value falls back to file names.
    assert_eq!(
        zsh(&["kubectl-informer", "tail", "--record", ""]),
        ["FILES"]
    );
}

#[test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
fn bash_zsh_and_fish_complete_resource_types_and_namespaces_from_the_server() {
    admin_blocking();
    assert_eq!(bash("kubectl-informer tail config"), ["configmaps"]);
    assert_eq!(zsh(&["kubectl-informer", "tail", "config"]), ["configmaps"]);
    assert_eq!(fish("kubectl-informer tail config"), ["configmaps"]);
    for namespaces in [
        bash("kubectl-informer tail configmaps -n "),
        zsh(&["kubectl-informer", "tail", "configmaps", "-n", ""]),
        fish("kubectl-informer tail configmaps -n "),
    ] {
        for ns in ["default", "kube-system"] {
            assert!(namespaces.contains(&ns.to_string()), "{namespaces:?}");
        }
    }
}

/// Fails, naming the command that starts it, unless the test control plane answers.
fn admin_blocking() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(admin());
}

#[test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
fn bash_and_zsh_complete_object_names_from_the_server() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let ns = runtime.block_on(async {
        let ns = TestNamespace::new("compl-shell").await;
        for name in ["web-1", "web-2", "db"] {
            ns.create_configmap(name, &[]).await;
        }
        ns
    });
    let n = ns.name.as_str();
    assert_eq!(
        bash(&format!("kubectl-informer tail configmaps -n {n} web")),
        ["web-1", "web-2"]
    );
    assert_eq!(
        bash(&format!("kubectl-informer tail -n {n} cm/d")),
        ["cm/db"]
    );
    assert_eq!(
        zsh(&["kubectl-informer", "tail", "configmaps", "-n", n, ""]),
        ["db", "web-1", "web-2"]
    );
    assert_eq!(
        zsh(&["kubectl-informer", "tail", "--namespace", n, "configmaps/w"]),
        ["configmaps/web-1", "configmaps/web-2"]
    );
    assert_eq!(
        fish(&format!("kubectl-informer tail configmaps -n {n} d")),
        ["db"]
    );
    drop(runtime);
}

#[test]
#[ignore = "needs zsh and fish (tests/run.sh installs them, Debian's packages zsh and fish): cargo test -- --ignored"]
fn bash_and_zsh_complete_fault_options_without_a_space_after_them() {
    // bash replaces what follows the last `=` or `:` of the word.
    assert_eq!(
        bash("kubectl-informer proxy --fault sever:every=5s,ho"),
        ["5s,how="]
    );
    assert_eq!(
        zsh(&[
            "kubectl-informer",
            "proxy",
            "--fault",
            "sever:every=5s,how=e"
        ]),
        ["sever:every=5s,how=end"]
    );
}

/// kubectl itself (1.26+) completing `kubectl informer ...`: it finds the plugin and
/// `kubectl_complete-informer` on PATH and hands the words to the helper.
#[test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
fn kubectl_completes_the_plugins_object_names_through_the_helper() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let ns = runtime.block_on(async {
        let ns = TestNamespace::new("compl-kubectl").await;
        ns.create_configmap("settings", &[]).await;
        ns
    });
    let dir = tempfile::tempdir().unwrap();
    for (name, target) in [
        (
            "kubectl-informer",
            env!("CARGO_BIN_EXE_kubectl-informer").to_string(),
        ),
        (
            "kubectl_complete-informer",
            script("kubectl_complete-informer"),
        ),
    ] {
        std::os::unix::fs::symlink(target, dir.path().join(name)).unwrap();
    }
    let mut cmd = kubectl();
    cmd.env(
        "PATH",
        format!(
            "{}:{}",
            dir.path().display(),
            std::env::var("PATH").unwrap()
        ),
    )
    .args([
        "__complete",
        "informer",
        "tail",
        "configmaps",
        "-n",
        &ns.name,
        "s",
    ]);
    let out = run_with_limit(cmd, std::time::Duration::from_secs(30));
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert_eq!(out.stdout, "settings\n:4\n", "{}", out.stderr);
    drop(runtime);
}
