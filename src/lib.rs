//! brook
