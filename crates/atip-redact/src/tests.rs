use super::*;

pub(super) fn r(text: &str) -> String {
    ResultFilter::new().redact(text).0.into_owned()
}

/// `text` streamed through a redactor with `f`'s rules in the pieces `cuts` (byte offsets)
/// make.
pub(super) fn streamed(f: &ResultFilter, text: &str, cuts: &[usize]) -> String {
    let mut s = StreamRedactor::new(f, None);
    let mut out = String::new();
    let mut last = 0;
    for &c in cuts {
        out.push_str(&s.push(&text.as_bytes()[last..c]));
        last = c;
    }
    out.push_str(&s.push(&text.as_bytes()[last..]));
    out.push_str(&s.finish());
    out
}

/// `text` streamed through a redactor with `f`'s rules in chunks of `size` bytes.
pub(super) fn in_chunks(f: &ResultFilter, text: &str, size: usize) -> String {
    let cuts: Vec<usize> = (size..text.len()).step_by(size).collect();
    streamed(f, text, &cuts)
}

#[test]
fn the_catalog_has_at_least_forty_kinds() {
    let kinds = ResultFilter::new().kinds().len();
    assert!(kinds >= 40, "{kinds}");
}

#[test]
fn json_escaped_private_keys_lose_their_whole_body() {
    let sa = r#"{"type": "service_account", "private_key_id": "abc", "private_key": "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nBKcwggSjAgEAAoIBAQC7\n-----END PRIVATE KEY-----\n", "client_email": "x@y.iam.gserviceaccount.com"}"#;
    let out = r(sa);
    assert!(!out.contains("MIIE") && !out.contains("BKcw"), "{out}");
    assert!(
        out.contains("\"client_email\": \"x@y.iam.gserviceaccount.com\""),
        "{out}"
    );
    assert!(
        serde_json::from_str::<serde_json::Value>(&out).is_ok(),
        "still JSON: {out}"
    );
    let logged =
        r#"key="-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY-----""#;
    assert!(!r(logged).contains("MIIE"));
}

#[test]
fn pem_blocks_are_redacted_even_when_cut_off() {
    let pem = "before\n-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\nabc\n-----END RSA PRIVATE KEY-----\nafter";
    assert_eq!(
        r(pem),
        "before\n-----BEGIN RSA PRIVATE KEY-----[REDACTED]-----END RSA PRIVATE KEY-----\nafter"
    );
    let cut = "x\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA";
    assert_eq!(r(cut), "x\n-----BEGIN OPENSSH PRIVATE KEY-----[REDACTED]");
}

#[test]
fn truncation_happens_after_redaction_on_a_char_boundary() {
    let f = ResultFilter::new().max_bytes(20);
    let text = "ééé token=abcdefghijklmnop0123456789 tail";
    let out = f.filter(text);
    assert_eq!(out.redactions, 1);
    assert!(out.text.len() <= 20);
    assert!(!out.text.contains("abcdef"), "{}", out.text);
    assert_eq!(out.text, "ééé token=[REDACT");
    let f = ResultFilter::new().max_bytes(2);
    assert_eq!(f.filter("é").text, "é");
    let f = ResultFilter::new().max_bytes(1);
    assert_eq!(f.filter("é").text, "");
}

#[test]
fn custom_and_per_tool_patterns_join_in() {
    let f = ResultFilter::new()
        .with_pattern("internal-id", r"INT-(?P<secret>[0-9]{6})")
        .unwrap()
        .with_pattern("whole", r"\bhunter[0-9]\b")
        .unwrap();
    assert_eq!(
        f.redact("id INT-123456 and hunter2 and ghp_0123456789abcdefghijABCDEFGHIJabcdef12")
            .0,
        "id INT-[REDACTED] and [REDACTED] and [REDACTED]"
    );
    assert!(f.kinds().ends_with(&["internal-id", "whole"]));
    assert!(ResultFilter::new().with_pattern("bad", "(").is_err());
    let per_tool = ResultFilter::new()
        .with_tool_pattern("gh_auth_token", "printed-token", r"(?s).+")
        .unwrap();
    assert_eq!(
        per_tool
            .redact_for(Some("gh_auth_token"), "plain words\n")
            .0,
        REDACTED
    );
    assert_eq!(
        per_tool.redact_for(Some("gh_pr_list"), "plain words\n").0,
        "plain words\n"
    );
    assert_eq!(per_tool.redact("plain words\n").0, "plain words\n");
}

