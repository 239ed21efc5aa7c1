//! The Brook source a shader came from ([`SourceText`], from brook-core), so generated code
//! can quote it ([`SourceText::quote`]) and driver messages can be mapped back.

pub use brook_core::SourceText;
