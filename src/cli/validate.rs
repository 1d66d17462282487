//! `memsched validate`: read, validate and summarise graph files.

use std::process::ExitCode;

use crate::graph::{lint, NodeKind};
use crate::solvers::{self, ProgramOrder, SolveContext};

use super::{count, human_bytes, is_broken_pipe, print_stdout, read_graph};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Graph files in seed JSON format (`-` reads standard input), or
    /// generated graphs' names as runs.csv gives them (`SPEC#SEED`).
    #[arg(required = true, value_name = "GRAPH")]
    graphs: Vec<String>,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    if args.graphs.iter().filter(|p| p.as_str() == "-").count() > 1 {
        return Err(super::InvalidInput(
            "`-` (standard input) is given more than once: it can be read only once".into(),
        )
        .into());
    }
    let mut failed = false;
    let mut stdout_closed = false;
    for path in &args.graphs {
        // As every command reads a graph: a file, or a generated graph's
        // name (`SPEC#SEED`, as runs.csv gives it), with its warnings.
        match read_graph(path) {
            Ok(g) => {
                let buffers = g.nodes().filter(|&v| g.kind(v) == NodeKind::Alloc).count();
                let program = solvers::run(&ProgramOrder, &g, &SolveContext::default());
                let peak = match program.peak {
                    Some(p) => human_bytes(p),
                    None => format!("n/a ({})", program.status),
                };
                let repeats: usize = (lint::repeated_edges(&g).iter())
                    .map(|&(_, _, times)| times - 1)
                    .sum();
                let edges = match repeats {
                    0 => count(g.edge_count(), "edge"),
                    r => format!(
                        "{} ({} distinct)",
                        count(g.edge_count(), "edge"),
                        g.edge_count() - r
                    ),
                };
                let line = format!(
                    "{}: ok: {}, {edges}, {}, {} allocated in all, program-order peak {peak}\n",
                    super::saved_for::shown(path),
                    count(g.node_count(), "node"),
                    count(buffers, "buffer"),
                    human_bytes(g.total_allocated() as u64),
                );
                // A reader that stops early (`| head -1`) does not end the
                // checks: an invalid file later on still sets the exit code.
                if !stdout_closed {
                    match print_stdout(&line) {
                        Ok(()) => {}
                        Err(e) if is_broken_pipe(&e) => stdout_closed = true,
                        Err(e) => return Err(e),
                    }
                }
            }
            Err(e) if args.graphs.len() == 1 => return Err(e),
            Err(e) => {
                // A graph's own error after the file's name; a name that
                // is no file and no generated graph's says so itself.
                match e.downcast_ref::<crate::GraphError>() {
                    Some(graph) => note!("{}: invalid: {graph}", super::saved_for::shown(path)),
                    None => note!("{e}"),
                }
                failed = true;
            }
        }
    }
    Ok(if failed {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    })
}