#[test]
fn redaction_is_off_only_when_switched_off() {
    let off = ResultFilter::new().redact_secrets(false);
    assert!(!off.redacts() && ResultFilter::new().redacts());
    assert_eq!(off.redact("password=hunter2").0, "password=hunter2");
}

#[test]
fn partial_tails_are_dropped() {
    assert_eq!(drop_partial_tail("line one\nghp_01234"), ("line one\n", 9));
    assert_eq!(drop_partial_tail("no space at all"), ("no space at ", 3));
    assert_eq!(
        drop_partial_tail("ends with space "),
        ("ends with space ", 0)
    );
    let long = "x".repeat(5000);
    assert_eq!(drop_partial_tail(&long).0.len(), 5000 - 4096);
}

#[test]
fn a_stream_gives_the_same_text_whatever_the_chunks() {
    let text = "start\nAuthorization: Bearer abcdefghij0123456789XYZ\nGITHUB_TOKEN=ghp_0123456789abcdefghijABCDEFGHIJabcdef12\n-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----\nécho ünïcode password: hunter22 end\n";
    let whole = r(text);
    let f = ResultFilter::new();
    for size in [1, 2, 3, 7, 16, 64, text.len()] {
        let out = in_chunks(&f, text, size);
        assert_eq!(out, whole, "chunks of {size}");
    }
}

/// A token right after an escape that ends in a letter or digit, as a command prints JSON
/// (`"FOO=1\nghp_…"`), is redacted, and the escape stays.
#[test]
fn a_token_after_a_json_escape_is_redacted() {
    let f = ResultFilter::default();
    let cases = [
        (
            r#"{"env":"FOO=1\nghp_0123456789abcdefghijklmnopqrstuvwxyz"}"#,
            r#"{"env":"FOO=1\n[REDACTED]"}"#,
        ),
        (
            r#"{"env":"x\tghp_0123456789abcdefghijklmnopqrstuvwxyz y"}"#,
            r#"{"env":"x\t[REDACTED] y"}"#,
        ),
        (
            r#"{"k":"x\r\nglpat-0123456789abcdefghij"}"#,
            r#"{"k":"x\r\n[REDACTED]"}"#,
        ),
        (
            r#"{"k":"x\u0009xoxb-123456789012-1234567890123-abcdefghijabcd"}"#,
            r#"{"k":"x\u0009[REDACTED]"}"#,
        ),
        (
            r#"{"k":"a\nBearer abcdefghij0123456789XYZ"}"#,
            r#"{"k":"a\nBearer [REDACTED]"}"#,
        ),
        (
            r#"{"jwt":"x\neyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abcdefghijklmnopqrstu"}"#,
            r#"{"jwt":"x\n[REDACTED]"}"#,
        ),
    ];
    for (text, want) in cases {
        assert_eq!(f.redact(text).0, want, "{text}");
    }
    // Output that arrives in pieces, cut anywhere (the escape's two bytes included).
    let text = format!("{}{}", "y".repeat(5000), cases[0].0);
    for cut in 4990..text.len() {
        let out = streamed(&f, &text, &[cut]);
        assert!(out.ends_with(cases[0].1), "cut at {cut}: {out}");
    }
    // A word that only contains a token's prefix is still not one.
    let prose = r#"{"k":"see\nxghp_0123456789abcdefghijklmnopqrstuvwxyz"}"#;
    assert_eq!(f.redact(prose).0, prose);
}

/// Output a command can print to make the filter slow: matches turned down (placeholders)
/// that run over further matches, after escapes or not. Each must take about as long as
/// ordinary output of its size, not the square of it.
#[test]
fn turned_down_matches_do_not_make_the_scan_quadratic() {
    let f = ResultFilter::default();
    let units = [
        "token=${",
        "\\nauth=${",
        "\\npass=${",
        "\\nset-cookie:a=<",
        "\\u001b[1mtoken=${",
    ];
    for unit in units {
        let text = format!("{}}}", unit.repeat((64 << 10) / unit.len()));
        let started = std::time::Instant::now();
        let _ = f.redact(&text);
        // Ordinary 64 KiB takes about a millisecond in a release build and tens in a debug
        // one; the quadratic scan took minutes.
        assert!(
            started.elapsed() < std::time::Duration::from_secs(5),
            "{unit:?}: {:?}",
            started.elapsed()
        );
    }
}

