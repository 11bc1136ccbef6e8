//! A labelled corpus for the result filter: every kind of secret it must catch, each in the
//! surroundings it is met in (environment dumps, JSON, YAML, HTTP traces, CLI configs, logs),
//! and lines that must survive untouched (prose about secrets, commit hashes, image digests,
//! request ids, resource ids). Values are random and fake, with each format's real shape.
//! Deterministic: the same seed gives the same corpus.

use crate::large::Rng;

const ALNUM: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const LOWER_ALNUM: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
const UPPER: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const LETTERS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const UPPER_B32: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const HEX: &[u8] = b"0123456789abcdef";
const BASE64: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const URLSAFE: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";
const BECH32: &[u8] = b"QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L";
const DIGITS: &[u8] = b"0123456789";

/// `n` characters drawn from `set`.
pub fn chars(rng: &mut Rng, set: &[u8], n: usize) -> String {
    (0..n)
        .map(|_| set[(rng.next_u64() % set.len() as u64) as usize] as char)
        .collect()
}

/// One kind of secret: how a value looks and where it is met (`{v}` is the value).
pub struct Kind {
    /// Its label in the corpus report.
    pub kind: &'static str,
    /// A fresh value.
    pub value: fn(&mut Rng) -> String,
    /// Lines (or blocks) holding the value.
    pub surroundings: &'static [&'static str],
}

fn pem(rng: &mut Rng) -> String {
    let lines: Vec<String> = (0..6).map(|_| chars(rng, BASE64, 64)).collect();
    format!("MIIEow{}", lines.join("\n"))
}

fn pem_escaped(rng: &mut Rng) -> String {
    let lines: Vec<String> = (0..6).map(|_| chars(rng, BASE64, 64)).collect();
    format!("MIIEvg{}", lines.join("\\n"))
}

