//! Graph sources: files and generators.
//!
//! - [`program::TensorProgram`] describes a network as ops producing tensors;
//!   [`program::TensorProgram::lower`] turns it into ALLOC / op / FREE nodes
//!   in either encoding ([`program::AllocEncoding`]).
//! - [`gen`] holds the seeded generators by family name (`memsched gen`).

pub mod gen;
pub mod program;
