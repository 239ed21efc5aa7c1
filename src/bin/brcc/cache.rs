//! brcc's build cache, private to the user who runs brcc. brcc runs the programs it builds,
//! so it must never load a library another user could have written (issue 18): the cache
//! lives under `$XDG_CACHE_HOME/brook` (else `~/.cache/brook`), and before anything in it is
//! used, brcc checks that
//! - the cache directory and every entry directory are real directories (not links) owned by
//!   the user brcc runs as, created owner-only (0700) and writable by nobody else;
//! - every directory above the cache is owned by that user or by root and is not writable by
//!   others unless sticky (as `/tmp` is), so nobody else can swap the path;
//! - a cached library is a regular file owned by the user, and its SHA3-256 matches the digest
//!   written when it was built: a corrupt or replaced entry is rebuilt, never loaded.
//!
//! The cache is bounded (least recently used entries go first; `eviction.rs`), and an entry
//! in use by any brcc process is never removed.
//!
//! When no cache directory passes (neither variable set, or one that fails a check), the build
//! goes to a fresh owner-only temporary directory, created exclusively and removed once the
//! program is loaded; a warning names the rejected directory and why.

use std::fs::File;
use std::io;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::SystemTime;

use sha3::{Digest, Sha3_256};

use crate::eviction::{self, Bound, LOCK_FILE};

extern "C" {
    fn geteuid() -> u32;
}

/// The user brcc runs as: the only one whose files it trusts (besides root's directories).
fn me() -> u32 {
    // SAFETY: geteuid takes nothing and cannot fail.
    unsafe { geteuid() }
}

/// Where builds go: a trusted cache directory, or a private temporary one (removed on drop).
pub struct Cache {
    root: PathBuf,
    temporary: bool,
    /// The lock files of the entries this process uses, each held shared until the cache
    /// is dropped (after the program is loaded): no other brcc evicts them meanwhile.
    held: Mutex<Vec<File>>,
}

impl Cache {
    /// The user's cache directory if it is private, else a fresh private temporary directory
    /// (with a warning on stderr saying why the cache was not used).
    pub fn open() -> Result<Cache, String> {
        if let Some(root) = cache_root() {
            match trusted_root(&root) {
                Ok(()) => {
                    return Ok(Cache {
                        root,
                        temporary: false,
                        held: Mutex::default(),
                    })
                }
                Err(why) => eprintln!(
                    "brcc: warning: not using the build cache `{}`: {why}; building in a private temporary directory",
                    root.display()
                ),
            }
        }
        private_temp_dir().map(|root| Cache {
            root,
            temporary: true,
            held: Mutex::default(),
        })
    }

    /// The user's cache directory, checked as [`Cache::open`] checks it (for `brcc cache`,
    /// which has no temporary directory to fall back on).
    pub fn trusted_root() -> Result<PathBuf, String> {
        let root = cache_root()
            .ok_or("there is no build cache: neither XDG_CACHE_HOME nor HOME is set")?;
        trusted_root(&root).map_err(|why| format!("the build cache `{}` {why}", root.display()))?;
        Ok(root)
    }

    /// A fresh private temporary directory, whatever the cache settings.
    pub fn temporary() -> Result<Cache, String> {
        private_temp_dir().map(|root| Cache {
            root,
            temporary: true,
            held: Mutex::default(),
        })
    }

