//! Push hosts and URLs as the URL parser sees them: allowed-host entries, labels that are empty or
//! too long (under wildcards too), query and fragment that never print, and host strings that
//! panic nothing.

use crate::common::binary::{a2a_sim_in, scratch};
use crate::common::*;
use a2a_sim::engine::scenario::{HostPattern, check_push_url};
use a2a_sim::scenario::confusable;

#[test]
fn allowed_host_entries_are_what_the_url_parser_sees() {
    // Every character at which the parser would end the host, and the other refusals.
    #[rustfmt::skip]
    let refused = [
        "evil.example\\hooks.acme.example", "evil.example/hooks.acme.example",
        "evil.example@hooks.acme.example", "hooks.acme.example:443", "evil.example?hooks.acme.example",
        "evil.example#hooks.acme.example", "evil.example hooks.acme.example", "evil.example\thooks.acme.example",
        "hooks.acme.example\n", "hooks.*.example", "**.example", "*", "*.", "",
        "hooks.acme.example.", "a..acme.example", ".acme.example", "*..acme.example",
        "1.2.3.4", "[::1]", "0x7f.1", "https://hooks.acme.example", "*.hooks.acme.example.",
        &format!("{}.example", "a".repeat(64)),
        "hooks%5cevil.example", "hooks%2facme.example",
    ];
    for entry in refused {
        assert!(
            HostPattern::parse(entry).is_err(),
            "{entry:?} must be refused"
        );
    }
    let normalised = [
        (
            "Hooks.ACME.example",
            HostPattern::Exact("hooks.acme.example".into()),
        ),
        (
            "hooks%2eacme.example",
            HostPattern::Exact("hooks.acme.example".into()),
        ),
        (
            "*.Bücher.example",
            HostPattern::AnySubdomainOf("xn--bcher-kva.example".into()),
        ),
        (
            &format!("{}.example", "a".repeat(63)),
            HostPattern::Exact(format!("{}.example", "a".repeat(63))),
        ),
    ];
    for (entry, want) in normalised {
        assert_eq!(HostPattern::parse(entry), Ok(want), "{entry}");
    }
    // The backslash entry never allows the host the parser reads it as.
    let text = "policy: {push_allowed_hosts: ['evil.example\\hooks.acme.example']}
agents: [{name: a, tenant: t, clearance: public, skills: [{id: s, tags: [x]}]}]
callers: [{id: c, tenant: t, classification: public}]
steps: []
";
    assert!(
        load_err(text).contains("test.yaml:1:"),
        "{}",
        load_err(text)
    );
}

#[test]
fn hosts_with_empty_or_over_long_labels_are_refused_under_wildcards_too() {
    let allowed: Vec<HostPattern> = ["*.hooks.example", "ok.example"]
        .iter()
        .map(|p| HostPattern::parse(p).unwrap())
        .collect();
    let long = "a".repeat(70);
    let rows = [
        ("https://a.hooks.example/", true),
        ("https://a..hooks.example/", false),
        ("https://..hooks.example/", false),
        ("https://a.hooks.example./", false),
        ("https://ok.example./", false),
        (&format!("https://{long}.hooks.example/") as &str, false),
        (&format!("https://{}.hooks.example/", "a".repeat(63)), true),
        (
            &format!("https://{}hooks.example/", "a.".repeat(125)),
            false,
        ),
    ];
    for (url, ok) in rows {
        assert_eq!(check_push_url(url, &allowed).is_ok(), ok, "{url}");
    }
}

#[test]
fn push_url_query_and_fragment_never_print_in_any_format() {
    let text = "policy: {push_allowed_hosts: [hooks.acme.example]}
agents:
  - {name: a, tenant: acme, clearance: public, capabilities: {push_notifications: true}, skills: [{id: s, tags: [x]}], handler: [working, completed]}
callers:
  - {id: app, tenant: acme, classification: public}
steps:
  - send: {caller: app, to: a, text: go, push: {url: 'https://Hooks.acme.example:443/x/../cb?token=QSECRET#FSECRET', token: t0k}}
  - send: {caller: app, to: a, text: go, push: {url: 'https://hooks.acme.example/cb?#', token: t0k}}
";
    let dir = scratch("auth-redact");
    std::fs::write(dir.join("t.yaml"), text).unwrap();
    for format in ["json", "table", "a2a", "a2a-stream", "acp"] {
        let r = a2a_sim_in(&dir, &["run", "--format", format, "t.yaml"], None);
        assert_eq!(r.status, 0, "{format}: {}", r.stderr);
        for secret in ["QSECRET", "FSECRET", "t0k"] {
            assert!(
                !r.stdout.contains(secret) && !r.stderr.contains(secret),
                "{format} shows {secret}"
            );
        }
        if format == "json" || format == "table" {
            assert!(
                r.stdout
                    .contains("https://hooks.acme.example/cb?[redacted]#[redacted]"),
                "{format}: {}",
                r.stdout
            );
        }
    }
}

#[test]
fn no_string_panics_the_host_and_identity_checks() {
    use proptest::prelude::*;
    let allowed = vec![HostPattern::parse("*.hooks.example").unwrap()];
    proptest!(|(s in "\\PC{0,40}", host in "[a-z.%\\\\/@:?#*\\[\\] -]{0,30}")| {
        let _ = HostPattern::parse(&s);
        let _ = HostPattern::parse(&host);
        let _ = check_push_url(&s, &allowed);
        let _ = check_push_url(&format!("https://{host}/p?q#f"), &allowed);
        let _ = confusable(&s, &host);
    });
}
