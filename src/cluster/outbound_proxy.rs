//! Which proxy, if any, carries the connections to the API server: client-go's rules.
//!
//! - A cluster's `proxy-url` in the kubeconfig is used for every request to that cluster, even
//!   a loopback one, and `NO_PROXY` does not apply to it (client-go sets it as the transport's
//!   one proxy). Its scheme is `http`, `https` or `socks5`, as clientcmd validates it.
//! - Otherwise the environment decides, as Go's `http.ProxyFromEnvironment` does: `HTTPS_PROXY`
//!   for an `https://` server, `HTTP_PROXY` for an `http://` one (upper case before lower case,
//!   an empty value is unset, a value without a scheme is `http://`); `localhost` and loopback
//!   addresses are never proxied; `NO_PROXY` lists what goes direct: `*`, IP addresses, CIDRs,
//!   domains (`example.com` is itself and its subdomains, `.example.com` and `*.example.com` its
//!   subdomains only), each optionally with a port.
//!
//! Go ignores a proxy variable it cannot parse and connects directly; here it is refused in one
//! line naming the variable, since connecting around a proxy the user set is rarely what they
//! meant.

use http::Uri;
use std::net::IpAddr;

/// The kind of proxy: how the tunnel to the API server is opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProxyScheme {
    /// HTTP CONNECT over plain TCP.
    Http,
    /// HTTP CONNECT over TLS to the proxy.
    Https,
    /// SOCKS5, the proxy resolving the server's name.
    Socks5,
}

/// A proxy to tunnel through, and where the setting came from (for messages).
#[derive(Clone, PartialEq, Eq)]
pub struct Proxy {
    pub scheme: ProxyScheme,
    /// `scheme://host:port`, without credentials.
    pub uri: Uri,
    /// The user name and password of the URL's userinfo, percent-decoded.
    pub credentials: Option<(String, String)>,
    /// `proxy-url of cluster "NAME"`, or the environment variable's name.
    pub source: String,
}

impl std::fmt::Debug for Proxy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Proxy")
            .field("scheme", &self.scheme)
            .field("uri", &self.uri)
            .field(
                "credentials",
                &self.credentials.as_ref().map(|_| "<redacted>"),
            )
            .field("source", &self.source)
            .finish()
    }
}

impl std::fmt::Display for Proxy {
    /// The proxy's address and where it was set, never its credentials.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let scheme = self.uri.scheme_str().unwrap_or_default();
        let authority = self.uri.authority().map(|a| a.as_str()).unwrap_or_default();
        write!(f, "proxy {scheme}://{authority} (from {})", self.source)
    }
}

