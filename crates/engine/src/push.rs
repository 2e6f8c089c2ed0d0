//! Push notification configs: the destination allow-list and the token that must never be shown.

use std::fmt;

use url::{Host, Url};

/// A credential. Its `Debug` and `Display` never show the value.
#[derive(Clone, PartialEq, Eq, Default)]
pub struct Secret(String);

pub const REDACTED: &str = "[redacted]";

impl Secret {
    pub fn new(value: impl Into<String>) -> Self {
        Secret(value.into())
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    /// The value itself, for the one place that would send it (nowhere, in a simulation) and tests.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(REDACTED)
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(REDACTED)
    }
}

/// An entry of `policy.push_allowed_hosts`: an exact host, or `*.suffix` for any subdomain of
/// `suffix` at any depth (but not `suffix` itself). Hosts are stored as the URL parser normalises
/// them, so they compare with what the parser makes of a push URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostPattern {
    Exact(String),
    AnySubdomainOf(String),
}

impl HostPattern {
    /// An entry as the URL parser sees it (semantics.md §6): the host of `https://ENTRY/`, and
    /// nothing of the entry may fall outside that host, so no entry allows a host nobody wrote.
    pub fn parse(pattern: &str) -> Result<HostPattern, String> {
        let (wild, host) = match pattern.strip_prefix("*.") {
            Some(rest) => (true, rest),
            None => (false, pattern),
        };
        let bad = |why: &str| {
            format!(
                "`{}` is not a host name or `*.domain` pattern: {why}",
                pattern.escape_debug()
            )
        };
        if host.is_empty() {
            return Err(bad("it names no host"));
        }
        if let Some(c) = host
            .chars()
            .find(|&c| REFUSED_IN_ENTRY.contains(&c) || c.is_whitespace() || c.is_control())
        {
            let what = match c {
                '*' => "a `*` may only start it, as `*.`".to_string(),
                c if c.is_whitespace() || c.is_control() => {
                    format!("it holds {:?}, which is not part of a host", c)
                }
                c => format!(
                    "the URL parser would end the host at `{c}` (no scheme, port, path, user or IP)"
                ),
            };
            return Err(bad(&what));
        }
        let url = Url::parse(&format!("https://{host}/"))
            .map_err(|e| bad(&format!("the URL parser refuses it ({e})")))?;
        // Belt and braces: the whole entry must have become the host.
        if url.path() != "/" || url.query().is_some() || url.fragment().is_some() {
            return Err(bad("part of it is not the host"));
        }
        let normal = match url.host() {
            Some(Host::Domain(d)) => d.to_string(),
            Some(Host::Ipv4(_) | Host::Ipv6(_)) => return Err(bad("it is an IP address")),
            None => return Err(bad("it names no host")),
        };
        check_labels(&normal).map_err(|why| bad(&why))?;
        Ok(if wild {
            HostPattern::AnySubdomainOf(normal)
        } else {
            HostPattern::Exact(normal)
        })
    }

    /// Whether the entry admits a name that by convention resolves to this machine (`localhost`
    /// and names under it, RFC 6761 §6.3; the loopback names of common hosts files): a push to
    /// it would reach a local service, never a receiver elsewhere.
    pub fn names_this_machine(&self) -> bool {
        const LOOPBACK_NAMES: [&str; 4] = [
            "localhost",
            "localhost.localdomain",
            "ip6-localhost",
            "ip6-loopback",
        ];
        let host = match self {
            HostPattern::Exact(h) | HostPattern::AnySubdomainOf(h) => h.as_str(),
        };
        LOOPBACK_NAMES.contains(&host) || host.ends_with(".localhost")
    }

    pub fn matches(&self, host: &str) -> bool {
        match self {
            HostPattern::Exact(h) => host == h,
            HostPattern::AnySubdomainOf(suffix) => host
                .strip_suffix(suffix.as_str())
                .is_some_and(|head| head.len() > 1 && head.ends_with('.')),
        }
    }
}

impl fmt::Display for HostPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HostPattern::Exact(h) => f.write_str(h),
            HostPattern::AnySubdomainOf(h) => write!(f, "*.{h}"),
        }
    }
}

/// What an allow-list entry may not hold: every character at which the URL parser ends a host
/// (`\\` is `/` in an https URL) and a `*` past the leading `*.`. Whitespace and controls too.
pub const REFUSED_IN_ENTRY: [char; 7] = ['\\', '/', '@', ':', '?', '#', '*'];

/// Every label non-empty and at most 63 octets, the name at most 253 (a trailing dot is an empty
/// label).
pub fn check_labels(host: &str) -> Result<(), String> {
    if host.len() > 253 {
        return Err(format!("the host name is {} octets, over 253", host.len()));
    }
    for label in host.split('.') {
        if label.is_empty() {
            return Err("the host has an empty label".to_string());
        }
        if label.len() > 63 {
            return Err(format!(
                "a label of the host is {} octets, over 63",
                label.len()
            ));
        }
    }
    Ok(())
}

/// The URL as recorded and shown (semantics.md §6): the parser's serialisation, with a query and
/// a fragment (which often carry a webhook's secret) replaced by `[redacted]`.
pub fn recorded_url(url: &Url) -> String {
    let mut shown = url.clone();
    shown.set_query(None);
    shown.set_fragment(None);
    let mut out = shown.to_string();
    if url.query().is_some() {
        out.push('?');
        out.push_str(REDACTED);
    }
    if url.fragment().is_some() {
        out.push('#');
        out.push_str(REDACTED);
    }
    out
}

