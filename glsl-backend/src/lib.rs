//! Brook typed IR to GLSL fragment shaders for the GL pipeline
