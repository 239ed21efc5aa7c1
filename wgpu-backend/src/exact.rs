//! IEEE arithmetic on Vulkan, special values included. Without it a Vulkan driver may apply
//! identities that hold only for finite numbers, and Mesa's does: `x * 0` → 0 (NaN for an
//! infinite or NaN `x`), `x - x` → 0, `x + 0` → `x` (−0 + 0 is +0), `a * b + c` fused. SPIR-V
//! can forbid them, but wgpu's own SPIR-V writer cannot be asked to, so on an adapter that
//! takes SPIR-V as it is (`Features::PASSTHROUGH_SHADERS`) the backend writes each module
//! with naga's SPIR-V writer itself and marks it:
//! - every float arithmetic result `NoContraction` (core SPIR-V, GLSL's `precise`): no
//!   reassociation, no fusing, no identity that is not exact;
//! - the entry point `SignedZeroInfNanPreserve` for 32-bit floats where the device says it
//!   honours that (Vulkan 1.2's `shaderSignedZeroInfNanPreserveFloat32`): NaN, ±inf and the
//!   sign of zero are kept, which is what stops `x * 0` → 0 (Mesa applies that one even to
//!   `NoContraction` operations unless the mode is set);
//! - the entry point `DenormPreserve` for 32-bit floats where the device can keep denormals
//!   (`shaderDenormPreserveFloat32`), as the CPU backend does: a driver may flush them to
//!   zero otherwise. Neither lavapipe nor NVIDIA's driver offers the mode (lavapipe keeps them
//!   anyway, NVIDIA flushes them, as `docs/limits.md` says); lavapipe accepts modules marked
//!   with it, which is how the marking was checked.
//!
//! Elsewhere (wgpu's GL backend, an application's device without the feature) modules go to
//! wgpu as naga IR and the driver may still apply the identities: `docs/semantics.md`, "Special
//! values", says where.
//!
//! Workgroup memory (the reduction tree's and the vout scan's) is zero-initialised the way wgpu
//! does it for its own modules: by the driver (`VK_KHR_zero_initialize_workgroup_memory`, core
//! in Vulkan 1.3, which wgpu enables wherever the device has it) where it can, else by naga's
//! polyfill. The polyfill (invocation 0 stores the zero array, then a barrier, at the top of
//! every workgroup) made lavapipe's reductions 2–4× slower than the same WGSL through wgpu
//! (issue 34: SASUM, SGEMV, matvec; `docs/performance.md`, "Reductions at hand-written speed").

use naga::back::spv;

use crate::pipeline::Bounds;

/// How this device gets exact SPIR-V.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExactSpirv {
    /// The SPIR-V version written (the device's, as wgpu picks it).
    lang_version: (u8, u8),
    /// Whether the entry point gets `SignedZeroInfNanPreserve` (the device honours it).
    preserve: bool,
    /// Whether the entry point gets `DenormPreserve` (the device honours it).
    denormals: bool,
    /// Whether the driver zero-initialises workgroup memory itself (the device has
    /// `shaderZeroInitializeWorkgroupMemory`, which wgpu then enables), so naga need not.
    native_zero: bool,
}

/// SPIR-V opcodes and operands this module reads or writes.
mod op {
    pub const CAPABILITY: u16 = 17;
    pub const ENTRY_POINT: u16 = 15;
    pub const EXECUTION_MODE: u16 = 16;
    pub const DECORATE: u16 = 71;
    pub const NO_CONTRACTION: u32 = 42;
    pub const SIGNED_ZERO_INF_NAN_PRESERVE: u32 = 4461;
    pub const SIGNED_ZERO_INF_NAN_PRESERVE_CAPABILITY: u32 = 4466;
    pub const DENORM_PRESERVE: u32 = 4459;
    pub const DENORM_PRESERVE_CAPABILITY: u32 = 4464;
    /// OpTypeVoid ..= OpTypeForwardPointer: the first of them ends the annotations.
    pub const TYPES: std::ops::RangeInclusive<u16> = 19..=39;
    /// The float arithmetic whose results are marked: OpFNegate, OpFAdd, OpFSub, OpFMul,
    /// OpFDiv, OpFRem, OpFMod, OpVectorTimesScalar, OpMatrixTimesScalar,
    /// OpVectorTimesMatrix, OpMatrixTimesVector, OpMatrixTimesMatrix, OpOuterProduct, OpDot.
    pub const FLOAT_ARITHMETIC: [u16; 14] = [
        127, 129, 131, 133, 136, 140, 141, 142, 143, 144, 145, 146, 147, 148,
    ];
}

