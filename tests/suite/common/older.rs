//! The older API servers beside the current one: the other minors upstream supports (started by
//! `tests/controlplane/controlplane.sh up` as `run/minors/1.MINOR/kubeconfig`), and a
//! kube-controller-manager with a few of its controllers to run against one of them or the v1.29
//! server, which run no controllers of their own.

use super::{controlplane_bin, run_dir, START_COMMAND};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// The minors upstream supports beside the current one (1.37), as controlplane.sh's
/// `minor_k8s_versions` builds and starts them.
pub const MINORS: [&str; 2] = ["1.35", "1.36"];

/// The kubeconfig of the supported minor `minor` ("1.35"): `$KUBECTL_INFORMER_TEST_KUBECONFIG_1_35`,
/// or `run/minors/1.35/kubeconfig` beside the current server's.
pub fn minor_kubeconfig_path(minor: &str) -> PathBuf {
    let var = format!(
        "KUBECTL_INFORMER_TEST_KUBECONFIG_{}",
        minor.replace('.', "_")
    );
    match std::env::var_os(var) {
        Some(p) => PathBuf::from(p),
        None => run_dir().join("minors").join(minor).join("kubeconfig"),
    }
}

/// A kube-controller-manager of the control plane's built binaries (`binary`:
/// `kube-controller-manager`, the current one, or `kube-controller-manager-1.MINOR`, that of a
/// supported minor or of v1.29) running only
/// `controllers` against the server of `kubeconfig`, leader election off, its own port picked by
/// the kernel; killed on drop.
pub struct ControllerManager(Child);

impl ControllerManager {
    pub fn start(binary: &str, kubeconfig: &Path, controllers: &str) -> Self {
        let run = run_dir();
        let binary = controlplane_bin(binary);
        let kubeconfig = kubeconfig.display();
        let child = Command::new(&binary)
            .args([
                format!("--kubeconfig={kubeconfig}"),
                format!("--authentication-kubeconfig={kubeconfig}"),
                format!("--authorization-kubeconfig={kubeconfig}"),
                "--authentication-skip-lookup".into(),
                "--bind-address=127.0.0.1".into(),
                "--secure-port=0".into(),
                format!(
                    "--tls-cert-file={}",
                    run.join("pki/apiserver.crt").display()
                ),
                format!(
                    "--tls-private-key-file={}",
                    run.join("pki/apiserver.key").display()
                ),
                "--leader-elect=false".into(),
                format!("--controllers={controllers}"),
                "--profiling=false".into(),
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| {
                panic!(
                    "cannot start {}: {e}; build it with `{START_COMMAND}`",
                    binary.display()
                )
            });
        ControllerManager(child)
    }
}

impl Drop for ControllerManager {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}
