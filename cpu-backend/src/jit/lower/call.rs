//! Helper calls, inlined (the interpreter's `call`), and the built-ins that write their second
//! argument (`frexp`, `modf`).

use brook_ir::{Builtin, Expr, ExprKind, FunctionId, ParamClass, Scalar, Type};
use cranelift_codegen::ir::{types, InstBuilder, StackSlotData, StackSlotKind};

use super::effects::always_returns;
use super::num::{convert, per_lane, Num, Val};
use super::{no, Bind, Lower, Res, Scope, Store};
use crate::exec::frexp;
use crate::jit::runtime::Call;

impl<'m> Lower<'m, '_, '_, '_> {
    /// A call of a helper: arguments by value (gathers pass their stream, and a stream
    /// parameter passed on keeps its `indexof`), the body inlined with its own `return`
    /// target, `out` arguments that are variables copied back.
    pub fn call(&mut self, s: &mut Scope<'m>, fid: FunctionId, args: &'m [Expr]) -> Res<Val> {
        let module = self.module;
        let callee = module
            .functions
            .get(fid.0 as usize)
            .ok_or_else(|| super::Unjittable("unknown function".into()))?;
        if callee.params.len() != args.len() {
            return no("call with the wrong number of arguments");
        }
        if callee.ret != Type::Void && !always_returns(&callee.body) {
            return no(format!(
                "`{}` may end without returning its value",
                callee.name
            ));
        }
        let mut params = Vec::with_capacity(args.len());
        let mut positions = Vec::with_capacity(args.len());
        for (p, a) in callee.params.iter().zip(args) {
            let from = match a.kind {
                ExprKind::Param(q) => Some(q as usize),
                _ => None,
            };
            positions.push(from.and_then(|q| s.positions.get(q).copied().flatten()));
            if let ParamClass::Gather { .. } = p.class {
                match from.and_then(|q| s.params.get(q)) {
                    Some(Bind::Gather(g))
                        if g.fpe == crate::value::Value::flat_len(&p.ty, module) =>
                    {
                        params.push(Bind::Gather(g.clone()))
                    }
                    _ => return no("a gather argument that is not a gather parameter of its type"),
                }
                continue;
            }
            let v = self.eval(s, a)?;
            let v = self.coerce(v, &p.ty)?;
            params.push(Bind::Value(self.var(&p.ty, &v)?));
        }
        let mut locals = Vec::with_capacity(callee.locals.len());
        for l in &callee.locals {
            let z = self.zero(&l.ty)?;
            locals.push(self.var(&l.ty, &z)?);
        }
        let ret = match callee.ret {
            Type::Void => None,
            ref t => Some(self.declare(t)?),
        };
        let exit = self.b.create_block();
        let mut inner = Scope {
            func: callee,
            params,
            positions,
            locals,
            exit,
            ret: ret.clone(),
            loops: Vec::new(),
            vouts: Vec::new(),
            integral: brook_ir::Integral::of(callee),
        };
        self.block(&mut inner, &callee.body)?;
        self.b.ins().jump(exit, &[]);
        self.b.seal_block(exit);
        self.b.switch_to_block(exit);
        for (i, p) in callee.params.iter().enumerate() {
            if p.class != ParamClass::Out {
                continue;
            }
            let Bind::Value(v) = &inner.params[i] else {
                continue;
            };
            let target = match args[i].kind {
                ExprKind::Local(l) => s.locals.get(l.0 as usize).cloned(),
                ExprKind::Param(q) => match s.params.get(q as usize) {
                    Some(Bind::Value(t)) => Some(t.clone()),
                    _ => None,
                },
                _ => None,
            };
            if let Some(t) = target {
                let v = self.read(v);
                let v = self.coerce(v, &args[i].ty)?;
                self.write(&t, &v)?;
            }
        }
        Ok(match ret {
            Some(r) => self.read(&r),
            None => Val::Void,
        })
    }

    /// `frexp(x, e)` and `modf(x, ip)`: the second argument, a local or parameter, receives
    /// the exponent or the integer part. `modf` is inline (`trunc` and a subtraction, as
    /// `exec::builtin::modf`); `frexp` calls the interpreter's `frexp`.
    pub fn out_builtin(&mut self, s: &mut Scope<'m>, bi: Builtin, args: &'m [Expr]) -> Res<Val> {
        let [x, out] = args else {
            return no(format!("{}() takes two arguments", bi.name()));
        };
        let target: Store = match out.kind {
            ExprKind::Local(l) => s.locals.get(l.0 as usize).cloned(),
            ExprKind::Param(p) => match s.params.get(p as usize) {
                Some(Bind::Value(t)) => Some(t.clone()),
                _ => None,
            },
            _ => None,
        }
        .ok_or_else(|| super::Unjittable(format!("{}() into a non-variable", bi.name())))?;
        let v = self.eval(s, x)?;
        let x = v
            .num()
            .ok_or_else(|| super::Unjittable(format!("{}() of {v:?}", bi.name())))?;
        let x = convert(self.b, x, Scalar::Float);
        let (first, second) = if bi == Builtin::Modf {
            let ip = self.b.ins().trunc(x.v);
            let frac = self.b.ins().fsub(x.v, ip);
            (Num { v: frac, ..x }, Num { v: ip, ..x })
        } else {
            let slot = self.b.create_sized_stack_slot(StackSlotData::new(
                StackSlotKind::ExplicitSlot,
                4,
                2,
            ));
            let f = self
                .b
                .ins()
                .iconst(self.ptr, frexp as fn(f32) -> (f32, f32) as usize as i64);
            let split = self.imports.get(self.b.func, Call::Split);
            let ptr = self.ptr;
            let mut seconds = Vec::with_capacity(x.n as usize);
            let first = per_lane(self.b, Scalar::Float, &[x], |b, a| {
                let addr = b.ins().stack_addr(ptr, slot, 0);
                let call = b.ins().call(split, &[f, a[0], addr]);
                let r = b.inst_results(call)[0];
                seconds.push(b.ins().load(
                    types::F32,
                    cranelift_codegen::ir::MemFlagsData::trusted(),
                    addr,
                    0,
                ));
                r
            });
            let second = super::num::from_lanes(self.b, Scalar::Float, &seconds);
            (first, second)
        };
        let second = self.coerce(Val::Num(second), &out.ty)?;
        self.write(&target, &second)?;
        Ok(Val::Num(first))
    }
}
