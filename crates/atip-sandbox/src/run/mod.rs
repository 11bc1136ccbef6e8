//! The sandbox of one run: the caller's switches ([`Sandbox`]), what a run's effects and the
//! policy ask for ([`Plan`]), and the prepared setup a child applies to itself before `exec`
//! ([`Prepared`], [`prepare`]).

#[cfg(target_os = "linux")]
mod child;
#[cfg(target_os = "linux")]
pub(crate) mod linux;
#[cfg(target_os = "linux")]
pub(crate) mod mounts;
#[cfg(target_os = "linux")]
pub(crate) mod seccomp;

use std::fmt;
use std::path::{Path, PathBuf};

use crate::limits::ResourceLimits;
use crate::protect;
use crate::report::SandboxReport;
use atip_core::Effects;

/// The caller's switches for the sandbox. The default sandboxes every run as its effects say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sandbox {
    enabled: bool,
    unconfined_writes: bool,
    writable: Vec<PathBuf>,
    credentials: Vec<protect::Grant>,
    readable: Option<Vec<PathBuf>>,
    allow_network: bool,
    network_namespace: bool,
}

impl Default for Sandbox {
    fn default() -> Self {
        Sandbox {
            enabled: true,
            unconfined_writes: false,
            writable: Vec::new(),
            credentials: Vec::new(),
            readable: None,
            allow_network: false,
            network_namespace: true,
        }
    }
}

impl Sandbox {
    /// The default: every run limited as its effects say.
    pub fn new() -> Self {
        Sandbox::default()
    }

    /// No sandbox at all: runs get only the policy gate. Every run's report says so.
    pub fn off() -> Self {
        Sandbox {
            enabled: false,
            ..Sandbox::default()
        }
    }

    /// Whether runs are sandboxed.
    pub fn is_enabled(&self) -> bool {
        self.enabled
    }

    /// Lets commands that may write but declare no `filesystem.paths` (or leave writes
    /// undeclared) write anywhere the user may, instead of only in the working directory,
    /// the scratch directory and [`Sandbox::writable`] paths. Every such run's report says
    /// so in `not_enforced`. Declared paths and `write: false` still hold.
    #[must_use]
    pub fn unconfined_writes(mut self) -> Self {
        self.unconfined_writes = true;
        self
    }

    /// Lets programs whose file name matches `program` (a glob: `terraform`, `aws*`) see the
    /// credential store or daemon socket at `path` (`~/` is the home directory), which the
    /// sandbox otherwise hides from every program but its owners
    /// ([`protect::stores::CREDENTIAL_STORES`], [`protect::stores::DAEMON_SOCKETS`]).
    #[must_use]
    pub fn credentials(mut self, program: impl Into<String>, path: impl Into<PathBuf>) -> Self {
        let path = path.into();
        let path = match (path.strip_prefix("~"), std::env::var_os("HOME")) {
            (Ok(rest), Some(home)) => PathBuf::from(home).join(rest),
            _ => path,
        };
        self.credentials.push(protect::Grant {
            program: program.into(),
            path,
        });
        self
    }

    /// Also lets runs write (and delete) under `path` when their writes are limited.
    #[must_use]
    pub fn writable(mut self, path: impl Into<PathBuf>) -> Self {
        self.writable.push(path.into());
        self
    }

    /// Confines reads of every run to the system directories a program needs (`/usr`, `/lib*`,
    /// `/bin`, `/sbin`, `/etc`, `/opt`, `/proc`, `/sys`, `/dev`, `/run`), the program's own
    /// directory, the scratch directory and `paths`. Off by default: effects say nothing
    /// reliable about reads. A path that is a symbolic link, or leads through one below a
    /// writable path (which a run could have planted), is not granted, and the report's
    /// `not_enforced` says so.
    #[must_use]
    pub fn confine_reads<I, P>(mut self, paths: I) -> Self
    where
        I: IntoIterator<Item = P>,
        P: Into<PathBuf>,
    {
        self.readable = Some(paths.into_iter().map(Into::into).collect());
        self
    }