/// After an escape, rules anchored at a line start do not match: an escape is not a line
/// start, and in minified JSON the "line" would run to the end of the document.
#[test]
fn line_anchored_rules_do_not_match_after_an_escape() {
    let f = ResultFilter::default();
    let json = r#"{"req":"GET / HTTP/1.1\nCookie: sid=abc","status":200,"body":"hello world"}"#;
    assert_eq!(f.redact(json).0, json);
}

/// A terminal's colour codes before a token do not hide it (`ESC[32m` ends in a letter).
#[test]
fn a_token_after_a_colour_code_is_redacted() {
    let f = ResultFilter::default();
    let token = "ghp_0123456789abcdefghijklmnopqrstuvwxyz";
    for text in [
        format!("token: \x1b[32m{token}\x1b[0m"),
        format!("\x1b[1;32m{token}"),
        format!(r#"{{"log":"\u001b[32m{token}\u001b[0m"}}"#),
    ] {
        let (out, n) = f.redact(&text);
        assert!(!out.contains(token) && n == 1, "{text:?} became {out:?}");
    }
}

/// A colour code before a token is found in a stream too, and one with more parameters than a
/// terminal reads is no colour code (the whole text and the stream agree either way).
#[test]
fn colour_codes_in_a_stream_agree_with_the_whole_text() {
    let f = ResultFilter::default();
    let token = "ghp_0123456789abcdefghijklmnopqrstuvwxyz";
    for params in [";".repeat(20), ";".repeat(5000)] {
        let text = format!("x \x1b[{params}m{token} end\n");
        let whole = f.redact(&text).0.into_owned();
        let streamed = in_chunks(&f, &text, 1000);
        assert_eq!(streamed, whole, "{} parameters", params.len());
    }
    let short = format!("x \x1b[{}m{token} end\n", ";".repeat(20));
    assert!(!f.redact(&short).0.contains(token));
}

/// A stream cut never changes how the rest reads its escapes: not inside a `\uXXXX`, and not
/// after an odd number of a run of backslashes (`\\` pairs, then `\u0067hp_…`).
#[test]
fn stream_cuts_keep_escapes_whole() {
    let f = ResultFilter::default();
    let token = "hp_0123456789abcdefghijABCDEFGHIJabcdef";
    for run in [5000, 5001, 4999, 4500] {
        let text = format!("x{}u0067{token} end\n", "\\".repeat(run));
        let whole = f.redact(&text).0.into_owned();
        for cut in [run + 1, run, run + 2, run + 5, run + 7] {
            let streamed = streamed(&f, &text, &[cut]);
            assert_eq!(streamed, whole, "run of {run}, first chunk {cut}");
        }
    }
    // Inside `\uXXXX` and between the halves of a surrogate pair.
    let text = format!("{} \\u0067{token} \\ud83d\\ude00 end\n", "y".repeat(4200));
    let whole = f.redact(&text).0.into_owned();
    assert!(!whole.contains(token));
    for cut in 4190..4260 {
        let streamed = streamed(&f, &text, &[cut]);
        assert_eq!(streamed, whole, "first chunk {cut}");
    }
}

#[test]
fn a_token_in_the_label_of_another_secret_is_redacted() {
    // A rule's match holds a label before its secret; a token in that label was passed over
    // when the search went on from the end of the match.
    let ghp = "ghp_0123456789abcdefghijABCDEFGHIJabcdef12";
    let glpat = "glpat-AbCdEfGhIjKlMnOpQrSt";
    let cases = [
        format!("git clone https://{ghp}:x-oauth-basic@github.com/o/r.git"),
        format!("remote: https://{glpat}:x@gitlab.com/o/r"),
        format!("machine github.com login {ghp} password x-oauth-basic"),
        format!("{{\"url\": \"https://{ghp}:pw@h/\"}}"),
    ];
    for text in &cases {
        let out = r(text);
        assert!(
            !out.contains("ghp_0123") && !out.contains("glpat-AbC"),
            "{text} → {out}"
        );
        assert!(
            out.contains("[REDACTED]@") || out.contains("password [REDACTED]"),
            "{out}"
        );
        let f = ResultFilter::new();
        for size in [1, 2, 5, 16, text.len()] {
            let streamed = in_chunks(&f, text, size);
            assert_eq!(streamed, out, "chunks of {size}");
        }
    }
    // A plain user name stays.
    assert_eq!(
        r("https://ada:hunter2@example.com/"),
        "https://[REDACTED]@example.com/"
    );
}

/// A label far before its secret (`Authorization:`, a run of spaces, the value) is held with
/// the secret in a stream: passed on alone, the rest would no longer read as a secret. Within
/// the window a stream holds (`STREAM_HOLD_BYTES`), whatever the chunks; beyond it, when the
/// label arrives with enough of its secret to match (one read of a pipe).
#[test]
fn a_long_label_is_held_with_its_secret_in_a_stream() {
    let f = ResultFilter::default();
    let stream = |text: &str, size: usize| in_chunks(&f, text, size);
    for label in ["Authorization:", "password:", "{\"password\":"] {
        let value = if label.starts_with('{') {
            "\"s3cr3t-v4lue\"}"
        } else {
            "s3cr3tv4lue99"
        };
        let text = |pad: usize| format!("{label}{}{value}\nnext line\n", " ".repeat(pad));
        for pad in (200..4050).step_by(97) {
            let text = text(pad);
            let whole = f.redact(&text).0.into_owned();
            assert!(!whole.contains("s3cr3t"), "{label} {pad}: {whole}");
            for size in [64, 1000, 4096, 5000] {
                assert_eq!(
                    stream(&text, size),
                    whole,
                    "{label} {pad}, chunks of {size}"
                );
            }
        }
        // A quoted value matches once its closing quote is there; until then nothing says
        // that the label is one, and beyond the window it goes.
        if label.starts_with('{') {
            continue;
        }
        for pad in [4177, 5000, 20_000, 60_000] {
            let text = text(pad);
            let whole = f.redact(&text).0.into_owned();
            assert!(!whole.contains("s3cr3t"), "{label} {pad}");
            // Everything up to the middle of the value in one read, the rest in another.
            let cut = text.find("v4lue").unwrap();
            let streamed = streamed(&f, &text, &[cut]);
            assert_eq!(streamed, whole, "{label} {pad}, two reads");
        }
    }
}

/// The escapes other languages print before a token: C's and Python's `\v`, `\a`, `\x0b` and
/// octal `\012` (`repr`, `printf %q`), Go's `%q` `\U0001f600`, shell `\e`. Each ends in a letter
/// or digit, so the token's leading word boundary does not hold after it.
#[test]
fn a_token_after_other_languages_escapes_is_redacted() {
    let f = ResultFilter::default();
    let token = "ghp_0123456789abcdefghijklmnopqrstuvwxyz";
    for escape in [
        r"\v",
        r"\a",
        r"\e",
        r"\0",
        r"\x0b",
        r"\x1B",
        r"\012",
        r"\U0001f600",
    ] {
        let text = format!("'FOO=1{escape}{token}'");
        assert_eq!(
            f.redact(&text).0,
            format!("'FOO=1{escape}[REDACTED]'"),
            "{escape}"
        );
        // In a stream cut anywhere.
        let text = format!("{}{text}", "y".repeat(4100));
        let whole = f.redact(&text).0.into_owned();
        for cut in 4090..4130 {
            let out = streamed(&f, &text, &[cut]);
            assert_eq!(out, whole, "{escape}, cut at {cut}");
        }
    }
    // Not escapes: a word that holds a token's prefix stays.
    let prose = r"see \xzz ghp_ \q";
    assert_eq!(f.redact(prose).0, prose);
}

/// JSON inside a JSON string, as `aws secretsmanager get-secret-value` prints `SecretString`
/// and kubectl prints `last-applied-configuration`: the inner keys and values are written
/// with escaped quotes, at any depth.
#[test]
fn secrets_in_json_inside_a_json_string_are_redacted() {
    let f = ResultFilter::default();
    let cases = [
        (
            r#"{"SecretString":"{\"user\":\"diegor\",\"password\":\"EXAMPLE-PASSWORD\"}"}"#,
            r#"{"SecretString":"{\"user\":\"diegor\",\"password\":\"[REDACTED]\"}"}"#,
        ),
        (
            r#"{"data":"{\"api_key\": \"abcd1234efgh5678\", \"client_secret\":\"s3cr3t v4lu3\"}"}"#,
            r#"{"data":"{\"api_key\": \"[REDACTED]\", \"client_secret\":\"[REDACTED]\"}"}"#,
        ),
        // Two levels down, and a value with an escaped newline in it.
        (
            r#"{"a":"{\"b\":\"{\\\"token\\\":\\\"t0k3n-\\\\nvalue\\\"}\"}"}"#,
            r#"{"a":"{\"b\":\"{\\\"token\\\":\\\"[REDACTED]\\\"}\"}"}"#,
        ),
    ];
    for (text, want) in cases {
        assert_eq!(f.redact(text).0, want, "{text}");
    }
    // Still JSON, and the structure stays.
    let out = f.redact(cases[0].0).0.into_owned();
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v["SecretString"].as_str().unwrap().contains("diegor"));
}

