//! `memsched validate`: read, validate and summarise graph files.

use std::process::ExitCode;

use memsched::graph::{seed, NodeKind};
use memsched::solvers::{self, ProgramOrder, SolveContext};

use super::{count, graph_error, human_bytes, print_stdout};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Graph files in seed JSON format (`-` reads standard input).
    #[arg(required = true, value_name = "GRAPH")]
    graphs: Vec<String>,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let mut failed = false;
    for path in &args.graphs {
        match seed::read_path(path) {
            Ok(g) => {
                let buffers = g.nodes().filter(|&v| g.kind(v) == NodeKind::Alloc).count();
                let program = solvers::run(&ProgramOrder, &g, &SolveContext::default());
                let peak = match program.peak {
                    Some(p) => human_bytes(p),
                    None => format!("n/a ({})", program.status),
                };
                print_stdout(&format!(
                    "{path}: ok: {}, {}, {}, {} allocated in all, program-order peak {peak}\n",
                    count(g.node_count(), "node"),
                    count(g.edge_count(), "edge"),
                    count(buffers, "buffer"),
                    human_bytes(g.total_allocated() as u64),
                ))?;
            }
            Err(e) if args.graphs.len() == 1 => return Err(graph_error(path, e)),
            Err(e) => {
                eprintln!("{path}: invalid: {e}");
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
