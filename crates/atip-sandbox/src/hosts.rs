//! Egress rules: which hosts a command that may use the network (`effects.network`, spec §3.6,
//! a boolean) may reach, when the policy narrows it.
//!
//! ```json
//! {"egress": {"allow": ["api.github.com", "*.githubusercontent.com", "127.0.0.1:8080"],
//!             "deny": ["gist.githubusercontent.com"]},
//!  "egressRules": [{"commands": ["gh_release_*"], "allow": ["uploads.github.com:443"]}]}
//! ```
//!
//! An entry is a host pattern with an optional port (`host`, `host:port`, `[v6]:port`):
//!
//! * `*` — any host, by name or public address;
//! * `*.example.com` — any name below `example.com` (not `example.com` itself);
//! * `example.com` — that name (letters compared without case, a final `.` ignored);
//! * an address (`127.0.0.1`, `[::1]`) — that address, whatever the notation it is written in
//!   by the command (`2130706433`, `0x7f.1`, `[::ffff:127.0.0.1]` are `127.0.0.1`).
//!
//! The rules of a call are the top-level `egress` and every `egressRules` entry whose
//! `commands` (globs as for argument rules) match it, joined. A call with no rules keeps the
//! network as it is. With rules ([`Egress::check`]):
//!
//! 1. a host (or an address it resolves to) matching a `deny` entry is refused — deny wins;
//! 2. a name must match an `allow` entry, and so must a public address;
//! 3. an address that is not public — loopback, private (RFC 1918), shared (RFC 6598),
//!    link-local (with the cloud metadata address 169.254.169.254), unique-local, multicast,
//!    unspecified or reserved, also inside IPv4-mapped, NAT64 or 6to4 IPv6 addresses — is
//!    reached only when an `allow` entry names that exact address; `*` does not. This holds for
//!    the addresses a name resolves to as well, so a name that resolves to a private address
//!    (DNS rebinding) reaches nothing an entry did not name.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use serde::{Deserialize, Serialize};

/// Host patterns a command may and may not reach: a policy's top-level `egress`, or the rules
/// of one call (that and every `egressRules` entry that applies to it, joined by the policy),
/// which [`Egress::check`] judges connections by.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct Egress {
    /// Hosts that may be reached. Empty: none.
    pub allow: Vec<HostPattern>,
    /// Hosts that may never be reached, whatever `allow` says.
    pub deny: Vec<HostPattern>,
}

/// A host a command asked for: a name, or an address in its one canonical form.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Host {
    /// A DNS name, in lower case without a final dot.
    Name(String),
    /// An address (an IPv4-mapped IPv6 address is its IPv4 address).
    Address(IpAddr),
}

impl fmt::Display for Host {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Host::Name(n) => f.write_str(n),
            Host::Address(IpAddr::V6(a)) => write!(f, "[{a}]"),
            Host::Address(a) => write!(f, "{a}"),
        }
    }
}

impl From<IpAddr> for Host {
    /// The address in its one form: an IPv4-mapped IPv6 address becomes its IPv4 address, as
    /// [`Host::parse`] reads it (a SOCKS5 request names its target as bytes, not text).
    fn from(addr: IpAddr) -> Host {
        Host::Address(canonical(addr))
    }
}

impl Host {
    /// Reads a host as a command wrote it (brackets around IPv6 allowed). Every notation of an
    /// IPv4 address a resolver accepts — `127.0.0.1`, `2130706433`, `0x7f.1`, `0177.0.0.01`,
    /// `127.1` — and IPv4-mapped IPv6 addresses become the one [`IpAddr`].
    ///
    /// # Errors
    ///
    /// A sentence for a host that is neither a name nor an address: empty, with characters a
    /// DNS name cannot hold, or all-numeric labels that are no valid address (`1.2.3.4.5`,
    /// `08.1`), which resolvers disagree about.
    pub fn parse(text: &str) -> Result<Host, String> {
        let bare = text
            .strip_prefix('[')
            .and_then(|t| t.strip_suffix(']'))
            .unwrap_or(text);
        if let Ok(v6) = bare.parse::<Ipv6Addr>() {
            return Ok(Host::Address(canonical(IpAddr::V6(v6))));
        }
        let name = bare.strip_suffix('.').unwrap_or(bare).to_ascii_lowercase();
        if name.is_empty() || name.len() > 253 {
            return Err(format!("`{text}` is not a host name"));
        }
        let labels: Vec<&str> = name.split('.').collect();
        if labels
            .iter()
            .all(|l| !l.is_empty() && l.chars().all(|c| c.is_ascii_hexdigit() || c == 'x'))
            && labels
                .iter()
                .any(|l| l.starts_with(|c: char| c.is_ascii_digit()))
        {
            if let Some(v4) = ipv4_any_notation(&labels) {
                return Ok(Host::Address(IpAddr::V4(v4)));
            }
        }
        let last_numeric = labels
            .last()
            .is_some_and(|l| l.starts_with(|c: char| c.is_ascii_digit()) && number(l).is_some());
        if last_numeric {
            return Err(format!(
                "`{text}` is neither a valid address nor a name (its last label is a number)"
            ));
        }
        let valid = labels.iter().all(|l| {
            !l.is_empty()
                && l.len() <= 63
                && l.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        });
        if !valid {
            return Err(format!("`{text}` is not a host name"));
        }
        Ok(Host::Name(name))
    }
}