impl ExactSpirv {
    /// What `adapter` allows: `None` unless it is a Vulkan 1.2 adapter with passthrough
    /// shaders (which the device must then be created with).
    pub fn probe(adapter: &wgpu::Adapter) -> Option<ExactSpirv> {
        if adapter.get_info().backend != wgpu::Backend::Vulkan
            || !adapter
                .features()
                .contains(wgpu::Features::PASSTHROUGH_SHADERS)
        {
            return None;
        }
        // SAFETY: the raw handles are only used for a properties query while `hal` lives.
        let hal = unsafe { adapter.as_hal::<wgpu::hal::api::Vulkan>() }?;
        let instance = hal.shared_instance();
        let device_version = hal.physical_device_capabilities().properties().api_version;
        let version_1_2 = ash::vk::API_VERSION_1_2;
        if instance.instance_api_version() < version_1_2 || device_version < version_1_2 {
            return None;
        }
        let mut controls = ash::vk::PhysicalDeviceFloatControlsProperties::default();
        let mut properties = ash::vk::PhysicalDeviceProperties2::default().push_next(&mut controls);
        // SAFETY: a Vulkan 1.2 instance and device (checked above), and a valid chain.
        unsafe {
            instance
                .raw_instance()
                .get_physical_device_properties2(hal.raw_physical_device(), &mut properties)
        };
        let api = |v: u32| (ash::vk::api_version_major(v), ash::vk::api_version_minor(v));
        // wgpu-hal asks for the feature (and enables it) under the same condition.
        let zero_init_known = api(device_version) >= (1, 3)
            || (hal.physical_device_capabilities())
                .supports_extension(ash::khr::zero_initialize_workgroup_memory::NAME);
        let mut zero_init = ash::vk::PhysicalDeviceZeroInitializeWorkgroupMemoryFeatures::default();
        if zero_init_known {
            let mut features =
                ash::vk::PhysicalDeviceFeatures2::default().push_next(&mut zero_init);
            // SAFETY: as above; the struct is known to a 1.3 device or one with the extension.
            unsafe {
                instance
                    .raw_instance()
                    .get_physical_device_features2(hal.raw_physical_device(), &mut features)
            };
        }
        let lang_version = if api(device_version) >= (1, 3) {
            (1, 6)
        } else {
            (1, 5)
        };
        Some(ExactSpirv {
            lang_version,
            preserve: controls.shader_signed_zero_inf_nan_preserve_float32 == ash::vk::TRUE,
            denormals: controls.shader_denorm_preserve_float32 == ash::vk::TRUE,
            native_zero: zero_init.shader_zero_initialize_workgroup_memory == ash::vk::TRUE,
        })
    }

    /// Whether modules keep denormal results instead of flushing them to zero.
    pub fn keeps_denormals(&self) -> bool {
        self.denormals
    }

    /// The device feature exact SPIR-V needs.
    pub fn features() -> wgpu::Features {
        wgpu::Features::PASSTHROUGH_SHADERS
    }

    /// `module`'s compute entry point `main` as marked SPIR-V, written with the options wgpu
    /// uses for a checked module on Vulkan (loops bounded, integer division checked, workgroup
    /// memory zeroed by the driver where it can), indices restricted into range unless
    /// `bounds` says Brook's rules already keep them there.
    pub fn write(
        &self,
        module: &naga::Module,
        info: &naga::valid::ModuleInfo,
        bounds: Bounds,
    ) -> Result<Vec<u32>, String> {
        let policy = match bounds {
            Bounds::Checked => naga::proc::BoundsCheckPolicy::Restrict,
            Bounds::BrookClamped => naga::proc::BoundsCheckPolicy::Unchecked,
        };
        let options = spv::Options {
            lang_version: self.lang_version,
            flags: spv::WriterFlags::empty(),
            bounds_check_policies: naga::proc::BoundsCheckPolicies {
                index: policy,
                buffer: policy,
                image_load: policy,
                binding_array: naga::proc::BoundsCheckPolicy::Unchecked,
            },
            force_loop_bounding: true,
            emit_int_div_checks: true,
            zero_initialize_workgroup_memory: if self.native_zero {
                spv::ZeroInitializeWorkgroupMemoryMode::Native
            } else {
                spv::ZeroInitializeWorkgroupMemoryMode::Polyfill
            },
            ..spv::Options::default()
        };
        let pipeline = spv::PipelineOptions {
            shader_stage: naga::ShaderStage::Compute,
            entry_point: "main".into(),
        };
        let words = spv::write_vec(module, info, &options, Some(&pipeline))
            .map_err(|e| format!("naga's SPIR-V writer: {e}"))?;
        let modes = [
            (self.preserve).then_some(FloatMode::SIGNED_ZERO_INF_NAN),
            (self.denormals).then_some(FloatMode::DENORMALS),
        ];
        mark(&words, &modes.into_iter().flatten().collect::<Vec<_>>())
    }
}

