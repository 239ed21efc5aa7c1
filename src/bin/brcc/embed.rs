//! `brcc build FILES… -o prog`: an executable that runs the program without brcc or a C++
//! compiler around. It is brcc itself (the runtime the program links against) with the built
//! library appended and a trailer saying so; started, brcc finds the trailer and runs the
//! library with the command line as the program's arguments. The library is written to a
//! fresh owner-only temporary directory to be loaded, and removed once loaded.

use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// Ends an executable that carries a program: the library's length (u64, little endian),
/// then this.
const MAGIC: &[u8; 8] = b"BRCCPRG1";

/// Writes `output`: this executable followed by `library` and the trailer.
pub fn write(library: &Path, output: &Path) -> Result<(), String> {
    let me = std::env::current_exe().map_err(|e| format!("cannot find brcc itself: {e}"))?;
    let mut exe = std::fs::read(&me).map_err(|e| format!("cannot read `{}`: {e}", me.display()))?;
    // brcc built into a program carries a program already: the runtime is what precedes it.
    if let Some((start, _)) = payload_range(&exe) {
        exe.truncate(start);
    }
    let lib =
        std::fs::read(library).map_err(|e| format!("cannot read `{}`: {e}", library.display()))?;
    let _ = std::fs::remove_file(output);
    let mut out = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o755)
        .open(output)
        .map_err(|e| format!("cannot write `{}`: {e}", output.display()))?;
    [&exe[..], &lib, &(lib.len() as u64).to_le_bytes(), MAGIC]
        .iter()
        .try_for_each(|part| out.write_all(part))
        .map_err(|e| format!("cannot write `{}`: {e}", output.display()))
}

/// The program this executable carries, if it was made by `brcc build`.
pub fn carried() -> Option<Vec<u8>> {
    let me = std::env::current_exe().ok()?;
    let mut file = std::fs::File::open(me).ok()?;
    let len = file.seek(SeekFrom::End(0)).ok()?;
    if len < 16 {
        return None;
    }
    let mut trailer = [0u8; 16];
    file.seek(SeekFrom::End(-16)).ok()?;
    file.read_exact(&mut trailer).ok()?;
    if &trailer[8..] != MAGIC {
        return None;
    }
    let size = u64::from_le_bytes(trailer[..8].try_into().ok()?);
    let start = len.checked_sub(16)?.checked_sub(size)?;
    file.seek(SeekFrom::Start(start)).ok()?;
    let mut library = vec![0; usize::try_from(size).ok()?];
    file.read_exact(&mut library).ok()?;
    Some(library)
}

/// Where a carried library lies in `exe`'s bytes, and its length.
fn payload_range(exe: &[u8]) -> Option<(usize, usize)> {
    let n = exe.len();
    if n < 16 || &exe[n - 8..] != MAGIC {
        return None;
    }
    let size = usize::try_from(u64::from_le_bytes(exe[n - 16..n - 8].try_into().ok()?)).ok()?;
    Some((n.checked_sub(16)?.checked_sub(size)?, size))
}