    /// Lets runs use the network even when their metadata declares `network: false`.
    #[must_use]
    pub fn allow_network(mut self, allow: bool) -> Self {
        self.allow_network = allow;
        self
    }

    /// Whether to put runs declared offline into a private network namespace (default `true`;
    /// Landlock's TCP denial applies either way).
    #[must_use]
    pub fn network_namespace(mut self, use_it: bool) -> Self {
        self.network_namespace = use_it;
        self
    }
}

/// What a run's effects and the caller ask the sandbox for, before the system is asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// Writes: `None` unrestricted, `Some(paths)` only under these (empty: nowhere but the
    /// scratch directory and the caller's additions).
    pub writes: Option<Vec<PathBuf>>,
    /// Reads: `None` unrestricted.
    pub reads: Option<Vec<PathBuf>>,
    /// No network.
    pub no_network: bool,
    /// Use a network namespace for `no_network`.
    pub network_namespace: bool,
    /// The egress rules of a call that may use the network, when the policy has any.
    pub egress: Option<crate::hosts::Egress>,
    /// The caller's extra writable paths.
    pub extra_writable: Vec<PathBuf>,
    /// Resource limits.
    pub limits: ResourceLimits,
    /// What the plan could not grant as declared, one sentence each, for the report's
    /// `not_enforced` (a declared path through a symbolic link, or with `..`).
    pub notes: Vec<String>,
    /// The working directory.
    pub working_dir: PathBuf,
    /// The paths the command itself declares in `filesystem.paths`.
    pub declared: Vec<PathBuf>,
    /// Where the run's environment says its tools keep things.
    pub places: protect::Places,
    /// The file name of the program that runs, for credential ownership.
    pub program_name: Option<String>,
    /// The program that runs, resolved.
    pub program: Option<PathBuf>,
    /// The caller's credential grants.
    pub credentials: Vec<protect::Grant>,
    /// The pathname Unix sockets the policy lets every run reach.
    pub unix_sockets: Vec<PathBuf>,
    /// Declared directories (`filesystem.paths` entries ending in `/`) that do not exist: made
    /// empty for the run so that it may write there, removed after it if still empty.
    pub make_dirs: Vec<PathBuf>,
}

