//! The built-in secret rules: credential formats recognised by their shape, and keyword
//! assignments whose value looks like a credential.
//!
//! Each rule is a regular expression (regex crate syntax) that stays on one line, except the
//! PEM rule, whose block spans lines (the streaming redactor relies on this); a group named `secret` marks the part
//! that is replaced, so labels (`password=`, `Authorization: Bearer `) stay readable. A rule may
//! carry a check on the captured secret that turns down look-alike prose. Every rule names where
//! its format comes from: the issuer's documentation where it publishes the format, otherwise
//! the open-source scanners' (gitleaks, trufflehog) detectors for it, whose facts (prefixes,
//! lengths, alphabets) are restated here, not copied.
//!
//! # When a keyword's value is a secret
//!
//! Keyword rules (`password`, `secret`, `token`, `api_key`, …) fire on the *value*, and only
//! when the form makes a value certain or the value looks like a credential:
//!
//! * a quoted value after a keyed form (`"password": "…"`, `PASSWORD="…"`, `token: '…'`) is a
//!   value: the whole quoted text is replaced, spaces and punctuation included;
//! * an unquoted value in an environment form (`DB_PASSWORD=…`, `--token=…`, no space around
//!   `=`) is a value: replaced up to the next whitespace, punctuation included (a password may
//!   end in `)` or `;`, and leaking its last character is worse than hiding a bracket);
//! * otherwise (`password: x`, `token x` in logs and prose; a rule's group named `loose`) the
//!   value must look like a credential ([`looks_like_credential`]): at least 6 characters and letters with digits, or a
//!   symbol no prose word carries (`_ + / = @ # $ % ^ & * ~ \ |`), or 12+ characters of mixed
//!   case that are not a capitalised word, or 24+ characters;
//! * placeholders are never secrets ([`is_placeholder`]): empty, `none`, `null`, `true`,
//!   `false`, `***`, `<…>`, `${…}`, `$VAR`, `[REDACTED]` and kin.
//!
//! So `Password: required for login`, `Error: invalid token: expired`, `token: none` and `The
//! secret: it's …` stay prose, while `password: hunter22`, `token: 9f8e7d6c5b4a` and
//! `DATABASE_PASSWORD="correct horse"` are redacted.

/// A check on the captured secret; a match it turns down is left alone.
pub(crate) type SecretCheck = Option<fn(&str) -> bool>;

/// One built-in rule: a kind name, its pattern, an optional check, and where the format is
/// documented.
pub(crate) struct Builtin {
    pub name: &'static str,
    pub pattern: &'static str,
    pub check: SecretCheck,
    #[allow(dead_code)] // documentation for readers of the catalog; shown in RELIABILITY.md
    pub source: &'static str,
}

const fn rule(
    name: &'static str,
    pattern: &'static str,
    check: SecretCheck,
    source: &'static str,
) -> Builtin {
    Builtin {
        name,
        pattern,
        check,
        source,
    }
}

/// The longest value taken for a placeholder, in bytes. A longer one is judged as a value:
/// `${…}`, `<…>` and `{{…}}` that run on for kilobytes are not what a placeholder looks like,
/// and a match turned down as one sends the search back to its next character — over a long
/// value holding further keys (`token=${token=${…`) that made the scan quadratic.
pub(crate) const MAX_PLACEHOLDER_BYTES: usize = 256;