/// An IPv4-mapped IPv6 address as its IPv4 address; others as they are.
fn canonical(addr: IpAddr) -> IpAddr {
    match addr {
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6(v6),
        },
        v4 => v4,
    }
}

/// One label as `inet_aton` reads it: decimal, `0x` hexadecimal or `0` octal.
fn number(label: &str) -> Option<u64> {
    let (digits, radix) = if let Some(hex) = label
        .strip_prefix("0x")
        .or_else(|| label.strip_prefix("0X"))
    {
        (hex, 16)
    } else if label.len() > 1 && label.starts_with('0') {
        (&label[1..], 8)
    } else {
        (label, 10)
    };
    if digits.is_empty() {
        return (radix == 16).then_some(0);
    }
    u64::from_str_radix(digits, radix)
        .ok()
        .filter(|v| *v <= u64::from(u32::MAX))
}

/// `a`, `a.b`, `a.b.c`, `a.b.c.d` with each part in any radix, as `inet_aton` reads them: the
/// last part fills the bytes the others leave.
fn ipv4_any_notation(labels: &[&str]) -> Option<Ipv4Addr> {
    if labels.is_empty() || labels.len() > 4 {
        return None;
    }
    let parts: Vec<u64> = labels.iter().map(|l| number(l)).collect::<Option<_>>()?;
    let (head, last) = parts.split_at(parts.len() - 1);
    if head.iter().any(|p| *p > 255) {
        return None;
    }
    let rest_bits = 8 * (4 - head.len() as u32);
    if rest_bits < 64 && last[0] >= 1u64 << rest_bits {
        return None;
    }
    let mut value: u64 = 0;
    for (i, p) in head.iter().enumerate() {
        value |= p << (24 - 8 * i as u32);
    }
    value |= last[0];
    Some(Ipv4Addr::from(u32::try_from(value).ok()?))
}

/// Whether `addr` is an address on the public internet: not loopback, private, shared,
/// link-local, unique-local, multicast, unspecified, broadcast, documentation, benchmarking or
/// reserved. An IPv4-mapped IPv6 address is judged as its IPv4 address; IPv6 forms that carry
/// an IPv4 address otherwise (IPv4-compatible, SIIT, NAT64, 6to4, Teredo) are not public.
pub fn is_public(addr: IpAddr) -> bool {
    match canonical(addr) {
        IpAddr::V4(a) => {
            let [o0, o1, o2, _] = a.octets();
            !(a.is_loopback()
                || a.is_private()
                || a.is_link_local()
                || a.is_unspecified()
                || a.is_broadcast()
                || a.is_multicast()
                || a.is_documentation()
                || o0 == 0
                || o0 >= 240
                || (o0 == 100 && (64..128).contains(&o1))
                || (o0 == 198 && (o1 == 18 || o1 == 19))
                || (o0 == 192 && o1 == 0 && o2 == 0))
        }
        IpAddr::V6(a) => {
            let s = a.segments();
            // Forms that carry an IPv4 address — IPv4-compatible (`::/96`), SIIT
            // (`::ffff:0:0/96`), NAT64 (`64:ff9b::/96`, `64:ff9b:1::/48`), 6to4
            // (`2002::/16`), Teredo (`2001::/32`) — are not public: their IPv4 address would
            // escape deny entries written for it. An allow entry may still name one.
            let translated = s[..6] == [0; 6]
                || s[..6] == [0, 0, 0, 0, 0xffff, 0]
                || s[..6] == [0x64, 0xff9b, 0, 0, 0, 0]
                || s[..3] == [0x64, 0xff9b, 1]
                || s[0] == 0x2002
                || (s[0] == 0x2001 && s[1] == 0);
            !(translated
                || a.is_multicast()
                || (s[0] & 0xfe00) == 0xfc00
                || (s[0] & 0xffc0) == 0xfe80
                || (s[0] & 0xffc0) == 0xfec0
                || (s[0] == 0x2001 && s[1] == 0x0db8)
                || (s[0] == 0x0100 && s[1..4] == [0, 0, 0]))
        }
    }
}

