//! What `memsched schedule` writes: text and JSON reports, plots, and the
//! checks of its output paths.

use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;

use anyhow::Context as _;
use serde_json::json;

use crate::experiment::plots::{tetris, IMAGE_EXTENSIONS};
use crate::experiment::records::Profile;
use crate::graph::NodeIdx;
use crate::solvers::{self, Abilities, Report, Scheduler};
use crate::Graph;

use crate::cli::{
    check_out_file, check_output_is_not_an_input, check_parent_dir, count, human_bytes, percent,
    InvalidInput,
};

use super::args::Format;

/// Refuses, before anything is read or solved, an `--out` or `--plot` file
/// that is one of the `inputs` (see [`check_output_is_not_an_input`]) and a
/// `--plot` file that cannot be drawn (see [`check_plot_path`]).
pub(in crate::cli) fn check_outputs(
    out: Option<&str>,
    plot: Option<&Path>,
    inputs: &[(&str, &str)],
) -> Result<(), InvalidInput> {
    if let Some(out) = out.filter(|&o| o != "-") {
        check_output_is_not_an_input("--out", Path::new(out), inputs)?;
        check_out_file("--out", Path::new(out))?;
    }
    if let Some(plot) = plot {
        check_output_is_not_an_input("--plot", plot, inputs)?;
        check_plot_path(plot, out)?;
    }
    Ok(())
}

/// Refuses an `--out`, `--plot` or `--trace` file that an `orders:` solver
/// among `chosen` reads: its `.jsonl` file, or any path in its directory
/// (it reads this graph's order there, and a report left there would be
/// taken for another graph's), new or not, so the same command runs twice.
pub(super) fn check_outputs_miss_orders(
    chosen: &[(&str, Arc<dyn Scheduler>)],
    out: Option<&str>,
    plot: Option<&Path>,
    trace: Option<&Path>,
) -> Result<(), InvalidInput> {
    let outputs = [
        ("--out", out.filter(|&o| o != "-").map(Path::new)),
        ("--plot", plot),
        ("--trace", trace),
    ];
    for (name, _) in chosen {
        // Spelled as the registry reads it (`orders : od` too).
        let (base, Some(argument)) = solvers::split_name(name) else {
            continue;
        };
        if base != "orders" {
            continue;
        }
        let source = solvers::orders_source_path(argument);
        for (flag, path) in outputs {
            let Some(path) = path else {
                continue;
            };
            let dir = match path.parent() {
                Some(dir) if dir.as_os_str().is_empty() => Path::new("."),
                Some(dir) => dir,
                None => continue,
            };
            let inside = source.is_dir() && crate::cli::same_file(dir, source);
            if inside || crate::cli::same_file(path, source) {
                return Err(InvalidInput(format!(
                    "{flag} {}: `{name}` reads its orders from {}, so nothing is written \
                     there; name a file elsewhere",
                    path.display(),
                    source.display()
                )));
            }
        }
    }
    Ok(())
}

/// Refuses a `--plot` file that is a directory, is `--out`'s file, is
/// neither `.png` nor `.svg` or lies in no directory, before any solve.
pub(super) fn check_plot_path(path: &Path, out: Option<&str>) -> Result<(), InvalidInput> {
    let refuse = |why: String| Err(InvalidInput(format!("--plot {}: {why}", path.display())));
    if path.is_dir() {
        return refuse("it is a directory: name a .png or .svg file".into());
    }
    if out.is_some_and(|o| o != "-" && crate::cli::same_output(Path::new(o), path)) {
        return refuse("--out names the same file: the plot would replace the report".into());
    }
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    if !IMAGE_EXTENSIONS.contains(&ext.to_ascii_lowercase().as_str()) {
        return Err(InvalidInput(format!(
            "--plot {}: the file name must end in .png or .svg (the format is taken from it)",
            path.display()
        )));
    }
    check_parent_dir("--plot", path)
}

/// Draws the memory profile of every valid report into `path`; warns and
/// draws nothing when no report is valid.
pub(super) fn plot(path: &Path, name: &str, g: &Graph, reports: &[Report]) -> anyhow::Result<()> {
    let orders: Vec<(&str, &[NodeIdx])> = reports
        .iter()
        .filter_map(|r| Some((r.solver.as_str(), r.order.as_deref()?)))
        .collect();
    plot_orders(path, name, g, &orders)
}

/// Draws the memory profile of each labelled order of `g` (read from the
/// file `name`) into `path`; warns and draws nothing when there is none.
/// Each order is checked again on the way (an invalid one is left out).
pub(in crate::cli) fn plot_orders(
    path: &Path,
    name: &str,
    g: &Graph,
    orders: &[(&str, &[NodeIdx])],
) -> anyhow::Result<()> {
    let shown = match Path::new(name).file_name() {
        _ if name == "-" => "standard input".into(),
        Some(file) => file.to_string_lossy(),
        None => name.into(),
    };
    let lines: Vec<(String, Profile)> = orders
        .iter()
        .filter_map(|&(label, order)| {
            let profile = Profile::of_order(g, order, &shown, label, 0)?;
            Some((label.to_string(), profile))
        })
        .collect();
    if lines.is_empty() {
        note!(
            "warning: no valid schedule to plot: {} not written{}",
            path.display(),
            crate::cli::remove_stale_output(path)
        );
        return Ok(());
    }
    let title = format!("memory over the steps of {shown}");
    tetris::draw_file(path, &title, &lines)
        .with_context(|| format!("cannot draw {}", path.display()))
}