/// An environment entry inside a JSON string (`docker inspect`'s `Config.Env`, a Kubernetes
/// pod's `env`) is a value up to its closing quote: all of it goes, spaces included, and the
/// rest of the array stays.
#[test]
fn environment_entries_in_json_strings_end_at_their_quote() {
    let f = ResultFilter::default();
    let text =
        r#"{"Env":["PATH=/usr/bin","DB_PASSWORD=correct horse battery staple","HOME=/root"]}"#;
    assert_eq!(
        f.redact(text).0,
        r#"{"Env":["PATH=/usr/bin","DB_PASSWORD=[REDACTED]","HOME=/root"]}"#
    );
    // Outside a JSON string the value still ends at whitespace.
    assert_eq!(
        f.redact("DB_PASSWORD=abc123 next").0,
        "DB_PASSWORD=[REDACTED] next"
    );
}

/// A private key that is base64 as a whole (`kubectl get secret -o yaml`, `tls.key`), but
/// not a certificate, which is no secret.
#[test]
fn base64_encoded_private_keys_are_redacted() {
    use base64::Engine as _;
    let f = ResultFilter::default();
    let b64 = |s: &str| base64::engine::general_purpose::STANDARD.encode(s);
    for label in [
        "PRIVATE KEY",
        "RSA PRIVATE KEY",
        "EC PRIVATE KEY",
        "OPENSSH PRIVATE KEY",
    ] {
        let key = b64(&format!(
            "-----BEGIN {label}-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END {label}-----\n"
        ));
        let text = format!("data:\n  tls.key: {key}\n  other: x\n");
        assert_eq!(
            f.redact(&text).0,
            "data:\n  tls.key: [REDACTED]\n  other: x\n",
            "{label}"
        );
    }
    let cert = b64("-----BEGIN CERTIFICATE-----\nMIIC\n-----END CERTIFICATE-----\n");
    let text = format!("  tls.crt: {cert}\n");
    assert_eq!(f.redact(&text).0, text);
}

