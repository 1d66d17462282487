//! `README.md` of a results directory: the main table in markdown, the
//! per-solver summary and the plots, generated from the final rows.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::config::{Config, Seeds};
use super::graphs::{GraphSummary, Optimality};
use super::rows::{Row, RowStatus};
use super::summary::SolverSummary;
use crate::text::{count, count_of};

/// Above this many graphs the main table shows one line per family.
pub const MAX_TABLE_GRAPHS: usize = 40;

/// `b` bytes in B below 1 KiB, else in KiB, MiB or GiB (the largest unit
/// it reaches) with `decimals` decimals: `253.29 KiB`, `157.86 MiB`.
fn size(b: u64, decimals: usize) -> String {
    const UNITS: [(&str, u64); 3] = [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)];
    match UNITS.iter().find(|&&(_, unit)| b >= unit) {
        Some(&(name, unit)) => format!("{:.decimals$} {name}", b as f64 / unit as f64),
        None => format!("{b} B"),
    }
}

/// The sizes of one table line (baseline, best known, lower bound) as
/// [`size`] writes them, with two decimals, or more where two different
/// values would print alike (a line must not show equal sizes beside a
/// reduction); `None` is `-`.
///
/// # Complexity
/// O(k^2) per tried precision for k values (k is 3 here).
fn sizes(values: &[Option<u64>]) -> Vec<String> {
    let distinct = |shown: &[String]| {
        values
            .iter()
            .zip(shown)
            .all(|(a, sa)| values.iter().zip(shown).all(|(b, sb)| a == b || sa != sb))
    };
    let at = |decimals: usize| -> Vec<String> {
        values
            .iter()
            .map(|v| v.map_or("-".into(), |b| size(b, decimals)))
            .collect()
    };
    // Ten decimals of a GiB tell bytes apart; bytes are the last resort.
    (2..=10)
        .map(at)
        .find(|shown| distinct(shown))
        .unwrap_or_else(|| {
            values
                .iter()
                .map(|v| v.map_or("-".into(), |b| format!("{b} B")))
                .collect()
        })
}

/// Two decimals, or two significant digits when a figure that is not 0
/// would show as `0.00` (`1.0e-7`), so that it does not read as none (a
/// closed gap, no reduction); never `-0.00`. Figures come from whole
/// bytes, so a figure of none is exactly 0.
pub(crate) fn two(x: f64) -> String {
    if x == 0.0 {
        "0.00".into()
    } else if x.abs() < 0.005 {
        format!("{x:.1e}")
    } else {
        format!("{x:.2}")
    }
}

fn opt_pct(x: Option<f64>) -> String {
    x.map_or("-".into(), two)
}

/// One cell: the best seed's reduction, `*` when proven optimal, or why nothing.
fn cell(rows: &[&Row]) -> String {
    let best = rows
        .iter()
        .filter(|r| r.valid)
        .min_by_key(|r| (r.peak_bytes, r.seed));
    match best {
        Some(r) => {
            let star = if rows.iter().any(|r| r.status == RowStatus::Optimal) {
                "*"
            } else {
                ""
            };
            match r.reduction_pct {
                Some(x) => format!("{}{star}", two(x)),
                None => format!("{}{star}", size(r.peak_bytes.unwrap_or(0), 2)),
            }
        }
        None => rows
            .first()
            .map_or("-".into(), |r| r.status.label().replace('_', " ")),
    }
}

/// `name` as a Markdown code span for a table cell: rendered as written
/// (a rule's `*` is not emphasis, a `_` not a word break), with `|`
/// escaped so that it does not end the cell and control characters (a
/// newline in a file name) as Rust escapes (`\n`).
pub(crate) fn code(name: &str) -> String {
    let name: String = name
        .chars()
        .flat_map(|c| match c {
            '|' => "\\|".chars().collect::<Vec<_>>(),
            c if c.is_control() => c.escape_default().collect(),
            c => vec![c],
        })
        .collect();
    if name.contains('`') {
        format!("`` {name} ``")
    } else {
        format!("`{name}`")
    }
}

/// One generated sentence on what the table shows: the solver with the largest
/// mean reduction, the article's greedy, and the claims beside our figures.
pub(crate) fn headline(
    rows: &[Row],
    summary: &[SolverSummary],
    claims: &BTreeMap<String, f64>,
    baselines: &[String],
) -> String {
    let mut parts = Vec::new();
    parts.extend(best_solver(summary, baselines));
    if let Some(g) = summary.iter().find(|x| x.solver == "seed-greedy") {
        parts.push(format!(
            "the article's greedy (`seed-greedy`) averages {}% (max {}%)",
            opt_pct(g.mean_reduction_pct),
            opt_pct(g.max_reduction_pct)
        ));
    }
    if !claims.is_empty() {
        parts.push(claims_beside_ours(rows, claims));
    }
    if parts.is_empty() {
        return String::new();
    }
    format!("{}.", parts.join("; "))
}

