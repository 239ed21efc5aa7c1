//! The one vertex shader every pass uses.

use crate::variant::Profile;

/// Three vertices from `gl_VertexID` making one triangle that covers the viewport, so a pass
/// needs no vertex buffer: the "single quad" of the paper, as the triangle drivers prefer
/// (no diagonal seam between two triangles).
pub fn vertex_shader(profile: Profile) -> String {
    format!(
        "{}// Brook pass: one triangle covering the whole output.\nvoid main() {{\n    vec2 corner = vec2(float((gl_VertexID & 1) << 2), float((gl_VertexID & 2) << 1));\n    gl_Position = vec4(corner - 1.0, 0.0, 1.0);\n}}\n",
        profile.header()
    )
}