/// The proxy for `server` given the cluster's `proxy-url` (named `cluster` in messages) and the
/// environment (`env` looks a variable up; passed in so the rules are testable).
pub fn choose(
    server: &Uri,
    cluster: &str,
    proxy_url: Option<&str>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Option<Proxy>, String> {
    if let Some(url) = proxy_url.filter(|u| !u.is_empty()) {
        let source = format!("proxy-url of cluster \"{cluster}\"");
        return parse(url, &source, false).map(Some);
    }
    let names: &[&str] = match server.scheme_str() {
        Some("https") => &["HTTPS_PROXY", "https_proxy"],
        Some("http") => &["HTTP_PROXY", "http_proxy"],
        _ => return Ok(None),
    };
    let Some((name, value)) = names
        .iter()
        .find_map(|n| env(n).filter(|v| !v.is_empty()).map(|v| (*n, v)))
    else {
        return Ok(None);
    };
    let host = server.host().unwrap_or_default();
    let port = server
        .port_u16()
        .unwrap_or(if server.scheme_str() == Some("https") {
            443
        } else {
            80
        });
    let no_proxy = env("NO_PROXY")
        .filter(|v| !v.is_empty())
        .or_else(|| env("no_proxy"))
        .unwrap_or_default();
    if !use_proxy(host, port, &no_proxy) {
        return Ok(None);
    }
    parse(&value, name, true).map(Some)
}

/// Whether `host` (a URL's host, IPv6 in brackets or not) is `localhost` or a loopback address.
pub fn is_loopback(host: &str) -> bool {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost")
        || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// Whether a request to `host:port` goes through the environment's proxy (Go's `useProxy`).
fn use_proxy(host: &str, port: u16, no_proxy: &str) -> bool {
    let host = host
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_ascii_lowercase();
    if is_loopback(&host) {
        return false;
    }
    let ip = host.parse::<IpAddr>().ok();
    let port = port.to_string();
    for entry in no_proxy.split(',') {
        let entry = entry.trim().to_ascii_lowercase();
        if entry.is_empty() {
            continue;
        }
        if entry == "*" {
            return false;
        }
        if let Some((net, bits)) = entry.split_once('/') {
            if let (Some(ip), Ok(net), Ok(bits)) = (ip, net.parse::<IpAddr>(), bits.parse()) {
                if in_cidr(ip, net, bits) {
                    return false;
                }
            }
            continue;
        }
        let (entry_host, entry_port) = split_port(&entry);
        if entry_host.is_empty() {
            continue;
        }
        let port_ok = entry_port.is_none_or(|p| p == port);
        if let Ok(entry_ip) = entry_host.parse::<IpAddr>() {
            if ip == Some(entry_ip) && port_ok {
                return false;
            }
            continue;
        }
        // `*.example.com` is `.example.com`; `example.com` also matches itself.
        let domain = entry_host.strip_prefix('*').unwrap_or(entry_host);
        let (suffix, itself) = match domain.starts_with('.') {
            true => (domain.to_string(), false),
            false => (format!(".{domain}"), domain == host),
        };
        if (host.ends_with(&suffix) || itself) && port_ok {
            return false;
        }
    }
    true
}

/// `host:port`, `[v6]:port`, or a bare host (an IPv6 address without brackets has no port).
fn split_port(entry: &str) -> (&str, Option<&str>) {
    if let Some(rest) = entry.strip_prefix('[') {
        return match rest.split_once(']') {
            Some((host, tail)) => (host, tail.strip_prefix(':')),
            None => (entry, None),
        };
    }
    match entry.rsplit_once(':') {
        Some((host, port)) if !host.contains(':') => (host, Some(port)),
        _ => (entry, None),
    }
}

fn in_cidr(ip: IpAddr, net: IpAddr, bits: u32) -> bool {
    match (ip, net) {
        (IpAddr::V4(ip), IpAddr::V4(net)) if bits <= 32 => {
            let mask = u32::MAX.checked_shl(32 - bits).unwrap_or(0);
            u32::from(ip) & mask == u32::from(net) & mask
        }
        (IpAddr::V6(ip), IpAddr::V6(net)) if bits <= 128 => {
            let mask = u128::MAX.checked_shl(128 - bits).unwrap_or(0);
            u128::from(ip) & mask == u128::from(net) & mask
        }
        _ => false,
    }
}

/// A proxy URL as client-go takes it; `lenient` (the environment) adds `http://` to a value
/// without a scheme, as Go does, where a kubeconfig's `proxy-url` must name its scheme.
fn parse(url: &str, source: &str, lenient: bool) -> Result<Proxy, String> {
    let refuse = |why: &str| {
        format!(
            "{source} {:?} is not a usable proxy URL: {why}",
            redact_userinfo(url)
        )
    };
    let with_scheme = if lenient && !url.contains("://") {
        format!("http://{url}")
    } else {
        url.to_string()
    };
    let uri: Uri = with_scheme
        .parse()
        .map_err(|e: http::uri::InvalidUri| refuse(&e.to_string()))?;
    let scheme = match uri.scheme_str() {
        Some("http") => ProxyScheme::Http,
        Some("https") => ProxyScheme::Https,
        Some("socks5") => ProxyScheme::Socks5,
        // Go's environment also takes socks5h: socks5 with the name resolved by the proxy,
        // which socks5 is here.
        Some("socks5h") if lenient => ProxyScheme::Socks5,
        Some(other) => {
            return Err(refuse(&format!(
                "unsupported scheme \"{other}\": use http, https or socks5"
            )))
        }
        None => {
            return Err(refuse(
                "it has no scheme: write http://, https:// or socks5://",
            ))
        }
    };
    let authority = uri
        .authority()
        .ok_or_else(|| refuse("it has no host"))?
        .as_str();
    let (userinfo, host_port) = match authority.rsplit_once('@') {
        Some((userinfo, host_port)) => (Some(userinfo), host_port),
        None => (None, authority),
    };
    if host_port.is_empty() || host_port.starts_with(':') {
        return Err(refuse("it has no host"));
    }
    let default_port = match scheme {
        ProxyScheme::Http => 80,
        ProxyScheme::Https => 443,
        ProxyScheme::Socks5 => 1080,
    };
    let host_port = if split_port(host_port).1.is_some() {
        host_port.to_string()
    } else {
        format!("{host_port}:{default_port}")
    };
    let scheme_str = match scheme {
        ProxyScheme::Http => "http",
        ProxyScheme::Https => "https",
        ProxyScheme::Socks5 => "socks5",
    };
    let bare: Uri = format!("{scheme_str}://{host_port}")
        .parse()
        .map_err(|e: http::uri::InvalidUri| refuse(&e.to_string()))?;
    let credentials = userinfo.map(|u| {
        let (user, pass) = u.split_once(':').unwrap_or((u, ""));
        (decode(user), decode(pass))
    });
    Ok(Proxy {
        scheme,
        uri: bare,
        credentials,
        source: source.to_string(),
    })
}

/// A URL as it may be shown: a password in it replaced.
fn redact_userinfo(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(start), Some(at)) if at > start => {
            let userinfo = &url[start + 3..at];
            let user = userinfo.split_once(':').map_or(userinfo, |(u, _)| u);
            format!("{}{user}:REDACTED{}", &url[..start + 3], &url[at..])
        }
        _ => url.to_string(),
    }
}

