//! Cases from the attack review of 2026-11-28: left context in streams, labels within
//! labels, escapes written as text, encodings before a token, PEM blocks cut mid-line.

use super::tests::streamed;
use super::*;

const GHP: &str = "ghp_0123456789abcdefghijABCDEFGHIJabcdef12";

pub(super) fn whole(f: &ResultFilter, text: &str) -> String {
    f.redact(text).0.into_owned()
}

/// A secret whose rule starts with a non-word character after a word boundary (an Azure AD
/// client secret may start with `.` or `~`): the stream keeps the character before what it
/// holds as context, so the boundary reads as in the whole text.
#[test]
fn a_stream_keeps_the_character_before_a_held_secret() {
    let f = ResultFilter::default();
    for secret in [
        ".de8Q~abcdefghijklmnopqrstuvwxyz012345",
        "~ab8Q~abcdefghijklmnopqrstuvwxyz012345",
    ] {
        let text = format!("id=abc{secret} {}\n", "z".repeat(5000));
        let w = whole(&f, &text);
        assert!(w.starts_with("id=abc[REDACTED] zzz"), "{}", &w[..40]);
        let at = text.find(secret).unwrap();
        for cut in [at + 1 + STREAM_HOLD_BYTES, at + STREAM_HOLD_BYTES, at + 5] {
            assert_eq!(streamed(&f, &text, &[cut]), w, "{secret}, cut {cut}");
        }
        let ones: Vec<usize> = (1..text.len()).collect();
        assert_eq!(streamed(&f, &text, &ones), w, "{secret}, one-byte reads");
    }
}

/// A token in the label of a match that was itself found in a label (a credential URL as a
/// netrc login or a cookie name).
#[test]
fn labels_within_labels_are_searched() {
    let f = ResultFilter::default();
    for text in [
        format!(
            "machine github.com login https://{GHP}:x-oauth-basic@github.com password hunter22"
        ),
        format!("Set-Cookie: https://{GHP}:x@h=v; Path=/"),
    ] {
        let w = whole(&f, &text);
        assert!(!w.contains("ghp_0123"), "{text} → {w}");
    }
}

/// A colour code whose ESC is written as text (`printf '\033[1;32m'`, Python's `\x1b[`, the
/// shell's `\e[`, Rust's `\u{1b}[`, Go's `\U0000001b[`) before a token.
#[test]
fn colour_codes_written_as_text_before_a_token() {
    let f = ResultFilter::default();
    for esc in [
        r"\033",
        r"\x1b",
        r"\x1B",
        r"\e",
        r"\E",
        r"\u{1b}",
        r"\U0000001b",
        "\u{1b}",
        r"\u001b",
    ] {
        let text = format!("printf '{esc}[1;32m{GHP}{esc}[0m'");
        let w = whole(&f, &text);
        assert!(!w.contains("ghp_0123"), "{esc}: {w}");
        assert!(w.contains(&format!("{esc}[1;32m[REDACTED]")), "{esc}: {w}");
    }
}

/// Encodings other than a language's escapes before a token: URL encoding (`%0A`, `%3D`), caret
/// notation (`cat -v`: `^I`, `^M`), octal of one or two digits, ESC and one character.
#[test]
fn other_encodings_before_a_token() {
    let f = ResultFilter::default();
    for pre in [
        "%0A", "%09", "token%3D", "^I", "^M", r"\1", r"\12", "\u{1b}(B", "\u{1b}7",
    ] {
        let text = format!("x{pre}{GHP} y");
        let w = whole(&f, &text);
        assert_eq!(w, format!("x{pre}[REDACTED] y"), "{pre:?}");
        // Cut anywhere around the encoding in a stream.
        let long = format!("{}{text}", "y".repeat(4200));
        let at = long.find(pre).unwrap();
        for cut in at.saturating_sub(2)..at + pre.len() + 3 {
            if long.is_char_boundary(cut) {
                assert_eq!(
                    streamed(&f, &long, &[cut]),
                    whole(&f, &long),
                    "{pre:?} cut {cut}"
                );
            }
        }
    }
    // Prose with a percent sign or a caret stays.
    let prose = "50% done ^ up %zz";
    assert_eq!(whole(&f, prose), prose);
}

/// A PEM private key cut inside a header line (`Proc-Type:`, `DEK-Info:`, PGP's `Comment:`) or
/// between the `\r` and `\n` of a CRLF line: the block is still open, its BEGIN line is held.
#[test]
fn pem_blocks_cut_inside_a_header_or_a_crlf_stay_held() {
    let f = ResultFilter::default();
    let body =
        "MIIEpAIBAAKCAQEA7bq9Zx3cQ1K5vN2yLr8sTu0wXaB4cD6eF8gH0iJ2kL4mN6oP8qR0sT2uV4wX6yZ8aB0cD2e";
    let texts = [
        format!("$ cat key.pem\n-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,3F17F5316E2BAC89\n\n{body}\n{body}\n-----END RSA PRIVATE KEY-----\n$ "),
        format!("-----BEGIN PGP PRIVATE KEY BLOCK-----\nComment: ada@example.com\n\n{body}\n{body}\n=AbCd\n-----END PGP PRIVATE KEY BLOCK-----\n"),
        format!("-----BEGIN RSA PRIVATE KEY-----\r\n{body}\r\n{body}\r\n{body}\r\n-----END RSA PRIVATE KEY-----\r\n"),
    ];
    for text in &texts {
        assert!(!whole(&f, text).contains("MIIEpAIB"));
        for cut in 1..text.len() {
            let s = streamed(&f, text, &[cut]);
            assert!(!s.contains("MIIEpAIB"), "cut {cut} of {text:?}: {s:?}");
        }
    }
}

