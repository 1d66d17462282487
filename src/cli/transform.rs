//! `memsched transform`: re-encode the ALLOCs of a graph file.

use std::process::ExitCode;

use anyhow::Context;

use crate::corpus::program::AllocEncoding;
use crate::corpus::transform;
use crate::graph::{seed, NodeIdx, NodeKind};

use super::read_graph;

/// Re-encode every ALLOC: `floating` drops its in-edges (the article's
/// encoding); `anchored` makes it depend on the producers of its op's inputs
/// (precisely: the non-ALLOC predecessors of its successors that precede all
/// of them). Orders between other nodes are unchanged; program order stays
/// valid when it was. See docs/corpus.md.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Graph file in seed JSON format (`-` reads standard input), or a
    /// generated graph's name as `runs.csv` gives it, `SPEC#SEED` (e.g.
    /// `random-layered:layers=12,width=4#3`): generated when no file has
    /// that name.
    #[arg(value_name = "GRAPH")]
    graph: String,
    /// Target encoding.
    #[arg(long, value_enum)]
    allocs: AllocEncoding,
    /// Output file (`-` or absent: standard output).
    #[arg(long, short)]
    out: Option<String>,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    if let Some(out) = args.out.as_deref().filter(|&o| o != "-") {
        super::check_out_file("--out", std::path::Path::new(out))?;
    }
    let g = read_graph(&args.graph)?;
    let t = transform::to_encoding(&g, args.allocs)?;
    // An edge into an ALLOC from an ALLOC or a FREE ("allocate after that
    // is freed") is a memory constraint the re-encoding may drop (the
    // anchored one keeps it where its rule adds it back): the optimum may
    // then fall. Edges from compute nodes only delay the ALLOC (F2). The
    // re-encoded graph keeps every node id (maybe in another order).
    let kept = |u: NodeIdx, a: NodeIdx| match (t.index_of(g.id(u)), t.index_of(g.id(a))) {
        (Some(u), Some(a)) => t.preds(a).contains(&u),
        _ => false,
    };
    let dropped: Vec<(NodeIdx, NodeIdx)> = g
        .nodes()
        .filter(|&a| g.kind(a) == NodeKind::Alloc)
        .flat_map(|a| g.preds(a).iter().map(move |&u| (u, a)))
        .filter(|&(u, a)| g.kind(u) != NodeKind::Compute && !kept(u, a))
        .collect();
    if let Some(&(u, a)) = dropped.first() {
        note!(
            "warning: {}: the edge [{}, {}] ({} before an ALLOC) is dropped{}: such an \
             edge constrains memory, so the re-encoded graph's optimum may be lower than \
             this one's",
            super::saved_for::shown(&args.graph),
            g.id(u),
            g.id(a),
            if g.kind(u) == NodeKind::Free {
                "a FREE"
            } else {
                "an ALLOC"
            },
            crate::text::more_like_it(dropped.len(), "edge", "edges")
        );
    }
    let out = args.out.as_deref().unwrap_or("-");
    seed::write_path(&t, out)
        .with_context(|| format!("cannot write {}", super::output_name(out)))?;
    if out != "-" {
        note!(
            "{out}: {}, {} (was {})",
            super::count(t.node_count(), "node"),
            super::count(t.edge_count(), "edge"),
            g.edge_count()
        );
    }
    Ok(ExitCode::SUCCESS)
}
