//! Brook streams stored in float textures: GL context, layout, address translation, read/write