/// An `allow` or `deny` entry: a host pattern with an optional port. Serialises as its text.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct HostPattern {
    text: String,
    host: HostMatch,
    port: Option<u16>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum HostMatch {
    /// `*`.
    Any,
    /// `*.suffix`: names ending in `.suffix`.
    Below(String),
    /// One name.
    Name(String),
    /// One address.
    Address(IpAddr),
}

impl HostPattern {
    /// Reads an entry: `*`, `*.example.com`, `example.com`, `10.0.0.1`, `[::1]`, each with an
    /// optional `:port`.
    ///
    /// # Errors
    ///
    /// A sentence for an entry with a scheme or path (`https://x`, `x/y`), an invalid port,
    /// or a host [`Host::parse`] refuses.
    pub fn parse(text: &str) -> Result<HostPattern, String> {
        if text.contains("://") || text.contains('/') {
            return Err(format!(
                "egress entry `{text}` is a URL: write the host (and port) alone, e.g. `example.com:443`"
            ));
        }
        let (host, port) =
            split_port(text).map_err(|why| format!("egress entry `{text}`: {why}"))?;
        let host = if host == "*" {
            HostMatch::Any
        } else if let Some(suffix) = host.strip_prefix("*.") {
            match Host::parse(suffix) {
                Ok(Host::Name(n)) => HostMatch::Below(n),
                Ok(Host::Address(_)) => {
                    return Err(format!("egress entry `{text}`: `*.` needs a name after it"))
                }
                Err(why) => return Err(format!("egress entry: {why}")),
            }
        } else {
            match Host::parse(host).map_err(|why| format!("egress entry: {why}"))? {
                Host::Name(n) => HostMatch::Name(n),
                Host::Address(a) => HostMatch::Address(a),
            }
        };
        Ok(HostPattern {
            text: text.to_owned(),
            host,
            port,
        })
    }

    /// The entry as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    fn port_matches(&self, port: u16) -> bool {
        self.port.is_none_or(|p| p == port)
    }

    /// Whether this entry covers `host` at `port`. An address matches `*` only when it is
    /// public ([`is_public`]); other addresses only an entry naming them.
    pub fn matches(&self, host: &Host, port: u16) -> bool {
        self.port_matches(port)
            && match (&self.host, host) {
                (HostMatch::Any, Host::Name(_)) => true,
                (HostMatch::Any, Host::Address(a)) => is_public(*a),
                (HostMatch::Below(suffix), Host::Name(n)) => n
                    .strip_suffix(suffix.as_str())
                    .is_some_and(|head| head.len() > 1 && head.ends_with('.')),
                (HostMatch::Name(p), Host::Name(n)) => p == n,
                (HostMatch::Address(p), Host::Address(a)) => *p == canonical(*a),
                _ => false,
            }
    }

    /// Whether this entry names exactly `addr` (a deny entry `*` covers every address).
    fn names_address(&self, addr: IpAddr, port: u16) -> bool {
        self.port_matches(port)
            && matches!(self.host, HostMatch::Address(p) if p == canonical(addr))
    }
}

/// `host[:port]` or `[v6][:port]`; a bare IPv6 address has no port.
fn split_port(text: &str) -> Result<(&str, Option<u16>), String> {
    let port = |p: &str| {
        p.parse::<u16>()
            .ok()
            .filter(|p| *p != 0)
            .ok_or_else(|| format!("`{p}` is not a port (1-65535)"))
    };
    if let Some(rest) = text.strip_prefix('[') {
        let (host, after) = rest
            .split_once(']')
            .ok_or_else(|| "an opening `[` without `]`".to_owned())?;
        return match after {
            "" => Ok((host, None)),
            _ => match after.strip_prefix(':') {
                Some(p) => Ok((host, Some(port(p)?))),
                None => Err(format!("`{after}` after `]`")),
            },
        };
    }
    if text.matches(':').count() > 1 {
        return Ok((text, None));
    }
    match text.split_once(':') {
        Some((host, p)) => Ok((host, Some(port(p)?))),
        None => Ok((text, None)),
    }
}

impl fmt::Debug for HostPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "HostPattern({:?})", self.text)
    }
}

impl fmt::Display for HostPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl std::str::FromStr for HostPattern {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        HostPattern::parse(s)
    }
}

