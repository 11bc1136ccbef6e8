//! A program the caller talks to for as long as it holds it — an MCP server, a language server,
//! a REPL — started under the same layers as a run: its checksum, a sandbox from its effects
//! and the policy's confinement, and a built environment. No time limit or output cap: the
//! caller reads its output and decides when it ends.

use tokio::io::{AsyncRead, AsyncWrite};

use super::sandbox::{Prepared, SandboxReport};
use super::{RunError, Runner};
use crate::filter::{KnownSecrets, ResultFilter};
use crate::Invocation;
use atip_spawn::Signal;

/// A program started by [`Runner::start`], confined for its whole life.
///
/// Dropping it kills the program's whole process group (`SIGKILL`), stops its egress proxy
/// and removes its scratch directory, in that order. Its `stdin`, `stdout` and `stderr` are
/// pipes, taken by the caller; the child's exit is [`Started::wait`].
pub struct Started {
    /// The writing end of its standard input.
    pub stdin: Option<Box<dyn AsyncWrite + Send + Unpin>>,
    /// The reading end of its standard output.
    pub stdout: Option<Box<dyn AsyncRead + Send + Unpin>>,
    /// The reading end of its standard error.
    pub stderr: Option<Box<dyn AsyncRead + Send + Unpin>>,
    filter: ResultFilter,
    known: KnownSecrets,
    // Dropped in this order: the process group first, then its proxy, then its sandbox.
    child: atip_spawn::Child,
    _proxy: Option<atip_sandbox::egress::EgressProxy>,
    prepared: Prepared,
}

impl std::fmt::Debug for Started {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Started")
            .field("pid", &self.child.id())
            .field("report", &self.prepared.report)
            .finish_non_exhaustive()
    }
}

impl Started {
    /// The process id of the program (the leader of its process group).
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// What the sandbox enforces on it and what it could not, and the environment variables
    /// removed from what it got (by name).
    pub fn report(&self) -> &SandboxReport {
        &self.prepared.report
    }

    /// The runner's result filter with the values of the secret variables this program got
    /// ([`KnownSecrets`](crate::filter::KnownSecrets)): what to redact what it says with.
    pub fn filter(&self) -> &ResultFilter {
        &self.filter
    }

    /// The values of the secret variables this program got, for redacting what it says
    /// elsewhere (a [`ServedReply`](super::ServedReply)); `Debug` shows how many.
    pub fn known_secrets(&self) -> &KnownSecrets {
        &self.known
    }

    /// Waits for the program to exit. Cancel-safe: a wait given up may be started again.
    ///
    /// # Errors
    ///
    /// The OS error of waiting.
    pub async fn wait(&mut self) -> std::io::Result<std::process::ExitStatus> {
        self.child.wait().await
    }

    /// Asks the program's process group to end (`SIGTERM`); [`Started::kill`] ends it.
    pub fn terminate(&mut self) {
        self.child.kill_group(Signal::Term);
    }

    /// Ends the program's process group (`SIGKILL`).
    pub fn kill(&mut self) {
        self.child.kill_group(Signal::Kill);
    }
}

impl Runner {
    /// Starts `invocation`'s program, with its standard streams as pipes, for as long as the
    /// returned [`Started`] is held: a server the caller talks to over stdin and stdout (an
    /// MCP server) rather than a command run to its end. Call it inside a tokio runtime.
    ///
    /// The program goes through the layers a run does but the policy's decision: as with
    /// [`Runner::execute`], whoever starts it has decided; the policy still gives its
    /// confinement (egress hosts, path roots, resource limits, a required sandbox). Its
    /// checksum is verified when the invocation carries one; the sandbox holds it, and every
    /// process it starts, to `invocation.effects` for its whole life (writes in the working
    /// directory, declared paths and the sandbox's writable paths; no network unless
    /// declared, then only to the policy's hosts; credential stores and daemon sockets hidden;
    /// nothing planted that runs later); its environment is built as for a run (the base set,
    /// its declared variables, the runner's allowed ones). The run's time limit and output
    /// cap do not apply.
    ///
    /// # Errors
    ///
    /// [`RunError::Argv`] for NUL bytes, [`RunError::Checksum`], [`RunError::Sandbox`] (also
    /// when the policy requires a layer this system cannot enforce), [`RunError::Spawn`] or
    /// [`RunError::Io`] (the egress proxy could not start).
    pub async fn start(&self, invocation: &Invocation) -> Result<Started, RunError> {
        if let Some(server) = &invocation.server {
            // A served tool is a request to a running server, not a program of its own.
            return Err(RunError::Spawn {
                program: std::ffi::OsString::from(&**server),
                source: std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    "a tool of an MCP server is called through the server, not started",
                ),
            });
        }
        let working_dir = self.working_dir();
        let program = self.program_of(invocation, &working_dir);
        let confinement = self.gate(invocation, &working_dir).confinement;
        let mut confined = self.confine(
            invocation,
            program.as_deref(),
            &working_dir,
            confinement,
            false,
        )?;
        let (mut child, proxy) = super::process::launch(
            invocation,
            &self.settings,
            true,
            program.as_deref(),
            confined.verified.take(),
            confined.vars.as_deref(),
            &mut confined.prepared,
        )?;
        Ok(Started {
            known: confined.known,
            stdin: child.stdin.take(),
            stdout: child.stdout.take(),
            stderr: child.stderr.take(),
            filter: confined.filter,
            child,
            _proxy: proxy,
            prepared: confined.prepared,
        })
    }
}