impl Plan {
    /// The plan for a command with `effects` run in `working_dir`. `path_roots` are the roots
    /// the policy held the call's path arguments to (empty when it has none): a command
    /// without declared paths may write there as well as in the working directory; declared
    /// paths are never widened by them.
    pub fn new(
        sandbox: &Sandbox,
        effects: &Effects,
        limits: ResourceLimits,
        working_dir: &Path,
        path_roots: &[PathBuf],
        places: protect::Places,
        program: Option<&Path>,
    ) -> Plan {
        let mut notes = Vec::new();
        let declared = effects.filesystem.as_ref().and_then(|f| f.paths.as_ref());
        // What effects do not say is not granted: writes without declared paths (or with
        // writes undeclared) stay in the working directory and the roots the call's path
        // arguments were checked against.
        let writes = match effects.filesystem_write() {
            Some(false) => Some(Vec::new()),
            // Declared paths confine writes even when every one of them is refused: to none.
            Some(true) if declared.is_some_and(|p| !p.is_empty()) => Some(
                declared
                    .iter()
                    .flat_map(|paths| paths.iter())
                    .filter_map(|p| match declared_path(p, working_dir) {
                        Ok(path) => Some(path),
                        Err(why) => {
                            notes.push(why);
                            None
                        }
                    })
                    .collect(),
            ),
            Some(true) | None if sandbox.unconfined_writes => {
                notes.push(
                    "file writes anywhere: the caller lifted the confinement to the working \
                     directory (Sandbox::unconfined_writes)"
                        .to_owned(),
                );
                None
            }
            Some(true) | None => {
                let mut paths = vec![working_dir.to_path_buf()];
                paths.extend(
                    path_roots
                        .iter()
                        .filter(|r| !r.starts_with(working_dir))
                        .cloned(),
                );
                Some(paths)
            }
        };
        let make_dirs = match (&writes, effects.filesystem_write()) {
            (Some(_), Some(true)) => declared
                .iter()
                .flat_map(|paths| paths.iter())
                .filter(|p| p.ends_with('/'))
                .filter_map(|p| declared_path(p, working_dir).ok())
                .filter(|p| !p.exists() && p.parent().is_some_and(Path::is_dir))
                .collect(),
            _ => Vec::new(),
        };
        let declared_paths = match (&writes, effects.filesystem_write()) {
            (Some(paths), Some(true)) if declared.is_some_and(|p| !p.is_empty()) => paths.clone(),
            _ => Vec::new(),
        };
        let mut plan = Plan {
            declared: declared_paths,
            working_dir: working_dir.to_path_buf(),
            places,
            program_name: program
                .and_then(Path::file_name)
                .map(|n| n.to_string_lossy().into_owned()),
            program: program.map(Path::to_path_buf),
            credentials: sandbox.credentials.clone(),
            unix_sockets: Vec::new(),
            make_dirs,
            writes,
            reads: None,
            no_network: effects.network == Some(false) && !sandbox.allow_network,
            network_namespace: sandbox.network_namespace,
            egress: None,
            extra_writable: sandbox.writable.clone(),
            limits,
            notes,
        };
        if let Some(readable) = &sandbox.readable {
            let roots = plan.writable_roots();
            let mut granted = Vec::new();
            for path in readable {
                match planted_link(path, &roots) {
                    Some(link) => plan.notes.push(format!(
                        "readable path {} is or leads through the symbolic link {}, which a \
                         run could have planted, so it is not granted: nothing may be read there",
                        path.display(),
                        link.display()
                    )),
                    None => granted.push(path.clone()),
                }
            }
            plan.reads = Some(granted);
        }
        plan
    }

    /// Whether the run needs a scratch directory (its writes are limited).
    pub fn needs_scratch(&self) -> bool {
        self.writes.is_some()
    }

    /// The roots the run may write under, for its protections: its writable paths and the
    /// caller's, or the working directory when writes are not confined.
    pub fn writable_roots(&self) -> Vec<PathBuf> {
        match &self.writes {
            Some(paths) => paths.iter().chain(&self.extra_writable).cloned().collect(),
            None => vec![self.working_dir.clone()],
        }
    }

    /// The program's file name for owning stores and sockets, when it resolves outside every
    /// root in `roots` (a run could have written a program of any name there).
    pub fn trusted_program_name(&self, roots: &[PathBuf]) -> Option<String> {
        let inside = self
            .program
            .as_ref()
            .and_then(|p| p.canonicalize().ok())
            .is_some_and(|real| roots.iter().any(|r| real.starts_with(r)));
        if inside {
            None
        } else {
            self.program_name.clone()
        }
    }
}

/// The symbolic link `path` is, or leads through below one of the writable `roots` (a root
/// itself included), if any: a link a run could have planted, to widen what a later run may
/// read. The path is walked one name at a time as the kernel would, `..` and links above the
/// roots followed, so that no other spelling of the same directory slips past; links above
/// the roots are the system's own (`/var/run`, a home directory on another disk).
fn planted_link(path: &Path, roots: &[PathBuf]) -> Option<PathBuf> {
    use std::path::Component;
    let is_link = |p: &Path| std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_symlink());
    if is_link(path) {
        return Some(path.to_path_buf());
    }
    if let Some(root) = roots.iter().find(|r| is_link(r)) {
        return Some(root.clone());
    }
    // Where the roots really are; one that does not exist yet is taken as written.
    let real: Vec<PathBuf> = roots
        .iter()
        .map(|r| r.canonicalize().unwrap_or_else(|_| r.clone()))
        .collect();
    let mut at = PathBuf::from("/");
    for part in path.components() {
        match part {
            Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
            Component::ParentDir => {
                at.pop();
            }
            Component::Normal(name) => {
                let next = at.join(name);
                if !is_link(&next) {
                    at = next;
                } else if real.iter().any(|r| next.starts_with(r)) {
                    return Some(next);
                } else {
                    match next.canonicalize() {
                        Ok(target) => at = target,
                        // A link to nothing: nothing to read through it.
                        Err(_) => return None,
                    }
                }
            }
        }
    }
    None
}

