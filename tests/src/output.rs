//! Realistic command output with planted secrets, for the result filter's benchmark and
//! tests: git logs, environment dumps, cloud CLI JSON, HTTP traces and config files, with a
//! secret of every kind of the labelled corpus ([`crate::secrets`]) planted at regular
//! intervals in its own surroundings, and prose that only looks like secrets ("Basic usage",
//! "token expired", …), which must survive redaction.
//! Deterministic: the same arguments always give the same text.

use crate::large::Rng;

/// Generated output and what was planted in it.
#[derive(Debug, Clone)]
pub struct Sample {
    /// The output text.
    pub text: String,
    /// Each planted secret's value (without its label), in order; none may survive redaction.
    pub secrets: Vec<String>,
    /// Look-alike prose lines in the text; each must survive redaction unchanged.
    pub prose: Vec<&'static str>,
}

/// Lines that mention secrets without holding one.
pub const PROSE: &[&str] = &[
    "Basic usage: aws s3 cp SOURCE DEST [--recursive]",
    "error: token expired, run `gh auth login` to refresh it",
    "He was the Bearer of bad news about the password policy.",
    "A password reset email was sent to the account owner.",
    "The secret to fast builds is a warm cache.",
    "Set api_key in the config file before the first run.",
    "Tokens are rotated every 90 days; see the security handbook.",
    "Password: required for login",
    "Error: invalid token: expired",
];

fn chars(rng: &mut Rng, set: &[u8], n: usize) -> String {
    crate::secrets::chars(rng, set, n)
}

/// The number of secret kinds [`sample`] plants: every kind of the labelled corpus
/// ([`crate::secrets::KINDS`]).
pub const KINDS: usize = crate::secrets::KINDS.len();

/// Secret number `k` (mod [`KINDS`]) in one of its surroundings: the text that holds it and
/// the secret itself.
fn secret(rng: &mut Rng, k: usize) -> (String, String) {
    let kind = &crate::secrets::KINDS[k % KINDS];
    let value = (kind.value)(rng);
    let around = kind.surroundings[(k / KINDS) % kind.surroundings.len()];
    let accessor = chars(rng, b"abcdefghijklmnopqrstuvwxyz0123456789", 24);
    (
        around.replace("{v}", &value).replace("{a}", &accessor),
        value,
    )
}

/// One block of ordinary output of kind `k` (no secrets).
fn block(rng: &mut Rng, k: usize) -> String {
    let hex = |rng: &mut Rng| chars(rng, b"0123456789abcdef", 40);
    match k % 5 {
        0 => format!(
            "commit {}\nAuthor: Ada Lovelace <ada@example.com>\nDate:   Sat Nov 21 08:{:02}:13 2026 +0000\n\n    {}\n\n",
            hex(rng),
            rng.next_u64() % 60,
            rng.prose(60)
        ),
        1 => format!(
            "HOME=/home/ada\nPATH=/usr/local/bin:/usr/bin:/bin\nLANG=C.UTF-8\nTERM=xterm-256color\nEDITOR=vim\nSHLVL={}\n",
            rng.next_u64() % 4
        ),
        2 => format!(
            "{{\n    \"InstanceId\": \"i-{}\",\n    \"State\": {{\"Name\": \"running\"}},\n    \"PrivateIpAddress\": \"10.0.{}.{}\",\n    \"Tags\": [{{\"Key\": \"Name\", \"Value\": \"{}\"}}]\n}}\n",
            chars(rng, b"0123456789abcdef", 17),
            rng.next_u64() % 256,
            rng.next_u64() % 256,
            rng.prose(20)
        ),
        3 => format!(
            "> GET /v1/items?page={} HTTP/1.1\n> Host: api.example.com\n> Accept: application/json\n< HTTP/1.1 200 OK\n< Content-Type: application/json\n< X-Request-Id: {}\n\n",
            rng.next_u64() % 100,
            hex(rng)
        ),
        _ => format!(
            "[server]\nport = {}\nworkers = 4\n# {}\n[logging]\nlevel = \"info\"\n",
            8000 + rng.next_u64() % 1000,
            rng.prose(50)
        ),
    }
}

/// About `bytes` of output with `secrets` secrets of all kinds spread evenly through it, and
/// a look-alike prose line after every secret.
pub fn sample(bytes: usize, secrets: usize) -> Sample {
    let mut rng = Rng(0x51_7cc1_b727_220a);
    let mut text = String::with_capacity(bytes + 4096);
    let mut planted = Vec::with_capacity(secrets);
    let mut prose = Vec::new();
    let every = bytes / (secrets + 1);
    let mut k = 0;
    while text.len() < bytes {
        text.push_str(&block(&mut rng, k));
        k += 1;
        if planted.len() < secrets && text.len() >= every * (planted.len() + 1) {
            let (line, value) = secret(&mut rng, planted.len());
            text.push_str(&line);
            text.push('\n');
            planted.push(value);
            let p = PROSE[planted.len() % PROSE.len()];
            text.push_str(p);
            text.push('\n');
            prose.push(p);
        }
    }
    Sample {
        text,
        secrets: planted,
        prose,
    }
}

/// JSON output crafted against array elision (security review, finding 10), about `bytes`
/// long: one object of many keys, each holding a few small nested arrays
/// (`{"k0000000":[[0,[0]],[[]]],…}`). No array is much larger than another, so emptying the
/// largest one at a time barely shrinks it: a result formatter that re-measures per array
/// it elides from does quadratic work. Deterministic.
pub fn small_arrays_json(bytes: usize) -> String {
    let mut text = String::with_capacity(bytes + 64);
    text.push('{');
    let mut i = 0u64;
    while text.len() < bytes {
        if i > 0 {
            text.push(',');
        }
        text.push_str(&format!("\"k{i:07}\":[[{i},[{i}]],[[]]]"));
        i += 1;
    }
    text.push('}');
    text
}

/// JSON of `lists` equal lists of small nested arrays, about `bytes` long in all
/// (`{"l00":[[0,[0]],[[1]],…],"l01":[…],…}`): each list is a largest array in turn, and
/// emptying one saves only its share, so a formatter eliding one array per round needs as many
/// rounds as it may take. Deterministic.
pub fn lists_json(bytes: usize, lists: usize) -> String {
    let lists = lists.max(1);
    let share = bytes / lists;
    let mut text = String::with_capacity(bytes + 64);
    text.push('{');
    let mut i = 0u64;
    for l in 0..lists {
        if l > 0 {
            text.push(',');
        }
        text.push_str(&format!("\"l{l:02}\":["));
        let end = text.len() + share.saturating_sub(8);
        let mut first = true;
        while text.len() < end {
            if !first {
                text.push(',');
            }
            first = false;
            text.push_str(&format!("[{i},[{i}]],[[{i}]]"));
            i += 1;
        }
        text.push(']');
    }
    text.push('}');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mebibyte_holds_every_secret_and_the_filter_finds_them_all() {
        let s = sample(1 << 20, 200);
        assert!(s.text.len() >= 1 << 20 && s.text.len() < (1 << 20) + 4096);
        assert_eq!(s.secrets.len(), 200);
        let filter = atip_runtime::ResultFilter::new();
        let (redacted, count) = filter.redact(&s.text);
        assert!(count >= 200, "{count}");
        for secret in &s.secrets {
            for piece in crate::secrets::pieces(secret) {
                assert!(!redacted.contains(piece), "survived: {piece} of {secret}");
            }
        }
        for line in PROSE {
            assert_eq!(
                s.text.matches(line).count(),
                redacted.matches(line).count(),
                "prose changed: {line}"
            );
        }
    }
}
