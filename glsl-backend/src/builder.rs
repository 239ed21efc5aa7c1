//! The one builder of every generated shader: kernel and reduction passes, the scatter and
//! gather-op vertex and fragment shaders, the vout scan and compaction, the write mask.
//!
//! Each declares its uniforms and samplers here, which records how the executor binds them
//! (texture unit `k` is the `k`-th sampler declared, each uniform has its [`UniformValue`]),
//! asks the prelude for the helpers it calls — among them the one addressing vocabulary,
//! `brook_texel_at` and `brook_linear_at` — and gets its text laid out the same way: header,
//! title, structs, declarations, outputs, helpers, accessors, functions, `main`.

use brook_ir::Module;

use crate::pass::{MemberRef, SamplerSlot, UniformSlot, UniformValue};
use crate::prelude::Prelude;
use crate::types::struct_declarations;
use crate::variant::Profile;

/// Which pipeline stage a shader is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    Vertex,
    /// A fragment shader; its `main` starts with `brook_fragment`, the texel it shades.
    Fragment,
}

/// One shader's text, built up part by part, with its bindings.
pub struct ShaderBuilder<'a> {
    stage: Stage,
    /// The Brook module whose structs the shader uses (none for built-in shaders).
    pub module: Option<&'a Module>,
    declarations: String,
    /// Functions that call prelude helpers (gather accessors), so they follow them.
    pub accessors: String,
    /// Statements at the start of `main` (struct constants rebuilt from their members).
    pub setup: String,
    pub samplers: Vec<SamplerSlot>,
    pub uniforms: Vec<UniformSlot>,
    /// Samplers declared by another stage of the same program (the first ones), not in this
    /// text.
    inherited: usize,
    /// The helpers the text calls.
    pub prelude: Prelude,
}

impl<'a> ShaderBuilder<'a> {
    pub fn new(stage: Stage, module: Option<&'a Module>) -> ShaderBuilder<'a> {
        ShaderBuilder {
            stage,
            module,
            declarations: String::new(),
            accessors: String::new(),
            setup: String::new(),
            samplers: Vec::new(),
            uniforms: Vec::new(),
            inherited: 0,
            prelude: Prelude::default(),
        }
    }

    /// This shader linked after another stage of one program (a scatter's fragment shader
    /// after its vertex shader): the other's samplers keep their units and its uniforms their
    /// slots, and this shader's come after them.
    pub fn after(mut self, samplers: &[SamplerSlot], uniforms: &[UniformSlot]) -> Self {
        self.samplers = samplers.to_vec();
        self.uniforms = uniforms.to_vec();
        self.inherited = samplers.len();
        self
    }

    /// A uniform of GLSL type `ty` that the executor sets to `value`; `what` is its comment.
    /// One already declared under `name` is kept.
    pub fn uniform(&mut self, ty: &str, name: &str, value: UniformValue, what: &str) {
        if self.uniforms.iter().any(|u| u.uniform == name) {
            return;
        }
        self.declarations
            .push_str(&format!("uniform {ty} {name}; // {what}\n"));
        self.uniforms.push(UniformSlot {
            uniform: name.to_string(),
            value,
        });
    }

    /// A sampler reading the next texture unit, which the executor binds to the texture of
    /// `source`; returns the unit. A sampler of that source already declared here is reused.
    pub fn sampler(&mut self, name: &str, source: MemberRef, what: &str) -> u32 {
        let declared = &self.samplers[self.inherited..];
        if let Some(unit) = declared.iter().position(|s| s.source == source) {
            return (self.inherited + unit) as u32;
        }
        let precision = match self.stage {
            Stage::Vertex => "highp ",
            Stage::Fragment => "",
        };
        let comment = if what.is_empty() {
            String::new()
        } else {
            format!(" // {what}")
        };
        self.declarations
            .push_str(&format!("uniform {precision}sampler2D {name};{comment}\n"));
        self.samplers.push(SamplerSlot {
            uniform: name.to_string(),
            source,
        });
        (self.samplers.len() - 1) as u32
    }

    /// Any other declaration (a global, a flat varying), one line.
    pub fn declare(&mut self, line: &str) {
        self.declarations.push_str(line);
        self.declarations.push('\n');
    }

    /// The complete text: `title` is its first comment, `outputs` its output declarations
    /// (colour outputs, varyings), `functions` the lowered Brook functions, `body` the
    /// statements of `main` after the setup.
    pub fn text(
        &self,
        profile: Profile,
        title: &str,
        outputs: &str,
        functions: &str,
        body: &str,
    ) -> String {
        let mut text = String::from(profile.header());
        text.push_str(&format!("// {title}\n"));
        if let Some(module) = self.module {
            text.push_str(&struct_declarations(module));
        }
        text.push_str(&self.declarations);
        text.push_str(outputs);
        text.push_str(&self.prelude.source());
        text.push_str(&self.accessors);
        text.push_str(functions);
        text.push_str("void main() {\n");
        if self.stage == Stage::Fragment {
            text.push_str("    ivec2 brook_fragment = ivec2(gl_FragCoord.xy);\n");
        }
        text.push_str(&self.setup);
        text.push_str(body);
        text.push_str("}\n");
        text
    }
}