/// A quoted value cut off before its closing quote (the capture cap, a timeout, a line printed
/// so) is a secret up to the end of the line: spaces do not end it.
#[test]
fn a_quoted_value_without_its_closing_quote_is_redacted_to_the_line_end() {
    let cases = [
        (
            "export DB_PASSWORD=\"correct horse battery",
            "export DB_PASSWORD=\"[REDACTED]",
        ),
        (
            "{\"password\": \"correct horse",
            "{\"password\": \"[REDACTED]",
        ),
        ("token = 'correct horse\nnext", "token = '[REDACTED]\nnext"),
        ("[\"DB_PASSWORD=correct horse", "[\"DB_PASSWORD=[REDACTED]"),
    ];
    for (text, want) in cases {
        assert_eq!(r(text), want, "{text}");
    }
}

/// A quoted value longer than the stream's window, still open when the window is passed
/// (`"client-key-data": "…5 KiB…"` in two reads): it reads as a secret up to where it has
/// arrived, so it is held with its label, not passed on before its closing quote arrives.
#[test]
fn a_long_quoted_value_is_held_until_it_closes() {
    let f = ResultFilter::default();
    let body = "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo".repeat(150);
    let text = format!("{{\"client-key-data\": \"{body}\"}}\n");
    let whole = f.redact(&text).0.into_owned();
    assert_eq!(whole, "{\"client-key-data\": \"[REDACTED]\"}\n");
    for cut in [4600, 4097, 5000] {
        let out = streamed(&f, &text, &[cut]);
        assert_eq!(out, whole, "first read {cut}");
    }
}

