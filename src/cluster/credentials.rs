//! The `Authorization` header, from the kubeconfig user's credentials, made safe to send.
//!
//! kube builds it, with four gaps closed here:
//! - a token file is read as client-go reads it: surrounding whitespace trimmed (a file written
//!   with `echo $TOKEN > file` ends in a newline) and read again at most a minute later, keeping
//!   the last token when the file has gone;
//! - an inline token is trimmed the same way;
//! - an exec plugin's `interactiveMode` is applied as client-go applies it (see
//!   [`interactive_mode`]);
//! - a token that still holds a line break or another control character cannot be a header
//!   value: it is refused in one line naming where it came from, where kube's layer would panic
//!   (an inline or exec-plugin token) or fail every request with "failed to parse header value".
//!
//! An exec plugin's token is renewed (the plugin run again) within the same limit as its first
//! run, before a request's own limits start: see [`signer`].

mod signer;

pub use signer::{client_auth, Signer};

use http::{HeaderValue, Request};
use kube::client::ConfigExt;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tower::util::Either;

/// How often a token file is read again (client-go and kube: once a minute).
const TOKEN_FILE_REFRESH: Duration = Duration::from_secs(60);

/// The layer that sets `Authorization` for `config`'s user, or `None` when it has no
/// credentials in headers (client certificates are in the TLS configuration). The error says
/// which credential cannot be used and why.
pub fn auth_layer(
    config: &kube::Config,
) -> Result<Option<Either<kube::client::middleware::AuthLayer, TokenFileLayer>>, String> {
    let auth = &config.auth_info;
    // kube's order of precedence: an auth provider, a user name and password, a token, a token
    // file, an exec plugin. Only a token file that would be used is taken over.
    let basic = auth.username.is_some() && auth.password.is_some();
    if auth.auth_provider.is_none() && !basic && auth.token.is_none() {
        if let Some(path) = &auth.token_file {
            let file = TokenFile::read(PathBuf::from(path))?;
            return Ok(Some(Either::Right(TokenFileLayer(Arc::new(Mutex::new(
                file,
            ))))));
        }
    }
    let mut config = config.clone();
    if auth.auth_provider.is_none() && !basic {
        if let Some(token) = &auth.token {
            use secrecy::ExposeSecret;
            let trimmed = token.expose_secret().trim();
            bearer(trimmed, || {
                "the user's token (users[].user.token in the kubeconfig)".to_string()
            })?;
            config.auth_info.token = Some(trimmed.to_string().into());
        }
    }
    let what = || match plugin_in_use(auth) {
        Some(exec) => format!(
            "the token that the exec plugin {:?} (users[].user.exec) printed",
            exec.command.as_deref().unwrap_or_default()
        ),
        None => "the user's credentials".to_string(),
    };
    // kube's layer for a token without an expiry (an exec plugin's, typically) panics on a
    // token that is not a header value; the panic is caught here and said in one line.
    let built = without_panic_message(|| config.auth_layer());
    match built {
        Ok(Ok(layer)) => Ok(layer.map(Either::Left)),
        Ok(Err(e)) => Err(format!("{}: {}", what(), super::innermost(&e))),
        Err(()) => Err(format!(
            "{} contains a line break or another control character, so it cannot be sent in an \
             Authorization header: fix the plugin or its configuration",
            what()
        )),
    }
}

/// The exec plugin whose token [`auth_layer`] sends: kube's order of precedence puts an auth
/// provider, a user name and password, a token and a token file before it.
fn plugin_in_use(auth: &kube::config::AuthInfo) -> Option<&kube::config::ExecConfig> {
    let basic = auth.username.is_some() && auth.password.is_some();
    let before = auth.auth_provider.is_some() || basic || auth.token.is_some();
    auth.exec
        .as_ref()
        .filter(|_| !before && auth.token_file.is_none())
}

/// The `Authorization` header of a user's token, for a server that checks the token with the
/// API server (a controller's metrics filter: a TokenReview): what [`auth_layer`] sends, a token
/// file read again and an exec plugin's token renewed as there, a renewal bounded as the
/// plugin's first run is (see [`within_plugin_limit`]).
pub struct Bearer {
    signer: tokio::sync::Mutex<
        tower::util::BoxCloneSyncService<Request<kube::client::Body>, http::Response<()>, BoxError>,
    >,
    /// The exec plugin's command and the limit of its renewals, when it has one.
    plugin_limit: Option<(String, Duration)>,
}

