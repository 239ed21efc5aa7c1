//! IR → batch instructions, once per kernel.
//!
//! Types are static, so everything the interpreter decides per element from a `Value`'s
//! variant (which operator loop, which conversion, which components a swizzle or member picks,
//! a constructor's layout) is decided here once, and the instructions only move lanes.
//! Helper calls are inlined (Brook has no recursion: a function only calls earlier ones).
//!
//! Each rule mirrors the interpreter's function of the same name (`coerce`, `binary`,
//! `construct`, …); where the interpreter would report malformed IR, compilation fails and the
//! kernel runs on the interpreter, which reports it. Registers of temporaries are recycled
//! after every statement, so a long kernel needs about as many registers as its widest
//! statement plus its locals.

mod expr;
mod place;
mod stmt;

use std::collections::HashMap;

use brook_frontend::ir::{Function, FunctionId, FunctionKind, Module, ParamClass, Scalar, Type};

use super::program::{BatchKernel, Block, Ins, Kind, ParamRegs, Reg, Val};
use crate::value::{Comp, Value};

/// Why a kernel cannot run on the batch engine (it then runs on the interpreter).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unbatchable(pub String);

pub(crate) type Res<T> = Result<T, Unbatchable>;

pub(crate) fn no<T>(why: impl Into<String>) -> Res<T> {
    Err(Unbatchable(why.into()))
}

/// How a parameter of the function being compiled is bound.
#[derive(Debug, Clone)]
pub(crate) enum Bind {
    Value(Val),
    /// A gather: the kernel parameter whose stream it reads.
    Gather(usize),
}

/// Where `indexof` of a parameter comes from: a kernel parameter's position, or zero (a
/// helper argument that is not a stream parameter).
#[derive(Debug, Clone, Copy)]
pub(crate) enum PosSrc {
    Kernel(usize),
    Zero,
}

/// The function being compiled (the kernel, or a helper being inlined).
pub(crate) struct Scope<'m> {
    pub func: &'m Function,
    pub params: Vec<Bind>,
    pub positions: Vec<PosSrc>,
    pub locals: Vec<Val>,
    /// Registers of the return value of a helper.
    pub ret: Option<Val>,
}

pub(crate) struct Compiler<'m> {
    pub module: &'m Module,
    /// Variable registers in use per kind, and the most ever used.
    used: [u32; 3],
    /// `used` when the innermost statement began: registers from here up are its
    /// temporaries, recycled when it ends.
    mark: [u32; 3],
    high: [u32; 3],
    consts: Vec<(Reg, Comp)>,
    const_ids: HashMap<(Kind, u32), Reg>,
    const_counts: [u32; 3],
    /// Position registers of every kernel parameter, and whether `indexof` reads them.
    pub positions: Vec<[Reg; 4]>,
    pub positions_used: Vec<bool>,
    /// Copy locals and parameters when read, because the statement being compiled writes
    /// them through an `out` argument in the middle of an expression.
    pub copy_reads: bool,
}

/// The scalar kind of a register holding a component of type `s`.
pub(crate) fn kind(s: Scalar) -> Kind {
    match s {
        Scalar::Float => Kind::F,
        Scalar::Int => Kind::I,
        Scalar::Bool => Kind::B,
    }
}

/// The kinds of the flattened components of `ty`, in `Value::flatten` order.
pub(crate) fn kinds(ty: &Type, module: &Module, out: &mut Vec<Kind>) -> Res<()> {
    match ty {
        Type::Void => {}
        Type::Scalar(s) => out.push(kind(*s)),
        Type::Vector(s, n) => out.extend(std::iter::repeat_n(kind(*s), *n as usize)),
        Type::Matrix { rows, cols } => out.extend(std::iter::repeat_n(
            Kind::F,
            *rows as usize * *cols as usize,
        )),
        Type::Struct(id) => {
            for m in &module
                .structs
                .get(id.0 as usize)
                .ok_or_else(|| Unbatchable("unknown struct".into()))?
                .members
            {
                kinds(&m.ty, module, out)?;
            }
        }
        Type::Array(elem, n) => {
            for _ in 0..*n {
                kinds(elem, module, out)?;
            }
        }
    }
    Ok(())
}

/// Components of a scalar (1) or vector; 0 for anything else (as `Value::width`).
pub(crate) fn width(ty: &Type) -> u8 {
    ty.width().unwrap_or(0)
}

