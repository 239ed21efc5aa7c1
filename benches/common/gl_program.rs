//! Hand-written GL for the benchmarks: the fullscreen-triangle vertex shader and a linker that
//! panics with the driver's log (bench set-up, not user input).

use glow::HasContext;

pub const VERTEX: &str = "#version 330 core
void main() {
    vec2 corner = vec2(float((gl_VertexID & 1) << 2), float((gl_VertexID & 2) << 1));
    gl_Position = vec4(corner - 1.0, 0.0, 1.0);
}
";

/// Compiles and links [`VERTEX`] with `fragment`, and leaves the program in use.
///
/// # Safety
/// `gl` must be current on this thread.
pub unsafe fn link(gl: &glow::Context, fragment: &str) -> glow::Program {
    unsafe { link_with(gl, VERTEX, fragment) }
}

/// [`link`] with another vertex shader.
///
/// # Safety
/// `gl` must be current on this thread.
pub unsafe fn link_with(gl: &glow::Context, vertex: &str, fragment: &str) -> glow::Program {
    unsafe {
        let program = gl.create_program().unwrap();
        for (kind, src) in [
            (glow::VERTEX_SHADER, vertex),
            (glow::FRAGMENT_SHADER, fragment),
        ] {
            let s = gl.create_shader(kind).unwrap();
            gl.shader_source(s, src);
            gl.compile_shader(s);
            assert!(
                gl.get_shader_compile_status(s),
                "{}",
                gl.get_shader_info_log(s)
            );
            gl.attach_shader(program, s);
            gl.delete_shader(s);
        }
        gl.link_program(program);
        assert!(gl.get_program_link_status(program));
        gl.use_program(Some(program));
        program
    }
}

/// One-, two- and four-float texel formats: (internal format, upload format).
pub const R32F: (u32, u32) = (glow::R32F, glow::RED);
pub const RG32F: (u32, u32) = (glow::RG32F, glow::RG);
pub const RGBA32F: (u32, u32) = (glow::RGBA32F, glow::RGBA);

/// A `width × height` float texture of `format`, sampled NEAREST, filled from `data` (row-major,
/// lowest row first) or left undefined. Leaves it bound to the active unit.
///
/// # Safety
/// `gl` must be current on this thread.
pub unsafe fn float_texture(
    gl: &glow::Context,
    width: i32,
    height: i32,
    (internal, format): (u32, u32),
    data: Option<&[f32]>,
) -> glow::Texture {
    unsafe {
        let t = gl.create_texture().unwrap();
        gl.bind_texture(glow::TEXTURE_2D, Some(t));
        for p in [glow::TEXTURE_MIN_FILTER, glow::TEXTURE_MAG_FILTER] {
            gl.tex_parameter_i32(glow::TEXTURE_2D, p, glow::NEAREST as i32);
        }
        gl.tex_image_2d(
            glow::TEXTURE_2D,
            0,
            internal as i32,
            width,
            height,
            0,
            format,
            glow::FLOAT,
            glow::PixelUnpackData::Slice(data.map(bytemuck::cast_slice)),
        );
        t
    }
}

/// The float contents of `texture` (`width × height`, rows from the lowest; 1 or 4 floats a
/// texel as `format` is [`R32F`] or [`RGBA32F`]), for checking a hand-written variant's
/// result; reads through a framebuffer made for the purpose.
///
/// # Safety
/// `gl` must be current on this thread.
pub unsafe fn read_texture(
    gl: &glow::Context,
    texture: glow::Texture,
    width: i32,
    height: i32,
    (_, format): (u32, u32),
) -> Vec<f32> {
    let components = if format == glow::RED { 1 } else { 4 };
    let mut out = vec![0f32; (width * height * components) as usize];
    unsafe {
        let framebuffer = gl.create_framebuffer().unwrap();
        gl.bind_framebuffer(glow::READ_FRAMEBUFFER, Some(framebuffer));
        gl.framebuffer_texture_2d(
            glow::READ_FRAMEBUFFER,
            glow::COLOR_ATTACHMENT0,
            glow::TEXTURE_2D,
            Some(texture),
            0,
        );
        gl.read_buffer(glow::COLOR_ATTACHMENT0);
        gl.read_pixels(
            0,
            0,
            width,
            height,
            format,
            glow::FLOAT,
            glow::PixelPackData::Slice(Some(bytemuck::cast_slice_mut(&mut out))),
        );
        gl.bind_framebuffer(glow::READ_FRAMEBUFFER, None);
        gl.delete_framebuffer(framebuffer);
        assert_eq!(
            gl.get_error(),
            glow::NO_ERROR,
            "reading a bench result back"
        );
    }
    out
}