/// An execution mode for 32-bit floats (SPIR-V 1.4's float controls) and the capability
/// that declares it.
#[derive(Debug, Clone, Copy)]
struct FloatMode {
    capability: u32,
    mode: u32,
}

impl FloatMode {
    const SIGNED_ZERO_INF_NAN: FloatMode = FloatMode {
        capability: op::SIGNED_ZERO_INF_NAN_PRESERVE_CAPABILITY,
        mode: op::SIGNED_ZERO_INF_NAN_PRESERVE,
    };
    const DENORMALS: FloatMode = FloatMode {
        capability: op::DENORM_PRESERVE_CAPABILITY,
        mode: op::DENORM_PRESERVE,
    };
}

/// `words` with every float arithmetic result decorated `NoContraction` and the entry point
/// in each of `modes`.
fn mark(words: &[u32], modes: &[FloatMode]) -> Result<Vec<u32>, String> {
    const HEADER: usize = 5;
    let mut at = HEADER;
    let mut instructions = Vec::new();
    while at < words.len() {
        let count = (words[at] >> 16) as usize;
        if count == 0 || at + count > words.len() {
            return Err(format!("malformed SPIR-V at word {at}"));
        }
        instructions.push((words[at] as u16, at..at + count));
        at += count;
    }
    let mut out = words[..HEADER].to_vec();
    let mut decorations: Vec<u32> = instructions
        .iter()
        .filter(|(opcode, span)| op::FLOAT_ARITHMETIC.contains(opcode) && span.len() >= 3)
        .flat_map(|(_, span)| {
            [
                (3 << 16) | u32::from(op::DECORATE),
                words[span.start + 2],
                op::NO_CONTRACTION,
            ]
        })
        .collect();
    let mut capability_added = modes.is_empty();
    let mut mode_added = modes.is_empty();
    for (opcode, span) in &instructions {
        if op::TYPES.contains(opcode) && !decorations.is_empty() {
            out.append(&mut decorations);
        }
        out.extend_from_slice(&words[span.clone()]);
        if *opcode == op::CAPABILITY && !capability_added {
            for m in modes {
                out.extend([(2 << 16) | u32::from(op::CAPABILITY), m.capability]);
            }
            capability_added = true;
        }
        // The module has one entry point: its execution modes may follow it directly.
        if *opcode == op::ENTRY_POINT && !mode_added && span.len() >= 3 {
            for m in modes {
                let entry = words[span.start + 2];
                out.extend([(4 << 16) | u32::from(op::EXECUTION_MODE), entry, m.mode, 32]);
            }
            mode_added = true;
        }
    }
    if !decorations.is_empty() || !capability_added || !mode_added {
        return Err("SPIR-V without the sections a compute module has".into());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A compute module `r[i] = x[i] * 0.0 - x[i]` through naga's SPIR-V writer, marked.
    #[test]
    fn float_results_are_marked_and_the_entry_point_preserves_special_values_and_denormals() {
        let module = naga::front::glsl::Frontend::default()
            .parse(
                &naga::front::glsl::Options::from(naga::ShaderStage::Compute),
                "#version 450\nlayout(local_size_x = 1) in;\n\
                 layout(std430, binding = 0) buffer B { float v[]; };\n\
                 void main() { uint i = gl_GlobalInvocationID.x; v[i] = v[i] * 0.0 - v[i]; }\n",
            )
            .expect("a GLSL compute shader");
        let info = naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::default(),
        )
        .validate(&module)
        .expect("a valid module");
        let exact = ExactSpirv {
            lang_version: (1, 5),
            preserve: true,
            denormals: true,
            native_zero: false,
        };
        let words = exact
            .write(&module, &info, Bounds::Checked)
            .expect("SPIR-V");
        let count = |pattern: &[u32]| {
            words
                .windows(pattern.len())
                .filter(|w| *w == pattern)
                .count()
        };
        let decorate = (3 << 16) | u32::from(op::DECORATE);
        let marked = words
            .windows(3)
            .filter(|w| w[0] == decorate && w[2] == op::NO_CONTRACTION)
            .count();
        assert_eq!(marked, 2, "the product and the difference");
        for m in [FloatMode::SIGNED_ZERO_INF_NAN, FloatMode::DENORMALS] {
            let capability = [(2 << 16) | u32::from(op::CAPABILITY), m.capability];
            assert_eq!(count(&capability), 1, "{m:?}");
            let mode = words
                .windows(4)
                .filter(|w| {
                    w[0] == (4 << 16) | u32::from(op::EXECUTION_MODE)
                        && w[2] == m.mode
                        && w[3] == 32
                })
                .count();
            assert_eq!(mode, 1, "{m:?}");
        }
    }
}
