//! `memsched validate`: read, validate and summarise graph files.

use std::process::ExitCode;

use crate::graph::{lint, seed, NodeKind};
use crate::solvers::{self, ProgramOrder, SolveContext};

use super::{count, graph_error, human_bytes, is_broken_pipe, print_stdout, warn_about_graph};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Graph files in seed JSON format (`-` reads standard input), or
    /// generated graphs' names as runs.csv gives them (`SPEC#SEED`).
    #[arg(required = true, value_name = "GRAPH")]
    graphs: Vec<String>,
}

/// Why a graph could not be read: the file's error, or a name that is
/// neither a file nor a generated graph's (the message names it).
enum Unread {
    Graph(crate::GraphError),
    Name(String),
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
        // A generated graph's name (`SPEC#SEED`, as runs.csv gives it),
        // where no file has it, is generated and summarised like a file.
        let read = match super::generated_graph(path) {
            Ok(Some(g)) => Ok(g),
            Ok(None) => match super::spec_without_seed(path) {
                Some(hint) => Err(Unread::Name(hint)),
                None => seed::read_path(path).map_err(Unread::Graph),
            },
            Err(e) => Err(Unread::Name(format!("{e}"))),
        };
        match read {
            Ok(g) => {
                warn_about_graph(path, &g);
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
                    "{path}: ok: {}, {edges}, {}, {} allocated in all, program-order peak {peak}\n",
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
            Err(Unread::Graph(e)) if args.graphs.len() == 1 => return Err(graph_error(path, e)),
            Err(Unread::Name(e)) if args.graphs.len() == 1 => {
                return Err(super::InvalidInput(e).into())
            }
            Err(Unread::Graph(e)) => {
                note!("{path}: invalid: {e}");
                failed = true;
            }
            Err(Unread::Name(e)) => {
                note!("{e}");
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
