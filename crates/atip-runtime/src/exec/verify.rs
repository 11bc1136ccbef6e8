//! Trust that is verified, not asserted (spec §3.2.2): the program about to run is resolved to
//! one file, its hash compared with the metadata's `trust.integrity.checksum`, and the caller's
//! trust rules (by program path or metadata location) override what the metadata claims.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use sha2::{Digest, Sha256, Sha512};

use crate::TrustSource;

/// A caller's trust assignment: metadata for programs at `pattern`, or loaded from files at
/// `pattern`, is trusted as `trust` whatever it claims (glob syntax, matched against the
/// resolved absolute path).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrustRule {
    /// What the pattern is matched against.
    pub target: TrustTarget,
    /// A glob (`/usr/bin/*`, `/etc/atip/**/*.json`).
    pub pattern: String,
    /// The trust to assign.
    pub trust: TrustSource,
}

/// What a [`TrustRule`] looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrustTarget {
    /// The resolved path of the program that runs.
    Program,
    /// The path of the metadata file a command was loaded from at run time.
    Metadata,
}

impl TrustRule {
    /// Whether the rule applies to a program at `program` loaded from metadata at `metadata`.
    pub fn matches(&self, program: Option<&Path>, metadata: Option<&str>) -> bool {
        let glob = glob::Pattern::new(&self.pattern);
        let hit = |text: &str| match &glob {
            Ok(g) => g.matches(text),
            Err(_) => self.pattern == text,
        };
        match self.target {
            TrustTarget::Program => program.and_then(Path::to_str).is_some_and(hit),
            TrustTarget::Metadata => metadata.is_some_and(hit),
        }
    }
}

/// Finds the file `program` names, as `execvp` would (through the `which` crate): a name with a
/// `/` relative to `working_dir`, otherwise the first executable file of that name in `path`
/// (the child's `PATH`). `None` when nothing is found.
pub fn resolve_program(
    program: &OsStr,
    working_dir: &Path,
    path: Option<&OsStr>,
) -> Option<PathBuf> {
    which::which_in(program, path, working_dir).ok()
}

/// Why a binary did not pass its checksum.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChecksumError {
    /// The binary.
    pub program: PathBuf,
    /// The checksum the metadata declares.
    pub expected: String,
    /// What the binary hashes to (`sha256:…`), or why it could not be hashed.
    pub found: String,
}

impl fmt::Display for ChecksumError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "binary {} does not match its metadata: trust.integrity.checksum is {}, the binary {}",
            self.program.display(),
            self.expected,
            self.found
        )
    }
}

impl std::error::Error for ChecksumError {}

/// Checks that the file at `program` hashes to `expected` (`sha256:<hex>` or `sha512:<hex>`,
/// hex in either case). Hashes are cached by the file's identity and change time (device,
/// inode, size, modification and status-change time): rewriting a file in place changes its
/// status-change time, which no caller can set back, so it is hashed again. Where there is
/// no status-change time (not Unix) nothing is cached.
///
/// # Errors
///
/// [`ChecksumError`] when the digests differ, the algorithm is not one of these two, or the
/// file cannot be read.
pub fn verify_checksum(program: &Path, expected: &str) -> Result<(), ChecksumError> {
    open_verified(program, expected).map(drop)
}

/// Checks `program` against `expected` (as [`verify_checksum`]) and returns the bytes that
/// were checked as a file to run (`/proc/self/fd/N`): on Linux a sealed in-memory copy
/// (`memfd_create`, sealed against writes, growth and shrinking), so that neither a file
/// swapped in at the path nor one rewritten in place after the check (a script's interpreter
/// reads it again) runs unchecked bytes; elsewhere, or where the kernel refuses executable
/// memory files (`vm.memfd_noexec = 2`), the opened file itself.
///
/// # Errors
///
/// As [`verify_checksum`].
pub(crate) fn open_verified(
    program: &Path,
    expected: &str,
) -> Result<std::fs::File, ChecksumError> {
    let err = |found: String| ChecksumError {
        program: program.to_path_buf(),
        expected: expected.to_owned(),
        found,
    };
    let Some((algorithm, hex)) = expected.split_once(':') else {
        return Err(err(
            "cannot be checked: the checksum is not written `algorithm:hex`".to_owned(),
        ));
    };
    let algorithm = algorithm.to_ascii_lowercase();
    if algorithm != "sha256" && algorithm != "sha512" {
        return Err(err(format!(
            "cannot be checked: algorithm `{algorithm}` is not supported (sha256, sha512)"
        )));
    }
    let file = std::fs::File::open(program).map_err(|e| err(format!("cannot be read: {e}")))?;
    let unreadable = |e: std::io::Error| err(format!("cannot be read: {e}"));
    #[cfg(target_os = "linux")]
    if let Some(copy) = sealed_copy(&file, &algorithm).map_err(unreadable)? {
        let (memfd, actual) = copy;
        return if actual.eq_ignore_ascii_case(hex) {
            Ok(memfd)
        } else {
            Err(err(format!("hashes to {algorithm}:{actual}")))
        };
    }
    let actual = digest(&file, &algorithm).map_err(unreadable)?;
    if actual.eq_ignore_ascii_case(hex) {
        Ok(file)
    } else {
        Err(err(format!("hashes to {algorithm}:{actual}")))
    }
}