/// A push URL on this machine (`http(s)://127.x.x.x` or `localhost`, no user name), as recorded
/// and its host: what `serve --allow-loopback-push` admits for local receivers.
pub fn loopback_push_url(raw: &str) -> Option<(String, String)> {
    let url = Url::parse(raw).ok()?;
    if !matches!(url.scheme(), "http" | "https")
        || !url.username().is_empty()
        || url.password().is_some()
    {
        return None;
    }
    let host = match url.host()? {
        Host::Domain(d) if d.eq_ignore_ascii_case("localhost") => "localhost".to_string(),
        Host::Ipv4(ip) if ip.is_loopback() => ip.to_string(),
        _ => return None,
    };
    Some((recorded_url(&url), host))
}

/// Why a push URL is refused (`host_not_allowed`), or the URL as it is recorded.
pub fn check_push_url(raw: &str, allowed: &[HostPattern]) -> Result<String, String> {
    check_push_url_host(raw, allowed).map(|(url, _)| url)
}

/// [`check_push_url`] and the host, as the parser normalised it.
pub fn check_push_url_host(raw: &str, allowed: &[HostPattern]) -> Result<(String, String), String> {
    let url = Url::parse(raw).map_err(|e| format!("push URL does not parse ({e})"))?;
    if url.scheme() != "https" {
        return Err(format!(
            "push URL scheme is `{}`, only https is allowed",
            url.scheme()
        ));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err("push URL carries a user name or password".to_string());
    }
    let host = match url.host() {
        Some(Host::Domain(d)) => d.to_string(),
        Some(Host::Ipv4(_) | Host::Ipv6(_)) => {
            return Err("push URL host is an IP address, not a host name".to_string());
        }
        None => return Err("push URL has no host".to_string()),
    };
    if !allowed.iter().any(|p| p.matches(&host)) {
        return Err(format!(
            "push host `{host}` is not on policy.push_allowed_hosts"
        ));
    }
    // After the list, so a host the list never named keeps the plainer reason.
    if let Err(why) = check_labels(&host) {
        return Err(format!("push host `{host}` is refused: {why}"));
    }
    Ok((recorded_url(&url), host))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn allowed() -> Vec<HostPattern> {
        ["ok.example", "*.hooks.example"]
            .iter()
            .map(|p| HostPattern::parse(p).unwrap())
            .collect()
    }

    #[test]
    fn the_host_is_what_the_parser_says() {
        let rows = [
            ("https://ok.example/a2a", true),
            ("https://OK.Example:8443/x", true),
            ("https://a.hooks.example/", true),
            ("https://a.b.hooks.example/", true),
            ("https://hooks.example/", false),
            ("https://xhooks.example/", false),
            ("http://ok.example/", false),
            ("https://user@ok.example/", false),
            ("https://u:p@ok.example/", false),
            ("https://ok.example@evil.test/", false),
            ("https://evil.test#ok.example", false),
            ("https://evil.test/?ok.example", false),
            ("https://ok.example.evil.test/", false),
            ("https://ok.example./", false),
            ("https://127.0.0.1/", false),
            ("https://[::1]/", false),
            ("https://0x7f.1/", false),
            ("not a url", false),
            ("", false),
        ];
        for (url, ok) in rows {
            assert_eq!(check_push_url(url, &allowed()).is_ok(), ok, "{url}");
        }
    }

    #[test]
    fn queries_and_fragments_are_redacted() {
        let rows = [
            ("https://ok.example/a2a", "https://ok.example/a2a"),
            ("https://OK.example:443/a/../b", "https://ok.example/b"),
            (
                "https://ok.example/h?sig=s3cr3t",
                "https://ok.example/h?[redacted]",
            ),
            ("https://ok.example/h?", "https://ok.example/h?[redacted]"),
            ("https://ok.example/h#", "https://ok.example/h#[redacted]"),
            (
                "https://ok.example/h?a=1#f",
                "https://ok.example/h?[redacted]#[redacted]",
            ),
        ];
        for (raw, want) in rows {
            assert_eq!(
                check_push_url(raw, &allowed()).as_deref(),
                Ok(want),
                "{raw}"
            );
        }
    }

    #[test]
    fn secrets_never_print() {
        let s = Secret::new("t0k");
        assert_eq!(format!("{s} {s:?}"), "[redacted] [redacted]");
    }

    #[test]
    fn loopback_names_are_known() {
        for (p, want) in [
            ("localhost", true),
            ("LocalHost", true),
            ("*.localhost", true),
            ("hooks.localhost", true),
            ("ip6-localhost", true),
            ("localhost.localdomain", true),
            ("localhost.example", false),
            ("notlocalhost", false),
            ("hooks.example", false),
        ] {
            assert_eq!(
                HostPattern::parse(p).unwrap().names_this_machine(),
                want,
                "{p}"
            );
        }
    }

    #[test]
    fn patterns_must_be_hosts() {
        for p in [
            "https://x.example",
            "x.example:443",
            "*",
            "*.",
            "1.2.3.4",
            "",
        ] {
            assert!(HostPattern::parse(p).is_err(), "{p}");
        }
        assert_eq!(
            HostPattern::parse("Hooks.EXAMPLE"),
            Ok(HostPattern::Exact("hooks.example".into()))
        );
    }
}
