//! Graph sources: files, generators and encodings.
//!
//! - [`program::TensorProgram`] describes a network as ops producing tensors;
//!   [`program::TensorProgram::lower`] turns it into ALLOC / op / FREE nodes
//!   in either encoding ([`program::AllocEncoding`]).
//! - [`gen`] holds the seeded generators by family name (`memsched gen`).
//! - [`transform::to_encoding`] re-encodes the ALLOCs of any graph
//!   (`memsched transform`).
//! - [`stats`] summarises committed datasets into markdown tables
//!   (`memsched datasets`).

pub mod gen;
/// [`gen`] under a name that is not a keyword: `gen` is reserved in the
/// 2024 edition, where it must be written `r#gen`.
pub use self::gen as generators;
mod manifest;
pub mod program;
mod sections;
pub mod stats;
pub mod transform;