/// A sealed in-memory copy of `file` and the digest of exactly its bytes: taken from the
/// cache when `file` did not change while it was copied (its identity before and after the
/// copy is the cached one), else computed from the copy. `None` where memory files cannot be
/// made or run.
#[cfg(target_os = "linux")]
fn sealed_copy(
    file: &std::fs::File,
    algorithm: &str,
) -> std::io::Result<Option<(std::fs::File, String)>> {
    use std::io::Seek;
    use std::os::fd::FromRawFd;
    const MFD_CLOEXEC: libc::c_uint = 0x1;
    const MFD_ALLOW_SEALING: libc::c_uint = 0x2;
    const MFD_EXEC: libc::c_uint = 0x10;
    // SAFETY: a plain system call with a NUL-terminated name; the descriptor it returns is
    // owned by the File built from it.
    let fd = unsafe {
        let flags = MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_EXEC;
        let mut fd = libc::memfd_create(c"atip-verified".as_ptr(), flags);
        if fd < 0 && std::io::Error::last_os_error().raw_os_error() == Some(libc::EINVAL) {
            // Kernels before 6.3 do not know MFD_EXEC; their memory files are executable.
            fd = libc::memfd_create(c"atip-verified".as_ptr(), MFD_CLOEXEC | MFD_ALLOW_SEALING);
        }
        fd
    };
    if fd < 0 {
        return Ok(None);
    }
    // SAFETY: `fd` is a new descriptor owned by no one else.
    let mut memfd = unsafe { std::fs::File::from_raw_fd(fd) };
    let before = identity(file)?;
    let mut reader = file;
    reader.rewind()?;
    std::io::copy(&mut reader, &mut memfd)?;
    let after = identity(file)?;
    // SAFETY: fcntl on the descriptor owned by `memfd`.
    let sealed = unsafe {
        libc::fcntl(
            fd,
            libc::F_ADD_SEALS,
            libc::F_SEAL_SEAL | libc::F_SEAL_SHRINK | libc::F_SEAL_GROW | libc::F_SEAL_WRITE,
        )
    };
    if sealed != 0 {
        return Err(std::io::Error::last_os_error());
    }
    let cached = before.filter(|id| after == Some(*id)).and_then(|id| {
        cache()
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&(id, algorithm.to_owned()))
            .cloned()
    });
    let hex = match cached {
        Some(hex) => hex,
        None => {
            memfd.rewind()?;
            let hex = if algorithm == "sha512" {
                hash_file::<Sha512>(&memfd)?
            } else {
                hash_file::<Sha256>(&memfd)?
            };
            if let Some(id) = before.filter(|id| after == Some(*id) && settled(id)) {
                cache()
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .insert((id, algorithm.to_owned()), hex.clone());
            }
            hex
        }
    };
    Ok(Some((memfd, hex)))
}

type Cache = Mutex<HashMap<(Identity, String), String>>;

/// Whether a file last changed long enough ago that any later change gives it another
/// status-change time: file systems keep coarse times (a clock tick, often 4 ms), so two
/// writes within one tick can leave the same time behind. A digest of a file that changed
/// within the last 2 s is not cached (the "racy" entries of git's index, for the same reason).
fn settled(id: &Identity) -> bool {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as i128)
        .unwrap_or(0);
    id.4 < now - 2_000_000_000
}

/// Digests by file identity and algorithm, for this process.
fn cache() -> &'static Cache {
    static CACHE: OnceLock<Cache> = OnceLock::new();
    CACHE.get_or_init(Default::default)
}

/// One version of a file's contents, told without reading them: device, inode, size,
/// modification and status-change time (ns).
type Identity = (u64, u64, u64, i128, i128);