/// Values that stand for "no secret here" (at most [`MAX_PLACEHOLDER_BYTES`] long).
pub(crate) fn is_placeholder(value: &str) -> bool {
    let v = value.trim();
    if v.len() > MAX_PLACEHOLDER_BYTES {
        return false;
    }
    if v.is_empty()
        || v.chars()
            .all(|c| matches!(c, '*' | 'x' | 'X' | '.' | '-' | '#'))
        || (v.starts_with('<') && v.ends_with('>'))
        || (v.starts_with("${") && v.ends_with('}'))
        || (v.starts_with("{{") && v.ends_with("}}"))
        || (v.starts_with('$')
            && v[1..]
                .chars()
                .all(|c| c == '_' || c.is_ascii_alphanumeric()))
        || v.eq_ignore_ascii_case("[redacted]")
    {
        return true;
    }
    const WORDS: &[&str] = &[
        "none",
        "null",
        "nil",
        "undefined",
        "true",
        "false",
        "yes",
        "no",
        "empty",
        "n/a",
        "na",
        "unset",
        "redacted",
        "hidden",
        "masked",
        "required",
        "optional",
        "bearer",
        "basic",
        "changeit?",
        "todo",
        "tbd",
        "example",
        "your-token",
        "your_token",
        "your-password",
        "your_password",
        "<none>",
        "not-set",
        "notset",
    ];
    WORDS.iter().any(|w| v.eq_ignore_ascii_case(w))
}

/// Whether a value from a free-form line (not a keyed or quoted form) looks like a credential
/// rather than a word: see the module documentation.
pub(crate) fn looks_like_credential(value: &str) -> bool {
    let v = value.trim_end_matches(['.', ',', ';', ')', '!', '?', ':']);
    if is_placeholder(v) || v.chars().count() < 6 {
        return false;
    }
    let letter = v.chars().any(|c| c.is_alphabetic());
    let digit = v.chars().any(|c| c.is_ascii_digit());
    let strong_symbol = v.chars().any(|c| {
        matches!(
            c,
            '_' | '+' | '/' | '=' | '@' | '#' | '$' | '%' | '^' | '&' | '*' | '~' | '\\' | '|'
        )
    });
    let upper = v.chars().any(|c| c.is_uppercase());
    let lower = v.chars().any(|c| c.is_lowercase());
    let capitalised_word = v.chars().next().is_some_and(char::is_uppercase)
        && v.chars()
            .skip(1)
            .all(|c| c.is_lowercase() || c == '-' || c == '\'');
    (letter && digit)
        || strong_symbol
        || (v.len() >= 12 && upper && lower && !capitalised_word)
        || v.len() >= 24
}

/// A value in a keyed form (quoted, or `KEY=value`): anything but a placeholder.
pub(crate) fn not_placeholder(value: &str) -> bool {
    !is_placeholder(value)
}

/// Whether `s`, base64 from `LS0tLS1CRUdJTi` (`-----BEGIN`) on, encodes a private key's BEGIN
/// line (a certificate's is no secret): its first 64 characters decoded hold `PRIVATE KEY`.
fn base64_private_key(s: &str) -> bool {
    use base64::Engine as _;
    let head: String = s.chars().filter(|c| !c.is_whitespace()).take(64).collect();
    let head = &head[..head.len() / 4 * 4];
    base64::engine::general_purpose::STANDARD
        .decode(head)
        .is_ok_and(|bytes| bytes.windows(11).any(|w| w == b"PRIVATE KEY"))
}

fn basic_credentials(s: &str) -> bool {
    s.len() >= 12
        && s.chars()
            .any(|c| c.is_ascii_digit() || matches!(c, '+' | '/' | '='))
}

/// The keyword set of keyed forms, as the end of a key: `password`, `db_password`,
/// `clientSecret`, `NPM_TOKEN`, `client-key-data`, `SECRET_KEY_BASE`, … (case-insensitive).
/// A match starts at the keyword, not at the start of the key: what comes before it in the
/// key does not matter, and an open-ended key prefix would multiply the automaton's states.
/// `auth` and `pass` only as whole words or after a separator, so `author` and `compass` stay;
/// `pwd` only after a separator (`DB_PWD`), since `PWD` is the working directory.
macro_rules! key_end {
    () => {
        r"(?:pass(?:word|wd|phrase)|(?:\b|[_.\-])pass|[_.\-]pwd|secret|token|api[_\-]?key|access[_\-]?key|private[_\-]?key|secret[_\-]?key|client[_\-]?secret|credentials?|(?:\b|[_.\-])auth|identitytoken|account[_\-]?key|shared[_\-]?access[_\-]?key|signing[_\-]?key|encryption[_\-]?key|master[_\-]?key|session[_\-]?key|license[_\-]?key|key[_\-]data|conn(?:ection)?[_\-]?string)(?:s|[_\-]?(?:base|value|data|b64|base64|raw))?"
    };
}