type BoxError = Box<dyn std::error::Error + Send + Sync>;

impl Bearer {
    /// `config`'s user's bearer token, an exec plugin's renewed within `limit` as its first run
    /// is; `None` when the user has none (a client certificate, a user name and password, or
    /// nothing).
    pub fn of(config: &kube::Config, limit: Option<Duration>) -> Result<Option<Bearer>, String> {
        let basic = config.auth_info.username.is_some() && config.auth_info.password.is_some();
        if basic {
            return Ok(None);
        }
        let Some(layer) = auth_layer(config)? else {
            return Ok(None);
        };
        let plugin_limit =
            plugin_with_limit(config, limit).filter(|_| plugin_in_use(&config.auth_info).is_some());
        // The request the layer signs is not sent: its header is handed back in a response.
        let capture = tower::service_fn(|request: Request<kube::client::Body>| async move {
            let mut response = http::Response::new(());
            if let Some(value) = request.headers().get(http::header::AUTHORIZATION) {
                response
                    .headers_mut()
                    .insert(http::header::AUTHORIZATION, value.clone());
            }
            Ok::<_, BoxError>(response)
        });
        let service = tower::ServiceBuilder::new()
            .layer(layer)
            .map_err(Into::<BoxError>::into)
            .service(capture);
        Ok(Some(Bearer {
            signer: tokio::sync::Mutex::new(tower::util::BoxCloneSyncService::new(service)),
            plugin_limit,
        }))
    }

    /// The header, the token renewed first if it must be: within the plugin's limit, if it has
    /// one (kube runs a plugin again when its token expires within a minute, and waits for it
    /// without a limit).
    pub async fn header(&self) -> Result<Option<HeaderValue>, String> {
        match &self.plugin_limit {
            Some((command, limit)) => tokio::time::timeout(*limit, self.signed())
                .await
                .unwrap_or_else(|_| Err(plugin_limit_passed(command, *limit))),
            None => self.signed().await,
        }
    }

    async fn signed(&self) -> Result<Option<HeaderValue>, String> {
        use tower::{Service, ServiceExt};
        let mut service = self.signer.lock().await;
        let ready = service.ready().await.map_err(|e| super::innermost(&*e))?;
        let response = ready
            .call(Request::new(kube::client::Body::empty()))
            .await
            .map_err(|e| super::innermost(&*e))?;
        Ok(response.headers().get(http::header::AUTHORIZATION).cloned())
    }
}

/// `config` with its exec plugin's interactive mode decided (see [`interactive_mode`]); what
/// runs the plugin (the TLS settings, for a client certificate it may print, and
/// [`auth_layer`]) takes this config.
pub fn with_exec_decided(config: &kube::Config) -> Result<kube::Config, String> {
    let mut config = config.clone();
    if let Some(exec) = &mut config.auth_info.exec {
        exec.interactive_mode = Some(interactive_mode(exec, std::io::stdin().is_terminal())?);
    }
    Ok(config)
}

/// Runs `gather` (what runs `config`'s exec plugin, if it has one: kube runs a plugin to its end
/// and waits for it without a limit) within `limit` when the plugin may not prompt: a plugin that
/// never exits is then one line, not a hang. An interactive plugin (standard input a terminal)
/// may wait for its user as long as it takes, as client-go lets it.
pub fn within_plugin_limit<T: Send + 'static>(
    config: &kube::Config,
    limit: Option<std::time::Duration>,
    gather: impl FnOnce(&kube::Config) -> Result<T, String> + Send + 'static,
) -> Result<T, String> {
    let Some((command, limit)) = plugin_with_limit(config, limit) else {
        return gather(config);
    };
    let (sent, received) = std::sync::mpsc::channel();
    let config = config.clone();
    // Left behind if the limit passes: the process ends soon after, with the error.
    std::thread::spawn(move || {
        let _ = sent.send(gather(&config));
    });
    received
        .recv_timeout(limit)
        .unwrap_or_else(|_| Err(plugin_limit_passed(&command, limit)))
}