    /// The directory builds go to.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The directory of entry `key`, created owner-only, checked, and held in use (its last
    /// use now) until this cache is dropped.
    pub fn entry(&self, key: &str) -> Result<PathBuf, String> {
        let dir = self.root.join(key);
        // Another process may evict the entry between our finding it and locking it: then
        // the lock we hold is no longer the entry's, and the entry is made again.
        for _ in 0..16 {
            match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(format!("could not create `{}`: {e}", dir.display())),
            }
            private_dir(&dir)
                .map_err(|why| format!("the cache entry `{}` {why}", dir.display()))?;
            let Some(lock) = self.lock(&dir)? else {
                continue;
            };
            self.held
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(lock);
            return Ok(dir);
        }
        Err(format!(
            "the cache entry `{}` kept being removed by other brcc processes",
            dir.display()
        ))
    }

    /// The entry's lock file, locked shared and touched (its last use), if it is still the
    /// entry's once locked; `None` if the entry was removed meanwhile.
    fn lock(&self, dir: &Path) -> Result<Option<File>, String> {
        let path = dir.join(LOCK_FILE);
        let what = |e: io::Error| format!("could not lock `{}`: {e}", path.display());
        if std::fs::symlink_metadata(&path).is_ok_and(|m| !m.file_type().is_file()) {
            return Err(format!("`{}` is not a regular file", path.display()));
        }
        let lock = match File::options()
            .write(true)
            .create(true)
            .truncate(false)
            .mode(0o600)
            .open(&path)
        {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(what(e)),
        };
        lock.lock_shared().map_err(what)?;
        let held = lock.metadata().map_err(what)?;
        let current = std::fs::symlink_metadata(&path).ok();
        if current.is_none_or(|c| (c.dev(), c.ino()) != (held.dev(), held.ino())) {
            return Ok(None);
        }
        lock.set_modified(SystemTime::now()).map_err(what)?;
        Ok(Some(lock))
    }
}

impl Drop for Cache {
    /// A temporary directory goes. The cache lets go of its entries, then keeps to its
    /// [`Bound`]: the least recently used entries no process holds go. Every brcc does this
    /// once its entries are free, so the last of several concurrent ones leaves the cache
    /// within the bound.
    fn drop(&mut self) {
        if self.temporary {
            let _ = std::fs::remove_dir_all(&self.root);
            return;
        }
        self.held
            .get_mut()
            .unwrap_or_else(|p| p.into_inner())
            .clear();
        eviction::evict(&self.root, Bound::from_env());
    }
}

/// `library` if it is a trusted, intact build: a regular file owned by this user, writable by
/// nobody else, whose SHA3-256 is the one recorded beside it. Anything else is to be rebuilt.
pub fn verified(library: &Path) -> bool {
    let digest_file = digest_path(library);
    let (Ok(bytes), Ok(recorded)) = (
        private_file(library),
        private_file(&digest_file).map(|d| String::from_utf8_lossy(&d).trim().to_string()),
    ) else {
        return false;
    };
    hex(&Sha3_256::digest(&bytes)) == recorded
}

/// Records `partial` (a just-built library) as `library` with its digest beside it. Both
/// are renamed into place, so a concurrent run sees either the whole entry or a mismatch.
pub fn store(partial: &Path, library: &Path) -> Result<(), String> {
    let bytes = std::fs::read(partial).map_err(|e| {
        format!(
            "could not read the built program `{}`: {e}",
            partial.display()
        )
    })?;
    let digest = digest_path(library);
    let digest_partial = digest.with_extension(format!("sha3.{}", std::process::id()));
    write_private(&digest_partial, hex(&Sha3_256::digest(&bytes)).as_bytes())
        .map_err(|e| format!("could not write `{}`: {e}", digest_partial.display()))?;
    std::fs::set_permissions(partial, std::fs::Permissions::from_mode(0o700))
        .map_err(|e| format!("could not restrict `{}`: {e}", partial.display()))?;
    std::fs::rename(partial, library).map_err(|e| {
        format!(
            "could not store the built program as `{}`: {e}",
            library.display()
        )
    })?;
    std::fs::rename(&digest_partial, &digest)
        .map_err(|e| format!("could not store `{}`: {e}", digest.display()))
}

/// Writes `path` owner-only (0600), replacing what was there in one step: the contents go
/// to a file of this process's own, which is then renamed over `path`. Concurrent runs
/// writing the same file (the same program's sources and headers) then neither fail on each
/// other's file nor read half of one; removing `path` and creating it anew did both.
pub fn write_private(path: &Path, contents: &[u8]) -> io::Result<()> {
    use std::io::Write;
    let mut partial = path.as_os_str().to_owned();
    partial.push(format!(".{}.partial", std::process::id()));
    let partial = PathBuf::from(partial);
    let _ = std::fs::remove_file(&partial);
    let written = (std::fs::OpenOptions::new())
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&partial)
        .and_then(|mut file| file.write_all(contents))
        .and_then(|()| std::fs::rename(&partial, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&partial);
    }
    written
}

