//! The review of the keyword-driven engine (issue 46): each test is a finding's proof of
//! concept, asserting the safe behaviour it now has. Findings left open are listed in
//! RELIABILITY.md (Secrets, "Still open").

use crate::rules::{BUILTIN, EXAMPLES};
use crate::rules_tests::split_marks;
use crate::tests::r;

fn assert_hidden(input: &str, secret: &str) {
    let out = r(input);
    assert!(
        !out.contains(secret),
        "secret {secret:?} reaches the output\n  input  {input:?}\n  output {out:?}"
    );
}

fn assert_unchanged(input: &str) {
    let out = r(input);
    assert_eq!(out, input, "innocent output changed");
}

// ---------------------------------------------------------------------------------------------
// F1 — REGRESSION (keyword prefilter). `key_end` accepts `auth` followed by `\"` (the
// JSON-inside-a-JSON-string branch `\\+"[ \t]*:`), but the keyword list has `auth"`, `auth:`,
// `auth=`, … and no `auth\`. A line whose only credential word is `\"auth\"` is never searched
// by keyed-secret. The previous engine (one automaton, no prefilter) redacted it.
// ---------------------------------------------------------------------------------------------

#[test]
fn f1_escaped_json_auth_member_is_redacted() {
    // A docker/npm auth entry inside a JSON string (an API body, a log field).
    assert_hidden(
        r#"{"body":"{\"auth\":\"dXNlcjpodW50ZXIyMg==\"}"}"#,
        "dXNlcjpodW50ZXIyMg==",
    );
    // `.npmrc` as JSON-in-JSON: `_auth` is not a keyword either (only `auth_`).
    assert_hidden(r#"{\"_auth\":\"dXNlcjpodW50ZXIy\"}"#, "dXNlcjpodW50ZXIy");
}

// ---------------------------------------------------------------------------------------------
// F2 — REGRESSION (keyword prefilter, low). Patterns use `(?i:…)`, which in the regex crate is
// Unicode case-insensitive: `s` also matches U+017F `ſ`, `k` also U+212A `K` (KELVIN SIGN). The
// keyword search is ASCII-only, so such spellings are accepted by the pattern but
// never searched. JSON's `\u212a` is decoded before the rules read it. The previous engine
// redacted both.
// ---------------------------------------------------------------------------------------------

#[test]
fn f3_url_password_with_hash_or_question_mark_is_redacted() {
    assert_hidden(
        "DATABASE_URL=postgres://ada:s3cr#t-9x@db:5432/app",
        "s3cr#t-9x",
    );
    assert_hidden("REDIS_URL=redis://:pa?ss-9x7@cache:6379/0", "pa?ss-9x7");
}

// ---------------------------------------------------------------------------------------------
// F4 — REGRESSION. The new placeholder heuristic `filler_after_prefix` takes any value of the
// form `<≤12 chars>[_-.]` + 4+ copies of one of `x X * 0 .` for a stand-in. Real (weak)
// passwords of that shape are no longer redacted in keyed forms; the previous engine redacted
// them. (A placeholder check should not apply to the value of an explicit `KEY=value`.)
// ---------------------------------------------------------------------------------------------

#[test]
fn f4_passwords_ending_in_zeros_or_xs_are_not_taken_for_placeholders() {
    assert_hidden("DB_PASSWORD=admin-0000", "admin-0000");
    assert_hidden("password: Winter_XXXX", "Winter_XXXX");
    assert_hidden("\"password\": \"root.0000\"", "root.0000");
}

// ---------------------------------------------------------------------------------------------
// F5 — NEW RULES (35-vendor-tokens.toml). Rules written as `(?:(?m:^)|[^…])(?P<secret>…)` or
// ending in `(?:[^…]|(?m:$))` contain a line anchor, so `spans_after_escapes` skips them
// ("anchored"), yet their leading alternative needs a non-alphanumeric byte, which `\n`, `%0A`
// or a colour code (`…m`) never is. Azure keys (storage, Cosmos DB, Batch, APIM, Redis,
// Service Bus/Event Hubs, IoT, Functions, ACR), Square and Facebook tokens and Infracost keys
// leak when printed right after an escape.
// ---------------------------------------------------------------------------------------------

#[test]
fn f5_anchored_vendor_rules_find_secrets_after_escapes() {
    let mut failures = Vec::new();
    for rule in BUILTIN {
        let anchored = regex_syntax::parse(rule.pattern)
            .is_ok_and(|h| h.properties().look_set().contains_anchor());
        if !anchored || rule.multiline {
            continue;
        }
        for e in EXAMPLES.iter().filter(|e| e.rule == rule.name && e.secret) {
            let secrets = split_marks(e.text).secrets;
            for secret in secrets {
                // Only bare tokens: a keyed shape anchored at a line start is F6.
                if secret.contains(char::is_whitespace) || secret.len() < 20 {
                    continue;
                }
                for text in [
                    format!("{{\"log\":\"started\\n{secret}\"}}"),
                    format!("key: \u{1b}[32m{secret}\u{1b}[0m"),
                    format!("key=%0A{secret}"),
                ] {
                    let out = r(&text);
                    if out.contains(&secret) {
                        failures.push(format!("{}: {text:?}", rule.name));
                    }
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "leaked after an escape:\n{}",
        failures.join("\n")
    );
}

// ---------------------------------------------------------------------------------------------
// F6 — OLDER (not a regression). Rules anchored at a line start (cookie-header, pgpass-password,
// oracle-connect-password via `$`, base64-private-key via `(?m:$)`) are never tried after an
// escape, so the same files printed inside a JSON string (an MCP/API result, a JSON log line,
// `\r\n`-joined HTTP dumps) leak.
// ---------------------------------------------------------------------------------------------

#[test]
fn f7_tokens_after_caret_notation_colour_codes_are_redacted() {
    assert_hidden(
        "^[[32mghp_0123456789abcdefghijABCDEFGHIJabcdef12^[[0m",
        "ghp_0123456789abcdefghijABCDEFGHIJabcdef12",
    );
    assert_hidden("^[[1;31mAKIA2OGYBAH4Q7ZRX5NM^[[0m", "AKIA2OGYBAH4Q7ZRX5NM");
}

// ---------------------------------------------------------------------------------------------
// F8 — OLDER (pem-private-key, openvpn-static-key). The body of a PEM block is matched only as
// unindented lines joined by `\r?\n` or `\\n`. An indented block (a YAML `|` scalar: Helm
// values, Kubernetes manifests, Ansible vars, `docker compose config`) and a JSON-escaped
// Windows block (`\r\n` written as `\\r\\n`) match with an empty or one-newline body: the
// whole key reaches the output (only the line break after BEGIN is replaced).
// ---------------------------------------------------------------------------------------------

#[test]
fn f8_indented_pem_private_key_body_is_redacted() {
    let yaml = "tls.key: |\n  -----BEGIN RSA PRIVATE KEY-----\n  MIIEpAIBAAKCAQEA7Qm2LrT5vK8pW3nB6cJ4\n  hF1gE0aZyXwV7Qm2LrT5vK8pW3nB6cJ4hF1g\n  -----END RSA PRIVATE KEY-----\n";
    assert_hidden(yaml, "MIIEpAIBAAKCAQEA7Qm2LrT5vK8pW3nB6cJ4");
    assert_hidden(yaml, "hF1gE0aZyXwV7Qm2LrT5vK8pW3nB6cJ4hF1g");
    let ovpn = "    <tls-crypt>\n    -----BEGIN OpenVPN Static key V1-----\n    6acef03f62675b4b1bbd03e53b187727\n    -----END OpenVPN Static key V1-----\n";
    assert_hidden(ovpn, "6acef03f62675b4b1bbd03e53b187727");
}

#[test]
fn f8_json_escaped_crlf_pem_private_key_body_is_redacted() {
    assert_hidden(
        r#"{"key":"-----BEGIN RSA PRIVATE KEY-----\r\nMIIEpAIBAAKCAQEA7Qm2LrT5vK8pW3nB6cJ4\r\n-----END RSA PRIVATE KEY-----\r\n"}"#,
        "MIIEpAIBAAKCAQEA7Qm2LrT5vK8pW3nB6cJ4",
    );
}

// ---------------------------------------------------------------------------------------------
// F9 — OLDER (stream.rs, base64-private-key). A wrapped base64 private key matches across lines
// (`(?:\r?\n[ \t]*[A-Za-z0-9+/]{16,}={0,2}(?m:$))*`), but its match ends *before* the line
// break. When a chunk ends right after that line break (line-buffered output: the usual case),
// the match neither reaches the end of what arrived nor the start of an unfinished line, so
// the redactor releases the line; the continuation lines then hold no `LS0tLS1CRUdJTi` and
// pass in clear. `redact` of the whole text hides them.
// ---------------------------------------------------------------------------------------------

#[test]
fn f12_command_line_password_rule_is_not_quadratic() {
    let text = format!("{} -u a:$X\n", "curl ".repeat(6_000)); // 30 KB
    let t = std::time::Instant::now();
    let _ = r(&text);
    let took = t.elapsed();
    // Quadratic, 30 KB took 6.7 s; linear, milliseconds: the bound only tells the two apart.
    assert!(took.as_secs_f64() < 5.0, "30 KB took {took:?}");
}

// ---------------------------------------------------------------------------------------------
// F13 — OLDER, improved but still quadratic. base64-private-key turns down a certificate's
// `LS0tLS1CRUdJTi…` (check base64_private_key) and the scan restarts one byte later; joined by
// `+` (or as continuation lines of one another) every occurrence matches to the end of the
// run, and the prefilter's anchored block search at each keyword does the same. 100 KB: 4.5 s
// here (release and debug alike), 118 s in the previous engine.
// ---------------------------------------------------------------------------------------------

#[test]
fn f15_docker_port_mapping_after_mysql_stays() {
    assert_unchanged("docker run -d --name mysql -p3306:3306 mysql:8.0");
}

// ---------------------------------------------------------------------------------------------
// F16 — OLDER (keyed-secret shapes). A quoted value whose quotes are escaped (YAML/.env inside
// a JSON string: `kubectl get cm -o json`, JSON logs) falls to the `loose` branch, which reads
// only `\` and turns it down; a colour code between key and value (`jq -C`, `yq -C`) defeats
// every keyed form.
// ---------------------------------------------------------------------------------------------
