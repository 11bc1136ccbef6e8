//! What a run produced, and its text for a model.

use std::ffi::OsString;
use std::fmt;
use std::time::Duration;

use std::sync::Arc;

use super::sandbox::SandboxReport;

/// Egress refusals a tool result shows one by one (each at most a few hundred bytes); the rest
/// are counted.
const REFUSALS_SHOWN: usize = 8;
use crate::filter::{cut, drop_partial_tail, structured, KnownSecrets, ResultFilter};
use crate::ToolResult;

/// How a finished command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitStatus {
    /// It exited with this code.
    Code(i32),
    /// It was killed by this signal (Unix).
    Signal(i32),
}

impl Output {
    /// Which of the run's resource limits stopped it, when the way it ended says so: killed
    /// by `SIGXFSZ` (a file reached `limits.fileSizeBytes`), or by `SIGXCPU` or, without a
    /// timeout, `SIGKILL` under a CPU limit (a process used `limits.cpuSeconds`). A sentence
    /// naming the limit and the policy field that raises it; the tool result carries it.
    pub fn limit_hit(&self) -> Option<String> {
        const SIGXCPU: i32 = 24;
        const SIGXFSZ: i32 = 25;
        let ExitStatus::Signal(signal) = self.status else {
            return None;
        };
        let limits = self.sandbox.enforced.iter().find_map(|c| match c {
            crate::exec::sandbox::Containment::Limits(l) => Some(l),
            _ => None,
        })?;
        match signal {
            SIGXFSZ => limits.file_size_bytes.map(|n| {
                format!(
                    "stopped at the file-size limit of {n} bytes; a policy raises it with \
                     limits.fileSizeBytes"
                )
            }),
            // The hard limit, a second after the soft one, kills.
            SIGXCPU | 9 if signal == SIGXCPU || !self.timed_out => limits.cpu_seconds.map(|n| {
                format!(
                    "stopped at the CPU-time limit of {n} s; a policy raises it with \
                     limits.cpuSeconds"
                )
            }),
            _ => None,
        }
    }
}

impl ExitStatus {
    /// Exit code 0.
    pub fn success(self) -> bool {
        self == ExitStatus::Code(0)
    }
}

impl fmt::Display for ExitStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExitStatus::Code(c) => write!(f, "exit code {c}"),
            ExitStatus::Signal(s) => write!(f, "killed by signal {s}"),
        }
    }
}

/// The result of a command that ran. stdout and stderr are kept raw for the caller; what a
/// model sees goes through a [`ResultFilter`] ([`Output::to_tool_result`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Output {
    /// Flattened name of the command.
    pub name: String,
    /// The argv it ran with.
    pub argv: Vec<OsString>,
    /// How it ended.
    pub status: ExitStatus,
    /// Captured stdout (within the combined cap).
    pub stdout: Vec<u8>,
    /// Captured stderr (within the combined cap).
    pub stderr: Vec<u8>,
    /// stdout bytes read beyond the cap and discarded.
    pub stdout_dropped: u64,
    /// stderr bytes read beyond the cap and discarded.
    pub stderr_dropped: u64,
    /// Whether it was stopped because it ran out of time.
    pub timed_out: bool,
    /// The time limit it ran under.
    pub timeout: Duration,
    /// Wall-clock time from spawn to exit.
    pub duration: Duration,
    /// What the sandbox enforced for this run, and what it could not.
    pub sandbox: SandboxReport,
    /// The values of the secret variables the command was given ([`KnownSecrets::from_env`]),
    /// redacted wherever they occur in what [`Output::format`] makes for a model. `Debug`
    /// shows how many, never the values.
    pub known_secrets: KnownSecrets,
    /// Whether this is the run of a tight first try
    /// ([`Policy::tight_first`](crate::policy::Policy::tight_first)): unasked, read-only and
    /// offline, with no Unix sockets and no credential stores.
    pub tight_first: bool,
}

impl Output {
    /// Exit code 0 and no timeout.
    pub fn success(&self) -> bool {
        self.status.success() && !self.timed_out
    }

    /// Bytes read beyond the cap and discarded, both streams.
    pub fn dropped_bytes(&self) -> u64 {
        self.stdout_dropped + self.stderr_dropped
    }

    /// Whether output was cut at the cap.
    pub fn truncated(&self) -> bool {
        self.dropped_bytes() > 0
    }