/// The headline's clause on the solver with the largest mean reduction
/// (besides the baselines), with its median, max, the runs it is over and
/// those tied with it; `None` when no solver has a reduction.
fn best_solver(summary: &[SolverSummary], baselines: &[String]) -> Option<String> {
    let ranked: Vec<&SolverSummary> = summary
        .iter()
        .filter(|x| x.mean_reduction_pct.is_some() && !baselines.contains(&x.solver))
        .collect();
    // A mean over valid runs only: a solver that failed where there was
    // much to gain would top it. Solvers valid on every run come first.
    let complete: Vec<&SolverSummary> = ranked
        .iter()
        .copied()
        .filter(|x| x.valid == x.runs)
        .collect();
    let among = if complete.is_empty() || complete.len() == ranked.len() {
        "Of the solvers other than the baselines"
    } else {
        "Of the solvers other than the baselines and valid on every run"
    };
    let candidates = if complete.is_empty() {
        ranked
    } else {
        complete
    };
    let mean = |x: &SolverSummary| x.mean_reduction_pct.unwrap_or(f64::MIN);
    // The largest; of those tied, the one with the most proven optima
    // (`exact` before a heuristic that matched it), then the first in
    // config order (`min_by` keeps the first).
    let best = candidates.iter().copied().min_by(|a, b| {
        let proofs = b.proven_optimal.cmp(&a.proven_optimal);
        mean(b).total_cmp(&mean(a)).then(proofs)
    });
    best.map(|b| {
        // Others with the same mean are named too: naming only the first
        // would pick a winner by config order.
        let tied: Vec<String> = candidates
            .iter()
            .filter(|x| x.solver != b.solver && mean(x) == mean(b))
            .map(|x| format!("`{}`", x.solver))
            .collect();
        let tied = match tied.as_slice() {
            [] => String::new(),
            [one] => format!("; {one} ties it"),
            [rest @ .., last] => format!("; {} and {last} tie it", rest.join(", ")),
        };
        // The figures are over the runs with a reduction: valid, on a
        // graph with a valid baseline (exactly those wins, ties and losses
        // count).
        let compared = b.wins + b.ties + b.losses;
        let over = if compared < b.valid {
            format!(
                "over {}: {} of {} runs valid, {} of them on a graph without a valid baseline",
                crate::text::count(compared, "run"),
                b.valid,
                b.runs,
                b.valid - compared
            )
        } else {
            format!("{} of {} runs valid", b.valid, b.runs)
        };
        format!(
            "{among}, `{}` has the largest mean reduction, {}% (median {}%, max {}%, \
             {over}{tied})",
            b.solver,
            opt_pct(b.mean_reduction_pct),
            opt_pct(b.median_reduction_pct),
            opt_pct(b.max_reduction_pct),
        )
    })
}

/// The headline's clause setting the article's claimed reductions beside
/// our measurement of its greedy, over the graphs that have both.
fn claims_beside_ours(rows: &[Row], claims: &BTreeMap<String, f64>) -> String {
    let (claimed, measured): (Vec<f64>, Vec<f64>) = rows
        .iter()
        .filter(|r| r.solver == "seed-greedy")
        .filter_map(|r| Some((*claims.get(&r.graph)?, r.reduction_pct?)))
        .unzip();
    let mean = |v: &[f64]| super::summary::stats(v.to_vec()).0;
    let coverage = if measured.len() < claims.len() {
        format!(
            " (measured on {} of the {} graphs with a claim)",
            measured.len(),
            claims.len()
        )
    } else {
        String::new()
    };
    if measured.is_empty() {
        let all: Vec<f64> = claims.values().copied().collect();
        format!(
            "{} with a published claim (mean {}%), none has a `seed-greedy` reduction to \
             set beside it (a valid `seed-greedy` row and a valid baseline are needed)",
            match claims.len() {
                1 => "of the 1 graph".to_string(),
                n => format!("of the {n} graphs"),
            },
            opt_pct(mean(&all))
        )
    } else {
        format!(
            "on the graphs with a published claim, the claims average {}% and our measurement of the article's greedy {}%{coverage}",
            opt_pct(mean(&claimed)),
            opt_pct(mean(&measured))
        )
    }
}

/// The gap-to-bound cell of a graph: `optimal` when its bound meets its
/// best known peak, the gap when open, empty without a bound.
fn gap_cell(g: &GraphSummary) -> String {
    match g.gap_pct {
        _ if g.proven => "optimal".into(),
        Some(x) => format!("{}%", two(x)),
        None => String::new(),
    }
}

/// The README's paragraph on how many graphs are proven optimal and how
/// far the others may be from it; `solvers` are the config's, to tell a
/// config without a bounding solver from one whose bounding solvers gave
/// no bound.
pub fn optimality(graphs: &[GraphSummary], solvers: &[String]) -> String {
    let o = Optimality::of(graphs);
    let of = match o.graphs {
        1 => "Of the 1 graph".to_string(),
        n => format!("Of the {n} graphs"),
    };
    if o.graphs > 1 && o.proven == o.graphs {
        return format!(
            "**Optimality.** All {} graphs are proven optimal (on each, the best known peak \
             meets a lower bound some solver proved; per graph in `graphs.csv`).\n",
            o.graphs
        );
    }
    let mut parts = vec![format!(
        "{} proven optimal (the best known peak meets a lower bound some solver proved)",
        count_of(o.proven, "is", "are")
    )];
    if o.open > 0 {
        parts.push(format!(
            "{} open: the best known peak is above the best lower bound, by at most {}% \
             (median {}%) of the bound, so at most that far above the optimum",
            count_of(o.open, "is", "are"),
            o.max_gap_pct.map_or("-".into(), two),
            o.median_gap_pct.map_or("-".into(), two)
        ));
    }
    if o.boundless > 0 && o.boundless == o.graphs - o.unsolved {
        let exact = crate::solvers::names_with(|a| a.exact);
        let bounding: Vec<String> = solvers
            .iter()
            .filter(|s| exact.iter().any(|e| e == crate::solvers::split_name(s).0))
            .map(|s| format!("`{s}`"))
            .collect();
        let none = match bounding.as_slice() {
            [] => "No solver of this config gives lower bounds, so no best known peak here is \
                   known to be optimal (`exact`, `ilp`, `dp` or `brute` in the config would \
                   prove optima or bound the gap)"
                .to_string(),
            _ => format!(
                "No valid row gave a lower bound on any graph ({} in the config, but with no \
                 bound: see {} rows' status), so no best known peak here is known to be optimal",
                bounding.join(", "),
                if bounding.len() == 1 { "its" } else { "their" }
            ),
        };
        return format!(
            "**Optimality.** {none}{}.\n",
            match o.unsolved {
                0 => String::new(),
                n => format!(
                    "; {} no valid order at all",
                    count_of(n, "graph has", "graphs have")
                ),
            }
        );
    }
    if o.boundless > 0 {
        parts.push(format!(
            "{} no lower bound (no valid row of the graph has one): {} best known peak is \
             not known to be optimal",
            count_of(o.boundless, "has", "have"),
            if o.boundless == 1 { "its" } else { "their" }
        ));
    }
    let unusable = o.unbounded - o.boundless;
    if unusable > 0 {
        parts.push(format!(
            "{} no usable lower bound (the highest is 0): {} best known peak is not known to \
             be optimal",
            count_of(unusable, "has", "have"),
            if unusable == 1 { "its" } else { "their" }
        ));
    }
    if o.unsolved > 0 {
        parts.push(format!(
            "{} no valid order at all",
            count_of(o.unsolved, "has", "have")
        ));
    }
    format!(
        "**Optimality.** {of}, {}. The gap is `100 * (best known - lower bound) / lower \
         bound`, per graph in `graphs.csv` and in the table below.\n",
        parts.join("; ")
    )
}