/// The built-in rules, most specific first (a match is named by the first rule that accepts
/// it; every match is redacted).
pub(crate) const BUILTIN: &[Builtin] = &[
    // --- Private keys -------------------------------------------------------------------
    rule(
        "pem-private-key",
        // Raw or JSON-escaped (`\n`), RSA/EC/DSA/OPENSSH/ENCRYPTED/PGP; also cut off before END.
        // The body is its lines: base64, or `Header: value` (Proc-Type, DEK-Info, Version), so
        // a block cut off before its END line takes no prose after it.
        r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?P<secret>(?:\r?\n|\\n)(?:(?:[A-Za-z0-9+/=]*|[A-Za-z\-]+:[ \t][^\r\n\\]*)(?:\r?\n|\\n))*(?:[A-Za-z0-9+/=]+\z)?)",
        None,
        "RFC 7468 (PEM) labels; OpenSSH PROTOCOL.key; RFC 4880 armor",
    ),
    rule(
        "base64-private-key",
        // A whole PEM private key in base64 (Kubernetes Secrets' `data`, `tls.key`), on one
        // line or wrapped (`base64` wraps at 76): `LS0tLS1CRUdJTi` is `-----BEGIN` encoded.
        r"\bLS0tLS1CRUdJTi[A-Za-z0-9+/]*={0,2}(?:\r?\n[ \t]*[A-Za-z0-9+/]{16,}={0,2}(?m:$))*",
        Some(base64_private_key),
        "RFC 7468 labels in base64 (RFC 4648 §4), as Kubernetes Secret `data` holds them",
    ),
    rule(
        "age-secret-key",
        r"\bAGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}\b",
        None,
        "age-encryption.org/v1 spec: Bech32 secret keys, HRP AGE-SECRET-KEY-",
    ),
    // --- Keyed forms (before the token shapes, so a token inside a keyed value is
    // redacted with its label kept) ------------------------------------------------------
    rule(
        "azure-connection-string-key",
        r"(?i:\b(?:AccountKey|SharedAccessKey|SharedAccessSignature)=)(?P<secret>[A-Za-z0-9+/%=\-_.&]{16,})",
        None,
        "Azure Storage / Service Bus connection strings (learn.microsoft.com, 'Configure Azure Storage connection strings')",
    ),
    rule(
        "json-environment-entry",
        // `"NAME=value"`, a string of a JSON array (`docker inspect`'s `Config.Env`): the value
        // runs to the closing quote, spaces included, and the next strings stay.
        concat!(
            r#""(?i:[A-Za-z0-9_.\-]*"#,
            key_end!(),
            r#")=(?P<secret>(?:[^"\\\r\n]|\\.)*)"?"#
        ),
        Some(not_placeholder),
        "environment entries as JSON strings (`docker inspect` `Config.Env`, Kubernetes `env`)",
    ),
    rule(
        "keyed-secret",
        // One keyword set, then the form: a JSON member, a quoted value, an environment
        // assignment, or a free value (`password: …`, `token = …`) that must look like a
        // credential (group `loose`). Alternatives in that order: the first form that fits wins.
        // A quoted value whose closing quote never comes (output cut by the capture cap or a
        // timeout, a line printed so) runs to the end of the line.
        concat!(
            r#"(?i:"#,
            key_end!(),
            r#")(?:"[ \t]*:[ \t]*"(?P<secret>(?:[^"\\\r\n]|\\.)*)"?"#,
            // A member of JSON inside a JSON string, at any depth: `\"password\":\"…\"`.
            r#"|\\+"[ \t]*:[ \t]*\\+"(?P<secret5>(?:[^"\\\r\n]|\\+[^"\\\r\n])*)\\+""#,
            r#"|[ \t]*[:=][ \t]*(?:"(?P<secret2>(?:[^"\\\r\n]|\\.)*)"?|'(?P<secret3>[^'\r\n]*)'?)"#,
            r#"|=(?P<secret4>[^\s"'][^\s]*)"#,
            r#"|[ \t]*[:=][ \t]*(?P<loose>[^\s"',;&]+))"#
        ),
        Some(not_placeholder),
        "JSON members (credential files, docker config.json `auths`, API responses), shell and .env assignments, environment dumps, `--flag=value`, libpq conninfo, YAML/INI/TOML values and logs",
    ),
    rule(
        "url-query-secret",
        r"[?&](?i:token|access_token|id_token|refresh_token|api_key|apikey|key|sig|signature|password|secret|client_secret)=(?P<secret>[^&#\s'\x22<>]+)",
        Some(not_placeholder),
        "OAuth 2.0 (RFC 6749 §4.2.2) tokens in URLs; Azure SAS `sig=`; API keys in query strings",
    ),
    rule(
        "netrc-password",
        r"(?m:\bmachine[ \t]+\S+[ \t]+login[ \t]+\S+[ \t]+password[ \t]+(?P<secret>\S+)|^[ \t]*password[ \t]+(?P<secret2>\S+)[ \t]*$)",
        Some(not_placeholder),
        "netrc(5) (GNU inetutils): `machine … login … password …`",
    ),
    rule(
        "authorization-digest",
        r"(?i:\b(?:proxy-)?authorization[ \t]*:[ \t]*(?:digest|negotiate|ntlm|hoba|mutual|scram-sha-256)[ \t]+)(?P<secret>[^\r\n]+)",
        None,
        "RFC 7616 Digest, RFC 4559 Negotiate, RFC 7804 SCRAM: every parameter of the header",
    ),
    rule(
        "authorization-header",
        r"(?i:\b(?:proxy-)?authorization)[\x22']?[ \t]*[:=][ \t]*[\x22']?(?i:(?:bearer|basic|token|digest|negotiate|apikey|sso-key|aws4-hmac-sha256)[ \t]+)?(?P<secret>[A-Za-z0-9._~+/=\-,:]{6,})",
        None,
        "RFC 9110 §11.6.2 Authorization, §11.7.2 Proxy-Authorization",
    ),
    rule(
        "cookie-header",
        r"(?im:^[ \t>]*cookie:[ \t]*(?P<secret>[^\r\n]+))",
        None,
        "RFC 6265 §5.4 Cookie header: every name=value pair",
    ),
    rule(
        "set-cookie-value",
        r"(?i:\bset-cookie:[ \t]*[^=;\s]+=)(?P<secret>[^;\r\n]+)",
        Some(not_placeholder),
        "RFC 6265 §4.1 Set-Cookie: the cookie value (attributes stay)",
    ),
    rule(
        "url-credentials",
        r"://[^/\s:@]*:(?P<secret>[^/\s@]+)@",
        None,
        "RFC 3986 §3.2.1 userinfo (`scheme://user:password@host`, also `redis://:password@host`)",
    ),
    // --- Token shapes ------------------------------------------------------------------
    rule(
        "aws-access-key-id",
        r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ABIA|ACCA)[A-Z2-7]{16}\b",
        None,
        "AWS IAM User Guide, 'IAM identifiers: unique ID prefixes'",
    ),
    rule(
        "aws-secret-access-key",
        r"(?i:\baws_?secret_?(?:access_?)?key)[\x22']?[ \t]*[:=][ \t]*[\x22']?(?P<secret>[A-Za-z0-9/+=]{40})",
        None,
        "AWS credentials file (`aws_secret_access_key`, 40 base64 characters)",
    ),
    rule(
        "gcp-api-key",
        r"\bAIza[0-9A-Za-z_\-]{35}",
        None,
        "Google Cloud API keys (39 characters, prefix AIza); gitleaks gcp-api-key",
    ),
    rule(
        "gcp-oauth-client-secret",
        r"\bGOCSPX-[A-Za-z0-9_\-]{28}",
        None,
        "Google OAuth client secrets (prefix GOCSPX-); gitleaks gcp-client-secret",
    ),
    rule(
        "google-oauth-access-token",
        r"\bya29\.[0-9A-Za-z_\-]{20,}",
        None,
        "Google OAuth 2.0 access tokens (prefix ya29.); trufflehog",
    ),
    rule(
        "azure-ad-client-secret",
        r"\b[A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.\-]{31,34}\b",
        None,
        "Microsoft Entra ID application client secrets (`Q~` at position 5); gitleaks azure-ad-client-secret",
    ),
    rule(
        "github-token",
        r"\bgh[pousr]_[A-Za-z0-9]{36,255}",
        None,
        "GitHub docs 'About authentication to GitHub': token prefixes ghp_, gho_, ghu_, ghs_, ghr_",
    ),
    rule(
        "github-fine-grained-token",
        r"\bgithub_pat_[A-Za-z0-9_]{22,255}",
        None,
        "GitHub fine-grained personal access tokens (prefix github_pat_)",
    ),
    rule(
        "gitlab-token",
        r"\bgl(?:pat|dt|rt|ptt|cbt|soat|imt|ffct|oas|ft)-[A-Za-z0-9_\-]{20,}",
        None,
        "GitLab docs 'Token prefixes' (glpat-, gldt-, glrt-, glptt-, glcbt-, glsoat-, …)",
    ),
    rule(
        "npm-token",
        r"\bnpm_[A-Za-z0-9]{36}\b",
        None,
        "npm docs 'About access tokens' (granular tokens, prefix npm_)",
    ),
    rule(
        "pypi-token",
        r"\bpypi-AgE[A-Za-z0-9_\-]{50,}",
        None,
        "PyPI API tokens: macaroons with prefix pypi- (pypi.org/help/#apitoken)",
    ),
    rule(
        "docker-hub-token",
        r"\bdckr_(?:pat|oat)_[A-Za-z0-9_\-]{20,}",
        None,
        "Docker Hub personal and organization access tokens (dckr_pat_, dckr_oat_)",
    ),
    rule(
        "anthropic-api-key",
        r"\bsk-ant-[a-z]+[0-9]{0,2}-[A-Za-z0-9_\-]{20,}",
        None,
        "Anthropic API and admin keys (sk-ant-api03-, sk-ant-admin01-)",
    ),
    rule(
        "openai-api-key",
        r"\bsk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_\-]{20,}",
        None,
        "OpenAI API keys (sk-, sk-proj-, sk-svcacct-, sk-admin-)",
    ),
    rule(
        "stripe-key",
        r"\b(?:(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9]{16,})",
        None,
        "Stripe docs 'API keys' (sk_/rk_/pk_ live and test) and webhook signing secrets (whsec_)",
    ),
    rule(
        "slack-token",
        r"\b(?:xox[abposre]-[A-Za-z0-9\-]{10,}|xapp-[0-9]-[A-Za-z0-9\-]{10,})",
        None,
        "Slack API 'Token types' (xoxb-, xoxp-, xoxa-, xoxe-, xapp-)",
    ),
    rule(
        "slack-webhook",
        r"https://hooks\.slack\.com/(?:services|workflows|triggers)/(?P<secret>[A-Za-z0-9_/\-]{20,})",
        None,
        "Slack 'Sending messages using incoming webhooks' (hooks.slack.com/services/T…/B…/…)",
    ),
    rule(
        "sendgrid-api-key",
        r"\bSG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}\b",
        None,
        "Twilio SendGrid API keys (SG.<22>.<43>); gitleaks sendgrid-api-token",
    ),
    rule(
        "twilio-api-key",
        r"\bSK[0-9a-f]{32}\b",
        None,
        "Twilio API key SIDs (SK + 32 hex); gitleaks twilio-api-key",
    ),
    rule(
        "shopify-token",
        r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b",
        None,
        "Shopify access tokens (shpat_, shpca_, shppa_, shpss_)",
    ),
    rule(
        "huggingface-token",
        r"\b(?:hf_[A-Za-z]{34}|api_org_[A-Za-z]{34})\b",
        None,
        "Hugging Face user access tokens (hf_) and organisation tokens (api_org_)",
    ),
    rule(
        "digitalocean-token",
        r"\bdo[opr]_v1_[a-f0-9]{64}\b",
        None,
        "DigitalOcean tokens (dop_v1_ personal, doo_v1_ OAuth, dor_v1_ refresh)",
    ),
    rule(
        "grafana-token",
        r"\b(?:glc_[A-Za-z0-9+/]{32,400}={0,2}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8})",
        None,
        "Grafana Cloud access policy tokens (glc_) and service account tokens (glsa_)",
    ),
    rule(
        "heroku-token",
        r"\bHRKU-AA[0-9A-Za-z_\-]{58}",
        None,
        "Heroku API tokens (HRKU-AA prefix, 2024 format)",
    ),
    rule(
        "atlassian-api-token",
        r"\bATATT3[A-Za-z0-9_\-=]{100,}",
        None,
        "Atlassian API tokens (ATATT3 prefix); gitleaks atlassian-api-token",
    ),
    rule(
        "databricks-token",
        r"\bdapi[a-f0-9]{32}(?:-[0-9])?\b",
        None,
        "Databricks personal access tokens (dapi + 32 hex)",
    ),
    rule(
        "vault-token",
        r"\bhv[sbr]\.[A-Za-z0-9_\-]{24,}",
        None,
        "HashiCorp Vault tokens (hvs. service, hvb. batch, hvr. recovery)",
    ),
    rule(
        "terraform-cloud-token",
        // The secret is what follows `.atlasv1.`; the 14-character id in front of it is not.
        r"\.atlasv1\.(?P<secret>[A-Za-z0-9_\-=]{60,})",
        None,
        "HCP Terraform API tokens (<14>.atlasv1.<…>)",
    ),
    rule(
        "postman-api-key",
        r"\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b",
        None,
        "Postman API keys (PMAK-); gitleaks postman-api-token",
    ),
    rule(
        "linear-api-key",
        r"\blin_api_[A-Za-z0-9]{40}\b",
        None,
        "Linear personal API keys (lin_api_)",
    ),
    rule(
        "new-relic-key",
        r"\bNR(?:AK|II|JS)-[A-Za-z0-9]{20,}",
        None,
        "New Relic user (NRAK-), ingest (NRII-) and browser (NRJS-) keys",
    ),
    rule(
        "sentry-token",
        r"\bsntr[ysu]_[A-Za-z0-9+/=_\-]{40,}",
        None,
        "Sentry auth tokens (sntrys_ org, sntryu_ user)",
    ),
    rule(
        "telegram-bot-token",
        // The secret is what follows the colon; the bot id in front of it is public.
        r":(?P<secret>AA[A-Za-z0-9_\-]{33})\b",
        None,
        "Telegram Bot API tokens (<bot id>:AA…, 35 characters after the colon)",
    ),
    rule(
        "jwt",
        r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}",
        None,
        "RFC 7519 JSON Web Tokens (base64url header starting {\" = eyJ)",
    ),
    // --- Free-form keyword forms (checked) ----------------------------------------------
    rule(
        "bearer-token",
        r"\b[Bb]earer[ \t]+(?P<secret>[A-Za-z0-9._~+/\-]{20,}=*)",
        None,
        "RFC 6750 §2.1 bearer tokens",
    ),
    rule(
        "basic-credentials",
        r"\bBasic[ \t]+(?P<secret>[A-Za-z0-9+/]{12,}={0,2})",
        Some(basic_credentials),
        "RFC 7617 Basic credentials (base64 of user:password)",
    ),
    rule(
        "keyword-space-value",
        r"(?i:\b(?:password|passwd|passphrase|secret|token|api[_\-]?key))[ \t]+(?:is[ \t]+)?(?P<secret>[^\s\x22',;&]{6,})",
        Some(looks_like_credential),
        "prose and logs (`using token 9f8e…`), when the value looks like a credential",
    ),
];