impl TryFrom<String> for HostPattern {
    type Error = String;
    fn try_from(s: String) -> Result<Self, String> {
        HostPattern::parse(&s)
    }
}

impl From<HostPattern> for String {
    fn from(p: HostPattern) -> String {
        p.text
    }
}

/// Why a connection was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// A `deny` entry matches the host or an address it resolved to.
    Denied(String),
    /// No `allow` entry matches.
    NotAllowed,
    /// The address is not public and no `allow` entry names it.
    NotPublic(IpAddr),
    /// Every address the name resolved to was refused (each with its reason).
    Resolved(Vec<(IpAddr, Refusal)>),
    /// The name was not resolved: it does not exist, the lookup timed out, or the proxy had
    /// too many lookups in flight (the reason says which).
    Unresolved(String),
    /// The request itself was malformed or used something the proxy does not relay.
    Request(String),
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::Denied(entry) => write!(f, "denied by `{entry}`"),
            Refusal::NotAllowed => f.write_str("not in the allow list"),
            Refusal::NotPublic(a) => {
                write!(f, "{a} is not a public address and no allow entry names it")
            }
            Refusal::Resolved(list) => {
                f.write_str("it resolves only to refused addresses: ")?;
                for (i, (a, why)) in list.iter().enumerate() {
                    if i > 0 {
                        f.write_str("; ")?;
                    }
                    match why {
                        Refusal::NotPublic(_) => {
                            write!(f, "{a} (not public, no allow entry names it)")?
                        }
                        other => write!(f, "{a} ({other})")?,
                    }
                }
                Ok(())
            }
            Refusal::Unresolved(why) => write!(f, "the name was not resolved ({why})"),
            Refusal::Request(why) => f.write_str(why),
        }
    }
}

impl Egress {
    /// Whether `host` may be reached at `port` before any name is resolved: deny entries first,
    /// then allow entries. A name that passes must still have its addresses checked
    /// ([`Egress::check_resolved`]).
    ///
    /// # Errors
    ///
    /// The [`Refusal`].
    pub fn check(&self, host: &Host, port: u16) -> Result<(), Refusal> {
        if let Some(d) = self.deny.iter().find(|d| deny_matches(d, host, port)) {
            return Err(Refusal::Denied(d.text.clone()));
        }
        if let Host::Address(a) = host {
            if !is_public(*a) {
                return if self.allow.iter().any(|p| p.names_address(*a, port)) {
                    Ok(())
                } else {
                    Err(Refusal::NotPublic(canonical(*a)))
                };
            }
        }
        if self.allow.iter().any(|p| p.matches(host, port)) {
            Ok(())
        } else {
            Err(Refusal::NotAllowed)
        }
    }

    /// Whether the address `addr`, which an allowed name resolved to, may be reached at
    /// `port`: not denied, and public or named by an allow entry.
    ///
    /// # Errors
    ///
    /// The [`Refusal`] for this address.
    pub fn check_resolved(&self, addr: IpAddr, port: u16) -> Result<(), Refusal> {
        let host = Host::Address(canonical(addr));
        if let Some(d) = self.deny.iter().find(|d| deny_matches(d, &host, port)) {
            return Err(Refusal::Denied(d.text.clone()));
        }
        if is_public(addr) || self.allow.iter().any(|p| p.names_address(addr, port)) {
            Ok(())
        } else {
            Err(Refusal::NotPublic(canonical(addr)))
        }
    }
}

