//! Brook reference backend executing the typed IR on the CPU
