//! Where a webhook may go: its host name resolved once, every address checked, and the POST made
//! to an address that passed (never a second lookup, whose answer could differ). An allow-listed
//! name proves nothing about the machine it names: one that resolves to this machine or its
//! network would carry the push token there, so loopback, private, link-local and unspecified
//! addresses are refused; `--allow-loopback-push` admits loopback ones for local receivers.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::time::Duration;

/// Why an address is no webhook destination, if it is not.
pub fn refused(ip: IpAddr, allow_loopback: bool) -> Option<&'static str> {
    // An IPv4 address written as IPv6 (`::ffff:127.0.0.1`) is judged as the IPv4 one.
    let ip = match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    };
    let class = match ip {
        IpAddr::V4(v4) => v4_class(v4),
        IpAddr::V6(v6) => v6_class(v6),
    };
    match class {
        Some("loopback") if allow_loopback => None,
        other => other,
    }
}

fn v4_class(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, ..] = ip.octets();
    if ip.is_loopback() {
        Some("loopback")
    } else if ip.is_unspecified() || a == 0 {
        // 0.0.0.0/8: "this network"; a connection to it reaches this machine.
        Some("unspecified")
    } else if ip.is_private() || (a == 100 && (64..128).contains(&b)) {
        // RFC 1918, and RFC 6598's carrier-grade NAT space: another machine's private network.
        Some("private")
    } else if ip.is_link_local() {
        Some("link-local")
    } else {
        None
    }
}

fn v6_class(ip: Ipv6Addr) -> Option<&'static str> {
    let first = ip.segments()[0];
    if ip.is_loopback() {
        Some("loopback")
    } else if ip.is_unspecified() {
        Some("unspecified")
    } else if first & 0xfe00 == 0xfc00 {
        // fc00::/7, unique local addresses: IPv6's private networks.
        Some("private")
    } else if first & 0xffc0 == 0xfe80 {
        Some("link-local")
    } else {
        None
    }
}

/// The addresses `host` resolves to, each checked; the first refusal, naming the address and
/// its kind, refuses them all (a name that resolves anywhere near this machine is no receiver).
pub async fn resolve(
    host: &str,
    port: u16,
    allow_loopback: bool,
) -> Result<Vec<SocketAddr>, String> {
    let lookup = tokio::net::lookup_host((host, port));
    let addrs: Vec<SocketAddr> = match tokio::time::timeout(Duration::from_secs(5), lookup).await {
        Ok(Ok(addrs)) => addrs.collect(),
        Ok(Err(e)) => return Err(format!("`{host}` does not resolve: {e}")),
        Err(_) => return Err(format!("`{host}` did not resolve within 5 s")),
    };
    if addrs.is_empty() {
        return Err(format!("`{host}` resolves to no address"));
    }
    for a in &addrs {
        if let Some(kind) = refused(a.ip(), allow_loopback) {
            let hint = match kind {
                "loopback" => " (`serve --allow-loopback-push` admits receivers on this machine)",
                _ => "",
            };
            return Err(format!(
                "`{host}` resolves to {}, a {kind} address: no webhook goes there{hint}",
                a.ip()
            ));
        }
    }
    Ok(addrs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_near_this_machine_are_refused() {
        let rows = [
            ("127.0.0.1", Some("loopback")),
            ("127.8.9.10", Some("loopback")),
            ("::1", Some("loopback")),
            ("::ffff:127.0.0.1", Some("loopback")),
            ("0.0.0.0", Some("unspecified")),
            ("0.1.2.3", Some("unspecified")),
            ("::", Some("unspecified")),
            ("10.1.2.3", Some("private")),
            ("172.16.0.1", Some("private")),
            ("172.31.255.255", Some("private")),
            ("192.168.1.1", Some("private")),
            ("100.64.0.1", Some("private")),
            ("::ffff:10.0.0.1", Some("private")),
            ("fd00::1", Some("private")),
            ("169.254.169.254", Some("link-local")),
            ("fe80::1", Some("link-local")),
            ("172.32.0.1", None),
            ("100.128.0.1", None),
            ("93.184.215.14", None),
            ("2606:2800:21f:cb07:6820:80da:af6b:8b2c", None),
        ];
        for (ip, want) in rows {
            let ip: IpAddr = ip.parse().unwrap();
            assert_eq!(refused(ip, false), want, "{ip}");
        }
    }

    #[test]
    fn the_flag_admits_loopback_and_nothing_else() {
        for (ip, want) in [
            ("127.0.0.1", None),
            ("::1", None),
            ("10.0.0.1", Some("private")),
            ("169.254.169.254", Some("link-local")),
            ("0.0.0.0", Some("unspecified")),
        ] {
            let ip: IpAddr = ip.parse().unwrap();
            assert_eq!(refused(ip, true), want, "{ip}");
        }
    }
}
