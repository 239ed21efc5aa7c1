//! A small vocabulary for writing naga IR by hand: one method per expression or statement
//! shape the back end uses, so the lowering reads like the shader it builds.
//!
//! naga's rules that this type takes care of:
//! - Every expression lives in the function's arena; one that is computed (not a literal,
//!   argument, variable or zero value) must be covered by a `Statement::Emit` before it is
//!   used. [`FnBuilder::add`] emits each such expression as it is appended, into the block
//!   being built, so an expression is always usable by the statements that follow it in that
//!   block (and in blocks nested inside it).
//! - Statements go into the innermost open block; `if_`, `loop_` open nested blocks and close
//!   them in order.
//! - Every expression and statement carries a span: the Brook source range being lowered
//!   ([`FnBuilder::span`]), so a validation error points back at the Brook line.

use naga::{
    AddressSpace, ArraySize, BinaryOperator, Block, Expression, Function, FunctionArgument, Handle,
    Literal, LocalVariable, MathFunction, Scalar, ScalarKind, Span, Statement, SwizzleComponent,
    Type, TypeInner, UnaryOperator, VectorSize,
};

/// The types of one module, each inserted once, with their memory layouts.
#[derive(Default)]
pub struct Types {
    pub arena: naga::UniqueArena<Type>,
    layouter: naga::proc::Layouter,
    no_constants: naga::Arena<naga::Constant>,
    no_overrides: naga::Arena<naga::Override>,
    no_expressions: naga::Arena<Expression>,
}

impl Types {
    /// Size and alignment of `ty`, as naga lays it out.
    pub fn layout(&mut self, ty: Handle<Type>) -> naga::proc::TypeLayout {
        self.layouter
            .update(naga::proc::GlobalCtx {
                types: &self.arena,
                constants: &self.no_constants,
                overrides: &self.no_overrides,
                global_expressions: &self.no_expressions,
            })
            .expect("Brook's types have layouts");
        self.layouter[ty]
    }

    /// An array of `len` (0: runtime-sized) `base`s with naga's stride for `base`.
    pub fn array_of(&mut self, base: Handle<Type>, len: u32) -> Handle<Type> {
        let l = self.layout(base);
        let stride = l.alignment.round_up(l.size);
        if len == 0 {
            self.runtime_array(base, stride)
        } else {
            self.array(base, len, stride)
        }
    }

    pub fn get(&mut self, inner: TypeInner) -> Handle<Type> {
        self.arena
            .insert(Type { name: None, inner }, Span::UNDEFINED)
    }

    pub fn named(&mut self, name: &str, inner: TypeInner) -> Handle<Type> {
        self.arena.insert(
            Type {
                name: Some(name.to_string()),
                inner,
            },
            Span::UNDEFINED,
        )
    }

    pub fn scalar(&mut self, s: Scalar) -> Handle<Type> {
        self.get(TypeInner::Scalar(s))
    }

    pub fn f32(&mut self) -> Handle<Type> {
        self.scalar(Scalar::F32)
    }

    pub fn i32(&mut self) -> Handle<Type> {
        self.scalar(Scalar::I32)
    }

    pub fn u32(&mut self) -> Handle<Type> {
        self.scalar(Scalar::U32)
    }

    pub fn bool(&mut self) -> Handle<Type> {
        self.scalar(Scalar::BOOL)
    }

    pub fn vector(&mut self, s: Scalar, n: u8) -> Handle<Type> {
        match vector_size(n) {
            Some(size) => self.get(TypeInner::Vector { size, scalar: s }),
            None => self.scalar(s),
        }
    }

    /// A fixed-size array with naga's stride for `base`.
    pub fn array(&mut self, base: Handle<Type>, len: u32, stride: u32) -> Handle<Type> {
        self.get(TypeInner::Array {
            base,
            size: ArraySize::Constant(std::num::NonZeroU32::new(len.max(1)).expect("non-zero")),
            stride,
        })
    }

    /// A runtime-sized array (the last member of a storage buffer).
    pub fn runtime_array(&mut self, base: Handle<Type>, stride: u32) -> Handle<Type> {
        self.get(TypeInner::Array {
            base,
            size: ArraySize::Dynamic,
            stride,
        })
    }

