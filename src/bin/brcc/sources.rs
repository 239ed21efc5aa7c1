//! The files of one program (`brcc run main.cpp kernels.br …`): each file is Brook host code
//! (a `.cpp` may declare streams and call kernels like a `.br`), translated to its own C++
//! unit; a file with kernels also gets a header, `kernels.hpp` for `kernels.br`, which the
//! other files include to call them, as with the original's generated headers. The streams of
//! one file may have an element type another file's kernels define.

use std::path::{Path, PathBuf};

use brook_build::Program;

use crate::cli::HostOptions;
use crate::cxx::Compiler;

/// The C++ of every file, ready for the compiler.
pub struct Translation {
    /// The programs, in the order given.
    pub programs: Vec<Program>,
    /// (file name in the build directory, text) of each unit.
    pub sources: Vec<(String, String)>,
    /// (file name, text) of each kernel file's header.
    pub headers: Vec<(String, String)>,
    /// The directories of the input files, searched by their `#include "…"`s.
    pub include_dirs: Vec<PathBuf>,
}

/// Reads and checks `files`; errors are rendered with the original lines. A `.bri` file goes
/// through the C preprocessor first (with `host`'s `-I` and `-D`), as the original's Makefiles
/// ran it on them (its errors then point at the preprocessed lines).
pub fn load(files: &[PathBuf], host: &HostOptions) -> Result<Vec<Program>, String> {
    let texts: Vec<(String, String)> = files
        .iter()
        .map(|f| {
            let name = f.display().to_string();
            if f.extension().is_some_and(|e| e == "bri") {
                let cxx = Compiler::find(host.clone()).map_err(|e| format!("brcc: error: {e}"))?;
                return cxx
                    .preprocess(f)
                    .map(|text| (name.clone(), text))
                    .map_err(|e| format!("brcc: error: {e}"));
            }
            std::fs::read_to_string(f)
                .map(|text| (name.clone(), text))
                .map_err(|e| format!("brcc: error: could not read `{name}`: {e}"))
        })
        .collect::<Result<_, _>>()?;
    let parse = |types: &[String]| -> Result<Vec<Program>, String> {
        texts
            .iter()
            .map(|(name, text)| {
                Program::parse_with_types(text, name, types).map_err(|d| d.render())
            })
            .collect()
    };
    let programs = parse(&[])?;
    if programs.len() == 1 {
        return Ok(programs);
    }
    // Again, knowing every file's kernel types (a stream in main.cpp of a struct of kernels.br)
    // and the types every file makes streams of (`create<ShadingHit>` of a struct only
    // kernels.br defines).
    let types: Vec<String> = programs
        .iter()
        .flat_map(|p| p.kernel_types().into_iter().chain(p.created_types()))
        .collect();
    let mut programs = parse(&types)?;
    // Each file's host calls are checked against the other files' kernels too.
    for i in 0..programs.len() {
        let others = programs
            .iter()
            .enumerate()
            .filter(|(j, _)| *j != i)
            .flat_map(|(_, p)| p.kernels().cloned())
            .collect();
        programs[i].see_other_kernels(others);
    }
    Ok(programs)
}

/// Every file's C++ and header. `need_main`: exactly one file must define `main`.
pub fn translate(programs: Vec<Program>, need_main: bool) -> Result<Translation, String> {
    let mut sources = Vec::new();
    let mut headers = Vec::new();
    let mut include_dirs: Vec<PathBuf> = Vec::new();
    for (i, program) in programs.iter().enumerate() {
        let cpp = brook_build::cpp(program).map_err(|d| d.render())?;
        let path = Path::new(&program.file_name);
        let file = path
            .file_name()
            .map_or("program".into(), |f| f.to_string_lossy());
        sources.push((format!("{i}-{file}.cpp"), cpp));
        if let Some((name, text)) = header(program) {
            headers.push((name, text));
        }
        let dir = path
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."))
            .to_path_buf();
        if !include_dirs.contains(&dir) {
            include_dirs.push(dir);
        }
    }
    if need_main {
        let mains: Vec<&str> = programs
            .iter()
            .filter(|p| p.has_main())
            .map(|p| p.file_name.as_str())
            .collect();
        match mains.len() {
            1 => {}
            0 => {
                let names: Vec<&str> = programs.iter().map(|p| p.file_name.as_str()).collect();
                return Err(format!(
                    "brcc: error: no `main` function in {}",
                    names.join(", ")
                ));
            }
            _ => {
                return Err(format!(
                    "brcc: error: `main` is defined in more than one file: {}",
                    mains.join(", ")
                ))
            }
        }
    }
    Ok(Translation {
        programs,
        sources,
        headers,
        include_dirs,
    })
}

/// `kernels.hpp` for a `kernels.br` that defines kernels or reductions.
pub fn header(program: &Program) -> Option<(String, String)> {
    if program.module.functions.is_empty() {
        return None;
    }
    let stem = Path::new(&program.file_name)
        .file_stem()?
        .to_string_lossy()
        .into_owned();
    let guard: String = format!("BRCC_{stem}_HPP")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect();
    Some((format!("{stem}.hpp"), brook_build::header(program, &guard)))
}
