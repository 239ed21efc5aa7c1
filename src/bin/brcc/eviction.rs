//! The build cache's bound: at most [`Bound::entries`] entries and [`Bound::bytes`] bytes,
//! the least recently used going first, and `brcc cache --list` / `--clear`.
//!
//! Several brcc processes may share the cache. A process holds a shared lock on the `.lock`
//! file of every entry it uses (taken in [`crate::cache::Cache::entry`], kept until the
//! program is loaded), and touches that file's modification time, which is the entry's last
//! use. Removing an entry takes the exclusive lock without waiting: an entry in use is
//! skipped, never removed under a build or a load. A removed entry is first renamed out of
//! the way, so a process that opened it a moment before finds its lock file gone and starts
//! the entry afresh (`Cache::entry` checks the lock it holds is still the entry's).
//!
//! Only this user's private entry directories (`brcc-…`, checked as the rest of the cache) are
//! counted or removed; nothing in the cache is followed through a link.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::cache::private_dir;

/// Entry directories are named `brcc-` and a hash of what was built.
pub const ENTRY_PREFIX: &str = "brcc-";

/// The file whose lock marks an entry in use and whose modification time is its last use.
pub const LOCK_FILE: &str = ".lock";

/// How much the cache may hold.
#[derive(Debug, Clone, Copy)]
pub struct Bound {
    /// Entries (one per distinct program built).
    pub entries: usize,
    /// Bytes in all the entries' files.
    pub bytes: u64,
}

impl Bound {
    /// 64 entries and 512 MiB, or `BROOK_CACHE_MAX_ENTRIES` / `BROOK_CACHE_MAX_BYTES`.
    pub fn from_env() -> Bound {
        let var = |name: &str| std::env::var(name).ok()?.trim().parse::<u64>().ok();
        Bound {
            entries: var("BROOK_CACHE_MAX_ENTRIES").map_or(64, |n| n.max(1) as usize),
            bytes: var("BROOK_CACHE_MAX_BYTES").unwrap_or(512 << 20),
        }
    }
}

/// One entry of the cache as found on disk.
#[derive(Debug)]
pub struct Entry {
    pub path: PathBuf,
    /// Its last use (its lock file's modification time, else the directory's).
    pub used: SystemTime,
    /// Bytes in its files.
    pub bytes: u64,
}

/// The entries under `root`, least recently used first. Anything that is not a private entry
/// directory of this user is left out (and left alone).
pub fn entries(root: &Path) -> Vec<Entry> {
    let Ok(dir) = std::fs::read_dir(root) else {
        return Vec::new();
    };
    let mut found: Vec<Entry> = dir
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(ENTRY_PREFIX))
        .map(|e| e.path())
        .filter(|p| private_dir(p).is_ok())
        .map(|path| {
            let used = modified(&path.join(LOCK_FILE))
                .or_else(|| modified(&path))
                .unwrap_or(SystemTime::UNIX_EPOCH);
            let bytes = size(&path);
            Entry { path, used, bytes }
        })
        .collect();
    found.sort_by_key(|e| e.used);
    found
}

/// `brcc cache --list`: one line per entry, most recently used last, then the totals and
/// the bound.
pub fn listing(root: &Path, bound: Bound) -> String {
    let all = entries(root);
    let now = SystemTime::now();
    let mut text = String::new();
    for e in &all {
        let age = now.duration_since(e.used).map_or(0, |d| d.as_secs());
        text.push_str(&format!(
            "{}  {} KiB  used {} ago\n",
            e.path.display(),
            e.bytes.div_ceil(1024),
            ago(age)
        ));
    }
    text.push_str(&format!(
        "{} cached programs, {} KiB in {} (at most {} programs and {} KiB)\n",
        all.len(),
        all.iter().map(|e| e.bytes).sum::<u64>().div_ceil(1024),
        root.display(),
        bound.entries,
        bound.bytes / 1024
    ));
    text
}

/// `seconds` as the largest whole unit: `5 s`, `3 min`, `2 h`, `4 days`.
fn ago(seconds: u64) -> String {
    match seconds {
        s if s < 120 => format!("{s} s"),
        s if s < 2 * 3600 => format!("{} min", s / 60),
        s if s < 2 * 86400 => format!("{} h", s / 3600),
        s => format!("{} days", s / 86400),
    }
}

/// Removes the least recently used entries not in use until the cache is within `bound`;
/// returns how many went.
pub fn evict(root: &Path, bound: Bound) -> usize {
    let all = entries(root);
    let (mut count, mut bytes) = (all.len(), all.iter().map(|e| e.bytes).sum::<u64>());
    let mut removed = 0;
    for entry in all {
        if count <= bound.entries && bytes <= bound.bytes {
            break;
        }
        if remove(root, &entry.path) {
            count -= 1;
            bytes -= entry.bytes;
            removed += 1;
        }
    }
    removed
}

/// Removes every entry not in use; returns how many went and how many were in use.
pub fn clear(root: &Path) -> (usize, usize) {
    let all = entries(root);
    let total = all.len();
    let removed = all.iter().filter(|e| remove(root, &e.path)).count();
    (removed, total - removed)
}

/// Removes `entry` unless a process holds its lock: renamed aside under the exclusive lock
/// (so nobody starts using it meanwhile), then deleted. Whether it went.
fn remove(root: &Path, entry: &Path) -> bool {
    let lock_path = entry.join(LOCK_FILE);
    let lock = match File::options()
        .write(true)
        .create(true)
        .truncate(false)
        .open(&lock_path)
    {
        Ok(f) => f,
        Err(_) => return false,
    };
    if lock.try_lock().is_err() {
        return false;
    }
    let aside = root.join(format!(
        ".evicted-{}-{}",
        std::process::id(),
        entry
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
    ));
    if std::fs::rename(entry, &aside).is_err() {
        return false;
    }
    // `remove_dir_all` does not follow links; the directory was checked private.
    let _ = std::fs::remove_dir_all(&aside);
    true
}

fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::symlink_metadata(path).ok()?.modified().ok()
}

/// Bytes in the regular files under `dir`, not following links.
fn size(dir: &Path) -> u64 {
    let Ok(list) = std::fs::read_dir(dir) else {
        return 0;
    };
    list.flatten()
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => size(&e.path()),
            Ok(t) if t.is_file() => e.metadata().map_or(0, |m| m.len()),
            _ => 0,
        })
        .sum()
}