    /// stdout as UTF-8, invalid sequences replaced.
    pub fn stdout_lossy(&self) -> String {
        crate::filter::utf8_lossy(&self.stdout).into_owned()
    }

    /// stderr as UTF-8, invalid sequences replaced.
    pub fn stderr_lossy(&self) -> String {
        crate::filter::utf8_lossy(&self.stderr).into_owned()
    }

    /// The result for a model, through the default [`ResultFilter`] and [`ResultOptions`].
    pub fn to_tool_result(&self) -> ToolResult {
        self.to_tool_result_with(ResultFilter::shared_default())
    }

    /// The result for a model through `filter`, with the default [`ResultOptions`].
    pub fn to_tool_result_with(&self, filter: &ResultFilter) -> ToolResult {
        self.format(filter, &ResultOptions::default())
    }

    /// The result for a model: stdout, then stderr under a `[stderr]` line when there is any,
    /// each decoded lossily as UTF-8 and redacted (with the command's extra rules); then
    /// `[exit code N]` or `[killed by signal N]`, or `[timed out after 30 s]`; then
    /// `[output truncated: …]` when anything was cut. An error result unless the command
    /// exited 0 in time.
    ///
    /// Size: stdout and stderr share the filter's one cap (default 100,000 bytes); stderr gets
    /// what stdout leaves, and at least a quarter of the cap when it needs it, so an error
    /// message survives a flood on stdout. A stream cut at the capture cap also loses its last
    /// partial word, which could be the start of a secret.
    ///
    /// JSON: when stdout is a JSON object or array (and was captured whole),
    /// [`ToolResult::structured`] holds it and the text is its compact form; a result over
    /// the cap loses array items from the end of its largest arrays instead of bytes, so it
    /// stays valid JSON (`[output truncated: N array items elided]`). JSON that eliding cannot
    /// bring under the cap ([`structured::fit`]: little in arrays, or more than
    /// [`structured::MAX_ELISION_ROUNDS`] arrays to empty) is cut as plain text, bytes
    /// omitted counted, and `structured` is `None`: the text never exceeds the cap, and the
    /// time taken stays linear in the output's size.
    ///
    /// [`ToolResult::meta`]: `exitCode` or `signal`, `timedOut`, `durationMs`, `redactions`,
    /// `omittedBytes` / `elidedItems` when cut, `tightFirst` for a tight first try (with a
    /// status line saying it ran read-only and offline), `sandbox` (the
    /// [`SandboxReport`](crate::sandbox::SandboxReport)).
    pub fn format(&self, filter: &ResultFilter, options: &ResultOptions) -> ToolResult {
        let with_known;
        let filter = if self.known_secrets.is_empty() {
            filter
        } else {
            with_known = filter.with_known_secrets(&self.known_secrets);
            &with_known
        };
        let tool = Some(self.name.as_str());
        let mut meta = serde_json::Map::new();
        let mut redactions = 0;
        let mut omitted: u64 = 0;
        let mut elided = 0;
        let mut structured = None;
        let mut text = String::new();
        if let Some(formatter) = &options.formatter {
            let f = filter.filter_for(tool, &formatter(self));
            redactions = f.redactions;
            omitted = f.omitted_bytes as u64;
            text = f.text;
        } else {
            let mut stream = |bytes: &[u8], dropped: u64| -> String {
                let plain;
                let bytes = if options.keep_ansi {
                    bytes
                } else {
                    plain = super::ansi::strip(bytes);
                    &plain[..]
                };
                let raw = crate::filter::utf8_lossy(bytes);
                let (kept, tail) = if dropped > 0 {
                    drop_partial_tail(&raw)
                } else {
                    (&raw[..], 0)
                };
                omitted += dropped + tail as u64;
                let (out, n) = filter.redact_for(tool, kept);
                redactions += n;
                out.into_owned()
            };
            let stdout = stream(&self.stdout, self.stdout_dropped);
            let stderr = if options.include_stderr {
                stream(&self.stderr, self.stderr_dropped)
            } else {
                String::new()
            };
            let total = filter.current_max_bytes();
            let stderr_budget = stderr
                .len()
                .min((total / 4).max(total.saturating_sub(stdout.len())));
            let stdout_budget = total - stderr_budget;
            let json = (options.structured && self.stdout_dropped == 0)
                .then(|| structured::detect(&stdout))
                .flatten()
                .and_then(|value| structured::fit(value, stdout_budget));
            match json {
                Some(fitted) => {
                    elided = fitted.elided;
                    text = fitted.text;
                    structured = Some(fitted.value);
                }
                None => {
                    let (kept, cut) = cut(&stdout, stdout_budget);
                    omitted += cut as u64;
                    text.push_str(kept);
                }
            }
            let (stderr, cut) = cut(&stderr, stderr_budget);
            omitted += cut as u64;
            if !stderr.is_empty() {
                if !text.is_empty() && !text.ends_with('\n') {
                    text.push('\n');
                }
                text.push_str("[stderr]\n");
                text.push_str(stderr);
            }
        }
        let mut status = Vec::new();
        if self.timed_out {
            status.push(format!("[timed out after {}]", seconds(self.timeout)));
        } else if options.include_exit_code {
            status.push(format!("[{}]", self.status));
        }
        if let Some(limit) = self.limit_hit() {
            status.push(format!("[{limit}]"));
        }
        if self.tight_first {
            status.push("[ran read-only and offline: tight first, no person asked]".to_owned());
        }
        if elided > 0 {
            status.push(format!("[output truncated: {elided} array items elided]"));
        }
        if omitted > 0 {
            status.push(format!("[output truncated: {omitted} bytes omitted]"));
        }
        // Connections the egress proxy refused: the model learns why its command failed.
        // Targets are the command's own words, so they are redacted like its output.
        if let Some(log) = &self.sandbox.egress {
            for refused in log.refused.iter().take(REFUSALS_SHOWN) {
                let line = refused.to_string();
                let (line, n) = filter.redact_for(tool, &line);
                redactions += n;
                status.push(line.into_owned());
            }
            let more =
                log.refused.len().saturating_sub(REFUSALS_SHOWN) as u64 + log.refused_omitted;
            if more > 0 {
                status.push(format!("egress: {more} more connections refused"));
            }
        }
        for line in status {
            if !text.is_empty() && !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str(&line);
        }
        match self.status {
            ExitStatus::Code(c) => meta.insert("exitCode".into(), c.into()),
            ExitStatus::Signal(s) => meta.insert("signal".into(), s.into()),
        };
        meta.insert("timedOut".into(), self.timed_out.into());
        meta.insert(
            "durationMs".into(),
            u64::try_from(self.duration.as_millis())
                .unwrap_or(u64::MAX)
                .into(),
        );
        meta.insert("redactions".into(), redactions.into());
        if self.tight_first {
            meta.insert("tightFirst".into(), true.into());
        }
        if omitted > 0 {
            meta.insert("omittedBytes".into(), omitted.into());
        }
        if elided > 0 {
            meta.insert("elidedItems".into(), elided.into());
        }
        if let Ok(sandbox) = serde_json::to_value(&self.sandbox) {
            meta.insert("sandbox".into(), sandbox);
        }
        ToolResult {
            content: text,
            is_error: !self.success(),
            structured,
            meta,
        }
    }
}