    pub fn atomic(&mut self, s: Scalar) -> Handle<Type> {
        self.get(TypeInner::Atomic(s))
    }

    /// The result of `atomicCompareExchangeWeak` on a `u32`: naga's predeclared struct
    /// (`ShaderModule::finish` registers it as such).
    pub fn compare_exchange_result(&mut self) -> Handle<Type> {
        let old = self.u32();
        let exchanged = self.bool();
        let name =
            naga::PredeclaredType::AtomicCompareExchangeWeakResult(Scalar::U32).struct_name();
        self.named(
            &name,
            TypeInner::Struct {
                members: vec![
                    naga::StructMember {
                        name: Some("old_value".into()),
                        ty: old,
                        binding: None,
                        offset: 0,
                    },
                    naga::StructMember {
                        name: Some("exchanged".into()),
                        ty: exchanged,
                        binding: None,
                        offset: 4,
                    },
                ],
                span: 8,
            },
        )
    }
}

/// `2..=4` as naga's vector size; `None` for 1 (a scalar).
pub fn vector_size(n: u8) -> Option<VectorSize> {
    match n {
        2 => Some(VectorSize::Bi),
        3 => Some(VectorSize::Tri),
        4 => Some(VectorSize::Quad),
        _ => None,
    }
}

pub const COMPONENTS: [SwizzleComponent; 4] = [
    SwizzleComponent::X,
    SwizzleComponent::Y,
    SwizzleComponent::Z,
    SwizzleComponent::W,
];

/// One function under construction (see the module documentation).
pub struct FnBuilder<'t> {
    /// The module's types, which new expressions may need.
    pub types: &'t mut Types,
    pub function: Function,
    blocks: Vec<Block>,
    /// The span every new expression and statement gets.
    pub span: Span,
}