/// A declared path made absolute: `./x` and relative paths against `working_dir`, `~/x`
/// against `$HOME`, absolute ones as they are.
///
/// # Errors
///
/// A sentence for the report when the path is not granted: it holds `..`, or it leads through
/// a symbolic link below its base (`./build -> ~` would widen the grant to the home
/// directory; links above the base, such as a working directory under a linked `/home`, are
/// the base's own business). An absolute path is checked at its last component only: system
/// paths pass through links (`/var/run`, `/lib`) that no run can plant.
fn declared_path(declared: &str, working_dir: &Path) -> Result<PathBuf, String> {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let (base, rest) = match (declared.strip_prefix("~/"), &home) {
        (Some(rest), Some(home)) => (home.as_path(), Path::new(rest)),
        _ if Path::new(declared).is_absolute() => (Path::new("/"), Path::new(declared)),
        _ => (working_dir, Path::new(declared)),
    };
    let refuse = |why: &str| {
        Err(format!(
            "declared writable path {declared} {why}, so it is not granted: nothing may be \
             written there"
        ))
    };
    let absolute = base == Path::new("/");
    let last = rest.components().count();
    let mut at = base.to_path_buf();
    for (i, comp) in rest.components().enumerate() {
        match comp {
            std::path::Component::Normal(name) => {
                at.push(name);
                let checked = !absolute || i + 1 == last;
                if checked
                    && std::fs::symlink_metadata(&at).is_ok_and(|m| m.file_type().is_symlink())
                {
                    return refuse("is or leads through a symbolic link");
                }
            }
            std::path::Component::CurDir | std::path::Component::RootDir => {}
            std::path::Component::ParentDir | std::path::Component::Prefix(_) => {
                return refuse("holds `..`");
            }
        }
    }
    Ok(at)
}

/// A sandbox ready for a child: the report of what it enforces, and what the child does
/// between its spawn and `exec`.
pub struct Prepared {
    /// What will be enforced.
    pub report: SandboxReport,
    /// The run's own scratch directory, removed when this is dropped after the run.
    pub scratch: Option<tempfile::TempDir>,
    /// The egress rules the run's proxy serves, when it has one.
    egress: Option<crate::hosts::Egress>,
    /// The file name of the program that runs: its proxy counts its name lookups against
    /// the program's share ([`crate::egress::MAX_PROGRAM_LOOKUPS`]).
    program_name: Option<String>,
    #[cfg(target_os = "linux")]
    child: Option<child::ChildSetup>,
    /// Declared directories made for the run: removed after it if still empty.
    _made: Vec<protect::placeholders::Held>,
}

/// Why a sandbox could not be set up.
#[derive(Debug)]
pub struct SandboxError {
    /// What failed.
    pub message: String,
}

impl fmt::Display for SandboxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for SandboxError {}