/// `config`'s exec plugin's command and `limit`, when the plugin may not prompt and there is a
/// limit: what its first run and its renewals are bounded by.
fn plugin_with_limit(config: &kube::Config, limit: Option<Duration>) -> Option<(String, Duration)> {
    use kube::config::ExecInteractiveMode::Never;
    let exec = (config.auth_info.exec.as_ref()).filter(|e| e.interactive_mode == Some(Never))?;
    Some((exec.command.clone().unwrap_or_default(), limit?))
}

/// The one line for a plugin that did not print a credential in time, first run or renewal.
fn plugin_limit_passed(command: &str, limit: Duration) -> String {
    format!(
        "the exec plugin {command:?} (users[].user.exec) did not print a credential within {}: \
         run it by hand to see what it waits for (--request-timeout sets this limit)",
        crate::format::wait(limit)
    )
}

/// The interactive mode an exec plugin runs in, decided as client-go decides it (kube would run
/// `IfAvailable` as interactive whatever stdin is): `IfAvailable` (the default) is interactive
/// only when standard input is a terminal, and `Always` without one is refused, so that a plugin
/// is never told it may prompt where nobody can answer (in a pipeline, a CI job).
fn interactive_mode(
    exec: &kube::config::ExecConfig,
    terminal: bool,
) -> Result<kube::config::ExecInteractiveMode, String> {
    use kube::config::ExecInteractiveMode::{Always, IfAvailable, Never};
    match exec.interactive_mode.clone().unwrap_or(IfAvailable) {
        Never => Ok(Never),
        IfAvailable | Always if terminal => Ok(Always),
        IfAvailable => Ok(Never),
        Always => Err(format!(
            "the exec plugin {:?} (users[].user.exec) has interactiveMode Always, but standard \
             input is not a terminal: run the command in a terminal, or set interactiveMode to \
             IfAvailable",
            exec.command.as_deref().unwrap_or_default()
        )),
    }
}

/// Runs `f`, turning a panic into `Err(())` without the panic's message on stderr.
fn without_panic_message<T>(f: impl FnOnce() -> T) -> Result<T, ()> {
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    std::panic::set_hook(hook);
    result.map_err(|_| ())
}

/// `Bearer TOKEN` as a header value, or why `what()` cannot be one.
fn bearer(token: &str, what: impl Fn() -> String) -> Result<HeaderValue, String> {
    if token.is_empty() {
        return Err(format!("{} is empty", what()));
    }
    let mut value = HeaderValue::try_from(format!("Bearer {token}")).map_err(|_| {
        format!(
            "{} contains a line break or another control character, so it cannot be sent in an \
             Authorization header",
            what()
        )
    })?;
    value.set_sensitive(true);
    Ok(value)
}

/// A token file's token, trimmed, and when it was read.
struct TokenFile {
    path: PathBuf,
    header: HeaderValue,
    read_at: Instant,
}

impl TokenFile {
    fn read(path: PathBuf) -> Result<TokenFile, String> {
        let header = Self::header(&path)?;
        Ok(TokenFile {
            path,
            header,
            read_at: Instant::now(),
        })
    }

    fn header(path: &PathBuf) -> Result<HeaderValue, String> {
        let what = || format!("the token file {} (users[].user.tokenFile)", path.display());
        let text =
            std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", what()))?;
        bearer(text.trim(), what)
    }

    /// The header to send now: the file is read again once a minute; when it cannot be read
    /// (removed after start, as some set-ups do to limit exposure), the last token is kept.
    fn current(&mut self) -> Result<HeaderValue, String> {
        if self.read_at.elapsed() >= TOKEN_FILE_REFRESH {
            self.read_at = Instant::now();
            match Self::header(&self.path) {
                Ok(header) => self.header = header,
                Err(e) if std::fs::metadata(&self.path).is_ok() => return Err(e),
                Err(_) => {}
            }
        }
        Ok(self.header.clone())
    }
}

/// Sets `Authorization: Bearer` from a token file on every request.
#[derive(Clone)]
pub struct TokenFileLayer(Arc<Mutex<TokenFile>>);

impl<S> tower::Layer<S> for TokenFileLayer {
    type Service = TokenFileService<S>;
    fn layer(&self, inner: S) -> Self::Service {
        TokenFileService {
            file: self.0.clone(),
            inner,
        }
    }
}

