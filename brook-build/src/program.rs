//! A whole Brook program read once: its tokens, file-scope items, host stream declarations,
//! the kernel part and its checked IR. The C++ and Rust generators both start from here.

use std::collections::HashSet;

use brook_frontend::{Diagnostic, Diagnostics, Span};
use brook_ir::{Function, FunctionKind, Module};

use crate::items::{items, Item, ItemKind};
use crate::scan::{tokenize, Token};
use crate::split::split;
use crate::streams::{self, StreamDecl, BUILTIN_ELEMENT_TYPES};

/// A `.br` file split into its kernel part (checked by the front end) and its host part
/// (C++ with Brook's stream declarations), ready for the generators.
pub struct Program {
    /// The name errors are reported under.
    pub file_name: String,
    /// The whole file as read.
    pub source: String,
    /// Every token of the file (host and kernel parts alike).
    pub(crate) tokens: Vec<Token>,
    /// The file-scope items, in source order.
    pub(crate) items: Vec<Item>,
    /// Per item: whether the kernel compiler sees it.
    pub(crate) in_kernels: Vec<bool>,
    /// Per item: its stream declarations (host items only).
    pub(crate) stream_decls: Vec<Vec<StreamDecl>>,
    /// The kernel part, blanked elsewhere so lines and columns are the original ones.
    pub kernel_source: String,
    /// The kernel part's checked IR, what every back end compiles.
    pub module: Module,
    /// The kernels and reductions of the program's other files, which this file's host code
    /// may call through their headers: `brcc check` checks those calls too.
    pub(crate) other_kernels: Vec<Function>,
}

impl Program {
    /// Reads and checks a Brook program: the kernel part through the front end, the host part
    /// for well-formed stream declarations. Errors point at the original file's lines.
    pub fn parse(source: &str, file_name: &str) -> Result<Program, Diagnostics> {
        Program::parse_with_types(source, file_name, &[])
    }

    /// [`Program::parse`] for one file of several: `other_types` are element types the other
    /// files define (structs of their kernels), which this file's host code may declare
    /// streams of.
    pub fn parse_with_types(
        source: &str,
        file_name: &str,
        other_types: &[String],
    ) -> Result<Program, Diagnostics> {
        let error = |message: String, at: usize| {
            Diagnostics::new(
                file_name,
                source,
                vec![Diagnostic::error(message, Span::new(at, at + 1))],
            )
        };
        let tokens = tokenize(source).map_err(|e| error(e.message, e.at))?;
        let items = items(source, &tokens);
        let type_names: HashSet<&str> = items
            .iter()
            .flat_map(|i| match &i.kind {
                ItemKind::Type { names } => names.iter().map(String::as_str).collect(),
                _ => Vec::new(),
            })
            .chain(BUILTIN_ELEMENT_TYPES.iter().copied())
            .chain(other_types.iter().map(String::as_str))
            .collect();
        let is_type = |n: &str| type_names.contains(n);
        let mut stream_decls = Vec::with_capacity(items.len());
        for item in &items {
            stream_decls.push(match item.kind {
                ItemKind::Function { .. } | ItemKind::Global { .. } => {
                    streams::find(source, &tokens, item.tokens.clone(), &is_type)
                        .map_err(|e| error(e.message, e.at))?
                }
                _ => Vec::new(),
            });
        }
        // Element types of host streams: declared ones, `stream::create<T>(…)`'s here, and
        // (a struct no kernel uses) those the other files' host code names.
        let stream_types: HashSet<String> = stream_decls
            .iter()
            .flatten()
            .map(|d| d.type_name.clone())
            .chain(created_types(source, &tokens))
            .chain(other_types.iter().cloned())
            .collect();
        let parts = split(source, &tokens, &items, &stream_types);
        // Plain functions that kernels call moved to the kernel part: they have no host
        // stream declarations.
        for (decls, in_k) in stream_decls.iter_mut().zip(&parts.in_kernels) {
            if *in_k {
                decls.clear();
            }
        }
        let module = brook_frontend::compile(&parts.kernel_source, file_name)?;
        Ok(Program {
            file_name: file_name.to_string(),
            source: source.to_string(),
            tokens,
            items,
            in_kernels: parts.in_kernels,
            stream_decls,
            kernel_source: parts.kernel_source,
            module,
            other_kernels: Vec::new(),
        })
    }

    /// The kernels and reductions this file defines (what other files may call).
    pub fn kernels(&self) -> impl Iterator<Item = &Function> {
        self.module
            .functions
            .iter()
            .filter(|f| f.kind != FunctionKind::Helper)
    }

    /// The element types this file's host code makes streams of with `stream::create<T>`:
    /// another file that defines one gives it to its kernels, so the runtime knows it.
    pub fn created_types(&self) -> Vec<String> {
        created_types(&self.source, &self.tokens)
    }

    /// Makes the other files' kernels and reductions known to this file's host-call checks.
    pub fn see_other_kernels(&mut self, kernels: Vec<Function>) {
        self.other_kernels = kernels;
    }

    /// A diagnostic at byte range `span` of the original source.
    pub fn diagnostics(&self, items: Vec<Diagnostic>) -> Diagnostics {
        Diagnostics::new(&self.file_name, &self.source, items)
    }

    /// Whether the host code defines `main` (a file of kernels only has none).
    pub fn has_main(&self) -> bool {
        self.host_items()
            .any(|(_, item)| matches!(&item.kind, ItemKind::Function { name } if name == "main"))
    }

    /// The types (structs, typedefs) the kernel part defines: what kernel signatures and
    /// other files' streams may name.
    pub fn kernel_types(&self) -> Vec<String> {
        self.items
            .iter()
            .zip(&self.in_kernels)
            .filter(|(_, k)| **k)
            .flat_map(|(item, _)| match &item.kind {
                ItemKind::Type { names } => names.clone(),
                _ => Vec::new(),
            })
            .collect()
    }

    /// Host items: not seen by the kernel compiler, and not preprocessor lines or kernel
    /// prototypes.
    pub fn host_items(&self) -> impl Iterator<Item = (usize, &Item)> {
        self.items.iter().enumerate().filter(|(i, item)| {
            !self.in_kernels[*i]
                && !matches!(item.kind, ItemKind::Directive | ItemKind::Prototype { .. })
        })
    }
}

/// The `T` of every `create<T>` among `toks`.
fn created_types(src: &str, toks: &[Token]) -> Vec<String> {
    toks.windows(4)
        .filter(|w| w[0].is(src, "create") && w[1].is(src, "<") && w[3].is(src, ">"))
        .map(|w| w[2].text(src).to_string())
        .collect()
}
