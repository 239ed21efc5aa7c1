//! Brook streams drawn live in a window, and snapshots to PNG