#[derive(Clone)]
pub struct TokenFileService<S> {
    file: Arc<Mutex<TokenFile>>,
    inner: S,
}

impl<S, B> tower::Service<Request<B>> for TokenFileService<S>
where
    S: tower::Service<Request<B>>,
    S::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    S::Future: Send + 'static,
{
    type Response = S::Response;
    type Error = Box<dyn std::error::Error + Send + Sync>;
    type Future = futures::future::BoxFuture<'static, Result<S::Response, Self::Error>>;

    fn poll_ready(
        &mut self,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx).map_err(Into::into)
    }

    fn call(&mut self, mut request: Request<B>) -> Self::Future {
        let header = self
            .file
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .current();
        match header {
            Ok(header) => {
                request
                    .headers_mut()
                    .insert(http::header::AUTHORIZATION, header);
                let response = self.inner.call(request);
                Box::pin(async move { response.await.map_err(Into::into) })
            }
            Err(e) => Box::pin(async move { Err(e.into()) }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config_with(auth: kube::config::AuthInfo) -> kube::Config {
        let mut config = kube::Config::new("https://127.0.0.1:6443".parse().unwrap());
        config.auth_info = auth;
        config
    }

    #[test]
    fn a_token_file_ending_in_a_newline_is_trimmed_as_client_go_does() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("token");
        std::fs::write(&path, "  abc123\n").unwrap();
        let mut file = TokenFile::read(path.clone()).unwrap();
        assert_eq!(file.current().unwrap(), "Bearer abc123");
        // Read again after a minute; a removed file keeps the last token.
        std::fs::write(&path, "def456\n").unwrap();
        file.read_at -= TOKEN_FILE_REFRESH;
        assert_eq!(file.current().unwrap(), "Bearer def456");
        std::fs::remove_file(&path).unwrap();
        file.read_at -= TOKEN_FILE_REFRESH;
        assert_eq!(file.current().unwrap(), "Bearer def456");
    }

    #[test]
    fn a_token_that_cannot_be_a_header_is_refused_in_one_line_naming_its_field() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("token");
        std::fs::write(&path, "abc\n123\n").unwrap();
        let err = auth_layer(&config_with(kube::config::AuthInfo {
            token_file: Some(path.display().to_string()),
            ..Default::default()
        }))
        .err()
        .unwrap();
        assert!(err.contains("users[].user.tokenFile"), "{err}");
        assert!(err.contains("line break"), "{err}");
        assert!(!err.contains("abc"), "no token in the message: {err}");

        let err = auth_layer(&config_with(kube::config::AuthInfo {
            token: Some("abc\n123".to_string().into()),
            ..Default::default()
        }))
        .err()
        .unwrap();
        assert!(err.contains("users[].user.token "), "{err}");
        assert!(!err.contains('\n'), "one line: {err}");

        let ok = auth_layer(&config_with(kube::config::AuthInfo {
            token: Some("abc123\n".to_string().into()),
            ..Default::default()
        }));
        assert!(matches!(ok, Ok(Some(Either::Left(_)))));
    }

    #[test]
    fn an_exec_plugin_is_interactive_as_client_go_decides() {
        use kube::config::ExecInteractiveMode::{Always, IfAvailable, Never};
        let exec = |mode| kube::config::ExecConfig {
            command: Some("get-token".into()),
            interactive_mode: mode,
            ..serde_json::from_value(serde_json::json!({"apiVersion": "v1"})).unwrap()
        };
        let cases = [
            (None, true, Ok(Always)),
            (None, false, Ok(Never)),
            (Some(IfAvailable), true, Ok(Always)),
            (Some(IfAvailable), false, Ok(Never)),
            (Some(Never), true, Ok(Never)),
            (Some(Never), false, Ok(Never)),
            (Some(Always), true, Ok(Always)),
        ];
        for (mode, terminal, want) in cases {
            let got = interactive_mode(&exec(mode.clone()), terminal);
            assert_eq!(got, want, "{mode:?}, terminal {terminal}");
        }
        let err = interactive_mode(&exec(Some(Always)), false).unwrap_err();
        assert!(err.contains("\"get-token\""), "{err}");
        assert!(err.contains("not a terminal"), "{err}");
    }
}