/// What the README says about its rows besides their figures.
#[derive(Debug, Default)]
pub struct Caveats<'a> {
    /// What the rows lack (a shard, an incomplete merge): opens the README.
    pub partial: Option<&'a str>,
    /// Rows of solvers or graphs no longer in the config: said after the
    /// count of runs.
    pub leftover: Option<String>,
    /// Why the config's plots were not drawn (a build without the `plots`
    /// feature): said under the Plots heading instead of the images.
    pub plots: Option<&'a str>,
}

/// The generated README, with its [`Caveats`].
pub fn readme(
    config: &Config,
    rows: &[Row],
    graph_summary: &[GraphSummary],
    summary: &[SolverSummary],
    solvers: &[String],
    plots: &[String],
    caveats: &Caveats,
) -> String {
    let mut s = String::new();
    // A set: a scaling run has hundreds of thousands of graphs.
    let graphs: std::collections::HashSet<&str> = rows.iter().map(|r| r.graph.as_str()).collect();
    intro(&mut s, config, rows, graphs.len(), caveats);
    if !graph_summary.is_empty() {
        let _ = writeln!(s, "{}", optimality(graph_summary, solvers));
    }
    let claims = config.claims_by_graph();
    reduction_heading(&mut s, config, graphs.len(), graph_summary);
    if graphs.len() <= MAX_TABLE_GRAPHS {
        per_graph_table(&mut s, rows, graph_summary, solvers, &claims);
    } else {
        per_family_table(&mut s, rows, graph_summary, solvers, graphs.len());
    }
    let _ = writeln!(
        s,
        "\n{}\n",
        headline(rows, summary, &claims, &config.baselines)
    );
    claims_list(&mut s, config);
    per_solver_table(&mut s, summary);
    unsolved_section(&mut s, rows);
    plots_section(&mut s, plots, caveats.plots);
    s
}

/// The title, the [`Caveats::partial`] note, the config's description and
/// what the run covers (`graphs` distinct graphs) and where its files are.
fn intro(s: &mut String, config: &Config, rows: &[Row], graphs: usize, caveats: &Caveats) {
    let _ = writeln!(s, "# Experiment `{}`\n", config.name);
    if let Some(partial) = caveats.partial {
        let _ = writeln!(s, "> **Partial results**: {partial}\n");
    }
    if !config.description.is_empty() {
        let _ = writeln!(s, "{}\n", config.description.trim());
    }
    let row_solvers: std::collections::HashSet<&str> =
        rows.iter().map(|r| r.solver.as_str()).collect();
    // With `restarts = K`, a restarting solver's row is the best of K runs.
    let mut restarting: Vec<&str> = (row_solvers.iter().copied())
        .filter(|name| crate::solvers::build(name).is_ok_and(|b| b.abilities().restarts))
        .collect();
    restarting.sort_unstable();
    let restarts = match (config.restarts, restarting.as_slice()) {
        (1, _) | (_, []) => String::new(),
        (k, names) => format!(
            ", each seed of {} the best of {k} restarts",
            names.iter().map(|n| code(n)).collect::<Vec<_>>().join(", ")
        ),
    };
    let _ = writeln!(
        s,
        "Generated by `memsched run` from `config.toml` (a copy of the experiment config): \
         {} over {} and {}{}, time limit {} s per solve, seeds {} for \
         randomized solvers{restarts}. Raw rows: `runs.csv`; per-graph figures (best known peak, best \
         lower bound, gap): `graphs.csv`; per-solver figures: `summary.csv`{}.\n",
        count(rows.len(), "run"),
        count(graphs, "graph"),
        count_of(row_solvers.len(), "solver", "solvers"),
        caveats
            .leftover
            .as_ref()
            .map_or(String::new(), |l| format!(" ({l})")),
        config.time_limit,
        seeds_text(&config.seeds),
        if config.save_orders {
            "; every valid solve's order: `orders.jsonl` (`memsched check` reads a line)"
        } else {
            ""
        },
    );
}

/// The heading of the reduction table and how to read its cells (`graphs`
/// distinct graphs choose the per-graph or the per-family table).
fn reduction_heading(
    s: &mut String,
    config: &Config,
    graphs: usize,
    graph_summary: &[GraphSummary],
) {
    let _ = writeln!(s, "## Peak reduction against the baseline (%)\n");
    let _ = writeln!(
        s,
        "Each cell is `100 * (baseline - peak) / baseline` for the solver's best seed; \
         `*` marks a proven optimum; a word says why there is no valid order. The \
         baseline per graph is the first valid one of {:?}. `lower bound` is the highest \
         bound any solver proved on the graph, `gap to bound` how far the best known peak \
         is above it (`optimal` when it meets it, empty without a bound).{}\n",
        config.baselines,
        if graphs <= MAX_TABLE_GRAPHS && graph_summary.iter().any(|g| g.baseline.is_empty()) {
            " On a graph without a valid baseline (baseline `-`) a cell gives the solver's \
             peak instead."
        } else {
            ""
        }
    );
}