/// A command that writes a byte at a time after a long label: the redactor does not scan the
/// whole held text again for every byte.
#[test]
fn small_writes_after_a_long_label_stay_linear() {
    let f = ResultFilter::default();
    let head = format!("https://{}:pw1234@h ", "u".repeat(60_000));
    let tail = "z".repeat(4200);
    let started = std::time::Instant::now();
    let mut s = StreamRedactor::new(&f, None);
    let mut out = s.push(head.as_bytes());
    for c in tail.as_bytes().chunks(1) {
        out.push_str(&s.push(c));
    }
    out.push_str(&s.finish());
    assert_eq!(out, whole(&f, &format!("{head}{tail}")));
    // 29 s in a release build when every byte rescanned the 60 KB held.
    assert!(
        started.elapsed() < std::time::Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
}

/// A secret that keeps growing past what a stream may hold (`token=` and half a megabyte
/// without a space) is passed on redacted and the rest of its line replaced: the redactor
/// neither holds it all nor reads it all again for every chunk.
#[test]
fn a_secret_growing_past_the_hold_limit_is_passed_on_redacted() {
    let f = ResultFilter::default();
    let text = format!("start\ntoken={} tail\nnext line\n", "a1".repeat(256 * 1024));
    let started = std::time::Instant::now();
    let mut s = StreamRedactor::new(&f, None);
    let mut out = String::new();
    let mut redacted_early = false;
    for chunk in text.as_bytes().chunks(4096) {
        out.push_str(&s.push(chunk));
        // Passed on redacted before the end of its line came, not held to the end.
        redacted_early |= out.contains("token=[REDACTED]") && !out.contains("next line");
    }
    out.push_str(&s.finish());
    assert!(!out.contains("a1a1a1a1"), "{}", &out[..out.len().min(200)]);
    assert!(
        out.starts_with("start\ntoken=[REDACTED]"),
        "{}",
        &out[..out.len().min(200)]
    );
    assert!(out.ends_with("\nnext line\n"), "{out}");
    assert!(redacted_early);
    // 25 s in a release build when the whole line was held and read again per chunk.
    assert!(
        started.elapsed() < std::time::Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
}

/// A filter that knows the values of `env`'s secret variables.
pub(super) fn knowing(env: &[(&str, &str)]) -> ResultFilter {
    let known = KnownSecrets::from_env(
        env.iter()
            .map(|(k, v)| (std::ffi::OsStr::new(k), std::ffi::OsStr::new(v))),
    );
    ResultFilter::default().with_known_secrets(&known)
}

/// Known values spelled as JSON writes them (`\"`, `\\`, `\t`) and values that hold `\/`
/// themselves, printed raw.
#[test]
fn known_values_are_found_in_their_json_spelling_and_raw() {
    let f = knowing(&[
        ("DB_PASSWORD", "Zx9\"Qw7Lm2Np"),
        ("API_TOKEN", "Ab3\\Cd4Ef5Gh"),
        ("TAB_SECRET", "Tb1\tTb2Tb3Tb4"),
        ("GH_PAT", "Qw7\\/Lm2NpZx9Tr5"),
    ]);
    let text = r#"{"note":"Zx9\"Qw7Lm2Np","other":"Ab3\\Cd4Ef5Gh","t":"Tb1\tTb2Tb3Tb4"}"#;
    assert_eq!(
        whole(&f, text),
        r#"{"note":"[REDACTED]","other":"[REDACTED]","t":"[REDACTED]"}"#
    );
    assert_eq!(whole(&f, "Qw7\\/Lm2NpZx9Tr5\n"), "[REDACTED]\n");
}

/// A known value longer than the stream's window is redacted in a stream too: its pieces
/// are known values of their own.
#[test]
fn a_known_value_longer_than_the_window_stays_redacted_in_a_stream() {
    let value: String = (0..5000)
        .map(|i| char::from(b'a' + (i * 7 % 26) as u8))
        .collect();
    let f = knowing(&[("SESSION_TOKEN", &value)]);
    let text = format!("x {value} y\n");
    assert_eq!(whole(&f, &text), "x [REDACTED] y\n");
    for cuts in [vec![2502, 4502], (100..text.len()).step_by(100).collect()] {
        let out = streamed(&f, &text, &cuts);
        assert!(
            !out.contains(&value[..64]) && !out.contains(&value[4900..]),
            "{out}"
        );
        assert!(
            out.starts_with("x [REDACTED]") && out.ends_with(" y\n"),
            "{out}"
        );
    }
}

/// Values that are words, paths or plain URLs are not redacted wherever they occur: a
/// `POSTGRES_PASSWORD=postgres` would take every `postgres` out of `docker ps`.
#[test]
fn known_values_that_are_words_paths_or_urls_are_left_to_the_rules() {
    let f = knowing(&[
        ("POSTGRES_PASSWORD", "postgres"),
        ("MYSQL_ROOT_PASSWORD", "password"),
        (
            "GOOGLE_APPLICATION_CREDENTIALS",
            "/home/u/.config/gcloud/key.json",
        ),
        ("OS_AUTH_URL", "https://keystone.example.com:5000/v3"),
        ("GIT_CONFIG_KEY_0", "user.name"),
    ]);
    let text = "abc postgres:16 \"docker-entrypoint.sh postgres\"\n(using password: YES)\ncat /home/u/.config/gcloud/key.json\nendpoint https://keystone.example.com:5000/v3 identity\ngit config user.name\n";
    assert_eq!(whole(&f, text), text);
}