/// Every kind, with its surroundings. At least 40 kinds; [`KINDS`]`.len()` says how many.
pub const KINDS: &[Kind] = &[
    Kind {
        kind: "pem-private-key",
        value: pem,
        surroundings: &[
            "-----BEGIN RSA PRIVATE KEY-----\n{v}\n-----END RSA PRIVATE KEY-----",
            "$ cat ~/.ssh/id_ed25519\n-----BEGIN OPENSSH PRIVATE KEY-----\n{v}\n-----END OPENSSH PRIVATE KEY-----",
            "-----BEGIN EC PRIVATE KEY-----\n{v}",
        ],
    },
    Kind {
        kind: "json-secret-field",
        value: pem_escaped,
        surroundings: &[
            "{\"type\": \"service_account\", \"project_id\": \"demo-123\", \"private_key\": \"-----BEGIN PRIVATE KEY-----\\n{v}\\n-----END PRIVATE KEY-----\\n\", \"client_email\": \"ci@demo-123.iam.gserviceaccount.com\"}",
            "  \"private_key\": \"-----BEGIN PRIVATE KEY-----\\n{v}\\n-----END PRIVATE KEY-----\\n\",",
        ],
    },
    Kind {
        kind: "age-secret-key",
        value: |r| format!("AGE-SECRET-KEY-1{}", chars(r, BECH32, 58)),
        surroundings: &["# created: 2026-11-21T08:00:00Z\n{v}", "SOPS_AGE_KEY={v}"],
    },
    Kind {
        kind: "aws-access-key-id",
        value: |r| format!("AKIA{}", chars(r, UPPER_B32, 16)),
        surroundings: &[
            "AWS_ACCESS_KEY_ID={v}",
            "    \"AccessKeyId\": \"{v}\",",
            "aws_access_key_id = {v}",
            "2026-11-21T08:00:01Z INFO signing request with {v}",
        ],
    },
    Kind {
        kind: "aws-secret-access-key",
        value: |r| chars(r, BASE64, 40),
        surroundings: &[
            "aws_secret_access_key = {v}",
            "AWS_SECRET_ACCESS_KEY={v}",
            "    \"SecretAccessKey\": \"{v}\",",
        ],
    },
    Kind {
        kind: "aws-session-token",
        value: |r| format!("IQoJb3JpZ2luX2Vj{}", chars(r, BASE64, 120)),
        surroundings: &["aws_session_token = {v}", "    \"SessionToken\": \"{v}\","],
    },
    Kind {
        kind: "gcp-api-key",
        value: |r| format!("AIza{}", chars(r, URLSAFE, 35)),
        surroundings: &["  \"keyString\": \"{v}\"", "curl 'https://maps.googleapis.com/maps/api/geocode/json?address=x&key={v}'"],
    },
    Kind {
        kind: "gcp-oauth-client-secret",
        value: |r| format!("GOCSPX-{}", chars(r, URLSAFE, 28)),
        surroundings: &["{\"installed\": {\"client_id\": \"123.apps.googleusercontent.com\", \"client_secret\": \"{v}\"}}", "client secret {v}"],
    },
    Kind {
        kind: "google-oauth-access-token",
        value: |r| format!("ya29.a0{}", chars(r, URLSAFE, 120)),
        surroundings: &["$ gcloud auth print-access-token\n{v}", "> Authorization: Bearer {v}"],
    },
    Kind {
        kind: "azure-connection-string-key",
        value: |r| format!("{}==", chars(r, BASE64, 86)),
        surroundings: &[
            "DefaultEndpointsProtocol=https;AccountName=demostore;AccountKey={v};EndpointSuffix=core.windows.net",
            "Endpoint=sb://demo.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey={v}",
        ],
    },
    Kind {
        kind: "azure-ad-client-secret",
        value: |r| format!("{}{}Q~{}", chars(r, ALNUM, 3), chars(r, DIGITS, 1), chars(r, URLSAFE, 34)),
        surroundings: &["    \"password\": \"{v}\",", "new client secret: {v}"],
    },
    Kind {
        kind: "azure-sas-signature",
        value: |r| format!("{}%3D", chars(r, ALNUM, 43)),
        surroundings: &["https://demo.blob.core.windows.net/c/b.txt?sv=2022-11-02&ss=b&srt=o&sp=r&se=2026-12-01T00:00:00Z&sig={v}"],
    },
    Kind {
        kind: "github-token",
        value: |r| format!("ghp_{}", chars(r, ALNUM, 36)),
        surroundings: &["GITHUB_TOKEN={v}", "github.com:\n    oauth_token: {v}\n    user: ada", "$ gh auth token\n{v}", "remote: https://x-access-token:{v}@github.com/ada/repo.git"],
    },
    Kind {
        kind: "github-fine-grained-token",
        value: |r| format!("github_pat_11{}_{}", chars(r, UPPER_DIGITS_ALPHA, 20), chars(r, ALNUM, 59)),
        surroundings: &["GH_TOKEN={v}", "token created: {v}"],
    },
    Kind {
        kind: "gitlab-token",
        value: |r| format!("glpat-{}", chars(r, URLSAFE, 20)),
        surroundings: &["export GITLAB_TOKEN={v}", "> PRIVATE-TOKEN: {v}", "  token = \"{v}\""],
    },
    Kind {
        kind: "npm-token",
        value: |r| format!("npm_{}", chars(r, ALNUM, 36)),
        surroundings: &["//registry.npmjs.org/:_authToken={v}", "NPM_TOKEN={v}"],
    },
    Kind {
        kind: "pypi-token",
        value: |r| format!("pypi-AgEIcHlwaS5vcmc{}", chars(r, URLSAFE, 70)),
        surroundings: &["[pypi]\n  username = __token__\n  password = {v}", "TWINE_PASSWORD={v}"],
    },
    Kind {
        kind: "docker-hub-token",
        value: |r| format!("dckr_pat_{}", chars(r, URLSAFE, 27)),
        surroundings: &["$ echo {v} | docker login -u ada --password-stdin", "DOCKERHUB_TOKEN={v}"],
    },
    Kind {
        kind: "docker-config-auth",
        value: |r| chars(r, BASE64, 40),
        surroundings: &["{\n  \"auths\": {\n    \"ghcr.io\": {\n      \"auth\": \"{v}\"\n    }\n  }\n}"],
    },
    Kind {
        kind: "anthropic-api-key",
        value: |r| format!("sk-ant-api03-{}", chars(r, URLSAFE, 93)),
        surroundings: &["ANTHROPIC_API_KEY={v}", "> x-api-key: {v}", "anthropic key: {v}"],
    },
    Kind {
        kind: "openai-api-key",
        value: |r| format!("sk-proj-{}", chars(r, URLSAFE, 60)),
        surroundings: &["export OPENAI_API_KEY=\"{v}\"", "openai.api_key = '{v}'", "> Authorization: Bearer {v}"],
    },
    Kind {
        kind: "stripe-key",
        value: |r| format!("sk_live_{}", chars(r, ALNUM, 24)),
        surroundings: &["STRIPE_SECRET_KEY={v}", "stripe.api_base key {v} (live)", "curl https://api.stripe.com/v1/charges -u {v}:"],
    },
    Kind {
        kind: "stripe-webhook-secret",
        value: |r| format!("whsec_{}", chars(r, ALNUM, 32)),
        surroundings: &["webhook_signing: {v}", "Ready! Your webhook signing secret is {v} (^C to quit)"],
    },
    Kind {
        kind: "slack-token",
        value: |r| format!("xoxb-{}-{}-{}", chars(r, DIGITS, 12), chars(r, DIGITS, 13), chars(r, ALNUM, 24)),
        surroundings: &["SLACK_BOT_TOKEN={v}", "  \"bot_token\": \"{v}\""],
    },
    Kind {
        kind: "slack-webhook",
        value: |r| format!("T{}/B{}/{}", chars(r, UPPER, 8), chars(r, UPPER, 10), chars(r, ALNUM, 24)),
        surroundings: &["SLACK_WEBHOOK_URL=https://hooks.slack.com/services/{v}", "posting to https://hooks.slack.com/services/{v}"],
    },
    Kind {
        kind: "sendgrid-api-key",
        value: |r| format!("SG.{}.{}", chars(r, URLSAFE, 22), chars(r, URLSAFE, 43)),
        surroundings: &["SENDGRID_API_KEY={v}", "sendgrid:\n  api_key: {v}"],
    },
    Kind {
        kind: "twilio-api-key",
        value: |r| format!("SK{}", chars(r, HEX, 32)),
        surroundings: &["TWILIO_API_KEY={v}", "created API key {v}"],
    },
    Kind {
        kind: "shopify-token",
        value: |r| format!("shpat_{}", chars(r, HEX, 32)),
        surroundings: &["SHOPIFY_ACCESS_TOKEN={v}", "> X-Shopify-Access-Token: {v}"],
    },
    Kind {
        kind: "huggingface-token",
        value: |r| format!("hf_{}", chars(r, LETTERS, 34)),
        surroundings: &["HF_TOKEN={v}", "$ huggingface-cli whoami --token {v}"],
    },
    Kind {
        kind: "digitalocean-token",
        value: |r| format!("dop_v1_{}", chars(r, HEX, 64)),
        surroundings: &["DIGITALOCEAN_ACCESS_TOKEN={v}", "context default:\n  access-token: {v}"],
    },
    Kind {
        kind: "grafana-token",
        value: |r| format!("glsa_{}_{}", chars(r, ALNUM, 32), chars(r, HEX, 8)),
        surroundings: &["GRAFANA_SA_TOKEN={v}", "> Authorization: Bearer {v}"],
    },
    Kind {
        kind: "heroku-token",
        value: |r| format!("HRKU-AA{}", chars(r, URLSAFE, 58)),
        surroundings: &["HEROKU_API_KEY={v}", "machine api.heroku.com\n  login ada@example.com\n  password {v}"],
    },
    Kind {
        kind: "atlassian-api-token",
        value: |r| format!("ATATT3xFfGF0{}", chars(r, URLSAFE, 180)),
        surroundings: &["JIRA_API_TOKEN={v}", "curl -u ada@example.com:{v} https://demo.atlassian.net/rest/api/3/myself"],
    },
    Kind {
        kind: "databricks-token",
        value: |r| format!("dapi{}", chars(r, HEX, 32)),
        surroundings: &["DATABRICKS_TOKEN={v}", "[DEFAULT]\nhost = https://demo.cloud.databricks.com\ntoken = {v}"],
    },
    Kind {
        kind: "vault-token",
        value: |r| format!("hvs.{}", chars(r, URLSAFE, 90)),
        surroundings: &["VAULT_TOKEN={v}", "Key                  Value\n---                  -----\ntoken                {v}\ntoken_accessor       {a}"],
    },
    Kind {
        kind: "terraform-cloud-token",
        value: |r| format!("{}.atlasv1.{}", chars(r, ALNUM, 14), chars(r, URLSAFE, 67)),
        surroundings: &["{\n  \"credentials\": {\n    \"app.terraform.io\": {\n      \"token\": \"{v}\"\n    }\n  }\n}", "TFE_TOKEN={v}"],
    },
    Kind {
        kind: "postman-api-key",
        value: |r| format!("PMAK-{}-{}", chars(r, HEX, 24), chars(r, HEX, 34)),
        surroundings: &["POSTMAN_API_KEY={v}", "> X-Api-Key: {v}"],
    },
    Kind {
        kind: "linear-api-key",
        value: |r| format!("lin_api_{}", chars(r, ALNUM, 40)),
        surroundings: &["LINEAR_API_KEY={v}"],
    },
    Kind {
        kind: "new-relic-key",
        value: |r| format!("NRAK-{}", chars(r, UPPER_DIGITS_ALPHA, 27)),
        surroundings: &["NEW_RELIC_API_KEY={v}", "> Api-Key: {v}"],
    },
    Kind {
        kind: "sentry-token",
        value: |r| format!("sntrys_{}", chars(r, URLSAFE, 80)),
        surroundings: &["SENTRY_AUTH_TOKEN={v}", "[auth]\ntoken={v}"],
    },
    Kind {
        kind: "telegram-bot-token",
        value: |r| format!("{}:AA{}", chars(r, DIGITS, 10), chars(r, URLSAFE, 33)),
        surroundings: &["TELEGRAM_BOT_TOKEN={v}", "POST https://api.telegram.org/bot{v}/sendMessage"],
    },
    Kind {
        kind: "jwt",
        value: |r| format!("eyJhbGciOiJSUzI1NiJ9.eyJ{}.{}", chars(r, URLSAFE, 60), chars(r, URLSAFE, 86)),
        surroundings: &["> Cookie: session={v}", "id_token={v}", "    token: {v}"],
    },
    Kind {
        kind: "authorization-header",
        value: |r| format!("{}==", chars(r, BASE64, 30)),
        surroundings: &["> Authorization: Basic {v}", "Authorization: Digest username=\"ada\", response=\"{v}\""],
    },
    Kind {
        kind: "cookie-header",
        value: |r| chars(r, HEX, 32),
        surroundings: &["> Cookie: _ga=GA1.1.123; sessionid={v}; theme=dark"],
    },
    Kind {
        kind: "set-cookie-value",
        value: |r| chars(r, URLSAFE, 40),
        surroundings: &["< Set-Cookie: sid={v}; Path=/; Secure; HttpOnly; SameSite=Lax"],
    },
    Kind {
        kind: "url-credentials",
        value: |r| chars(r, ALNUM, 16),
        surroundings: &["remote.origin.url=https://deploy:{v}@git.example.com/app.git", "DATABASE_URL=postgres://app:{v}@db.internal:5432/app", "redis://:{v}@cache:6379/0"],
    },
    Kind {
        kind: "netrc-password",
        value: |r| chars(r, ALNUM, 14),
        surroundings: &["machine api.example.com login ada password {v}", "machine git.example.com\n  login ada\n  password {v}"],
    },
    Kind {
        kind: "kubeconfig-secret",
        value: |r| format!("LS0tLS1CRUdJTi{}", chars(r, BASE64, 200)),
        surroundings: &["users:\n- name: admin\n  user:\n    client-certificate-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t\n    client-key-data: {v}"],
    },
    Kind {
        kind: "password-assignment",
        value: |r| format!("{}-{} {}", chars(r, LETTERS, 7), chars(r, DIGITS, 3), chars(r, LETTERS, 6)),
        surroundings: &[
            "DATABASE_PASSWORD=\"{v}\"",
            "{\"username\": \"admin\", \"password\": \"{v}\"}",
            "  password: '{v}'",
            "db_password = \"{v}\"",
        ],
    },
    Kind {
        kind: "password-unquoted",
        value: |r| format!("{}{}!{}", chars(r, LETTERS, 6), chars(r, DIGITS, 2), chars(r, LETTERS, 3)),
        surroundings: &[
            "PGPASSWORD={v}",
            "MYSQL_ROOT_PASSWORD={v}",
            "  password: {v}",
            "host=db port=5432 user=app password={v} dbname=app",
            "$ app login --password={v}",
        ],
    },
    Kind {
        kind: "secret-assignment",
        value: |r| chars(r, ALNUM, 48),
        surroundings: &["SECRET_KEY_BASE={v}", "client_secret: {v}", "  \"clientSecret\": \"{v}\",", "JWT_SIGNING_KEY={v}"],
    },
    Kind {
        kind: "token-in-log",
        value: |r| chars(r, LOWER_ALNUM, 32),
        surroundings: &["2026-11-21 08:00:02 DEBUG using token {v} for upload", "refresh_token: {v}", "?access_token={v}&page=2"],
    },
    // Issue 46: shapes the keyed rules did not read.
    Kind {
        kind: "language-assignment",
        value: |r| chars(r, ALNUM, 20),
        surroundings: &[
            "\tdbPassword := \"{v}\"",
            "    'password' => '{v}',",
            "  :api_key => \"{v}\",",
            "{'password': '{v}', 'user': 'ada'}",
        ],
    },
    Kind {
        kind: "xml-secret",
        value: |r| chars(r, ALNUM, 18),
        surroundings: &[
            "    <add key=\"SmtpPassword\" value=\"{v}\" />",
            "      <password>{v}</password>",
        ],
    },
    Kind {
        kind: "command-line-password",
        value: |r| chars(r, ALNUM, 14),
        surroundings: &[
            "+ mysql -h db -u root -p{v} shop",
            "root 4242 0.0 sshpass -p {v} ssh deploy@host",
            "$ redis-cli -h cache -a {v} ping",
            "curl -sS -u ada:{v} https://api.example.com/v1/me",
        ],
    },
    Kind {
        kind: "connection-string-password",
        value: |r| chars(r, ALNUM, 16),
        surroundings: &[
            "Driver={ODBC Driver 18 for SQL Server};Server=db;Uid=sa;Pwd={v};Encrypt=yes",
            "db.example.net:5432:shop:ada:{v}",
            "url=jdbc:oracle:thin:scott/{v}@//db:1521/ORCL",
        ],
    },
    Kind {
        kind: "cookie-file",
        value: |r| chars(r, URLSAFE, 32),
        surroundings: &[
            ".example.com\tTRUE\t/\tTRUE\t1767225600\tsession\t{v}",
            "[{\"name\": \"sid\", \"value\": \"{v}\", \"domain\": \".example.com\"}]",
        ],
    },
    Kind {
        kind: "bundler-credentials",
        value: |r| chars(r, HEX, 24),
        surroundings: &["BUNDLE_GEMS__CONTRIBSYS__COM: \"ada:{v}\""],
    },
    Kind {
        kind: "url-userinfo-with-at",
        value: |r| format!("{}@{}", chars(r, ALNUM, 8), chars(r, ALNUM, 10)),
        surroundings: &["git clone https://ada:{v}@git.example.com/o/r.git"],
    },
];

