//! What a run produced, and its text for a model.

use std::ffi::OsString;
use std::fmt;
use std::time::Duration;

use super::sandbox::SandboxReport;
use crate::filter::{drop_partial_tail, ResultFilter};
use crate::ToolResult;

/// How a finished command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitStatus {
    /// It exited with this code.
    Code(i32),
    /// It was killed by this signal (Unix).
    Signal(i32),
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
        String::from_utf8_lossy(&self.stdout).into_owned()
    }

    /// stderr as UTF-8, invalid sequences replaced.
    pub fn stderr_lossy(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }

    /// The result for a model, through the default [`ResultFilter`].
    pub fn to_tool_result(&self) -> ToolResult {
        self.to_tool_result_with(ResultFilter::shared_default())
    }

    /// The result for a model: stdout, then stderr under a `[stderr]` line when there is
    /// any, each decoded lossily as UTF-8, redacted, then cut to the filter's size; then
    /// `[exit code N]` or `[killed by signal N]`, or `[timed out after 30 s]`; then
    /// `[output truncated: N bytes omitted]` when anything was cut. A stream cut at the capture
    /// cap also loses its last partial word, which could be the start of a secret. An error
    /// result unless the command exited 0 in time.
    pub fn to_tool_result_with(&self, filter: &ResultFilter) -> ToolResult {
        let mut omitted: u64 = 0;
        let mut stream = |bytes: &[u8], dropped: u64| -> String {
            let text = String::from_utf8_lossy(bytes);
            let (kept, tail) = if dropped > 0 {
                drop_partial_tail(&text)
            } else {
                (&text[..], 0)
            };
            let f = filter.filter(kept);
            omitted += dropped + tail as u64 + f.omitted_bytes as u64;
            f.text
        };
        let mut text = stream(&self.stdout, self.stdout_dropped);
        let stderr = stream(&self.stderr, self.stderr_dropped);
        if !stderr.is_empty() {
            if !text.is_empty() && !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str("[stderr]\n");
            text.push_str(&stderr);
        }
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        if self.timed_out {
            text.push_str(&format!("[timed out after {}]", seconds(self.timeout)));
        } else {
            text.push_str(&format!("[{}]", self.status));
        }
        if omitted > 0 {
            text.push_str(&format!("\n[output truncated: {omitted} bytes omitted]"));
        }
        let mut meta = serde_json::Map::new();
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
        if omitted > 0 {
            meta.insert("omittedBytes".into(), omitted.into());
        }
        if let Ok(sandbox) = serde_json::to_value(&self.sandbox) {
            meta.insert("sandbox".into(), sandbox);
        }
        ToolResult {
            content: text,
            is_error: !self.success(),
            meta,
        }
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
    fn durations_read_naturally() {
        assert_eq!(seconds(Duration::from_secs(30)), "30 s");
        assert_eq!(seconds(Duration::from_millis(1500)), "1.5 s");
        assert_eq!(seconds(Duration::from_millis(250)), "250 ms");
    }
}