impl<'m> Compiler<'m> {
    fn new(module: &'m Module) -> Compiler<'m> {
        Compiler {
            module,
            used: [0; 3],
            mark: [0; 3],
            high: [0; 3],
            consts: Vec::new(),
            const_ids: HashMap::new(),
            const_counts: [0; 3],
            positions: Vec::new(),
            positions_used: Vec::new(),
            copy_reads: false,
        }
    }

    /// A fresh variable register.
    pub fn reg(&mut self, k: Kind) -> Reg {
        let i = k.index();
        let id = self.used[i];
        self.used[i] += 1;
        self.high[i] = self.high[i].max(self.used[i]);
        Reg {
            kind: k,
            id,
            konst: false,
        }
    }

    /// Fresh registers for a value of `ty`.
    pub fn alloc(&mut self, ty: &Type) -> Res<Val> {
        let mut ks = Vec::new();
        kinds(ty, self.module, &mut ks)?;
        Ok(Val {
            ty: ty.clone(),
            regs: ks.into_iter().map(|k| self.reg(k)).collect(),
        })
    }

    /// The literal register holding `c` (one per distinct value).
    pub fn konst(&mut self, c: Comp) -> Reg {
        let (k, bits) = match c {
            Comp::F(x) => (Kind::F, x.to_bits()),
            Comp::I(i) => (Kind::I, i as u32),
            Comp::B(b) => (Kind::B, b as u32),
        };
        if let Some(r) = self.const_ids.get(&(k, bits)) {
            return *r;
        }
        let i = k.index();
        let r = Reg {
            kind: k,
            id: self.const_counts[i],
            konst: true,
        };
        self.const_counts[i] += 1;
        self.consts.push((r, c));
        self.const_ids.insert((k, bits), r);
        r
    }

    /// The zero value of `ty` in literal registers.
    pub fn zero(&mut self, ty: &Type) -> Res<Val> {
        let mut ks = Vec::new();
        kinds(ty, self.module, &mut ks)?;
        let regs = ks
            .into_iter()
            .map(|k| {
                self.konst(match k {
                    Kind::F => Comp::F(0.0),
                    Kind::I => Comp::I(0),
                    Kind::B => Comp::B(false),
                })
            })
            .collect();
        Ok(Val {
            ty: ty.clone(),
            regs,
        })
    }

    /// Runs `f` and then frees the temporaries it allocated (a statement's worth).
    pub fn scoped<T>(&mut self, f: impl FnOnce(&mut Self) -> Res<T>) -> Res<T> {
        let outer = std::mem::replace(&mut self.mark, self.used);
        let r = f(self);
        self.used = self.mark;
        self.mark = outer;
        r
    }

    /// Whether `r` is a temporary of the statement being compiled.
    pub fn is_temp(&self, r: Reg) -> bool {
        !r.konst && r.id >= self.mark[r.kind.index()]
    }

    /// Converts register `r` to kind `k` (C's rules), or returns it when already of that kind.
    pub fn conv(&mut self, r: Reg, k: Kind, out: &mut Block) -> Reg {
        if r.kind == k {
            return r;
        }
        let d = self.reg(k);
        out.push(Ins::Conv { d, a: r });
        d
    }
}

/// Compiles kernel `id` of `module` for the batch engine.
pub fn compile_kernel(module: &Module, id: FunctionId) -> Result<BatchKernel, Unbatchable> {
    let func = module
        .functions
        .get(id.0 as usize)
        .ok_or_else(|| Unbatchable("no such function".into()))?;
    if func.kind != FunctionKind::Kernel {
        return no("not a kernel");
    }
    let mut c = Compiler::new(module);
    let mut params = Vec::with_capacity(func.params.len());
    let mut binds = Vec::with_capacity(func.params.len());
    for (k, p) in func.params.iter().enumerate() {
        let position = [Kind::F; 4].map(|f| c.reg(f));
        c.positions.push(position);
        c.positions_used.push(false);
        let val = match p.class {
            ParamClass::Gather { .. } => {
                binds.push(Bind::Gather(k));
                Val {
                    ty: Type::Void,
                    regs: Vec::new(),
                }
            }
            ParamClass::Stream | ParamClass::Iter | ParamClass::Constant | ParamClass::Out => {
                let v = c.alloc(&p.ty)?;
                binds.push(Bind::Value(v.clone()));
                v
            }
            ParamClass::Reduce | ParamClass::Vout { .. } => {
                return no(format!("parameter `{}` of this class", p.name))
            }
        };
        params.push(ParamRegs {
            val,
            position: None,
        });
    }
    let locals = func
        .locals
        .iter()
        .map(|l| c.alloc(&l.ty))
        .collect::<Res<Vec<_>>>()?;
    let mut scope = Scope {
        func,
        params: binds,
        positions: (0..func.params.len()).map(PosSrc::Kernel).collect(),
        locals,
        ret: None,
    };
    let body = c.block(&mut scope, &func.body)?;
    for (k, p) in params.iter_mut().enumerate() {
        if c.positions_used[k] {
            p.position = Some(c.positions[k]);
        }
    }
    Ok(BatchKernel {
        body,
        params,
        consts: c.consts,
        vars: c.high.map(|n| n as usize),
        const_counts: c.const_counts.map(|n| n as usize),
    })
}

/// Whether a value of the type of `v` already has type `ty` (the interpreter's `fits`).
pub(crate) fn fits(v: &Type, ty: &Type) -> bool {
    match (v, ty) {
        (Type::Struct(_), Type::Struct(_)) | (Type::Array(..), Type::Array(..)) => true,
        _ => v == ty,
    }
}

/// The literal value `e` if it is one (a constant index).
pub(crate) fn literal(e: &brook_frontend::ir::Expr) -> Option<Value> {
    use brook_frontend::ir::ExprKind;
    match e.kind {
        ExprKind::Int(i) => Some(Value::int(i)),
        ExprKind::Float(x) => Some(Value::float(x)),
        ExprKind::Bool(b) => Some(Value::bool(b)),
        _ => None,
    }
}
