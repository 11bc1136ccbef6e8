//! Format predicates of the ATIP JSON Schemas (versions, checksums, platforms, durations,
//! URIs, RFC 3339 date-times), shared by validation and the run-time argv checks.

/// A protocol version this library knows: `0.1` to `0.6`.
pub fn is_known_version(s: &str) -> bool {
    matches!(s.as_bytes(), [b'0', b'.', b'1'..=b'6'])
}

/// A version of the 0.4 schema family: `0.1` to `0.4`.
pub fn is_version_04(s: &str) -> bool {
    matches!(s.as_bytes(), [b'0', b'.', b'1'..=b'4'])
}

/// A tool `name`: ASCII letters, digits, `_` and `-`, not empty.
pub fn is_tool_name(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// Hexadecimal digits, at least one.
pub fn is_hex(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// `sha256:` and 64 hex digits (spec §4.5 `binary.hash`).
pub fn is_sha256(s: &str) -> bool {
    s.strip_prefix("sha256:")
        .is_some_and(|h| h.len() == 64 && is_hex(h))
}

/// `algorithm:hex` with a lowercase algorithm name (spec §3.2.2 checksums).
pub fn is_checksum(s: &str) -> bool {
    s.split_once(':').is_some_and(|(algo, hex)| {
        !algo.is_empty()
            && algo
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
            && is_hex(hex)
    })
}

/// `os-arch` of spec §4.5: `linux|darwin|windows` - `amd64|arm64|arm|386`.
pub fn is_platform(s: &str) -> bool {
    s.split_once('-').is_some_and(|(os, arch)| {
        matches!(os, "linux" | "darwin" | "windows")
            && matches!(arch, "amd64" | "arm64" | "arm" | "386")
    })
}

/// An environment variable name: upper-case letters, digits and `_`, not starting with a digit.
pub fn is_env_var(s: &str) -> bool {
    let mut b = s.bytes();
    matches!(b.next(), Some(c) if c.is_ascii_uppercase() || c == b'_')
        && b.all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == b'_')
}

/// A duration hint such as `60s`, `5m`, `1h` (spec §3.6 `duration.timeout`).
pub fn is_duration(s: &str) -> bool {
    let Some(num) = s
        .strip_suffix('s')
        .or_else(|| s.strip_suffix('m'))
        .or_else(|| s.strip_suffix('h'))
    else {
        return false;
    };
    !num.is_empty() && num.bytes().all(|b| b.is_ascii_digit())
}

/// A range hint such as `1-5s` (spec §3.6 `duration.typical`).
pub fn is_duration_range(s: &str) -> bool {
    s.split_once('-').is_some_and(|(lo, hi)| {
        !lo.is_empty() && lo.bytes().all(|b| b.is_ascii_digit()) && is_duration(hi)
    })
}

/// An absolute URI: RFC 3986 scheme, `:`, then at least one character, without whitespace
/// or control characters.
pub fn is_uri(s: &str) -> bool {
    let Some((scheme, rest)) = s.split_once(':') else {
        return false;
    };
    let mut sb = scheme.bytes();
    matches!(sb.next(), Some(c) if c.is_ascii_alphabetic())
        && sb.all(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'-' | b'.'))
        && !rest.is_empty()
        && !s.chars().any(|c| c.is_whitespace() || c.is_control())
}

/// RFC 3339 `date-time`: `YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)`.
pub fn is_date_time(s: &str) -> bool {
    let b = s.as_bytes();
    let digits = |r: std::ops::Range<usize>| {
        b.get(r.clone())
            .is_some_and(|d| d.iter().all(u8::is_ascii_digit))
    };
    if b.len() < 20
        || !digits(0..4)
        || b[4] != b'-'
        || !digits(5..7)
        || b[7] != b'-'
        || !digits(8..10)
        || !matches!(b[10], b'T' | b't' | b' ')
        || !digits(11..13)
        || b[13] != b':'
        || !digits(14..16)
        || b[16] != b':'
        || !digits(17..19)
    {
        return false;
    }
    let num = |r: std::ops::Range<usize>| s[r].parse::<u32>().unwrap_or(99);
    if !(1..=12).contains(&num(5..7))
        || !(1..=31).contains(&num(8..10))
        || num(11..13) > 23
        || num(14..16) > 59
        || num(17..19) > 60
    {
        return false;
    }
    let mut rest = &s[19..];
    if let Some(frac) = rest.strip_prefix('.') {
        let n = frac.bytes().take_while(u8::is_ascii_digit).count();
        if n == 0 {
            return false;
        }
        rest = &frac[n..];
    }
    match rest {
        "Z" | "z" => true,
        offset => {
            let o = offset.as_bytes();
            o.len() == 6
                && matches!(o[0], b'+' | b'-')
                && o[1..3].iter().all(u8::is_ascii_digit)
                && o[3] == b':'
                && o[4..6].iter().all(u8::is_ascii_digit)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_matchers() {
        assert!(is_known_version("0.6") && is_known_version("0.1"));
        assert!(
            !is_known_version("0.7") && !is_known_version("99.99") && !is_known_version("0.6 ")
        );
        assert!(is_duration("60s") && is_duration("10m") && !is_duration("5") && !is_duration("s"));
        assert!(
            is_duration_range("1-5s") && !is_duration_range("5s") && !is_duration_range("fast")
        );
        assert!(is_env_var("GH_TOKEN") && !is_env_var("gh_token") && !is_env_var("1X"));
        assert!(
            is_checksum("sha256:abcDEF09") && !is_checksum("SHA:ab") && !is_checksum("sha256:xyz")
        );
        assert!(is_sha256(&format!("sha256:{}", "a".repeat(64))));
        assert!(!is_sha256("sha256:a1b2c3d4e5f6g7h8"));
        assert!(is_platform("linux-amd64") && !is_platform("plan9-amd64"));
        assert!(
            is_uri("https://cli.github.com") && is_uri("urn:isbn:1") && !is_uri("cli.github.com")
        );
        assert!(!is_uri("https://a b"));
        assert!(
            is_date_time("2026-01-15T00:00:00Z") && is_date_time("2026-01-15T10:30:00.5+01:00")
        );
        assert!(!is_date_time("2026-01-15") && !is_date_time("2026-13-15T00:00:00Z"));
    }
}