const UPPER_DIGITS_ALPHA: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

/// Lines that mention secrets without holding one, or hold values that look random but are not
/// secrets: each must survive redaction unchanged.
pub const INNOCENT: &[&str] = &[
    "Basic usage: aws s3 cp SOURCE DEST [--recursive]",
    "error: token expired, run `gh auth login` to refresh it",
    "He was the Bearer of bad news about the password policy.",
    "A password reset email was sent to the account owner.",
    "The secret to fast builds is a warm cache.",
    "Set api_key in the config file before the first run.",
    "Tokens are rotated every 90 days; see the security handbook.",
    "Password: required for login",
    "Error: invalid token: expired",
    "token: none",
    "The secret: it's in the cache",
    "password: <hidden>",
    "API_KEY=${API_KEY}",
    "GITHUB_TOKEN=$GITHUB_TOKEN",
    "commit 9fceb02d0ae598e95dc970b74767f19372d61af8",
    "Merge: 1a2b3c4 5d6e7f8",
    "ghcr.io/ada/app@sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "< X-Request-Id: 7c9e6679-7425-40de-944b-e07fc1f90ae7",
    "    \"InstanceId\": \"i-0abcd1234efgh5678\",",
    "arn:aws:iam::123456789012:role/deploy-role",
    "    \"ImageId\": \"ami-0c55b159cbfafe1f0\",",
    "Author: Ada Lovelace <ada@example.com>",
    "PWD=/home/ada/src/app",
    "OLDPWD=/home/ada",
    "TOKENIZERS_PARALLELISM=false",
    "SSH_AUTH_SOCK=/run/user/1000/ssh-agent.socket",
    "  \"token_type\": \"Bearer\",",
    "  \"expires_in\": 3599,",
    "Sessions: 3 active, token lifetime 1h",
    "author: ada",
    "passwords must be at least 12 characters long",
    "x-content-type-options: nosniff",
    "KUBERNETES_SERVICE_HOST=10.96.0.1",
    "etag: \"33a64df551425fcc55e4d42a148795d9f25f89d4\"",
    // Issue 46: over-redactions of real text.
    "-rw-r--r-- 1 ada ada 120 Nov 21 08:00 xoxo-gossip-girl.txt",
    "export GITHUB_TOKEN=$(gh auth token)",
    "password: ENC[AES256_GCM,data:Tr0ub4dor,iv:8f7e6d5c4b3a,tag:1a2b3c4d,type:str]",
    "curl -H \"Authorization: Bearer <token>\" https://api.example.com",
    "curl -H \"Authorization: Bearer $TOKEN\" https://api.example.com",
    "aws_access_key_id = AKIAIOSFODNN7EXAMPLE",
    "GH_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    "mkdir -p build && mysql -h db -u root -p shop",
    "token := os.Getenv(\"TOKEN\")",
];

