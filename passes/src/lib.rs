//! Brook calls executed on GL: programs, FBOs, quad draws