/// A stream keeps the character before its cut as the next read's context; that character
/// was taken for the start of a line, so a rule anchored at line starts (`.pgpass`) matched a
/// line that starts elsewhere (`# z…z:*:*:…`), to its end, and hid the private key that begins
/// inside it: the key's body went out in clear (security review of issue 46, finding 2). The
/// stream now gives the same text as the whole, whatever the chunks.
#[test]
fn a_false_line_start_at_a_stream_cut_hides_no_private_key() {
    let body = "MHcCAQEEIBkg4LVWM9nuwNSk3yByxZpYRTBnVJk5";
    let text = format!(
        "# {}:*:*:postgres:pw -----BEGIN EC PRIVATE KEY-----\n{body}\n-----END EC PRIVATE KEY-----\n",
        "z".repeat(5000)
    );
    let f = ResultFilter::new();
    let whole = r(&text);
    assert!(!whole.contains(body), "{whole}");
    for size in [1, 7, 64, 256, 1000, 4095] {
        let out = in_chunks(&f, &text, size);
        assert!(
            !out.contains(body),
            "chunks of {size}: the key's body passed"
        );
        assert_eq!(out, whole, "chunks of {size}");
    }
    let cut = text.find("-----BEGIN").unwrap();
    assert_eq!(streamed(&f, &text, &[cut]), whole, "one cut before the key");
}

/// `base64 key.pem` wraps its output at 76 columns (`openssl base64` at 64), and the rule for
/// base64 private keys matches across those lines. A stream passed each line on once it was
/// whole: the first line (which says `PRIVATE KEY`) went out redacted, the key's body on the
/// lines after it in clear, since no line of it is a secret alone. A match of a rule that
/// spans lines is now held while the next line may still make it longer, and so is a block
/// whose first lines do not yet say what it is (wrapped at 40 columns or fewer).
#[test]
fn a_base64_private_key_wrapped_over_lines_is_held_whole_in_a_stream() {
    use base64::Engine as _;
    let pem = "-----BEGIN RSA PRIVATE KEY-----\n\
        MIIEpAIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw7onLRnrq\
        0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxKLxoS2tFczGkPLPgizskuemMg\
        hRniWaoLcyehkd3qqGElvW/VDL5AaWTg0nLVkjRo9z+40RQzuVaE8AkAFmxZzow3x+VJYKdjykkJ\n\
        -----END RSA PRIVATE KEY-----\n";
    let encoded = base64::engine::general_purpose::STANDARD.encode(pem);
    let f = ResultFilter::new();
    // At 76 and 64 columns the first line says `PRIVATE KEY` already; at 40 and 20 only a later
    // one does, so the block is held from its keyword before any rule matches.
    for (columns, nl) in [(76, "\n"), (64, "\r\n"), (40, "\n"), (20, "\n")] {
        let lines: Vec<&str> = encoded
            .as_bytes()
            .chunks(columns)
            .map(|l| std::str::from_utf8(l).unwrap())
            .collect();
        assert!(lines.len() > 3);
        let text = format!("$ base64 key.pem{nl}{}{nl}$ echo done{nl}", lines.join(nl));
        // The last line holds the END line's dashes only.
        let body = &lines[..lines.len() - 1];
        let whole = r(&text);
        assert!(body.iter().all(|l| !whole.contains(l)), "{whole}");
        for size in [1, 16, 77, 100, 4096] {
            let out = in_chunks(&f, &text, size);
            for line in body {
                assert!(!out.contains(line), "chunks of {size}: {line} passed");
            }
            assert_eq!(out, whole, "chunks of {size}");
        }
    }
}

/// A caller's rule may match across lines too (`with_pattern` takes any pattern): a match of
/// it that ends at a line break is held while the next line may make it longer, as the
/// built-in multi-line rules' are. Without that, the lines after the first went out in clear.
#[test]
fn a_callers_rule_that_spans_lines_is_held_in_a_stream() {
    let f = ResultFilter::new()
        .with_pattern(
            "wrapped-vault-key",
            r"VAULTKEY:[A-Z0-9]{8,}(?:\n[A-Z0-9]{8,})*",
        )
        .expect("compiles");
    let text = "key follows\nVAULTKEY:AAAA1111\nBBBB2222CCCC\nDDDD3333EEEE\ndone\n";
    let whole = f.redact(text).0.into_owned();
    assert_eq!(whole, "key follows\n[REDACTED]\ndone\n");
    for size in [1, 5, 13, 30] {
        assert_eq!(in_chunks(&f, text, size), whole, "chunks of {size}");
    }
}