/// One corpus entry: text holding `secret` (or none), labelled with the kind and surrounding.
#[derive(Debug, Clone)]
pub struct Entry {
    /// The kind's label (`innocent` for lines without a secret).
    pub kind: &'static str,
    /// The text, as a command would print it.
    pub text: String,
    /// The planted secret; `None` for innocent lines.
    pub secret: Option<String>,
}

/// The corpus: every kind in every one of its surroundings, `per` times with fresh values,
/// then every innocent line.
pub fn corpus(per: usize) -> Vec<Entry> {
    let mut rng = Rng(0x5ec2_e7c0_2b05_0001);
    let mut out = Vec::new();
    for kind in KINDS {
        for surrounding in kind.surroundings {
            for _ in 0..per {
                let value = (kind.value)(&mut rng);
                let accessor = chars(&mut rng, URLSAFE, 24);
                out.push(Entry {
                    kind: kind.kind,
                    text: surrounding.replace("{v}", &value).replace("{a}", &accessor),
                    secret: Some(value),
                });
            }
        }
    }
    for line in INNOCENT {
        out.push(Entry {
            kind: "innocent",
            text: (*line).to_owned(),
            secret: None,
        });
    }
    out
}

/// Distinctive 8-byte pieces of a secret (from its second half, which holds its random part):
/// none may reach a model. A secret shorter than 16 bytes gives itself, one up to 24 bytes its
/// second half.
pub fn pieces(secret: &str) -> Vec<&str> {
    if secret.len() < 16 {
        return vec![secret];
    }
    let tail = &secret[secret.len() / 2..];
    if tail.len() <= 12 {
        return vec![tail];
    }
    (0..=tail.len() - 8)
        .step_by(4)
        .filter(|&i| tail.is_char_boundary(i) && tail.is_char_boundary(i + 8))
        .map(|i| &tail[i..i + 8])
        .filter(|p| !p.contains('\n') && !p.contains("\\n"))
        .collect()
}