fn digest_path(library: &Path) -> PathBuf {
    library.with_extension("so.sha3")
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `$XDG_CACHE_HOME/brook` or `$HOME/.cache/brook` (absolute paths only), if either is set.
fn cache_root() -> Option<PathBuf> {
    let absolute = |v: std::ffi::OsString| Some(PathBuf::from(v)).filter(|p| p.is_absolute());
    std::env::var_os("XDG_CACHE_HOME")
        .and_then(absolute)
        .or_else(|| {
            std::env::var_os("HOME")
                .and_then(absolute)
                .map(|h| h.join(".cache"))
        })
        .map(|base| base.join("brook"))
}

/// Creates `root` owner-only if missing, then checks it and everything above it.
fn trusted_root(root: &Path) -> Result<(), String> {
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(root)
        .map_err(|e| format!("it could not be created ({e})"))?;
    private_dir(root)?;
    for ancestor in root.ancestors().skip(1) {
        safe_ancestor(ancestor)?;
    }
    Ok(())
}

/// A directory only this user can change: not a link, owned by this user, no group or other
/// write permission.
pub fn private_dir(dir: &Path) -> Result<(), String> {
    let meta = std::fs::symlink_metadata(dir).map_err(|e| format!("cannot be examined ({e})"))?;
    if !meta.file_type().is_dir() {
        return Err("is not a directory (a link or a file)".into());
    }
    owned_and_unshared(&meta)
}

/// The bytes of a regular file (not a link) only this user can change.
fn private_file(path: &Path) -> Result<Vec<u8>, String> {
    let meta = std::fs::symlink_metadata(path).map_err(|e| e.to_string())?;
    if !meta.file_type().is_file() {
        return Err("not a regular file".into());
    }
    owned_and_unshared(&meta)?;
    std::fs::read(path).map_err(|e| e.to_string())
}

fn owned_and_unshared(meta: &std::fs::Metadata) -> Result<(), String> {
    if meta.uid() != me() {
        return Err(format!(
            "belongs to user {} but brcc runs as user {}",
            meta.uid(),
            me()
        ));
    }
    if meta.mode() & 0o022 != 0 {
        return Err(format!(
            "is writable by other users (mode {:o})",
            meta.mode() & 0o7777
        ));
    }
    Ok(())
}

/// A directory above the cache: owned by this user or root, and not writable by others
/// unless sticky (then others cannot rename or remove what is ours in it).
fn safe_ancestor(dir: &Path) -> Result<(), String> {
    let meta = std::fs::metadata(dir)
        .map_err(|e| format!("`{}` cannot be examined ({e})", dir.display()))?;
    if meta.uid() != me() && meta.uid() != 0 {
        return Err(format!(
            "`{}` above it belongs to user {}",
            dir.display(),
            meta.uid()
        ));
    }
    let sticky = meta.mode() & 0o1000 != 0;
    if meta.mode() & 0o022 != 0 && !sticky {
        return Err(format!(
            "`{}` above it is writable by other users (mode {:o})",
            dir.display(),
            meta.mode() & 0o7777
        ));
    }
    Ok(())
}

/// A new owner-only directory in the system temporary directory, created exclusively (an
/// existing name, planted or not, is never reused).
fn private_temp_dir() -> Result<PathBuf, String> {
    let base = std::env::temp_dir();
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    for attempt in 0..100u32 {
        let dir = base.join(format!("brcc-{}-{:x}-{attempt}", std::process::id(), stamp));
        match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
            Ok(()) => {
                private_dir(&dir)
                    .map_err(|why| format!("the temporary directory `{}` {why}", dir.display()))?;
                return Ok(dir);
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => {
                return Err(format!(
                    "could not create a private build directory in `{}`: {e}",
                    base.display()
                ))
            }
        }
    }
    Err(format!(
        "could not create a private build directory in `{}`: every name tried exists",
        base.display()
    ))
}