/// The JSON report of one or several solves (`objects`, one per solver):
/// one object; or, for several, JSON Lines (one object per line) on
/// standard output and in a `.jsonl` file, and one JSON array (an object
/// per line) in a `.json` file, which a JSON reader takes whole.
pub(super) fn json_document(objects: &[String], out: Option<&str>) -> String {
    let is_json_file = out
        .and_then(|o| Path::new(o).extension())
        .is_some_and(|e| e.eq_ignore_ascii_case("json"));
    match objects {
        [_, _, ..] if is_json_file => format!("[\n{}\n]\n", objects.join(",\n")),
        _ => objects.iter().map(|o| format!("{o}\n")).collect(),
    }
}

/// The format `--out` asks for by its extension: JSON for `.json` and
/// `.jsonl`, else text.
pub(in crate::cli) fn default_format(out: Option<&str>) -> Format {
    let ext = out
        .and_then(|o| Path::new(o).extension())
        .map(|e| e.to_ascii_lowercase());
    match ext.as_ref().and_then(|e| e.to_str()) {
        Some("json" | "jsonl") => Format::Json,
        _ => Format::Text,
    }
}

/// What a report is of, besides the solver: the graph as named on the
/// command line and the flags that decide a seeded or timed result, so
/// that a saved report says how to get it again.
#[derive(Debug, Default)]
pub struct About {
    /// The graph as given (`standard input` for `-`); `None`: not shown.
    pub graph: Option<String>,
    /// `seed 7, restarts 4, time limit 2 s`: the settings that apply to
    /// some solver of the report (`None` when none does).
    pub settings: Option<String>,
    /// `--seed` (0 by default), for the JSON report.
    seed: u64,
    /// `--restarts` (1 by default), for the JSON report.
    restarts: u32,
    /// `--time-limit` in seconds, for the JSON report.
    time_limit: Option<f64>,
}

impl About {
    /// The settings line names the seed when a solver is seeded, the
    /// restarts when one restarts and K > 1, and the time limit when set.
    pub(super) fn new(
        graph: &str,
        chosen: &[(&str, Arc<dyn Scheduler>)],
        seed: u64,
        restarts: u32,
        time_limit: Option<f64>,
    ) -> About {
        let any = |has: fn(&Abilities) -> bool| chosen.iter().any(|(_, s)| has(&s.abilities()));
        let mut parts = Vec::new();
        if any(|a| a.seeded) {
            parts.push(format!("seed {seed}"));
        }
        if restarts > 1 && any(|a| a.restarts) {
            parts.push(format!("restarts {restarts}"));
        }
        if let Some(t) = time_limit {
            parts.push(format!("time limit {t} s"));
        }
        // A generated graph by its canonical name (as runs.csv spells it).
        let name = match crate::cli::saved_for::generated_name(graph) {
            Some(Ok((spec, seed))) => format!("{spec}#{seed}"),
            _ => crate::cli::saved_for::shown(graph).to_string(),
        };
        About {
            graph: Some(name),
            settings: (!parts.is_empty()).then(|| parts.join(", ")),
            seed,
            restarts,
            time_limit,
        }
    }

    /// `g.json: 24 nodes, 47 edges` (without the name when not shown).
    pub(in crate::cli) fn graph_line(&self, g: &Graph) -> String {
        let size = format!(
            "{}, {}",
            count(g.node_count(), "node"),
            count(g.edge_count(), "edge")
        );
        match &self.graph {
            Some(name) => format!("{name}: {size}"),
            None => size,
        }
    }
}

/// The reduction of `peak` against `base`, in percent; 0 against a 0 B
/// base (every peak of such a graph is 0), as an experiment's
/// `reduction_pct` has it.
pub(in crate::cli) fn reduction_pct(peak: Option<u64>, base: Option<u64>) -> Option<f64> {
    match (peak, base) {
        (Some(p), Some(b)) if b > 0 => Some(100.0 * (b as f64 - p as f64) / b as f64),
        (Some(_), Some(_)) => Some(0.0),
        _ => None,
    }
}