/// The reduction table with one line per graph (up to
/// [`MAX_TABLE_GRAPHS`]), a column per solver, and the claimed reduction
/// when the config has `claims` (of any source: the list below the table
/// names each one's).
fn per_graph_table(
    s: &mut String,
    rows: &[Row],
    graph_summary: &[GraphSummary],
    solvers: &[String],
    claims: &BTreeMap<String, f64>,
) {
    // Each cell's rows, in file order, found by one pass (a scan of
    // every row per cell took seconds with hundreds of solvers).
    let mut cells: std::collections::HashMap<(&str, &str), Vec<&Row>> = Default::default();
    for r in rows {
        cells
            .entry((r.graph.as_str(), r.solver.as_str()))
            .or_default()
            .push(r);
    }

    let mut head = "| graph | nodes | baseline | baseline peak | best known | lower bound | \
                    gap to bound |"
        .to_string();
    let mut rule = "|---|---:|---|---:|---:|---:|---:|".to_string();
    for sv in solvers {
        let _ = write!(head, " {} |", code(sv));
        rule.push_str("---:|");
    }
    if !claims.is_empty() {
        head.push_str(" claimed |");
        rule.push_str("---:|");
    }
    let _ = writeln!(s, "{head}\n{rule}");
    for gs in graph_summary {
        let g = &gs.graph.as_str();
        let [base, best, mut bound] = <[String; 3]>::try_from(sizes(&[
            gs.baseline_peak_bytes,
            gs.best_known_bytes,
            gs.lower_bound_bytes,
        ]))
        .unwrap_or_default();
        if gs.lower_bound_bytes.is_none() {
            bound.clear();
        }
        let _ = write!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} |",
            code(g),
            gs.nodes,
            if gs.baseline.is_empty() {
                "-".to_string()
            } else {
                code(&gs.baseline)
            },
            base,
            best,
            bound,
            gap_cell(gs),
        );
        for sv in solvers {
            let mine = cells.get(&(*g, sv.as_str())).map_or(&[][..], Vec::as_slice);
            let _ = write!(s, " {} |", cell(mine));
        }
        if !claims.is_empty() {
            let _ = write!(
                s,
                " {} |",
                // As written in the config (a claim has the digits its
                // source gave), as in the claims list.
                claims.get(*g).map_or("-".into(), |c| c.to_string())
            );
        }
        s.push('\n');
    }
}

/// The reduction table with one line per family, for more than
/// [`MAX_TABLE_GRAPHS`] graphs (`graphs` of them): per solver the mean of
/// each graph's best seed.
fn per_family_table(
    s: &mut String,
    rows: &[Row],
    graph_summary: &[GraphSummary],
    solvers: &[String],
    graphs: usize,
) {
    let _ = writeln!(
        s,
        "{} graphs: one line per family, the mean over its graphs of the best seed's \
         reduction (graphs without a valid order excluded; `summary.csv` has the mean over \
         every run); `proven`: graphs whose \
         best known peak is proven optimal, `max gap to bound`: the largest gap of the \
         others that have a lower bound (per graph in `graphs.csv`).\n",
        graphs
    );
    let mut head = "| family | graphs | proven | max gap to bound |".to_string();
    let mut rule = "|---|---:|---:|---:|".to_string();
    for sv in solvers {
        let _ = write!(head, " {} |", code(sv));
        rule.push_str("---:|");
    }
    let _ = writeln!(s, "{head}\n{rule}");
    let mut families: BTreeMap<&str, Vec<&Row>> = BTreeMap::new();
    for r in rows {
        families.entry(&r.family).or_default().push(r);
    }
    for (fam, rs) in families {
        let mut names: Vec<&str> = rs.iter().map(|r| r.graph.as_str()).collect();
        names.dedup();
        names.sort();
        names.dedup();
        let mine: Vec<&GraphSummary> = graph_summary.iter().filter(|g| g.family == fam).collect();
        let open = mine
            .iter()
            .filter(|g| !g.proven)
            .filter_map(|g| g.gap_pct)
            .max_by(f64::total_cmp);
        let _ = write!(
            s,
            "| {} | {} | {} | {} |",
            code(fam),
            names.len(),
            mine.iter().filter(|g| g.proven).count(),
            open.map_or(String::new(), |x| format!("{}%", two(x)))
        );
        for sv in solvers {
            // Each graph's best seed, as in the per-graph table and the
            // reduction plot.
            let mut best: BTreeMap<&str, f64> = BTreeMap::new();
            for r in rs.iter().filter(|r| &r.solver == sv) {
                if let Some(x) = r.reduction_pct {
                    let b = best.entry(&r.graph).or_insert(x);
                    *b = b.max(x);
                }
            }
            let (mean, _, _) = super::summary::stats(best.into_values().collect());
            let _ = write!(s, " {} |", opt_pct(mean));
        }
        s.push('\n');
    }
}

/// The config's `[[claims]]` with their sources, if any claim names one.
fn claims_list(s: &mut String, config: &Config) {
    if config.claims.iter().any(|c| !c.source.is_empty()) {
        let _ = writeln!(s, "Claims (`[[claims]]` of the config):\n");
        for c in &config.claims {
            let source = if c.source.is_empty() {
                String::new()
            } else {
                format!(", from {}", c.source)
            };
            // As the table names the graph (its spec spelled one way).
            let graph = super::plan::canonical_name(&c.graph);
            let _ = writeln!(s, "- {}: {}%{source}", code(&graph), c.reduction_pct);
        }
        s.push('\n');
    }
}

