//! memsched: memory-aware scheduling of computation graphs.
//!
//! Data flows one way:
//! corpus -> [`graph::Graph`] -> [`solvers::Scheduler`] -> order checked by
//! [`schedule::check`] -> result row -> CSV, plots, tables.
//!
//! - [`graph`] holds the model (compressed adjacency, per-node memory delta),
//!   the seed JSON reader and writer (`graph::seed::read` for JSON text,
//!   `read_path` for a file), validation, and analyses; `graph::lint`
//!   gives the warnings `memsched validate` prints about a valid graph.
//! - [`schedule`] is the independent checker: the only code that turns an
//!   order into a recorded peak.
//! - [`solvers`] holds every scheduler behind one trait and a registry by name.
//! - [`corpus`] makes graphs: seeded generator families, lowered tensor
//!   programs, and the re-encoding of ALLOCs (anchored or floating).
//! - [`experiment`] runs a TOML config (graphs x solvers x seeds) in
//!   parallel, resumably, and writes `runs.csv`, summaries, plots and a README.
//! - [`order_file`] reads orders made elsewhere (node ids as a JSON array,
//!   a JSON report or text) for `memsched check` and the `orders:` solver.
//! - [`input`] reads input files whole, refusing at once bytes that cannot
//!   be the input (`/dev/zero` given as a graph) and files beyond a size cap;
//!   [`output`] writes files whole or not at all.
//! - [`rng`] is the project's seeded random generator (stable across versions).
//! - `cli` (with the `cli` feature) is the `memsched` command line as a
//!   function, `memsched::cli::main()`: a program that registers solvers of
//!   its own can hand over to it.
//!
//! A graph, two solvers and the checker, in code:
//!
//! ```
//! use memsched::graph::GraphBuilder;
//! use memsched::solvers::{self, SolveContext, Status};
//!
//! // Two 10-byte tensors read by one op each, then joined.
//! let mut b = GraphBuilder::new();
//! let (a, x) = (b.alloc(10, 0), b.op("X"));
//! let (c, y) = (b.alloc(10, 1), b.op("Y"));
//! let join = b.op("Join");
//! let (fa, fc) = (b.free(0), b.free(1));
//! for (u, v) in [(a, x), (c, y), (x, join), (y, join), (join, fa), (join, fc)] {
//!     b.edge(u, v);
//! }
//! let g = b.build()?;
//!
//! let ctx = SolveContext::default();
//! for name in ["seed-greedy", "exact"] {
//!     // `run` times the solver and checks its order with `schedule::check`:
//!     // `peak` is the checker's figure, never the solver's own claim.
//!     let report = solvers::run(solvers::build(name)?.as_ref(), &g, &ctx);
//!     assert_eq!(report.peak, Some(20));
//!     println!("{name}: {} peak {:?}", report.status, report.peak);
//! }
//! let exact = solvers::run(solvers::build("exact")?.as_ref(), &g, &ctx);
//! assert_eq!(exact.status, Status::Optimal);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Writing a solver of your own: `examples/custom_solver.rs` and
//! `docs/extending.md`; running it from a `memsched` command line of your
//! own: `examples/custom_cli.rs`.
//!
//! Cargo features, all on by default: `ilp` (the `ilp` solver, HiGHS),
//! `cli` (the `memsched` binary and `cli::main`: clap, anyhow, signal-hook), `plots`
//! (`experiment::plots`: plotters and a bundled font) and `progress-bar`
//! (indicatif). A library user can take `default-features = false`, adding
//! `ilp` if wanted: an experiment then writes its CSV files and README, and
//! says that its plots were not drawn.
//!
//! `unsafe` is denied everywhere but in three places, each block with its
//! `SAFETY` comment: a cache prefetch hint (`prefetch.rs`), which cannot
//! fault or change a result; HiGHS's C API, for its interrupt callback and
//! its count of MIP nodes (`solvers/ilp`, feature `ilp`); and the signal
//! handler of the command line, its registration and its lock-free write
//! to standard error (`cli/interrupt.rs`, feature `cli`).
#![deny(unsafe_code)]
#![warn(missing_docs)]
// Module docs map their private submodules and constants for readers of
// `cargo doc --document-private-items`; the public docs show those names
// as plain text.
#![allow(rustdoc::private_intra_doc_links)]

#[cfg(feature = "cli")]
pub mod cli;
pub mod corpus;
pub mod experiment;
pub mod graph;
pub mod input;
pub mod order_file;
pub mod output;
mod prefetch;
pub mod rng;
pub mod schedule;
pub mod solvers;
mod spelling;
mod text;

pub use graph::{Graph, GraphError, NodeKind};
pub use schedule::{check, Evaluation, ScheduleError};
pub use solvers::{Outcome, Scheduler, SolveContext, Status};