/// How a run becomes a tool result (atip-execute's output options); redaction and the size cap
/// are the [`ResultFilter`]'s. The default includes stderr and the exit status and keeps JSON
/// output structured.
#[derive(Clone)]
pub struct ResultOptions {
    /// Include stderr under a `[stderr]` line. Default `true`.
    pub include_stderr: bool,
    /// End with `[exit code N]` or `[killed by signal N]` (a timeout is always said). Default
    /// `true`.
    pub include_exit_code: bool,
    /// Keep stdout that is a JSON object or array as [`ToolResult::structured`] and cut it by
    /// eliding array items. Default `true`.
    pub structured: bool,
    /// Keep ANSI escape sequences (colours, cursor movement, terminal titles) in the text, for
    /// a person's terminal. Default `false`: they are removed before redaction (a colour code
    /// inside a token would hide it), the cap and the model, which reads them as noise.
    pub keep_ansi: bool,
    /// Builds the text from the whole [`Output`] instead (the other options then do not
    /// apply); the text still goes through the filter's redaction and cap.
    pub formatter: Option<Formatter>,
}

/// A function that turns a whole run into the text for a model ([`ResultOptions::formatter`]).
pub type Formatter = Arc<dyn Fn(&Output) -> String + Send + Sync>;

impl Default for ResultOptions {
    fn default() -> Self {
        ResultOptions {
            include_stderr: true,
            include_exit_code: true,
            structured: true,
            keep_ansi: false,
            formatter: None,
        }
    }
}