impl<'t> FnBuilder<'t> {
    pub fn new(types: &'t mut Types, name: &str) -> FnBuilder<'t> {
        FnBuilder {
            types,
            function: Function {
                name: Some(name.to_string()),
                ..Function::default()
            },
            blocks: vec![Block::new()],
            span: Span::UNDEFINED,
        }
    }

    /// The finished function.
    pub fn finish(mut self) -> Function {
        assert_eq!(self.blocks.len(), 1, "every nested block was closed");
        self.function.body = self.blocks.pop().expect("the body block");
        self.function
    }

    /// Declares an argument and returns its value expression.
    pub fn argument(&mut self, name: &str, ty: Handle<Type>) -> Handle<Expression> {
        let index = self.function.arguments.len() as u32;
        self.function.arguments.push(FunctionArgument {
            name: Some(name.to_string()),
            ty,
            binding: None,
        });
        self.add(Expression::FunctionArgument(index))
    }

    /// Appends an expression, emitting it when naga requires that.
    pub fn add(&mut self, e: Expression) -> Handle<Expression> {
        let emitted = !e.needs_pre_emit()
            && !matches!(
                e,
                Expression::CallResult(_)
                    | Expression::AtomicResult { .. }
                    | Expression::WorkGroupUniformLoadResult { .. }
            );
        let h = self.function.expressions.append(e, self.span);
        if emitted {
            self.stmt(Statement::Emit(naga::Range::new_from_bounds(h, h)));
        }
        h
    }

    /// Appends a statement to the innermost open block.
    pub fn stmt(&mut self, s: Statement) {
        let span = self.span;
        self.blocks
            .last_mut()
            .expect("a block is open")
            .push(s, span);
    }

    /// Opens a nested block; statements go there until [`FnBuilder::close_block`].
    pub fn open_block(&mut self) {
        self.blocks.push(Block::new());
    }

    /// Closes the innermost block and returns it.
    pub fn close_block(&mut self) -> Block {
        assert!(self.blocks.len() > 1, "the body block stays open");
        self.blocks.pop().expect("a nested block")
    }

    /// Runs `build` with a fresh block open and returns that block.
    pub fn block(&mut self, build: impl FnOnce(&mut Self)) -> Block {
        self.blocks.push(Block::new());
        build(self);
        self.blocks.pop().expect("the block opened above")
    }

    /// Like [`FnBuilder::block`] for a builder that can fail.
    pub fn try_block<E>(
        &mut self,
        build: impl FnOnce(&mut Self) -> Result<(), E>,
    ) -> Result<Block, E> {
        self.blocks.push(Block::new());
        let r = build(self);
        let b = self.blocks.pop().expect("the block opened above");
        r.map(|()| b)
    }

    // Literals and variables.

    pub fn f32(&mut self, v: f32) -> Handle<Expression> {
        self.add(Expression::Literal(Literal::F32(v)))
    }

    pub fn i32(&mut self, v: i32) -> Handle<Expression> {
        self.add(Expression::Literal(Literal::I32(v)))
    }

    pub fn u32(&mut self, v: u32) -> Handle<Expression> {
        self.add(Expression::Literal(Literal::U32(v)))
    }

    pub fn bool(&mut self, v: bool) -> Handle<Expression> {
        self.add(Expression::Literal(Literal::Bool(v)))
    }

    pub fn zero(&mut self, ty: Handle<Type>) -> Handle<Expression> {
        self.add(Expression::ZeroValue(ty))
    }

    /// A new function-local variable, zero-initialised; returns its pointer.
    pub fn local(&mut self, name: &str, ty: Handle<Type>) -> Handle<Expression> {
        let v = self.function.local_variables.append(
            LocalVariable {
                name: Some(name.to_string()),
                ty,
                init: None,
            },
            self.span,
        );
        let p = self.add(Expression::LocalVariable(v));
        let z = self.zero(ty);
        self.store(p, z);
        p
    }

    /// A new local holding `value` (of type `ty`); returns its pointer.
    pub fn local_with(
        &mut self,
        name: &str,
        ty: Handle<Type>,
        value: Handle<Expression>,
    ) -> Handle<Expression> {
        let v = self.function.local_variables.append(
            LocalVariable {
                name: Some(name.to_string()),
                ty,
                init: None,
            },
            self.span,
        );
        let p = self.add(Expression::LocalVariable(v));
        self.store(p, value);
        p
    }

    pub fn global(&mut self, g: Handle<naga::GlobalVariable>) -> Handle<Expression> {
        self.add(Expression::GlobalVariable(g))
    }

    pub fn load(&mut self, pointer: Handle<Expression>) -> Handle<Expression> {
        self.add(Expression::Load { pointer })
    }

    pub fn store(&mut self, pointer: Handle<Expression>, value: Handle<Expression>) {
        self.stmt(Statement::Store { pointer, value });
    }

    /// Names an expression in the printed WGSL (`let name = …`).
    pub fn name(&mut self, e: Handle<Expression>, name: &str) {
        self.function.named_expressions.insert(e, name.to_string());
    }

    // Operators.

    pub fn bin(
        &mut self,
        op: BinaryOperator,
        left: Handle<Expression>,
        right: Handle<Expression>,
    ) -> Handle<Expression> {
        self.add(Expression::Binary { op, left, right })
    }

    pub fn un(&mut self, op: UnaryOperator, expr: Handle<Expression>) -> Handle<Expression> {
        self.add(Expression::Unary { op, expr })
    }

    pub fn select(
        &mut self,
        condition: Handle<Expression>,
        accept: Handle<Expression>,
        reject: Handle<Expression>,
    ) -> Handle<Expression> {
        self.add(Expression::Select {
            condition,
            accept,
            reject,
        })
    }

    pub fn math(&mut self, fun: MathFunction, args: &[Handle<Expression>]) -> Handle<Expression> {
        self.add(Expression::Math {
            fun,
            arg: args[0],
            arg1: args.get(1).copied(),
            arg2: args.get(2).copied(),
            arg3: args.get(3).copied(),
        })
    }

    /// A value conversion to `kind` (32-bit; `Bool` for booleans).
    pub fn convert(&mut self, expr: Handle<Expression>, kind: ScalarKind) -> Handle<Expression> {
        let width = if kind == ScalarKind::Bool { 1 } else { 4 };
        self.add(Expression::As {
            expr,
            kind,
            convert: Some(width),
        })
    }

    /// A reinterpretation of the bits as `kind` (32-bit).
    pub fn bitcast(&mut self, expr: Handle<Expression>, kind: ScalarKind) -> Handle<Expression> {
        self.add(Expression::As {
            expr,
            kind,
            convert: None,
        })
    }

    pub fn index(&mut self, base: Handle<Expression>, index: u32) -> Handle<Expression> {
        self.add(Expression::AccessIndex { base, index })
    }

    pub fn access(
        &mut self,
        base: Handle<Expression>,
        index: Handle<Expression>,
    ) -> Handle<Expression> {
        self.add(Expression::Access { base, index })
    }

    pub fn compose(
        &mut self,
        ty: Handle<Type>,
        components: Vec<Handle<Expression>>,
    ) -> Handle<Expression> {
        self.add(Expression::Compose { ty, components })
    }

    /// `value` repeated `n` times (`n` of 1 gives `value`).
    pub fn splat(&mut self, value: Handle<Expression>, n: u8) -> Handle<Expression> {
        match vector_size(n) {
            Some(size) => self.add(Expression::Splat { size, value }),
            None => value,
        }
    }

    /// Components `pattern` of a vector: a scalar for one component, else a vector.
    pub fn swizzle(&mut self, vector: Handle<Expression>, pattern: &[u8]) -> Handle<Expression> {
        if let [one] = pattern {
            return self.index(vector, u32::from(*one));
        }
        let mut p = [SwizzleComponent::X; 4];
        for (k, c) in pattern.iter().enumerate() {
            p[k] = COMPONENTS[*c as usize];
        }
        self.add(Expression::Swizzle {
            size: vector_size(pattern.len() as u8).expect("2 to 4 components"),
            vector,
            pattern: p,
        })
    }

    // Shorthands for the operators used most.

    pub fn add_(&mut self, a: Handle<Expression>, b: Handle<Expression>) -> Handle<Expression> {
        self.bin(BinaryOperator::Add, a, b)
    }

    pub fn sub(&mut self, a: Handle<Expression>, b: Handle<Expression>) -> Handle<Expression> {
        self.bin(BinaryOperator::Subtract, a, b)
    }

    pub fn mul(&mut self, a: Handle<Expression>, b: Handle<Expression>) -> Handle<Expression> {
        self.bin(BinaryOperator::Multiply, a, b)
    }

    pub fn div(&mut self, a: Handle<Expression>, b: Handle<Expression>) -> Handle<Expression> {
        self.bin(BinaryOperator::Divide, a, b)
    }

    pub fn rem(&mut self, a: Handle<Expression>, b: Handle<Expression>) -> Handle<Expression> {
        self.bin(BinaryOperator::Modulo, a, b)
    }

    pub fn lt(&mut self, a: Handle<Expression>, b: Handle<Expression>) -> Handle<Expression> {
        self.bin(BinaryOperator::Less, a, b)
    }

    pub fn le(&mut self, a: Handle<Expression>, b: Handle<Expression>) -> Handle<Expression> {
        self.bin(BinaryOperator::LessEqual, a, b)
    }

    pub fn ge(&mut self, a: Handle<Expression>, b: Handle<Expression>) -> Handle<Expression> {
        self.bin(BinaryOperator::GreaterEqual, a, b)
    }

    pub fn gt(&mut self, a: Handle<Expression>, b: Handle<Expression>) -> Handle<Expression> {
        self.bin(BinaryOperator::Greater, a, b)
    }

    pub fn eq(&mut self, a: Handle<Expression>, b: Handle<Expression>) -> Handle<Expression> {
        self.bin(BinaryOperator::Equal, a, b)
    }

    pub fn ne(&mut self, a: Handle<Expression>, b: Handle<Expression>) -> Handle<Expression> {
        self.bin(BinaryOperator::NotEqual, a, b)
    }

    pub fn and(&mut self, a: Handle<Expression>, b: Handle<Expression>) -> Handle<Expression> {
        self.bin(BinaryOperator::LogicalAnd, a, b)
    }

    pub fn or(&mut self, a: Handle<Expression>, b: Handle<Expression>) -> Handle<Expression> {
        self.bin(BinaryOperator::LogicalOr, a, b)
    }

    pub fn not(&mut self, a: Handle<Expression>) -> Handle<Expression> {
        self.un(UnaryOperator::LogicalNot, a)
    }

    pub fn min(&mut self, a: Handle<Expression>, b: Handle<Expression>) -> Handle<Expression> {
        self.math(MathFunction::Min, &[a, b])
    }

    pub fn max(&mut self, a: Handle<Expression>, b: Handle<Expression>) -> Handle<Expression> {
        self.math(MathFunction::Max, &[a, b])
    }

    /// `*pointer = *pointer + value`.
    pub fn increment(&mut self, pointer: Handle<Expression>, value: Handle<Expression>) {
        let old = self.load(pointer);
        let new = self.add_(old, value);
        self.store(pointer, new);
    }

    // Control flow.

    pub fn if_(
        &mut self,
        condition: Handle<Expression>,
        accept: impl FnOnce(&mut Self),
        reject: impl FnOnce(&mut Self),
    ) {
        let accept = self.block(accept);
        let reject = self.block(reject);
        self.stmt(Statement::If {
            condition,
            accept,
            reject,
        });
    }

    /// `if (condition) { then }`.
    pub fn when(&mut self, condition: Handle<Expression>, then: impl FnOnce(&mut Self)) {
        self.if_(condition, then, |_| {});
    }

    /// `loop { body } continuing { continuing } break if …`.
    pub fn loop_(&mut self, body: Block, continuing: Block, break_if: Option<Handle<Expression>>) {
        self.stmt(Statement::Loop {
            body,
            continuing,
            break_if,
        });
    }

    /// `for (var i = from; i < to; i += step) { body(i) }` over `u32`s.
    pub fn for_u32(
        &mut self,
        name: &str,
        from: Handle<Expression>,
        to: Handle<Expression>,
        step: u32,
        body: impl FnOnce(&mut Self, Handle<Expression>),
    ) {
        let u32_ty = self.types.u32();
        let i = self.local_with(name, u32_ty, from);
        let body = self.block(|b| {
            let v = b.load(i);
            let done = b.ge(v, to);
            b.when(done, |b| b.stmt(Statement::Break));
            body(b, v);
        });
        let continuing = self.block(|b| {
            let s = b.u32(step);
            b.increment(i, s);
        });
        self.loop_(body, continuing, None);
    }

    pub fn ret(&mut self, value: Option<Handle<Expression>>) {
        self.stmt(Statement::Return { value });
    }

    pub fn call(
        &mut self,
        function: Handle<Function>,
        arguments: Vec<Handle<Expression>>,
        returns: bool,
    ) -> Option<Handle<Expression>> {
        let result = returns.then(|| self.add(Expression::CallResult(function)));
        self.stmt(Statement::Call {
            function,
            arguments,
            result,
        });
        result
    }

    /// A workgroup barrier (and memory barrier on workgroup memory).
    pub fn workgroup_barrier(&mut self) {
        self.stmt(Statement::ControlBarrier(naga::Barrier::WORK_GROUP));
    }

    /// `atomicOp(pointer, value)`, returning the old value.
    pub fn atomic(
        &mut self,
        fun: naga::AtomicFunction,
        pointer: Handle<Expression>,
        value: Handle<Expression>,
        ty: Handle<Type>,
    ) -> Handle<Expression> {
        let result = self.add(Expression::AtomicResult {
            ty,
            comparison: false,
        });
        self.stmt(Statement::Atomic {
            pointer,
            fun,
            value,
            result: Some(result),
        });
        result
    }
}

/// The address space of a read-only or read-write storage buffer.
pub fn storage(writable: bool) -> AddressSpace {
    AddressSpace::Storage {
        access: if writable {
            naga::StorageAccess::LOAD | naga::StorageAccess::STORE
        } else {
            naga::StorageAccess::LOAD
        },
    }
}