/// The "Per solver" section: how to read it, then a line per
/// [`SolverSummary`].
fn per_solver_table(s: &mut String, summary: &[SolverSummary]) {
    let _ = writeln!(s, "## Per solver\n");
    let _ = writeln!(
        s,
        "Reduction is against the baseline; gap is `100 * (peak - best known) / best known`, \
         a gap to the optimum only on graphs whose best known peak is proven optimal: \
         `proven graphs` counts those among the graphs the solver has a valid run on, and \
         `gap to opt. %` is its mean gap over them. Wins/ties/losses compare each run's \
         peak with the baseline's; `at best known` counts the runs that reach their graph's \
         best known peak, `optimal` the proofs.\n"
    );
    let _ = writeln!(
        s,
        "| solver | runs | valid | mean red. % | median red. % | max red. % | mean gap % | max gap % | proven graphs | gap to opt. % | wins | ties | losses | at best known | optimal | timed out | failed | invalid | mean time (ms) |"
    );
    let _ = writeln!(
        s,
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    );
    for x in summary {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} of {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {:.3} |",
            code(&x.solver),
            x.runs,
            x.valid,
            opt_pct(x.mean_reduction_pct),
            opt_pct(x.median_reduction_pct),
            opt_pct(x.max_reduction_pct),
            opt_pct(x.mean_gap_pct),
            opt_pct(x.max_gap_pct),
            x.gap_graphs_proven,
            x.gap_graphs,
            opt_pct(x.mean_gap_proven_pct),
            x.wins,
            x.ties,
            x.losses,
            x.best_known,
            x.proven_optimal,
            x.timed_out,
            x.failed,
            x.invalid,
            x.mean_time_ms
        );
    }
}

/// Solves listed with their reasons at most, in [`unsolved_section`].
const UNSOLVED_LISTED: usize = 20;

/// Characters of a reason shown there; `runs.csv` keeps it whole.
const REASON_SHOWN: usize = 200;

/// The "Failed and invalid solves" section, when any: each such solve with
/// the reason its row gives (a `failed` cell of the tables says no more),
/// up to [`UNSOLVED_LISTED`] in row order, then how many more.
fn unsolved_section(s: &mut String, rows: &[Row]) {
    let unsolved: Vec<&Row> = (rows.iter())
        .filter(|r| matches!(r.status, RowStatus::Failed | RowStatus::Invalid))
        .collect();
    if unsolved.is_empty() {
        return;
    }
    let _ = writeln!(
        s,
        "
## Failed and invalid solves
"
    );
    let _ = writeln!(
        s,
        "Why each has no valid order (`invalid`: a solver bug the checker caught), as the \
         `reason` column of `runs.csv` gives it.\n"
    );
    let _ = writeln!(s, "| graph | solver | seed | status | reason |");
    let _ = writeln!(s, "|---|---|---:|---|---|");
    for r in unsolved.iter().take(UNSOLVED_LISTED) {
        let reason = match r.reason.char_indices().nth(REASON_SHOWN) {
            Some((cut, _)) => format!("{}...", &r.reason[..cut]),
            None => r.reason.clone(),
        };
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} |",
            code(&r.graph),
            code(&r.solver),
            r.seed,
            r.status.label(),
            super::table::markdown_escape(&reason)
        );
    }
    if unsolved.len() > UNSOLVED_LISTED {
        let _ = writeln!(
            s,
            "\n... and {} more: `runs.csv` lists them all.",
            unsolved.len() - UNSOLVED_LISTED
        );
    }
}

/// The "Plots" section: the PNG files among `plots`, or why the config's
/// plots were not drawn (`not_drawn`, see [`Caveats::plots`]).
fn plots_section(s: &mut String, plots: &[String], not_drawn: Option<&str>) {
    let pngs: Vec<&String> = plots.iter().filter(|p| p.ends_with(".png")).collect();
    if !pngs.is_empty() {
        let _ = writeln!(s, "\n## Plots\n");
        for p in pngs {
            let _ = writeln!(s, "![{p}]({p})\n");
        }
    } else if let Some(why) = not_drawn {
        let _ = writeln!(s, "\n## Plots\n\nThe config's plots were {why}.");
    }
}