impl fmt::Debug for ResultOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ResultOptions")
            .field("include_stderr", &self.include_stderr)
            .field("include_exit_code", &self.include_exit_code)
            .field("structured", &self.structured)
            .field("keep_ansi", &self.keep_ansi)
            .field("formatter", &self.formatter.is_some())
            .finish()
    }
}

/// `30 s`, `1.5 s`, `250 ms`.
fn seconds(d: Duration) -> String {
    if d.subsec_millis() == 0 && d.as_secs() > 0 {
        format!("{} s", d.as_secs())
    } else if d.as_millis() >= 1000 {
        format!("{:.1} s", d.as_secs_f64())
    } else {
        format!("{} ms", d.as_millis())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn out(stdout: &str, stderr: &str) -> Output {
        Output {
            name: "t".into(),
            argv: vec!["t".into()],
            status: ExitStatus::Code(0),
            stdout: stdout.as_bytes().to_vec(),
            stderr: stderr.as_bytes().to_vec(),
            stdout_dropped: 0,
            stderr_dropped: 0,
            timed_out: false,
            timeout: Duration::from_secs(30),
            duration: Duration::from_millis(5),
            sandbox: SandboxReport::default(),
            known_secrets: KnownSecrets::default(),
            tight_first: false,
        }
    }

    /// Colour codes, cursor movement and an OSC terminal title (terraform's and git's coloured
    /// output) never reach the model, and a token coloured in the middle is still a token;
    /// tabs and newlines stay. `keep_ansi` keeps them for a terminal.
    #[test]
    fn ansi_escapes_are_removed_before_redaction_unless_kept() {
        let token = "ghp_0123456789abcdefghijABCDEFGHIJabcdef12";
        let (head, tail) = token.split_at(10);
        let coloured = format!(
            "\x1b]0;title\x07\x1b[1m\x1b[32mPlan:\x1b[0m 1 to add\tok\n\x1b[2Ktoken {head}\x1b[31m{tail}\x1b[0m\n"
        );
        let r = out(&coloured, "").to_tool_result();
        assert_eq!(
            r.content, "Plan: 1 to add\tok\ntoken [REDACTED]\n[exit code 0]",
            "{:?}",
            r.content
        );
        let kept = out("\x1b[32mok\x1b[0m\n", "").format(
            &ResultFilter::default(),
            &ResultOptions {
                keep_ansi: true,
                ..ResultOptions::default()
            },
        );
        assert!(
            kept.content.starts_with("\x1b[32mok\x1b[0m\n"),
            "{:?}",
            kept.content
        );
    }

    /// Secrets that JSON escapes spell (`\/`, `\uXXXX`) are redacted as such, in a structured
    /// result (the parsed value and its text) and in plain text alike (JSON lines).
    #[test]
    fn secrets_spelled_with_json_escapes_are_redacted() {
        let hook =
            r"https:\/\/hooks.slack.com\/services\/T0000AAAA\/B0000BBBB\/abcdefghijklmnopqrstuvwx";
        let token = "0123456789abcdefghijklmnopqrstuvwxyz";
        let doc = format!(
            r#"{{"hook":"{hook}","sas":"https://x.blob.core.windows.net/c?sv=2024\u0026sig=Zm9vYmFyYmF6cXV4cXV1eA%3D%3D","gh":"gh\u0070_{token}","gh\u0070_{token}x":1,"pass\u0077ord":"hunter22","n":[[{{"x":"a\u0020gh\u0070_{token}"}}]]}}"#
        );
        let secrets = [
            "abcdefghijklmnopqrstuvwx",
            "Zm9vYmFyYmF6cXV4cXV1eA",
            token,
            "hunter22",
        ];
        let r = out(&doc, "").to_tool_result();
        let value = r.structured.as_ref().expect("JSON output stays structured");
        let shown = format!("{}\n{value}", r.content);
        for secret in secrets {
            assert!(!shown.contains(secret), "{secret} in {shown}");
        }
        assert_eq!(value["hook"], "https://hooks.slack.com/services/[REDACTED]");
        assert_eq!(value["n"][0][0]["x"], "a [REDACTED]", "nested strings too");
        assert_eq!(value["password"], "[REDACTED]");
        let keys: Vec<&String> = value.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["hook", "sas", "gh", "[REDACTED]", "password", "n"]);
        // JSON lines are not one document: the text goes as text, redacted the same way.
        let lines = out(&format!("{doc}\n{doc}\n"), "").to_tool_result();
        assert!(lines.structured.is_none());
        for secret in secrets {
            assert!(
                !lines.content.contains(secret),
                "{secret} in {}",
                lines.content
            );
        }
    }

    #[test]
    fn formats_streams_status_and_markers() {
        let r = out("hello\n", "").to_tool_result();
        assert_eq!(r.content, "hello\n[exit code 0]");
        assert!(!r.is_error);
        assert_eq!(r.meta["exitCode"], 0);
        assert_eq!(r.meta["durationMs"], 5);
        assert_eq!(r.meta["sandbox"]["enforced"], serde_json::json!([]));
        let mut o = out("partial", "warn: x\n");
        o.status = ExitStatus::Signal(15);
        o.timed_out = true;
        let r = o.to_tool_result();
        assert!(r.is_error);
        assert_eq!(
            r.content,
            "partial\n[stderr]\nwarn: x\n[timed out after 30 s]"
        );
        let mut o = out("a b ghp_0123", "");
        o.stdout_dropped = 100;
        let r = o.to_tool_result();
        assert_eq!(
            r.content,
            "a b \n[exit code 0]\n[output truncated: 108 bytes omitted]"
        );
    }

    #[test]
    fn secrets_are_redacted_before_truncation() {
        let o = out("token=abcdefghijklmnopqrstuvwxyz0123456789\nmore\n", "");
        let r = o.to_tool_result_with(&ResultFilter::new().max_bytes(12));
        assert_eq!(
            r.content,
            "token=[REDAC\n[exit code 0]\n[output truncated: 10 bytes omitted]"
        );
        assert!(!r.content.contains("abc"));
    }

    #[test]
    fn one_cap_for_both_streams_keeps_room_for_stderr() {
        let f = ResultFilter::new().max_bytes(100);
        let r = out(&"o".repeat(1000), "fatal: the real error\n").to_tool_result_with(&f);
        assert!(
            r.content.contains("[stderr]\nfatal: the real error\n"),
            "{}",
            r.content
        );
        let body = r.content.split("[stderr]").next().unwrap();
        assert!(body.trim_end().len() + "fatal: the real error\n".len() <= 100);
        assert!(r.content.ends_with("bytes omitted]"), "{}", r.content);
        // Stdout gets what stderr does not need.
        let r = out(&"o".repeat(90), "e\n").to_tool_result_with(&f);
        assert!(r.content.starts_with(&"o".repeat(90)), "{}", r.content);
    }

    #[test]
    fn options_leave_out_stderr_and_the_exit_code_or_format_it_all() {
        let f = ResultFilter::new();
        let plain = ResultOptions {
            include_stderr: false,
            include_exit_code: false,
            ..ResultOptions::default()
        };
        let r = out("hello\n", "noise\n").format(&f, &plain);
        assert_eq!(r.content, "hello\n");
        let custom = ResultOptions {
            formatter: Some(Arc::new(|o: &Output| {
                format!(
                    "{} said {}; password=hunter22",
                    o.name,
                    o.stdout_lossy().trim()
                )
            })),
            ..ResultOptions::default()
        };
        let r = out("hello\n", "").format(&f, &custom);
        assert_eq!(
            r.content,
            "t said hello; password=[REDACTED]\n[exit code 0]"
        );
        assert_eq!(r.meta["redactions"], 1);
        let unredacted = ResultFilter::new().redact_secrets(false);
        let r = out("password=hunter22\n", "").format(&unredacted, &ResultOptions::default());
        assert!(
            r.content.contains("hunter22"),
            "only an explicit switch lets it through"
        );
    }

    #[test]
    fn json_output_stays_structured_and_valid_when_cut() {
        let items: Vec<serde_json::Value> = (0..500)
            .map(|i| serde_json::json!({"id": format!("i-{i:05}"), "token": "ghp_0123456789abcdefghijABCDEFGHIJabcdef12"}))
            .collect();
        let body = serde_json::json!({"Reservations": items}).to_string();
        let f = ResultFilter::new().max_bytes(4000);
        let r = out(&body, "").to_tool_result_with(&f);
        let data = r.structured.clone().expect("structured");
        let kept = data["Reservations"].as_array().unwrap().len();
        assert!(kept > 10 && kept < 500, "{kept}");
        assert_eq!(r.meta["elidedItems"], 500 - kept);
        assert!(r.meta["redactions"].as_u64().unwrap() >= 500);
        assert_eq!(data["Reservations"][0]["token"], "[REDACTED]");
        let (json, status) = r.content.split_once('\n').unwrap();
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(json).unwrap(),
            data
        );
        assert!(json.len() <= 4000);
        assert_eq!(
            status,
            format!(
                "[exit code 0]\n[output truncated: {} array items elided]",
                500 - kept
            )
        );
        // Not JSON, or cut at capture: plain text.
        assert_eq!(out("not json\n", "").to_tool_result().structured, None);
        let mut cut_off = out("{\"a\": [1, 2", "");
        cut_off.stdout_dropped = 10;
        assert_eq!(cut_off.to_tool_result().structured, None);
    }

    /// JSON shaped to defeat array elision (security review, finding 10), each over the
    /// default cap of 100,000 bytes: no arrays at all, arrays nested as deep as serde_json
    /// parses, many small arrays, arrays of arrays of arrays, many arrays with one long item.
    /// With each, whether elision keeps it JSON (`true`) or it is cut as text.
    fn crafted_json() -> Vec<(&'static str, String, bool)> {
        use serde_json::{json, Value};
        let escapes = "quote \" back \\ nl \n tab \t bell \u{7} nul \0 é ✓ 😀 ".repeat(5000);
        let mut deep = json!((0..30_000).map(|i| format!("{i:05}")).collect::<Vec<_>>());
        for level in 0..120 {
            deep = json!([deep, level, [level], {"l": [level]}]);
        }
        let wide: serde_json::Map<String, Value> = (0..10_000)
            .map(|i| (format!("k{i:05}"), json!([[i], [i, [i]]])))
            .collect();
        let cubes: Vec<Value> = (0..10_000)
            .map(|i| json!([[i, i + 1], [[i], []]]))
            .collect();
        let long_items: serde_json::Map<String, Value> = (0..300)
            .map(|i| (format!("k{i}"), json!([format!("{i}").repeat(1000)])))
            .collect();
        vec![
            (
                "escaped strings, no arrays",
                json!({"log": escapes}).to_string(),
                false,
            ),
            (
                "many arrays with one long item",
                Value::Object(long_items).to_string(),
                false,
            ),
            ("deep nesting", deep.to_string(), true),
            (
                "10,000 small nested arrays",
                Value::Object(wide).to_string(),
                false,
            ),
            ("arrays of arrays of arrays", json!(cubes).to_string(), true),
        ]
    }

    #[test]
    fn crafted_json_output_stays_within_the_cap() {
        let cap = crate::filter::DEFAULT_MAX_BYTES;
        for (what, body, stays_json) in crafted_json() {
            assert!(body.len() > cap, "{what}: {} bytes", body.len());
            assert!(crate::filter::structured::detect(&body).is_some(), "{what}");
            let r = out(&body, "").to_tool_result();
            let (text, status) = r
                .content
                .split_once("\n[exit code 0]")
                .unwrap_or_else(|| panic!("{what}: {}", &r.content[r.content.len() - 200..]));
            assert!(text.len() <= cap, "{what}: {} bytes", text.len());
            assert_eq!(r.structured.is_some(), stays_json, "{what}");
            match &r.structured {
                // Elided: valid JSON, the items counted.
                Some(data) => {
                    assert_eq!(
                        &serde_json::from_str::<serde_json::Value>(text).unwrap(),
                        data
                    );
                    assert!(r.meta["elidedItems"].as_u64().unwrap() > 0, "{what}");
                    assert!(status.contains("array items elided"), "{what}");
                }
                // Cut as text: the first bytes as written, the rest counted.
                None => {
                    assert!(body.starts_with(text), "{what}");
                    assert_eq!(r.meta["omittedBytes"], body.len() - text.len(), "{what}");
                    assert_eq!(
                        status,
                        format!(
                            "\n[output truncated: {} bytes omitted]",
                            body.len() - text.len()
                        ),
                        "{what}"
                    );
                }
            }
        }
    }

    #[test]
    fn durations_read_naturally() {
        assert_eq!(seconds(Duration::from_secs(30)), "30 s");
        assert_eq!(seconds(Duration::from_millis(1500)), "1.5 s");
        assert_eq!(seconds(Duration::from_millis(250)), "250 ms");
    }
}