/// One solve's JSON object; `ran` is false for a solver a Ctrl-C kept
/// from starting (its status is `timed_out`, its note says "not run").
pub(super) fn to_json(
    g: &crate::Graph,
    r: &Report,
    ran: bool,
    program_peak: Option<u64>,
    about: &About,
) -> String {
    let counters: serde_json::Map<String, serde_json::Value> = r
        .counters
        .iter()
        .map(|(k, v)| (k.clone(), json!(v)))
        .collect();
    let value = json!({
        "graph": about.graph,
        "seed": about.seed,
        "restarts": about.restarts,
        "time_limit_s": about.time_limit,
        "solver": r.solver,
        "status": r.status.label(),
        "ran": ran,
        "reason": r.status.reason(),
        "valid": r.valid(),
        "peak": r.peak,
        "program_peak": program_peak,
        "reduction_pct": reduction_pct(r.peak, program_peak),
        "lower_bound": r.lower_bound,
        "gap_pct": r.gap_pct(),
        "final_memory": r.final_memory,
        "nodes": g.node_count(),
        "edges": g.edge_count(),
        // From nanoseconds: one correctly rounded division, so the number
        // prints as the decimal it is (0.027041, not 0.027041000000000003).
        "time_ms": r.time.as_nanos() as f64 / 1e6,
        "counters": counters,
        "note": r.note,
        "order": r.order.as_ref().map(|o| g.to_ids(o)),
    });
    serde_json::to_string(&value).expect("a JSON value always serializes")
}

/// Most ids of an order the text report shows on a terminal.
pub(super) const TERMINAL_ORDER_IDS: usize = 200;

/// The text report; its `order` line shows at most `shown` ids (all with
/// `None`), then how many more there are.
pub(super) fn to_text(
    g: &crate::Graph,
    r: &Report,
    program_peak: Option<u64>,
    shown: Option<usize>,
    about: &About,
) -> String {
    let opt = |x: Option<u64>| x.map(human_bytes).unwrap_or_else(|| "-".into());
    let mut lines: Vec<(String, String)> = vec![
        ("solver".into(), r.solver.clone()),
        ("status".into(), r.status.to_string()),
        ("graph".into(), about.graph_line(g)),
    ];
    if let Some(settings) = &about.settings {
        lines.push(("settings".into(), settings.clone()));
    }
    lines.extend([
        ("peak".into(), opt(r.peak)),
        (
            "program peak".into(),
            program_peak.map_or("- (the Nodes order breaks an edge)".into(), human_bytes),
        ),
    ]);
    if let Some(red) = reduction_pct(r.peak, program_peak) {
        lines.push((
            "reduction".into(),
            format!("{} vs program order", percent(red)),
        ));
    }
    lines.push(("lower bound".into(), opt(r.lower_bound)));
    if let Some(gap) = r.gap_pct() {
        lines.push((
            "gap".into(),
            format!(
                "{} above the lower bound, so at most {} above the optimum",
                percent(gap),
                percent(gap)
            ),
        ));
    }
    lines.push((
        "time".into(),
        format!("{:.3} ms", r.time.as_secs_f64() * 1e3),
    ));
    for (k, v) in &r.counters {
        lines.push((k.to_string(), v.to_string()));
    }
    if let Some(note) = &r.note {
        lines.push(("note".into(), note.clone()));
    }
    if let Some(order) = &r.order {
        let shown = shown.unwrap_or(order.len()).min(order.len());
        let ids: Vec<String> = order[..shown]
            .iter()
            .map(|&v| g.id(v).to_string())
            .collect();
        let mut line = ids.join(" ");
        if shown < order.len() {
            let _ = write!(
                line,
                " ... and {} more (all {} with -o FILE or --format json)",
                order.len() - shown,
                order.len()
            );
        }
        lines.push(("order".into(), line));
    }
    // Values line up after the longest label (a counter's may be long).
    let width = lines.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
    let mut s = String::new();
    for (k, v) in lines {
        let _ = writeln!(s, "{k:<width$} {v}");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solvers::SolveContext;

    /// The text report lists the whole order unless told to show fewer
    /// ids (on a terminal), and then says how many it left out and how to
    /// get them.
    #[test]
    fn text_order_is_whole_unless_capped() {
        let g = crate::corpus::gen::generate(
            &crate::corpus::gen::GenSpec::parse("chain:length=3").unwrap(),
            0,
        )
        .unwrap();
        let report = solvers::run(&solvers::Kahn, &g, &SolveContext::default());
        let order_line = |shown| {
            let text = to_text(&g, &report, None, shown, &About::default());
            let line = text.lines().find(|l| l.starts_with("order")).unwrap();
            line.trim_start_matches("order").trim().to_string()
        };
        let all: Vec<String> = g
            .to_ids(report.order.as_ref().unwrap())
            .iter()
            .map(|id| id.to_string())
            .collect();
        let n = all.len();
        assert!(n > 4);
        assert_eq!(order_line(None), all.join(" "));
        assert_eq!(order_line(Some(n)), all.join(" "));
        assert_eq!(
            order_line(Some(4)),
            format!(
                "{} ... and {} more (all {n} with -o FILE or --format json)",
                all[..4].join(" "),
                n - 4
            )
        );
    }
}