/// Prepares the sandbox for one run of the program at `program`, with a new scratch directory
/// if it needs one: never one another run has had, whose leftovers (a planted file, a link,
/// loosened permissions) could reach it.
pub fn prepare(
    sandbox: &Sandbox,
    plan: &Plan,
    program: Option<&Path>,
) -> Result<Prepared, SandboxError> {
    if !sandbox.enabled {
        if plan.egress.is_some() && !plan.no_network {
            return Err(SandboxError {
                message: "the policy limits which hosts this command may reach (egress rules), \
                          but the caller turned the sandbox off (Sandbox::off), which enforces \
                          them"
                    .to_owned(),
            });
        }
        let mut report = SandboxReport::default();
        if plan.writes.is_some() || plan.no_network || plan.limits.any() || plan.egress.is_some() {
            report
                .not_enforced
                .push("the caller turned the sandbox off".to_owned());
        }
        return Ok(Prepared {
            report,
            scratch: None,
            egress: None,
            program_name: None,
            #[cfg(target_os = "linux")]
            child: None,
            _made: Vec::new(),
        });
    }
    let scratch = if plan.needs_scratch() {
        Some(scratch_dir().map_err(|e| SandboxError {
            message: format!("cannot create the scratch directory: {e}"),
        })?)
    } else {
        None
    };
    let scratch_path = scratch.as_ref().map(|d| d.path().to_path_buf());
    // Declared directories that do not exist yet, made for the run (they must exist to be
    // granted).
    let mut made = Vec::new();
    for dir in &plan.make_dirs {
        if let Ok(Some(held)) =
            protect::placeholders::hold(dir, protect::placeholders::Kind::Scaffold)
        {
            made.push(held);
        }
    }
    #[cfg(target_os = "linux")]
    {
        let (child, mut report) = linux::prepare(plan, scratch_path.as_deref(), program)?;
        report.scratch_dir = scratch_path;
        let egress = child
            .egress
            .is_some()
            .then(|| plan.egress.clone())
            .flatten();
        Ok(Prepared {
            report,
            scratch,
            egress,
            program_name: plan.program_name.clone(),
            child: Some(child),
            _made: made,
        })
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = program;
        let mut report = SandboxReport {
            scratch_dir: scratch_path,
            ..SandboxReport::default()
        };
        if plan.egress.is_some() {
            return Err(SandboxError {
                message: format!(
                    "the policy limits which hosts this command may reach, but egress rules \
                     need a network namespace, which {} does not have",
                    std::env::consts::OS
                ),
            });
        }
        if plan.writes.is_some() || plan.no_network || plan.limits.any() || plan.reads.is_some() {
            report.not_enforced.push(format!(
                "no sandbox on {}: only Linux (Landlock, namespaces) is supported",
                std::env::consts::OS
            ));
        }
        Ok(Prepared {
            report,
            scratch,
            egress: None,
            program_name: None,
            _made: made,
        })
    }
}

/// A new directory `atip-run-XXXXXX` in the system's temporary directory, mode 0700.
fn scratch_dir() -> std::io::Result<tempfile::TempDir> {
    let mut builder = tempfile::Builder::new();
    builder.prefix("atip-run-");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o700));
    }
    builder.tempdir()
}

impl Prepared {
    /// The child's `TMPDIR`: the run's scratch directory, when it has one.
    pub fn tmpdir(&self) -> Option<&Path> {
        self.scratch.as_ref().map(tempfile::TempDir::path)
    }

    /// The proxy variables of a run with egress rules: `HTTP_PROXY`, `HTTPS_PROXY` (HTTP
    /// proxy) and `ALL_PROXY` (`socks5h://`: the proxy resolves names) in upper and lower case,
    /// all at `127.0.0.1:`[`PROXY_PORT`](crate::egress::PROXY_PORT) of the run's own
    /// network namespace. Empty for other runs.
    pub fn proxy_env(&self) -> Vec<(&'static str, String)> {
        if self.egress.is_none() {
            return Vec::new();
        }
        let port = crate::egress::PROXY_PORT;
        let http = format!("http://127.0.0.1:{port}");
        let socks = format!("socks5h://127.0.0.1:{port}");
        vec![
            ("HTTP_PROXY", http.clone()),
            ("http_proxy", http.clone()),
            ("HTTPS_PROXY", http.clone()),
            ("https_proxy", http),
            ("ALL_PROXY", socks.clone()),
            ("all_proxy", socks),
        ]
    }