/// A deny entry covers what it matches, and `*` covers private addresses as well.
fn deny_matches(entry: &HostPattern, host: &Host, port: u16) -> bool {
    entry.matches(host, port) || (entry.host == HostMatch::Any && entry.port_matches(port))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v4(s: &str) -> Host {
        Host::Address(IpAddr::V4(s.parse().unwrap()))
    }

    #[test]
    fn every_notation_of_an_address_is_one_address() {
        for text in [
            "127.0.0.1",
            "2130706433",
            "0x7f000001",
            "0x7f.1",
            "0177.0.0.01",
            "127.1",
            "127.0.1",
            "[::ffff:127.0.0.1]",
            "::ffff:7f00:1",
            "0X7F.0.0.1",
            "127.0.0.1.",
        ] {
            assert_eq!(Host::parse(text), Ok(v4("127.0.0.1")), "{text}");
        }
        assert_eq!(
            Host::parse("[::1]"),
            Ok(Host::Address("::1".parse().unwrap()))
        );
        for bad in [
            "1.2.3.4.5",
            "08.1.1.1",
            "256.1.1.1",
            "1.2.3.256",
            "",
            "a b",
            "x.123",
        ] {
            assert!(Host::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(
            Host::parse("API.GitHub.com."),
            Ok(Host::Name("api.github.com".into()))
        );
        // Hexadecimal-looking names are names.
        assert_eq!(Host::parse("cafe.de"), Ok(Host::Name("cafe.de".into())));
    }

    #[test]
    fn non_public_addresses_are_recognised_inside_ipv6() {
        for a in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "255.255.255.255",
            "224.0.0.1",
            "::1",
            "::",
            "fd00::1",
            "fe80::1",
            "::ffff:10.0.0.1",
            "::10.0.0.1",
            "64:ff9b::a9fe:a9fe",
            "64:ff9b:1::a9fe:a9fe",
            "::ffff:0:7f00:1",
            "2002:7f00:1::",
            // Public IPv4 addresses in translated forms are not public either: deny entries
            // written for the IPv4 address would not see them.
            "64:ff9b::101:101",
            "2002:101:101::1",
            "2001:0:4136:e378::1",
        ] {
            assert!(!is_public(a.parse().unwrap()), "{a}");
        }
        for a in ["140.82.112.3", "2606:4700::1111", "::ffff:1.1.1.1"] {
            assert!(is_public(a.parse().unwrap()), "{a}");
        }
    }

    fn rules(allow: &[&str], deny: &[&str]) -> Egress {
        Egress {
            allow: allow
                .iter()
                .map(|p| HostPattern::parse(p).unwrap())
                .collect(),
            deny: deny
                .iter()
                .map(|p| HostPattern::parse(p).unwrap())
                .collect(),
        }
    }

    #[test]
    fn deny_wins_and_private_addresses_need_exact_entries() {
        let r = rules(
            &["*.github.com", "example.com:443", "127.0.0.1:8080", "*"],
            &["evil.github.com", "10.0.0.0"],
        );
        let name = |n: &str| Host::Name(n.into());
        assert_eq!(r.check(&name("api.github.com"), 443), Ok(()));
        assert_eq!(
            r.check(&name("evil.github.com"), 443),
            Err(Refusal::Denied("evil.github.com".into()))
        );
        assert_eq!(r.check(&v4("127.0.0.1"), 8080), Ok(()));
        assert_eq!(
            r.check(&v4("127.0.0.1"), 8081),
            Err(Refusal::NotPublic("127.0.0.1".parse().unwrap()))
        );
        assert!(
            r.check(&v4("169.254.169.254"), 80).is_err(),
            "`*` is not private"
        );
        assert_eq!(
            r.check(&v4("1.1.1.1"), 80),
            Ok(()),
            "`*` covers public addresses"
        );
        assert!(r.check_resolved("127.0.0.1".parse().unwrap(), 443).is_err());
        assert!(r.check_resolved("127.0.0.1".parse().unwrap(), 8080).is_ok());
        let narrow = rules(&["*.github.com", "example.com:443"], &[]);
        assert_eq!(
            narrow.check(&name("github.com"), 443),
            Err(Refusal::NotAllowed)
        );
        assert_eq!(
            narrow.check(&name("example.com"), 80),
            Err(Refusal::NotAllowed)
        );
        assert_eq!(narrow.check(&name("example.com"), 443), Ok(()));
        assert_eq!(
            narrow.check(&name("xgithub.com"), 443),
            Err(Refusal::NotAllowed)
        );
        assert_eq!(narrow.check(&v4("1.1.1.1"), 443), Err(Refusal::NotAllowed));
        let deny_all = rules(&["127.0.0.1"], &["*"]);
        assert!(
            deny_all.check(&v4("127.0.0.1"), 1).is_err(),
            "deny `*` covers private"
        );
    }

    #[test]
    fn entries_are_checked_when_read() {
        for bad in [
            "https://x.com",
            "x.com/path",
            "x.com:0",
            "x.com:70000",
            "*.1.2.3.4",
            "[::1",
        ] {
            assert!(HostPattern::parse(bad).is_err(), "{bad}");
        }
        let p = HostPattern::parse("[::1]:8080").unwrap();
        assert!(p.matches(&Host::Address("::1".parse().unwrap()), 8080));
        let json: Egress =
            serde_json::from_str(r#"{"allow": ["api.github.com", "0x7f.1:80"]}"#).unwrap();
        assert!(json.allow[1].matches(&v4("127.0.0.1"), 80));
        assert_eq!(
            serde_json::to_value(&json).unwrap()["allow"][1],
            "0x7f.1:80"
        );
        let err = serde_json::from_str::<Egress>(r#"{"allow": ["https://a.com"]}"#).unwrap_err();
        assert!(err.to_string().contains("is a URL"), "{err}");
    }
}