/// The seeds as the README names them: the list when short, else the
/// config's text and the count (a range may hold a million seeds).
fn seeds_text(seeds: &Seeds) -> String {
    const SHOWN: usize = 10;
    match seeds.expand() {
        Ok(list) if list.len() <= SHOWN => format!("{list:?}"),
        Ok(list) => format!("{seeds} ({} seeds)", list.len()),
        Err(_) => seeds.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::plan::canonical_name;

    /// Failed and invalid solves are listed with their reasons (escaped,
    /// long ones cut), at most [`UNSOLVED_LISTED`]; with none, no section.
    #[test]
    fn unsolved_solves_are_listed_with_their_reasons() {
        let row = |solver: &str, status: RowStatus, reason: &str| Row {
            graph: "g".into(),
            solver: solver.into(),
            status,
            reason: reason.into(),
            ..crate::experiment::rows::blank()
        };
        let mut s = String::new();
        unsolved_section(&mut s, &[row("kahn", RowStatus::Feasible, "")]);
        assert!(s.is_empty(), "{s}");
        let long = "x".repeat(REASON_SHOWN + 5);
        let rows = [
            row("liu", RowStatus::Failed, "not an in-tree | of ops"),
            row("exact", RowStatus::Invalid, &long),
        ];
        unsolved_section(&mut s, &rows);
        assert!(
            s.contains("| `g` | `liu` | 0 | failed | not an in-tree \\| of ops |"),
            "{s}"
        );
        let cut = format!(
            "| `g` | `exact` | 0 | invalid | {}... |",
            "x".repeat(REASON_SHOWN)
        );
        assert!(s.contains(&cut), "{s}");
        let many = vec![row("liu", RowStatus::Failed, "no"); UNSOLVED_LISTED + 3];
        let mut s = String::new();
        unsolved_section(&mut s, &many);
        assert!(
            s.ends_with("... and 3 more: `runs.csv` lists them all.\n"),
            "{s}"
        );
    }

    /// Up to ten seeds are listed; a longer range is named with its count.
    #[test]
    fn many_seeds_are_named_by_their_range() {
        let text = |s: Seeds| seeds_text(&s);
        assert_eq!(text(Seeds::Range("0..3".into())), "[0, 1, 2]");
        assert_eq!(text(Seeds::One(7)), "[7]");
        assert_eq!(
            text(Seeds::Range("0..1000000".into())),
            "\"0..1000000\" (1000000 seeds)"
        );
    }

    /// A figure too small for two decimals (an open gap, a reduction)
    /// does not print as none.
    #[test]
    fn a_tiny_figure_keeps_its_digits() {
        assert_eq!(two(1e-7), "1.0e-7");
        assert_eq!(two(-2e-5), "-2.0e-5");
        assert_eq!(two(0.0), "0.00");
        assert_eq!(two(-0.0), "0.00");
        assert_eq!(two(2.345), "2.35");
    }

    /// With equal mean reductions the headline names the solver with the
    /// most proven optima, else the one the config lists first (it named
    /// the last one), and the ones that tie it.
    #[test]
    fn headline_names_the_first_of_tied_solvers() {
        let solver = |name: &str, reduction: f64| SolverSummary {
            solver: name.into(),
            runs: 1,
            valid: 1,
            ties: 1,
            mean_reduction_pct: Some(reduction),
            median_reduction_pct: Some(reduction),
            max_reduction_pct: Some(reduction),
            ..SolverSummary::default()
        };
        let summary = [
            solver("program", 0.0),
            solver("exact", 5.0),
            solver("noisy:delta", 5.0),
            solver("kahn", 1.0),
        ];
        let text = headline(&[], &summary, &BTreeMap::new(), &["program".to_string()]);
        assert!(
            text.contains("`exact` has the largest mean reduction"),
            "{text}"
        );
        assert!(text.contains("; `noisy:delta` ties it)"), "{text}");
        assert!(!text.contains("`kahn` ti"), "{text}");
        // A tie with proofs on one side names that one.
        let mut summary = summary;
        summary[2].proven_optimal = 1;
        let text = headline(&[], &summary, &BTreeMap::new(), &["program".to_string()]);
        assert!(
            text.contains("`noisy:delta` has the largest mean reduction"),
            "{text}"
        );
        assert!(text.contains("; `exact` ties it)"), "{text}");
    }

    /// A solver valid on half the runs does not top the headline on the
    /// mean of those runs when another is valid on all of them; with none
    /// valid everywhere, the largest mean is named as before.
    #[test]
    fn headline_prefers_solvers_valid_on_every_run() {
        let solver = |name: &str, valid: usize, reduction: f64| SolverSummary {
            solver: name.into(),
            runs: 2,
            valid,
            ties: valid,
            mean_reduction_pct: Some(reduction),
            ..SolverSummary::default()
        };
        let program = ["program".to_string()];
        let summary = [solver("liu", 1, 4.2), solver("exact", 2, 2.1)];
        let text = headline(&[], &summary, &BTreeMap::new(), &program);
        assert!(
            text.contains("valid on every run, `exact` has the largest"),
            "{text}"
        );
        let summary = [solver("liu", 1, 4.2), solver("brute", 1, 2.1)];
        let text = headline(&[], &summary, &BTreeMap::new(), &program);
        assert!(
            text.contains("`liu` has the largest") && text.contains(", 1 of 2 runs valid)."),
            "{text}"
        );
    }

    /// A valid run on a graph without a valid baseline has no reduction:
    /// the headline says over how many runs its figures are.
    #[test]
    fn headline_counts_the_runs_its_mean_is_over() {
        let exact = SolverSummary {
            solver: "exact".into(),
            runs: 5,
            valid: 5,
            wins: 3,
            ties: 1,
            mean_reduction_pct: Some(11.91),
            ..SolverSummary::default()
        };
        let text = headline(&[], &[exact], &BTreeMap::new(), &["program".to_string()]);
        assert!(
            text.contains(
                "11.91% (median -%, max -%, over 4 runs: 5 of 5 runs valid, \
                 1 of them on a graph without a valid baseline)"
            ),
            "{text}"
        );
    }

    /// Names go into the tables as code spans: a rule's `*` is not
    /// emphasis and a `|` does not end the cell.
    #[test]
    fn names_are_code_spans_with_pipes_escaped() {
        assert_eq!(
            code("rule:0.7*delta+0.3*latency,id"),
            "`rule:0.7*delta+0.3*latency,id`"
        );
        assert_eq!(code("a|b"), "`a\\|b`");
        assert_eq!(code("a\nb"), "`a\\nb`");
        assert_eq!(code("x`y"), "`` x`y ``");
    }

    /// Without a `seed-greedy` row the headline says so instead of printing
    /// dashes for the averages.
    #[test]
    fn claims_without_a_measurement_say_what_is_missing() {
        let claims = BTreeMap::from([("a".to_string(), 15.5), ("b".to_string(), 14.5)]);
        let text = headline(&[], &[], &claims, &["program".to_string()]);
        assert!(
            text.contains("of the 2 graphs with a published claim (mean 15.00%), none has a `seed-greedy` reduction"),
            "{text}"
        );
        assert!(!text.contains("-%"), "{text}");
    }

    /// Claims and measurements are averaged over the same graphs, and a
    /// claim may name a generated graph with its parameters in any order.
    #[test]
    fn claims_are_compared_on_the_graphs_measured() {
        // The claim spells the spec in the order the plan does not.
        let plan_name = canonical_name("tensor-program:ops=40,allocs=floating#0");
        let spelled = [
            "tensor-program:ops=40,allocs=floating#0",
            "tensor-program:allocs=floating,ops=40#0",
        ]
        .into_iter()
        .find(|s| *s != plan_name)
        .unwrap();
        let config = Config::parse(
            &format!(
                "solvers = [\"seed-greedy\"]\n\
                 [[claims]]\ngraph = \"{spelled}\"\nreduction_pct = 10.0\n\
                 [[claims]]\ngraph = \"other\"\nreduction_pct = 50.0\n"
            ),
            "t.toml",
            "t",
        )
        .unwrap();
        let claims = config.claims_by_graph();
        let greedy = |graph: &str, reduction: f64| Row {
            graph: graph.into(),
            solver: "seed-greedy".into(),
            reduction_pct: Some(reduction),
            ..crate::experiment::rows::blank()
        };
        let rows = [greedy(&plan_name, 4.0), greedy("unclaimed", 90.0)];
        let text = headline(&rows, &[], &claims, &["program".to_string()]);
        assert!(
            text.contains(
                "the claims average 10.00% and our measurement of the article's greedy 4.00% \
                 (measured on 1 of the 2 graphs with a claim)"
            ),
            "{text}"
        );
        // The README lists each claim with its source, when one has a source.
        let solvers = ["seed-greedy".to_string()];
        let graphs = crate::experiment::graphs::summarize(&rows);
        let text = readme(
            &config,
            &rows,
            &graphs,
            &[],
            &solvers,
            &[],
            &Caveats::default(),
        );
        assert!(!text.contains("Claims (`[[claims]]`"), "{text}");
        let mut sourced = config.clone();
        sourced.claims[1].source = "the article, table 2".into();
        let text = readme(
            &sourced,
            &rows,
            &graphs,
            &[],
            &solvers,
            &[],
            &Caveats::default(),
        );
        assert!(
            text.contains("- `other`: 50%, from the article, table 2\n"),
            "{text}"
        );
        // Listed as the table names the graph, not as the claim spells it.
        assert!(text.contains(&format!("- `{plan_name}`: 10%\n")), "{text}");
        assert_ne!(plan_name, spelled);
    }

    /// The plots are linked when drawn; a build that cannot draw them says
    /// so under the same heading, with no image link.
    #[test]
    fn plots_are_linked_or_said_not_drawn() {
        let config = Config::parse("solvers = [\"kahn\"]\n", "t.toml", "t").unwrap();
        let drawn = ["gap.png".to_string(), "gap.svg".to_string()];
        let text = |plots: &[String], caveats: &Caveats| {
            readme(&config, &[], &[], &[], &[], plots, caveats)
        };
        assert!(text(&drawn, &Caveats::default()).contains("## Plots\n\n![gap.png](gap.png)\n"));
        let missing = Caveats {
            plots: Some("not drawn: this build lacks them"),
            ..Caveats::default()
        };
        let readme = text(&[], &missing);
        assert!(
            readme.ends_with(
                "## Plots\n\nThe config's plots were not drawn: this build lacks them.\n"
            ),
            "{readme}"
        );
        assert!(!readme.contains("!["), "{readme}");
        assert!(!text(&[], &Caveats::default()).contains("## Plots"));
    }

    /// The README of `rows` after the final pass (baselines, per-graph and
    /// per-solver summaries), as `finish` writes it.
    fn final_readme(config: &Config, rows: Vec<Row>) -> String {
        use crate::experiment::{graphs, rows};
        let all = rows::finalize(rows, &config.baselines);
        let g = graphs::summarize(&all);
        let solvers = config.all_solvers();
        let summary = super::super::summary::summarize(&all, &solvers, &g);
        readme(
            config,
            &all,
            &g,
            &summary,
            &solvers,
            &[],
            &Caveats::default(),
        )
    }

    /// The README names each graph's best bound and gap (open, closed, or
    /// no bound at all) and counts them in its header.
    #[test]
    fn per_graph_bounds_and_gaps_are_shown_and_counted() {
        use crate::experiment::rows;
        let config = Config::parse(
            "solvers = [\"kahn\", \"exact\"]\nbaselines = [\"program\"]\n",
            "t.toml",
            "t",
        )
        .unwrap();
        let row = |item: usize, graph: &str, solver: &str, status: &str, peak, lb| Row {
            item,
            graph: graph.into(),
            solver: solver.into(),
            status: RowStatus::from_label(status).expect("a status label"),
            valid: true,
            peak_bytes: Some(peak),
            lower_bound_bytes: lb,
            ..rows::blank()
        };
        const MIB: u64 = 1 << 20;
        let all = vec![
            row(0, "open", "program", "feasible", 3 * MIB, None),
            row(1, "open", "kahn", "feasible", 2 * MIB, None),
            row(2, "open", "exact", "feasible", 2 * MIB + 1, Some(MIB)),
            row(3, "closed", "program", "feasible", 2 * MIB, None),
            row(4, "closed", "kahn", "feasible", 2 * MIB, None),
            row(5, "closed", "exact", "optimal", MIB, Some(MIB)),
            row(6, "free", "program", "feasible", MIB, None),
            row(7, "free", "kahn", "feasible", MIB, None),
        ];
        let text = final_readme(&config, all);
        assert!(
            text.contains(
                "Of the 3 graphs, 1 is proven optimal (the best known peak meets a lower bound \
                 some solver proved); 1 is open: the best known peak is above the best lower \
                 bound, by at most 100.00% (median 100.00%) of the bound, so at most that far \
                 above the optimum; 1 has no lower bound (no valid row of the graph has one)"
            ),
            "{text}"
        );
        let line = |name: &str| {
            text.lines()
                .find(|l| l.starts_with(&format!("| `{name}` |")))
                .unwrap_or_else(|| panic!("no line for {name}: {text}"))
                .to_string()
        };
        assert!(
            line("open").contains("| 2.00 MiB | 1.00 MiB | 100.00% |"),
            "{}",
            line("open")
        );
        assert!(
            line("closed").contains("| 1.00 MiB | 1.00 MiB | optimal |"),
            "{}",
            line("closed")
        );
        assert!(
            line("free").contains("| 1.00 MiB |  |  |"),
            "{}",
            line("free")
        );
        // Per solver: the gap to the optimum is over the one proven graph.
        let kahn = text.lines().find(|l| l.starts_with("| `kahn` |")).unwrap();
        assert!(kahn.contains("| 1 of 3 | 100.00 |"), "{kahn}");
    }

    /// A config without a bounding solver is told so in one sentence; a
    /// bound of 0 is "no usable bound", apart from "no bound at all".
    #[test]
    fn optimality_tells_no_bounds_from_unusable_ones() {
        use crate::experiment::rows;
        let config = Config::parse(
            "solvers = [\"kahn\", \"exact\"]\nbaselines = [\"program\"]\n",
            "t.toml",
            "t",
        )
        .unwrap();
        let row = |item: usize, graph: &str, solver: &str, lb| Row {
            item,
            graph: graph.into(),
            solver: solver.into(),
            status: RowStatus::Feasible,
            valid: true,
            peak_bytes: Some(1 << 20),
            lower_bound_bytes: lb,
            ..rows::blank()
        };
        // `exact` is in the config but gave no bound (it failed, say).
        let silent = final_readme(
            &config,
            vec![row(0, "a", "program", None), row(1, "b", "kahn", None)],
        );
        assert!(
            silent.contains(
                "**Optimality.** No valid row gave a lower bound on any graph (`exact` in the \
                 config, but with no bound: see its rows' status)"
            ),
            "{silent}"
        );
        let heuristics = Config::parse(
            "solvers = [\"kahn\", \"seed-greedy\"]\nbaselines = [\"program\"]\n",
            "t.toml",
            "t",
        )
        .unwrap();
        let none = final_readme(
            &heuristics,
            vec![row(0, "a", "program", None), row(1, "b", "kahn", None)],
        );
        assert!(
            none.contains(
                "**Optimality.** No solver of this config gives lower bounds, so no best known \
                 peak here is known to be optimal"
            ),
            "{none}"
        );
        let zero = final_readme(
            &config,
            vec![row(0, "a", "exact", Some(0)), row(1, "b", "kahn", None)],
        );
        assert!(
            zero.contains(
                "Of the 2 graphs, 0 are proven optimal (the best known peak meets a lower bound \
                 some solver proved); 1 has no lower bound (no valid row of the graph has one): \
                 its best known peak is not known to be optimal; 1 has no usable lower bound \
                 (the highest is 0)"
            ),
            "{zero}"
        );
    }

    /// Above [`MAX_TABLE_GRAPHS`] graphs a family's cell is the mean over
    /// its graphs of each graph's best seed, as a graph's cell and the
    /// reduction plot take it (not the mean over every seed).
    #[test]
    fn a_family_line_averages_each_graphs_best_seed() {
        use crate::experiment::rows;
        let config = Config::parse(
            "solvers = [\"random\"]\nbaselines = [\"program\"]\nseeds = \"0..2\"\n",
            "t.toml",
            "t",
        )
        .unwrap();
        let row = |item: usize, graph: &str, solver: &str, seed: u64, peak| Row {
            item,
            graph: graph.into(),
            family: "chain".into(),
            solver: solver.into(),
            seed,
            status: RowStatus::Feasible,
            valid: true,
            peak_bytes: Some(peak),
            ..rows::blank()
        };
        let mut all = Vec::new();
        for g in 0..=MAX_TABLE_GRAPHS {
            let name = format!("g{g}");
            let item = 3 * g;
            all.push(row(item, &name, "program", 0, 100));
            // Seed 0 gains 50%, seed 1 loses 10%: the best seed gains 50%.
            all.push(row(item + 1, &name, "random", 0, 50));
            all.push(row(item + 2, &name, "random", 1, 110));
        }
        let text = final_readme(&config, all);
        let line = text.lines().find(|l| l.starts_with("| `chain` |")).unwrap();
        assert!(line.ends_with("| 50.00 |"), "{line}");
    }

    /// Different byte counts never print alike on one line: small graphs
    /// get KiB, and more decimals where two decimals would merge two
    /// values (a 2.62% reduction stood beside two equal sizes).
    #[test]
    fn sizes_tell_different_values_apart() {
        assert_eq!(
            sizes(&[Some(267022), Some(253292), None]),
            ["260.76 KiB", "247.36 KiB", "-"]
        );
        assert_eq!(
            sizes(&[Some(165_529_000), Some(157_356_000), Some(157_356_000)]),
            ["157.86 MiB", "150.07 MiB", "150.07 MiB"]
        );
        // 2.62% apart, equal at two decimals of a MiB.
        let (a, b) = (1_048_576 * 100 + 300, 1_048_576 * 100 + 100);
        let shown = sizes(&[Some(a), Some(b)]);
        assert_ne!(shown[0], shown[1], "{shown:?}");
        assert_eq!(shown, ["100.0003 MiB", "100.0001 MiB"]);
        // One byte apart, in GiB: still two strings.
        let shown = sizes(&[Some((5 << 30) + 1), Some(5 << 30)]);
        assert_ne!(shown[0], shown[1], "{shown:?}");
        assert_eq!(sizes(&[Some(1000), Some(0)]), ["1000 B", "0 B"]);
        assert_eq!(size(3 << 20, 2), "3.00 MiB");
    }
}
