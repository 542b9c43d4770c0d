//! The connection flags of a run, written back as kubectl flags for a command the user is told
//! to run.

use super::KubeconfigSelection;
use std::path::PathBuf;

impl KubeconfigSelection {
    /// The connection flags this run was given, to repeat in a suggested kubectl command
    /// (`kubectl auth can-i`) so that it asks as the same user of the same cluster: each with a
    /// leading space, values quoted for a POSIX shell; a `--token` as a placeholder, never its
    /// value. Empty when the run used the kubeconfig's current context as it is.
    pub fn kubectl_flags(&self) -> String {
        let mut flags: String = self
            .args()
            .iter()
            .map(|a| format!(" {}", shell_quoted(a)))
            .collect();
        if self.overrides.token.is_some() {
            flags.push_str(" --token \"$TOKEN\"");
        }
        flags
    }

    /// The connection flags this run was given, as the words of another process's command line
    /// that is to connect as this one does; `--token` left out (a command line is no place for a
    /// credential: the caller decides).
    pub fn args(&self) -> Vec<String> {
        let o = &self.overrides;
        let paths = |p: &Option<PathBuf>| p.as_ref().map(|p| p.display().to_string());
        let mut args = Vec::new();
        for (flag, value) in [
            ("--kubeconfig", paths(&self.path)),
            ("--context", self.context.clone()),
            ("--cluster", self.cluster.clone()),
            ("--user", self.user.clone()),
            ("--server", o.server.clone()),
            ("--certificate-authority", paths(&o.certificate_authority)),
            ("--tls-server-name", o.tls_server_name.clone()),
            ("--client-certificate", paths(&o.client_certificate)),
            ("--client-key", paths(&o.client_key)),
            ("--as", o.impersonate.clone()),
        ] {
            if let Some(value) = value {
                args.extend([flag.to_string(), value]);
            }
        }
        for group in &o.impersonate_groups {
            args.extend(["--as-group".to_string(), group.clone()]);
        }
        if let Some(uid) = &o.impersonate_uid {
            args.extend(["--as-uid".to_string(), uid.clone()]);
        }
        for (flag, on) in [
            ("--insecure-skip-tls-verify", o.insecure_skip_tls_verify),
            ("--disable-compression", o.disable_compression),
        ] {
            if on {
                args.push(flag.to_string());
            }
        }
        args
    }
}

/// `value` as one word of a POSIX shell: as it is when it holds only characters no shell
/// treats specially, else in single quotes.
fn shell_quoted(value: &str) -> String {
    let plain = !value.is_empty()
        && value
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:@=,+%".contains(c));
    if plain {
        value.to_string()
    } else {
        format!("'{}'", value.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::Overrides;

    #[test]
    fn the_current_context_as_it_is_needs_no_flags() {
        assert_eq!(KubeconfigSelection::default().kubectl_flags(), "");
    }

    #[test]
    fn every_flag_that_chose_the_identity_is_repeated_and_a_token_never_is() {
        let selection = KubeconfigSelection {
            path: Some(PathBuf::from("/home/me/my configs/dev.yaml")),
            context: Some("nobody".into()),
            cluster: None,
            user: Some("o'brien".into()),
            overrides: Overrides {
                server: Some("https://10.0.0.1:6443".into()),
                insecure_skip_tls_verify: true,
                token: Some("s3cret".into()),
                impersonate: Some("jane".into()),
                impersonate_groups: vec!["dev ops".into()],
                ..Overrides::default()
            },
        };
        assert_eq!(
            selection.kubectl_flags(),
            " --kubeconfig '/home/me/my configs/dev.yaml' --context nobody --user 'o'\\''brien' \
             --server https://10.0.0.1:6443 --as jane --as-group 'dev ops' \
             --insecure-skip-tls-verify --token \"$TOKEN\""
        );
    }
}