fn identity(file: &std::fs::File) -> std::io::Result<Option<Identity>> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let meta = file.metadata()?;
        let ns = |s: i64, n: i64| i128::from(s) * 1_000_000_000 + i128::from(n);
        Ok(Some((
            meta.dev(),
            meta.ino(),
            meta.len(),
            ns(meta.mtime(), meta.mtime_nsec()),
            ns(meta.ctime(), meta.ctime_nsec()),
        )))
    }
    #[cfg(not(unix))]
    {
        let _ = file;
        Ok(None)
    }
}

fn digest(file: &std::fs::File, algorithm: &str) -> std::io::Result<String> {
    let cache = cache();
    let before = identity(file)?;
    if let Some(id) = before {
        let key = (id, algorithm.to_owned());
        if let Some(hex) = cache.lock().unwrap_or_else(|p| p.into_inner()).get(&key) {
            return Ok(hex.clone());
        }
    }
    let hex = if algorithm == "sha512" {
        hash_file::<Sha512>(file)?
    } else {
        hash_file::<Sha256>(file)?
    };
    // A file that changed while it was read, or too recently to tell, is not remembered.
    if let Some(id) = before.filter(|id| identity(file).ok().flatten() == Some(*id) && settled(id))
    {
        cache
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert((id, algorithm.to_owned()), hex.clone());
    }
    Ok(hex)
}

/// The hex digest of a file's contents, read in 64 KiB blocks.
fn hash_file<D: Digest>(mut file: &std::fs::File) -> std::io::Result<String> {
    let mut hasher = D::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            return Ok(to_hex(&hasher.finalize()));
        }
        hasher.update(&buf[..n]);
    }
}

fn to_hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksums_are_compared_and_cached_by_identity_and_change_time() {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("tool");
        std::fs::write(&bin, b"hello").unwrap();
        // sha256("hello")
        let good = "sha256:2CF24DBA5FB0A30E26E83B2AC5B9E29E1B161E5C1FA7425E73043362938B9824";
        assert_eq!(verify_checksum(&bin, good), Ok(()));
        let bad = "sha256:0000000000000000000000000000000000000000000000000000000000000000";
        let e = verify_checksum(&bin, bad).unwrap_err();
        assert!(e.to_string().contains("does not match its metadata"), "{e}");
        assert!(e.found.contains("2cf24dba"), "{e}");
        // Changed contents (and size) are hashed again.
        std::fs::write(&bin, b"hello!").unwrap();
        assert!(verify_checksum(&bin, good).is_err());
        assert!(verify_checksum(&bin, "md5:abc")
            .unwrap_err()
            .found
            .contains("not supported"));
        assert!(verify_checksum(&bin, "nonsense").is_err());
    }

    #[test]
    fn programs_resolve_like_execvp() {
        let sh = resolve_program(
            OsStr::new("sh"),
            Path::new("/"),
            std::env::var_os("PATH").as_deref(),
        );
        assert!(sh.is_some_and(|p| p.is_absolute() && p.ends_with("sh")));
        assert_eq!(
            resolve_program(
                OsStr::new("no-such-program-atip"),
                Path::new("/"),
                Some(OsStr::new("/usr/bin"))
            ),
            None
        );
        let dir = tempfile::tempdir().unwrap();
        let tool = dir.path().join("tool");
        std::fs::write(&tool, "#!/bin/sh\n").unwrap();
        assert_eq!(
            resolve_program(OsStr::new("./tool"), dir.path(), None),
            None,
            "not executable"
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
            let found = resolve_program(OsStr::new("./tool"), dir.path(), None).unwrap();
            assert_eq!(found.canonicalize().unwrap(), tool.canonicalize().unwrap());
        }
    }

    #[test]
    fn trust_rules_match_programs_and_metadata_locations() {
        let rule = TrustRule {
            target: TrustTarget::Program,
            pattern: "/usr/bin/*".into(),
            trust: TrustSource::Vendor,
        };
        assert!(rule.matches(Some(Path::new("/usr/bin/git")), None));
        assert!(!rule.matches(Some(Path::new("/tmp/git")), None));
        let meta = TrustRule {
            target: TrustTarget::Metadata,
            pattern: "/etc/atip/*.json".into(),
            trust: TrustSource::Org,
        };
        assert!(meta.matches(None, Some("/etc/atip/gh.json")));
        assert!(!meta.matches(Some(Path::new("/etc/atip/gh.json")), None));
    }
}