/// A caller's pattern with an escaped backslash before a `b` (a Windows path) keeps its
/// meaning: only a `\b` itself is made an ASCII word boundary (found by a review: `\\b`
/// became `\(?-u:\b)`, and the pattern no longer compiled).
#[test]
fn an_escaped_backslash_before_a_b_stays_a_backslash() {
    let f = ResultFilter::new()
        .with_pattern("share", r"C:\\bin\\share=(?P<secret>\b[A-Za-z0-9]{12}\b)")
        .expect("compiles");
    assert_eq!(
        f.redact(r"run C:\bin\share=Xy7Qw3Lm9Np2 now").0,
        r"run C:\bin\share=[REDACTED] now"
    );
}

mod utf8 {
    use super::super::utf8_lossy;
    use proptest::prelude::*;

    /// Bytes that are mostly text, with stray bytes of multi-byte sequences (lead bytes without
    /// their continuation, continuation bytes alone, overlong and surrogate forms) among them.
    fn output() -> impl Strategy<Value = Vec<u8>> {
        let piece = prop_oneof![
            "[a-z \n]{0,8}".prop_map(String::into_bytes),
            "[é€😀]{0,2}".prop_map(String::into_bytes),
            prop::sample::select(vec![0x80u8, 0xbf, 0xc0, 0xc3, 0xe2, 0xed, 0xf0, 0xf4, 0xff])
                .prop_map(|b| vec![b]),
        ];
        prop::collection::vec(piece, 0..24).prop_map(|v| v.concat())
    }

    proptest! {
        #[test]
        fn utf8_lossy_reads_every_byte_string_as_the_standard_library_does(bytes in output()) {
            let ours = utf8_lossy(&bytes);
            let standard = String::from_utf8_lossy(&bytes);
            prop_assert_eq!(ours.as_ref(), standard.as_ref());
            prop_assert_eq!(
                matches!(ours, std::borrow::Cow::Borrowed(_)),
                std::str::from_utf8(&bytes).is_ok()
            );
        }
    }
}

/// Large chunks, as the runner hands a stream's redactor when output arrives faster than it is
/// redacted: every rule's examples and counter-examples run together, in chunks of several KiB
/// and cut just after line ends, come out as the whole text does.
#[test]
fn examples_streamed_in_large_chunks_give_the_whole_texts_redaction() {
    let f = ResultFilter::new();
    let mut text = String::new();
    for (i, example) in rules::EXAMPLES.iter().enumerate() {
        text.push_str(&example.text.replace(['«', '»'], ""));
        text.push('\n');
        if i % 5 == 0 {
            text.push_str("an ordinary line between the examples, with é and ✓\n");
        }
    }
    let text = text.repeat(3);
    assert!(text.len() > 64 << 10, "{}", text.len());
    let whole = f.redact(&text).0.into_owned();
    for size in [4097, 5003, 8189, 16384, 65536] {
        assert!(
            in_chunks(&f, &text, size) == whole,
            "chunks of {size} bytes"
        );
    }
    let ends: Vec<usize> = text.match_indices('\n').map(|(i, _)| i).collect();
    for shift in [0usize, 1, 2] {
        let cuts: Vec<usize> = ends
            .iter()
            .step_by(120)
            .map(|&i| i + shift)
            .filter(|&c| c < text.len() && text.is_char_boundary(c))
            .collect();
        assert!(
            streamed(&f, &text, &cuts) == whole,
            "cut {shift} after line ends"
        );
    }
}

/// Keywords of rules that ignore case are searched in a lowercased copy made a block at a
/// time: one that starts anywhere around a block's end, its needle inside the block, across
/// its end or after it, in any case, is found.
#[test]
fn a_keyword_across_a_block_of_the_case_folded_search_is_found() {
    let block = scanner::FOLD_BLOCK_BYTES;
    for spelling in ["DB_PASSWORD", "db_password", "Db_PassWord"] {
        for start in block - 16..block + 4 {
            let mut text = "........\n".repeat(start / 9);
            text.push_str(&".".repeat(start - text.len()));
            text.push(' ');
            let at = text.len();
            text.push_str(&format!("{spelling}=Hunter2Hunter2x\n"));
            let out = r(&text);
            assert_eq!(
                &out[at..],
                format!("{spelling}=[REDACTED]\n"),
                "{spelling} at {at}, the block ends at {block}"
            );
        }
    }
}
