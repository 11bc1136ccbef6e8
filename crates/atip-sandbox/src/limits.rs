//! Resource limits of a sandboxed run (`setrlimit(2)`, and a size-limited scratch directory).

use serde::{Deserialize, Serialize};

/// The default limit on the memory a process of a run may allocate: half of this machine's
/// physical memory, at least 2 GiB (bytes).
pub fn default_memory_bytes() -> u64 {
    const FLOOR: u64 = 2 << 30;
    physical_memory().map_or(FLOOR, |bytes| (bytes / 2).max(FLOOR))
}

/// This machine's physical memory in bytes (`sysconf`), where it can be read.
#[cfg(unix)]
fn physical_memory() -> Option<u64> {
    // SAFETY: sysconf only reads configuration values.
    let (pages, size) = unsafe {
        (
            libc::sysconf(libc::_SC_PHYS_PAGES),
            libc::sysconf(libc::_SC_PAGESIZE),
        )
    };
    let pages = u64::try_from(pages).ok().filter(|p| *p > 0)?;
    let size = u64::try_from(size).ok().filter(|s| *s > 0)?;
    Some(pages.saturating_mul(size))
}

#[cfg(not(unix))]
fn physical_memory() -> Option<u64> {
    None
}

/// The default limit on processes (and threads) of one run: 4096.
pub const DEFAULT_PROCESSES: u64 = 4096;
/// The default limit on the size of one file a run writes: 8 GiB (bytes).
pub const DEFAULT_FILE_SIZE_BYTES: u64 = 8 << 30;
/// The default size of a run's scratch directory (`TMPDIR`): 1 GiB (bytes).
pub const DEFAULT_SCRATCH_BYTES: u64 = 1 << 30;

/// Resource limits applied to a sandboxed run and every process it starts. `None` (`null` in
/// JSON) leaves the inherited limit; a field a policy leaves out keeps its default, so a
/// policy raises one limit by naming it (`{"limits": {"memoryBytes": 34359738368}}`) and lifts
/// it with `null`. A run that fails at a limit says which in its tool result where the kernel
/// tells (a signal: `SIGXFSZ`, `SIGXCPU`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct ResourceLimits {
    /// CPU time in seconds (`RLIMIT_CPU`), per process — each process of the run has its own
    /// budget: the process gets SIGXCPU, then SIGKILL. Default: none (the run's time limit
    /// bounds the whole).
    pub cpu_seconds: Option<u64>,
    /// Memory a process may allocate, in bytes (`RLIMIT_DATA`: its heap and private writable
    /// mappings; reserved but untouched address space does not count): allocations beyond it
    /// fail. Default: [`default_memory_bytes`], half of the machine's memory.
    pub memory_bytes: Option<u64>,
    /// Processes and threads of the run (`RLIMIT_NPROC`, counted in the run's own user
    /// namespace): `fork` and `clone` beyond it fail. Default [`DEFAULT_PROCESSES`]. The
    /// kernel does not apply it to root (uid 0): for a root runner the default is not set, and
    /// a limit the policy sets is listed under `not_enforced`.
    pub processes: Option<u64>,
    /// Largest file the run may write, in bytes (`RLIMIT_FSIZE`): writes beyond it fail and
    /// the writer gets `SIGXFSZ`. Default [`DEFAULT_FILE_SIZE_BYTES`].
    pub file_size_bytes: Option<u64>,
    /// Size of the run's scratch directory (`TMPDIR`), in bytes: a memory-backed file system
    /// of its own, so a run cannot fill the disk through it. Default
    /// [`DEFAULT_SCRATCH_BYTES`].
    pub scratch_bytes: Option<u64>,
}

impl Default for ResourceLimits {
    fn default() -> Self {
        ResourceLimits {
            cpu_seconds: None,
            memory_bytes: Some(default_memory_bytes()),
            processes: Some(DEFAULT_PROCESSES),
            file_size_bytes: Some(DEFAULT_FILE_SIZE_BYTES),
            scratch_bytes: Some(DEFAULT_SCRATCH_BYTES),
        }
    }
}

impl ResourceLimits {
    /// No limit at all.
    pub const NONE: ResourceLimits = ResourceLimits {
        cpu_seconds: None,
        memory_bytes: None,
        processes: None,
        file_size_bytes: None,
        scratch_bytes: None,
    };

    /// Whether any `setrlimit` limit is set (the scratch size aside).
    pub fn any(&self) -> bool {
        self.cpu_seconds.is_some()
            || self.memory_bytes.is_some()
            || self.processes.is_some()
            || self.file_size_bytes.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_policy_raises_one_limit_and_keeps_the_others() {
        let limits: ResourceLimits =
            serde_json::from_str(r#"{"memoryBytes": 1234, "processes": null}"#).unwrap();
        assert_eq!(limits.memory_bytes, Some(1234));
        assert_eq!(limits.processes, None, "null lifts it");
        assert_eq!(limits.file_size_bytes, Some(DEFAULT_FILE_SIZE_BYTES));
        assert!(default_memory_bytes() >= 2 << 30);
    }
}
