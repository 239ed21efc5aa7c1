//! Brook kernel language: lexer, lalrpop grammar and type checking, producing the typed IR
//! of `brook-ir`.
//!
//! # Pipeline
//!
//! ```text
//! source ──lexer──▶ tokens ──parser──▶ ast::Program ──check──▶ brook_ir::Module
//! ```
//!
//! 1. **Lex** ([`lexer`]): a `logos` lexer produces C tokens and Brook keywords; a pre-pass
//!    expands `#define NAME value` macros (other `#` lines are ignored), turns identifiers that
//!    name types (built-ins such as `float4`, and `typedef`/`struct` names declared earlier in
//!    the file) into type-name tokens — which resolves C's typedef-name ambiguity in casts — and
//!    rejects bracket nesting deeper than [`lexer::MAX_NESTING`].
//! 2. **Parse** ([`parser`], `grammar.lalrpop`): an LR(1) grammar builds the [`ast`], every node
//!    with its [`Span`]; expression and statement trees deeper than `parser::MAX_TREE_DEPTH` are refused, so
//!    nothing later recurses too deeply.
//! 3. **Check** ([`check`]): names are resolved, every expression typed, implicit conversions
//!    made explicit, and Brook's rules enforced (write-only outputs, read-only inputs, `push`
//!    only on `vout`, reduction signatures, …). The result is the [`brook_ir::Module`] every back end
//!    consumes; [`pretty::pretty`] prints it.
//!
//! Errors from any stage are [`Diagnostics`], rendered with source lines and carets by
//! [`Diagnostics::render`]. Each stage reports what it can before the pipeline stops: all the
//! lexical errors; syntax errors with recovery at statement level (a bad statement is skipped
//! up to its `;`); and for the checker, every independent error (a bad statement is dropped, a
//! bad function does not stop the following ones, failed declarations don't cascade).
//!
//! ```
//! let module = brook_frontend::compile(
//!     "kernel void saxpy(float a, float4 x<>, float4 y<>, out float4 result<>) {\n\
//!          result = a*x + y;\n\
//!      }",
//!     "saxpy.br",
//! )
//! .unwrap();
//! assert_eq!(module.functions[0].name, "saxpy");
//! ```

#![warn(missing_docs)]

pub mod ast;
pub mod check;
pub mod lexer;
pub mod parser;
pub mod pretty;

pub use brook_ir::{Diagnostic, Diagnostics, Span};
pub use pretty::pretty;

/// Lexes and parses `source` into a syntax tree (no checking).
pub fn parse(source: &str, file_name: &str) -> Result<ast::Program, Diagnostics> {
    let mut diags = Vec::new();
    let toks = lexer::tokenize(source, &mut diags);
    if !diags.is_empty() {
        return Err(Diagnostics::new(file_name, source, diags));
    }
    parser::parse(source, toks).map_err(|d| Diagnostics::new(file_name, source, d))
}

/// The stack the front end runs on. Nesting is capped at [`lexer::MAX_NESTING`] levels, and
/// the checker's recursion over such a tree needs a few MiB in debug builds, more than a test
/// thread's default 2 MiB; only the touched part of this reservation is ever committed.
const COMPILER_STACK: usize = 64 << 20;

/// Compiles a Brook source file to the typed IR, or returns every error found.
///
/// Runs on a helper thread with a large stack (see `COMPILER_STACK`), so any input, however
/// deeply nested, gives a result or a "nesting too deep" error instead of a stack overflow.
pub fn compile(source: &str, file_name: &str) -> Result<brook_ir::Module, Diagnostics> {
    std::thread::scope(|scope| {
        let spawned = std::thread::Builder::new()
            .name("brook-frontend".into())
            .stack_size(COMPILER_STACK)
            .spawn_scoped(scope, || compile_on_this_thread(source, file_name));
        match spawned {
            Ok(handle) => match handle.join() {
                Ok(result) => result,
                Err(panic) => std::panic::resume_unwind(panic),
            },
            // No threads available (or out of resources): compile right here.
            Err(_) => compile_on_this_thread(source, file_name),
        }
    })
}

/// [`compile`] on the calling thread (which needs a few MiB of stack for deep programs).
pub fn compile_on_this_thread(
    source: &str,
    file_name: &str,
) -> Result<brook_ir::Module, Diagnostics> {
    let program = parse(source, file_name)?;
    let mut diags = Vec::new();
    let module = check::check(&program, &mut diags);
    if diags.is_empty() {
        Ok(module)
    } else {
        diags.sort_by_key(|d| (d.span.start, d.span.end));
        Err(Diagnostics::new(file_name, source, diags))
    }
}
