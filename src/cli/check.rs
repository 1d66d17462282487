//! `memsched check`: run an order made elsewhere (another compiler's
//! schedule, a hand-written one) through the independent checker.

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::ExitCode;

use serde_json::json;

use crate::graph::NodeIdx;
use crate::input::{self, ReadError, Start, MAX_INPUT_BYTES};
use crate::order_file::{self, nth_entry};
use crate::schedule;
use crate::solvers::{self, ProgramOrder, SolveContext};
use crate::text::printable;
use crate::Graph;

use super::numbers::short_bytes;
use super::schedule::{check_outputs, plot_orders, reduction_pct, Format};
use super::{emit, human_bytes, is_broken_pipe, percent, read_graph, saved_for, InvalidInput};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Graph file in seed JSON format (`-`: standard input), or a generated
    /// graph's name, `SPEC#SEED`.
    ///
    /// A generated graph's name is as `runs.csv` gives it (e.g.
    /// `random-layered:layers=12,width=4#3`): generated when no file has
    /// that name.
    #[arg(value_name = "GRAPH")]
    graph: String,
    /// The order to check: node ids in execution order, in a file (`-`:
    /// standard input) or given itself (`'[0, 2, 1]'`, `'0 2 1'`).
    ///
    /// Given itself when no file has that name; one bare id
    /// is a file's name, and an order that starts with a negative id goes
    /// in brackets or after `--`. Read as a JSON array (`[0, 2, 1]`), as
    /// a JSON object with an `order` array (the report of
    /// `memsched schedule --format json`, a line of an experiment's
    /// `orders.jsonl`, written when its config has `save_orders = true`),
    /// as plain text separated by whitespace or commas (an empty entry,
    /// as in `0,,1`, is skipped), as the text report of `memsched
    /// schedule` saved with `-o` (its `order` line), or as a trace CSV of
    /// `memsched schedule --trace` (its `id` column). An `orders.jsonl` line names the
    /// graph it was saved for: an error names it, and an order that checks
    /// against a graph of another name warns.
    #[arg(value_name = "ORDER")]
    order: String,
    /// Output format. Default: `json` when `--out` ends in `.json` or
    /// `.jsonl`, else `text`.
    #[arg(long, value_enum)]
    format: Option<Format>,
    /// Write the report here instead of standard output (`.json` or
    /// `.jsonl`: the JSON report, unless `--format text`). An order that
    /// does not check writes its error there too (`invalid  ...`, or JSON
    /// with `"valid": false`), besides standard error and exit code 2.
    #[arg(long, short)]
    out: Option<String>,
    /// Also draw live memory over the steps of the order, beside program
    /// order's, into this file (a PNG or an SVG by its extension).
    #[arg(long, value_name = "FILE")]
    plot: Option<PathBuf>,
    /// How many of the buffers live at the peak the text report lists,
    /// largest first (0: none).
    ///
    /// Each with its size, BufId, ALLOC and the node that ALLOC feeds (its
    /// `Op` and `Name`, if it has one). The JSON report lists them all in
    /// `live_at_peak`.
    #[arg(long, value_name = "N", default_value_t = 5)]
    live: usize,
}

/// Whether ORDER is the order itself, not a file's name: no file has that
/// name, and it is ids in brackets or separated by commas or whitespace
/// (`'[0,2,1]'`, `'0 2 1'`; one bare id is taken for a file's name).
fn is_inline_order(order: &str) -> bool {
    // `\r`: a list pasted with CRLF line endings.
    looks_like_a_list(order)
        && order
            .chars()
            .all(|c| c.is_ascii_digit() || "[]-, \t\n\r".contains(c))
}

/// Whether ORDER reads as a list rather than a file's name: in brackets,
/// or entries separated by commas or whitespace, and no file of that name.
fn looks_like_a_list(order: &str) -> bool {
    let trimmed = order.trim();
    (trimmed.starts_with('[') || trimmed.contains([',', ' ', '\t', '\n']))
        && !std::path::Path::new(order).exists()
}