fn decode(text: &str) -> String {
    percent_encoding::percent_decode_str(text)
        .decode_utf8_lossy()
        .into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |name| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
    }

    fn via(server: &str, vars: &[(&str, &str)]) -> Option<String> {
        choose(&server.parse().unwrap(), "c", None, &env(vars))
            .unwrap()
            .map(|p| format!("{} {}", p.uri, p.source))
    }

    #[test]
    fn the_environment_proxies_by_scheme_upper_case_first() {
        let vars = [
            ("HTTPS_PROXY", "http://upper:3128"),
            ("https_proxy", "http://lower:3128"),
            ("HTTP_PROXY", "http://plain:3128"),
        ];
        assert_eq!(
            via("https://api.example.com:6443", &vars).as_deref(),
            Some("http://upper:3128/ HTTPS_PROXY")
        );
        assert_eq!(
            via("https://api.example.com", &[("https_proxy", "lower:8080")]).as_deref(),
            Some("http://lower:8080/ https_proxy"),
            "a value without a scheme is http://"
        );
        assert_eq!(
            via("http://api.example.com", &vars).as_deref(),
            Some("http://plain:3128/ HTTP_PROXY")
        );
        assert_eq!(
            via("https://api.example.com", &[("HTTP_PROXY", "http://p:1")]),
            None,
            "HTTP_PROXY is not used for an https server"
        );
        assert_eq!(
            via(
                "https://api.example.com",
                &[("HTTPS_PROXY", ""), ("https_proxy", "q:1")]
            )
            .as_deref(),
            Some("http://q:1/ https_proxy"),
            "an empty variable is unset"
        );
    }

    #[test]
    fn loopback_and_no_proxy_entries_go_direct_as_go_decides() {
        let proxied = |server: &str, no_proxy: &str| {
            via(
                server,
                &[("HTTPS_PROXY", "http://p:3128"), ("NO_PROXY", no_proxy)],
            )
            .is_some()
        };
        for loopback in [
            "https://127.0.0.1:6443",
            "https://127.9.9.9",
            "https://localhost:6443",
            "https://[::1]:6443",
        ] {
            assert!(!proxied(loopback, ""), "{loopback} is never proxied");
        }
        assert!(proxied("https://10.1.2.3:6443", ""));
        assert!(!proxied("https://10.1.2.3:6443", "*"));
        assert!(!proxied(
            "https://10.1.2.3:6443",
            "192.168.0.0/16, 10.0.0.0/8"
        ));
        assert!(proxied("https://11.1.2.3:6443", "10.0.0.0/8"));
        assert!(!proxied("https://10.1.2.3:6443", "10.1.2.3"));
        assert!(!proxied("https://10.1.2.3:6443", "10.1.2.3:6443"));
        assert!(
            proxied("https://10.1.2.3:6443", "10.1.2.3:443"),
            "another port"
        );
        assert!(!proxied("https://[fd00::1]:6443", "fd00::/8"));
        assert!(!proxied("https://[fd00::1]:6443", "[fd00::1]:6443"));
        // Domains: the name and its subdomains; a leading dot or *. only subdomains.
        assert!(!proxied("https://example.com", "example.com"));
        assert!(!proxied("https://api.example.com", "example.com"));
        assert!(proxied("https://notexample.com", "example.com"));
        assert!(proxied("https://example.com", ".example.com"));
        assert!(!proxied("https://api.example.com", ".example.com"));
        assert!(proxied("https://example.com", "*.example.com"));
        assert!(!proxied("https://api.example.com", "*.example.com"));
        assert!(
            !proxied("https://API.Example.COM", "example.com"),
            "case does not matter"
        );
        assert!(!proxied("https://api.example.com:6443", "example.com:6443"));
        assert!(proxied("https://api.example.com:6443", "example.com:443"));
        assert!(
            !proxied("https://api.example.com", "example.com:443"),
            "443 is https's port"
        );
        let lower = via(
            "https://api.example.com",
            &[("HTTPS_PROXY", "p:1"), ("no_proxy", "example.com")],
        );
        assert_eq!(lower, None, "no_proxy in lower case counts too");
    }

    #[test]
    fn a_kubeconfig_proxy_url_is_used_even_for_loopback_and_names_its_scheme() {
        let server: Uri = "https://127.0.0.1:6443".parse().unwrap();
        let no_env = env(&[("NO_PROXY", "*")]);
        let proxy = choose(
            &server,
            "dev",
            Some("socks5://u:p%40ss@proxy:1080"),
            &no_env,
        )
        .unwrap()
        .unwrap();
        assert_eq!(proxy.scheme, ProxyScheme::Socks5);
        assert_eq!(proxy.uri, "socks5://proxy:1080");
        assert_eq!(
            proxy.credentials,
            Some(("u".to_string(), "p@ss".to_string()))
        );
        assert_eq!(proxy.source, "proxy-url of cluster \"dev\"");
        assert!(!format!("{proxy} {proxy:?}").contains("p@ss"));
        assert_eq!(
            proxy.to_string(),
            "proxy socks5://proxy:1080 (from proxy-url of cluster \"dev\")"
        );
        let https = choose(&server, "dev", Some("https://proxy"), &no_env)
            .unwrap()
            .unwrap();
        assert_eq!(
            (https.scheme, https.uri.to_string()),
            (ProxyScheme::Https, "https://proxy:443/".to_string())
        );
        for (bad, why) in [
            ("proxy:3128", "has no scheme"),
            ("ftp://proxy", "unsupported scheme \"ftp\""),
            ("http://user:secret@", "not a usable proxy URL"),
        ] {
            let err = choose(&server, "dev", Some(bad), &no_env).unwrap_err();
            assert!(err.starts_with("proxy-url of cluster \"dev\""), "{err}");
            assert!(err.contains(why), "{bad}: {err}");
            assert!(!err.contains("secret"), "{err}");
        }
        let err = choose(
            &"https://api.example.com".parse().unwrap(),
            "dev",
            None,
            &env(&[("HTTPS_PROXY", "ftp://p:1")]),
        )
        .unwrap_err();
        assert!(err.starts_with("HTTPS_PROXY \"ftp://p:1\""), "{err}");
    }
}