    /// Variables removed from a run with egress rules, besides those [`Prepared::proxy_env`]
    /// sets: exceptions to the proxy would only fail (there is no other route).
    pub const PROXY_ENV_REMOVED: &'static [&'static str] = &["NO_PROXY", "no_proxy"];

    /// Starts the run's egress proxy once the child has called `exec` (it sent its listening
    /// socket before); `None` for a run without egress rules.
    ///
    /// # Errors
    ///
    /// When the listening socket did not arrive or cannot be served.
    pub fn start_egress(&mut self) -> std::io::Result<Option<crate::egress::EgressProxy>> {
        let Some(rules) = self.egress.clone() else {
            return Ok(None);
        };
        #[cfg(target_os = "linux")]
        {
            let runner = self
                .child
                .as_mut()
                .and_then(|c| c.egress.as_mut())
                .and_then(|e| e.runner.take())
                .ok_or_else(|| std::io::Error::other("no egress channel"))?;
            let fd = child::receive_listener(&runner)?;
            let listener = std::net::TcpListener::from(fd);
            listener.set_nonblocking(true)?;
            let listener = tokio::net::TcpListener::from_std(listener)?;
            // A program whose path was not resolved shares the permits of the others like it.
            let program = self.program_name.as_deref().unwrap_or("");
            Ok(Some(crate::egress::EgressProxy::start_for_program(
                listener, rules, program,
            )))
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = rules;
            Err(std::io::Error::other("egress rules need Linux"))
        }
    }

    /// Starts `spec` as a child confined by this sandbox: on Linux its setup runs in the
    /// child before `exec`; elsewhere the child starts unconfined, as the report says.
    ///
    /// # Errors
    ///
    /// As [`atip_spawn::spawn`].
    pub fn spawn(&self, spec: &atip_spawn::Spec<'_>) -> std::io::Result<atip_spawn::Child> {
        #[cfg(target_os = "linux")]
        let setup = self.child.as_ref().map(|c| c as &dyn atip_spawn::PreExec);
        #[cfg(not(target_os = "linux"))]
        let setup = None;
        atip_spawn::spawn(spec, setup)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(sandbox: &Sandbox, working_dir: &Path) -> Plan {
        Plan::new(
            sandbox,
            &Effects::UNKNOWN,
            ResourceLimits::default(),
            working_dir,
            &[],
            protect::Places::default(),
            None,
        )
    }

    #[test]
    fn a_readable_path_through_a_link_below_a_writable_path_is_not_granted() {
        let dir = tempfile::tempdir().unwrap();
        let work = dir.path().join("work");
        std::fs::create_dir_all(work.join("docs")).unwrap();
        std::fs::create_dir_all(dir.path().join("home")).unwrap();
        std::fs::create_dir_all(dir.path().join("other")).unwrap();
        let reads = |paths: &[PathBuf]| plan(&Sandbox::new().confine_reads(paths.to_vec()), &work);
        let fine = reads(&[work.join("docs")]);
        assert_eq!(fine.reads, Some(vec![work.join("docs")]));
        assert!(fine.notes.is_empty(), "{:?}", fine.notes);
        // A run turned `docs` into a link to the home directory: no spelling reads through it.
        std::fs::remove_dir(work.join("docs")).unwrap();
        std::os::unix::fs::symlink(dir.path().join("home"), work.join("docs")).unwrap();
        std::os::unix::fs::symlink(&work, dir.path().join("above")).unwrap();
        for path in [
            work.join("docs"),
            work.join("docs/sub"),
            dir.path().join("other/../work/docs/sub"),
            dir.path().join("above/docs/sub"),
        ] {
            let planned = reads(std::slice::from_ref(&path));
            assert_eq!(planned.reads, Some(Vec::new()), "{}", path.display());
            assert!(
                planned.notes.iter().any(|n| n.contains("not granted")),
                "{}: {:?}",
                path.display(),
                planned.notes
            );
        }
        // Links outside every writable path are the system's: followed.
        let outside = reads(&[dir.path().join("above")]);
        assert_eq!(
            outside.reads.as_ref().map(Vec::len),
            Some(0),
            "the link itself"
        );
        let through = reads(&[dir.path().join("above/..")]);
        assert_eq!(through.reads.as_ref().map(Vec::len), Some(1));
    }
}