/// `e`, the error of reading `order` as a file, with what is wrong with
/// it as an order given itself when it looks like one (ids and words
/// separated by commas or whitespace, and no such file): its first entry
/// that is not an id, as in `'0 1 x 2'` or a pasted report line.
fn not_inline(order: &str, e: InvalidInput) -> InvalidInput {
    if !looks_like_a_list(order) {
        return e;
    }
    let entries = order.split(|c: char| c == ',' || c == '[' || c == ']' || c.is_whitespace());
    let not_id =
        (entries.filter(|t| !t.is_empty()).enumerate()).find(|(_, t)| t.parse::<i64>().is_err());
    let Some((i, t)) = not_id else { return e };
    // A pasted report would fill the screen: its start says which it is.
    let shown: String = match order.char_indices().nth(60) {
        Some((cut, _)) => format!(
            "`{}...` ({} characters)",
            printable(&order[..cut]),
            order.chars().count()
        ),
        None => printable(order).into_owned(),
    };
    InvalidInput(format!(
        "{}; read as an order given itself, {} (`{}`) is not a node id",
        e.0.replacen(order, &shown, 1),
        nth_entry(i),
        printable(t)
    ))
}

/// Reads the order file `path` (`-`: standard input; `name` in messages)
/// as text of at most `limit` bytes. A file that cannot be read, whose first
/// bytes are not text (a binary file, `/dev/zero`: refused at once), or
/// that is larger is invalid input, as a graph is.
fn read_order(path: &str, name: &str, limit: u64) -> Result<String, InvalidInput> {
    input::read_text(path, limit, Start::ORDER).map_err(|e| match e {
        ReadError::Refused(r) => InvalidInput(format!("{name} is not an order of the graph: {r}")),
        e @ ReadError::NotUtf8 { .. } => {
            InvalidInput(format!("{name} is not an order of the graph: {e}"))
        }
        e => InvalidInput(format!("cannot read {name}: {e}")),
    })
}

/// The order in `text` (read from `name`) as node indices, and its
/// evaluation: an error says why it is not an order, or not a schedule, of
/// `graph` (read from `graph_path`).
fn parse_and_check(
    graph: &Graph,
    text: &str,
    name: &str,
    graph_path: &str,
) -> Result<(order_file::ReadOrder, Vec<NodeIdx>, schedule::Evaluation), InvalidInput> {
    // One id past the graph's nodes shows the order too long (an id in it
    // is unknown or repeated), however many more the file holds.
    let parsed = order_file::parse_at_most(text, graph.node_count().saturating_add(1))
        .map_err(|e| InvalidInput(format!("{name} is not an order of the graph: {e}")))?;
    // A line of orders.jsonl names the graph it was saved for.
    let saved = parsed.graph.as_deref();
    let hint = || saved.map_or(String::new(), |s| saved_for_hint(s, graph_path, graph));
    let order = to_indices(graph, &parsed.ids).map_err(|e| {
        InvalidInput(format!(
            "{name} is not an order of the graph: {e}{}",
            hint()
        ))
    })?;
    let eval = schedule::check(graph, &order).map_err(|e| {
        InvalidInput(format!(
            "{name} is not a schedule of the graph: {e}{}",
            hint()
        ))
    })?;
    Ok((parsed, order, eval))
}

/// What an order saved for graph `saved` that does not check adds to its
/// error: which graph it was saved for, and which was given (an order from
/// an experiment's `orders.jsonl` is easily checked against another graph).
fn saved_for_hint(saved: &str, path: &str, graph: &Graph) -> String {
    match saved_for::mismatch(saved, path, graph) {
        Some(clause) => format!(" (the order was saved for {clause})"),
        None => format!(
            " (the order was saved for graph `{}`; the graph given is {})",
            crate::text::printable(saved),
            saved_for::shown(path)
        ),
    }
}

/// The order as node indices: every id known, none twice, none missing
/// (each named, with its position, when it is not).
fn to_indices(g: &Graph, ids: &[i64]) -> Result<Vec<u32>, String> {
    let mut seen = HashMap::with_capacity(ids.len().min(g.node_count()));
    let mut order = Vec::with_capacity(ids.len().min(g.node_count()));
    for (i, &id) in ids.iter().enumerate() {
        let v = g
            .index_of(id)
            .ok_or_else(|| format!("{} is node {id}, which is not in the graph", nth_entry(i)))?;
        if let Some(first) = seen.insert(v, i) {
            return Err(format!(
                "{} is node {id} again: {} is too",
                nth_entry(i),
                nth_entry(first)
            ));
        }
        order.push(v);
    }
    if order.len() < g.node_count() {
        let missing: Vec<String> = g
            .nodes()
            .filter(|v| !seen.contains_key(v))
            .take(5)
            .map(|v| g.id(v).to_string())
            .collect();
        let more = g.node_count() - order.len() - missing.len();
        let tail = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        return Err(format!(
            "it has {} of the graph's {} nodes: missing {}{tail}",
            order.len(),
            g.node_count(),
            missing.join(", ")
        ));
    }
    Ok(order)
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    if args.graph == "-" && args.order == "-" {
        return Err(InvalidInput(
            "the graph and the order cannot both come from standard input".into(),
        )
        .into());
    }
    check_outputs(
        args.out.as_deref(),
        args.plot.as_deref(),
        &[("graph", &args.graph), ("order", &args.order)],
    )?;
    let graph = read_graph(&args.graph)?;
    let (name, text) = match args.order.as_str() {
        "-" => (
            "standard input",
            read_order("-", "standard input", MAX_INPUT_BYTES)?,
        ),
        inline if is_inline_order(inline) => ("the order given", inline.to_string()),
        path => (
            path,
            read_order(path, path, MAX_INPUT_BYTES).map_err(|e| not_inline(path, e))?,
        ),
    };
    let format = args
        .format
        .unwrap_or_else(|| super::schedule::default_format(args.out.as_deref()));
    let checked = parse_and_check(&graph, &text, name, &args.graph);
    let (parsed, order, eval) = match checked {
        Ok(ok) => ok,
        Err(e) => {
            report_invalid(format, args.out.as_deref(), &graph, &e)?;
            return Err(e.into());
        }
    };
    let saved = parsed.graph.as_deref();
    // It checks: a name that clearly is another graph's is only a warning.
    if let Some(clause) = saved.and_then(|s| saved_for::mismatch(s, &args.graph, &graph)) {
        note!(
            "warning: {name} was saved for {clause}: the order is valid for it all the \
             same (ignore this if both are one graph)"
        );
    }
    let text = valid_report(format, &graph, &order, &eval, args.live);
    match emit(args.out.as_deref(), &text) {
        Err(e) if !is_broken_pipe(&e) => return Err(e),
        _ => {}
    }
    if let Some(path) = &args.plot {
        plot_beside_program(path, name, &args.graph, &graph, &order)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Writes the verdict on an order that is not a schedule where a reader
/// looks for it: JSON on standard output too, and a report file says it
/// (an earlier report there would otherwise stand); standard output's
/// text report is the error itself.
fn report_invalid(
    format: Format,
    out: Option<&str>,
    graph: &Graph,
    e: &InvalidInput,
) -> anyhow::Result<()> {
    let to_file = out.is_some_and(|o| o != "-");
    let report = match format {
        Format::Json => Some(
            json!({
                "valid": false,
                "error": e.0,
                "nodes": graph.node_count(),
                "edges": graph.edge_count(),
            })
            .to_string(),
        ),
        Format::Text => to_file.then(|| format!("invalid      {}", e.0)),
    };
    if let Some(report) = report {
        match emit(out, &format!("{report}\n")) {
            Err(e) if !is_broken_pipe(&e) => return Err(e),
            _ => {}
        }
    }
    Ok(())
}

/// The report on a valid `order` of `graph`: its peak, where it is first
/// reached and what is live there (the text: the `live` largest
/// buffers), program order's peak and the reduction, and the final memory.
fn valid_report(
    format: Format,
    graph: &Graph,
    order: &[NodeIdx],
    eval: &schedule::Evaluation,
    live: usize,
) -> String {
    let program = solvers::run(&ProgramOrder, graph, &SolveContext::default()).peak;
    let reduction = reduction_pct(Some(eval.peak), program);
    // The node that reaches the peak first, and its step (1-based).
    let at_peak = eval.peak_step.map(|k| (k + 1, graph.id(order[k])));
    let live_at_peak = eval
        .peak_step
        .map_or_else(Vec::new, |k| schedule::live_after(graph, order, k));
    match format {
        Format::Json => {
            let buffers: Vec<_> = (live_at_peak.iter())
                .map(|&a| {
                    json!({
                        "buf": graph.buf_id(a),
                        "size": graph.size(a),
                        "alloc": graph.id(a),
                        "feeds": feeds(graph, a).map(|w| graph.id(w)),
                    })
                })
                .collect();
            let value = json!({
                "valid": true,
                "peak": eval.peak,
                "peak_step": at_peak.map(|(k, _)| k),
                "peak_node": at_peak.map(|(_, id)| id),
                "live_at_peak": buffers,
                "program_peak": program,
                "reduction_pct": reduction,
                "final_memory": eval.final_memory,
                "nodes": graph.node_count(),
                "edges": graph.edge_count(),
            });
            format!("{value}\n")
        }
        Format::Text => {
            let opt = |x: Option<u64>| {
                x.map_or(
                    "- (the Nodes order breaks an edge)".to_string(),
                    human_bytes,
                )
            };
            let mut s = match graph.node_count() {
                1 => "valid        a schedule of its one node\n".to_string(),
                n => format!("valid        a schedule of all {n} nodes\n"),
            };
            s += &format!("peak         {}\n", human_bytes(eval.peak));
            if let Some((k, id)) = at_peak {
                s += &format!("peak at      step {k}, after node {id}\n");
                s += &live_lines(graph, &live_at_peak, live);
            }
            s += &format!("program peak {}\n", opt(program));
            if let Some(r) = reduction {
                s += &format!("reduction    {} vs program order\n", percent(r));
            }
            s += &format!(
                "final memory {}\n",
                human_bytes(eval.final_memory.max(0) as u64)
            );
            s
        }
    }
}

/// The text report's lines on the buffers live at the peak (`allocs`,
/// largest first): how many, then the `shown` largest, one a line:
/// `12.0 MiB  buf 17: ALLOC 45 -> node 46 aten.convolution "conv_3"`.
fn live_lines(graph: &Graph, allocs: &[NodeIdx], shown: usize) -> String {
    let mut s = format!(
        "live at peak {}",
        crate::text::count(allocs.len(), "buffer")
    );
    let listed = &allocs[..shown.min(allocs.len())];
    match listed.len() {
        0 => {}
        n if n == allocs.len() => s += ", largest first:",
        1 => s += "; the largest (--live N for more):",
        n => s += &format!("; the {n} largest (--live N for more):"),
    }
    s += "\n";
    for &a in listed {
        let fed = feeds(graph, a).map_or(String::new(), |w| {
            let name = (graph.extra(w))
                .and_then(|e| e.get("Name")?.as_str())
                .map_or(String::new(), |n| format!(" {n:?}"));
            let op = printable(graph.op(w));
            format!(" -> node {} {op}{name}", graph.id(w))
        });
        let buf = graph.buf_id(a).unwrap_or_default();
        s += &format!(
            "             {:>10}  buf {buf}: ALLOC {}{fed}\n",
            short_bytes(graph.size(a)),
            graph.id(a)
        );
    }
    s
}

/// The node the ALLOC `alloc` feeds, which defines its buffer: its first
/// compute successor in the order its edges are written, if it has one.
/// (The published schedulers' op view takes the first in program order;
/// the two differ only for an ALLOC that feeds several ops.)
fn feeds(graph: &Graph, alloc: NodeIdx) -> Option<NodeIdx> {
    (graph.succs(alloc).iter().copied()).find(|&w| graph.kind(w) == crate::graph::NodeKind::Compute)
}

/// Plots the memory profile of `order` (read from `name`) and, when it is
/// a schedule, program order's beside it.
fn plot_beside_program(
    path: &std::path::Path,
    name: &str,
    graph_arg: &str,
    graph: &Graph,
    order: &[NodeIdx],
) -> anyhow::Result<()> {
    let program: Vec<NodeIdx> = graph.nodes().collect();
    let label = std::path::Path::new(name)
        .file_name()
        .map_or(name.to_string(), |f| f.to_string_lossy().into_owned());
    let mut orders = vec![(label.as_str(), order)];
    if graph.program_order_is_topological() {
        orders.push(("program order", program.as_slice()));
    }
    plot_orders(path, graph_arg, graph, &orders)
}
