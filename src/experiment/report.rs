//! `README.md` of a results directory: the main table in markdown, the
//! per-solver summary and the plots, generated from the final rows.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::config::Config;
use super::rows::Row;
use super::summary::SolverSummary;

/// Above this many graphs the main table shows one line per family.
pub const MAX_TABLE_GRAPHS: usize = 40;

fn mib(b: u64) -> String {
    format!("{:.2}", b as f64 / 1048576.0)
}

/// Two decimals, never `-0.00`.
fn two(x: f64) -> String {
    if x.abs() < 0.005 {
        "0.00".into()
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
            let star = if rows.iter().any(|r| r.status == "optimal") {
                "*"
            } else {
                ""
            };
            match r.reduction_pct {
                Some(x) => format!("{}{star}", two(x)),
                None => format!("{} MiB{star}", mib(r.peak_bytes.unwrap_or(0))),
            }
        }
        None => rows
            .first()
            .map_or("-".into(), |r| r.status.replace('_', " ")),
    }
}

/// One generated sentence on what the table shows: the solver with the largest
/// mean reduction, the article's greedy, and the claims beside our figures.
pub fn headline(
    rows: &[Row],
    summary: &[SolverSummary],
    claims: &BTreeMap<String, f64>,
    baselines: &[String],
) -> String {
    let mut parts = Vec::new();
    let best = summary
        .iter()
        .filter(|x| x.mean_reduction_pct.is_some() && !baselines.contains(&x.solver))
        // The first of the largest (in config order): `min_by` keeps the first.
        .min_by(|a, b| {
            b.mean_reduction_pct
                .unwrap_or(f64::MIN)
                .total_cmp(&a.mean_reduction_pct.unwrap_or(f64::MIN))
        });
    if let Some(b) = best {
        parts.push(format!(
            "Of the solvers other than the baselines, `{}` has the largest mean reduction, {}% (median {}%, max {}%, {} of {} runs valid)",
            b.solver,
            opt_pct(b.mean_reduction_pct),
            opt_pct(b.median_reduction_pct),
            opt_pct(b.max_reduction_pct),
            b.valid,
            b.runs
        ));
    }
    if let Some(g) = summary.iter().find(|x| x.solver == "seed-greedy") {
        parts.push(format!(
            "the article's greedy (`seed-greedy`) averages {}% (max {}%)",
            opt_pct(g.mean_reduction_pct),
            opt_pct(g.max_reduction_pct)
        ));
    }
    if !claims.is_empty() {
        // Claim and measurement side by side, over the graphs that have both.
        let (claimed, measured): (Vec<f64>, Vec<f64>) = rows
            .iter()
            .filter(|r| r.solver == "seed-greedy")
            .filter_map(|r| Some((*claims.get(&r.graph)?, r.reduction_pct?)))
            .unzip();
        let mean = |v: &[f64]| (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64);
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
            parts.push(format!(
                "{} with a published claim (mean {}%), none has a `seed-greedy` reduction to \
                 set beside it (a valid `seed-greedy` row and a valid baseline are needed)",
                match claims.len() {
                    1 => "of the 1 graph".to_string(),
                    n => format!("of the {n} graphs"),
                },
                opt_pct(mean(&all))
            ));
        } else {
            parts.push(format!(
                "on the graphs with a published claim, the claims average {}% and our measurement of the article's greedy {}%{coverage}",
                opt_pct(mean(&claimed)),
                opt_pct(mean(&measured))
            ));
        }
    }
    if parts.is_empty() {
        return String::new();
    }
    format!("{}.", parts.join("; "))
}

/// The generated README.
pub fn readme(
    config: &Config,
    rows: &[Row],
    summary: &[SolverSummary],
    solvers: &[String],
    plots: &[String],
) -> String {
    let mut s = String::new();
    let mut graphs: Vec<&str> = Vec::new();
    for r in rows {
        if !graphs.contains(&r.graph.as_str()) {
            graphs.push(&r.graph);
        }
    }
    let _ = writeln!(s, "# Experiment `{}`\n", config.name);
    if !config.description.is_empty() {
        let _ = writeln!(s, "{}\n", config.description.trim());
    }
    let _ = writeln!(
        s,
        "Generated by `memsched run` from `config.toml` (a copy of the experiment config): \
         {} runs over {} graphs and {} solvers, time limit {} s per solve, seeds {:?} for \
         randomized solvers. Raw rows: `runs.csv`; per-solver figures: `summary.csv`{}.\n",
        rows.len(),
        graphs.len(),
        solvers.len(),
        config.time_limit,
        config.seeds.expand().unwrap_or_default(),
        if config.save_orders {
            "; every valid solve's order: `orders.jsonl` (`memsched check` reads a line)"
        } else {
            ""
        },
    );
    let claims = config.claims_by_graph();
    let _ = writeln!(s, "## Peak reduction against the baseline (%)\n");
    let _ = writeln!(
        s,
        "Each cell is `100 * (baseline - peak) / baseline` for the solver's best seed; \
         `*` marks a proven optimum; a word says why there is no valid order. The \
         baseline per graph is the first valid one of {:?}.\n",
        config.baselines
    );
    let by_graph_solver = |g: &str, sv: &str| -> Vec<&Row> {
        rows.iter()
            .filter(|r| r.graph == g && r.solver == sv)
            .collect()
    };
    if graphs.len() <= MAX_TABLE_GRAPHS {
        let mut head =
            "| graph | nodes | baseline | baseline peak (MiB) | best known (MiB) |".to_string();
        let mut rule = "|---|---:|---|---:|---:|".to_string();
        for sv in solvers {
            let _ = write!(head, " {sv} |");
            rule.push_str("---:|");
        }
        if !claims.is_empty() {
            head.push_str(" article's claim |");
            rule.push_str("---:|");
        }
        let _ = writeln!(s, "{head}\n{rule}");
        for g in &graphs {
            let first = rows.iter().find(|r| r.graph == *g).expect("graph has rows");
            let _ = write!(
                s,
                "| {} | {} | {} | {} | {} |",
                g,
                first.nodes,
                if first.baseline.is_empty() {
                    "-"
                } else {
                    &first.baseline
                },
                first.baseline_peak_bytes.map_or("-".into(), mib),
                first.best_known_bytes.map_or("-".into(), mib),
            );
            for sv in solvers {
                let _ = write!(s, " {} |", cell(&by_graph_solver(g, sv)));
            }
            if !claims.is_empty() {
                let _ = write!(
                    s,
                    " {} |",
                    claims.get(*g).map_or("-".into(), |c| format!("{c:.1}"))
                );
            }
            s.push('\n');
        }
    } else {
        let _ = writeln!(
            s,
            "{} graphs: one line per family, mean reduction over its graphs and seeds \
             (runs without a valid order excluded; see `summary.csv`).\n",
            graphs.len()
        );
        let mut head = "| family | graphs |".to_string();
        let mut rule = "|---|---:|".to_string();
        for sv in solvers {
            let _ = write!(head, " {sv} |");
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
            let _ = write!(s, "| {fam} | {} |", names.len());
            for sv in solvers {
                let xs: Vec<f64> = rs
                    .iter()
                    .filter(|r| &r.solver == sv)
                    .filter_map(|r| r.reduction_pct)
                    .collect();
                let mean = (!xs.is_empty()).then(|| xs.iter().sum::<f64>() / xs.len() as f64);
                let _ = write!(s, " {} |", opt_pct(mean));
            }
            s.push('\n');
        }
    }
    let _ = writeln!(
        s,
        "\n{}\n",
        headline(rows, summary, &claims, &config.baselines)
    );
    if config.claims.iter().any(|c| !c.source.is_empty()) {
        let _ = writeln!(s, "Claims (`[[claims]]` of the config):\n");
        for c in &config.claims {
            let source = if c.source.is_empty() {
                String::new()
            } else {
                format!(", from {}", c.source)
            };
            let _ = writeln!(s, "- `{}`: {}%{source}", c.graph, two(c.reduction_pct));
        }
        s.push('\n');
    }
    let _ = writeln!(s, "## Per solver\n");
    let _ = writeln!(
        s,
        "Reduction is against the baseline; gap is `100 * (peak - best known) / best known`. \
         Wins/ties/losses compare each run's peak with the baseline's; `optimal` counts proofs.\n"
    );
    let _ = writeln!(
        s,
        "| solver | runs | valid | mean red. % | median red. % | max red. % | mean gap % | max gap % | wins | ties | losses | best known | optimal | timed out | failed | invalid | mean time (ms) |"
    );
    let _ = writeln!(
        s,
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    );
    for x in summary {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {:.2} |",
            x.solver,
            x.runs,
            x.valid,
            opt_pct(x.mean_reduction_pct),
            opt_pct(x.median_reduction_pct),
            opt_pct(x.max_reduction_pct),
            opt_pct(x.mean_gap_pct),
            opt_pct(x.max_gap_pct),
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
    let pngs: Vec<&String> = plots.iter().filter(|p| p.ends_with(".png")).collect();
    if !pngs.is_empty() {
        let _ = writeln!(s, "\n## Plots\n");
        for p in pngs {
            let _ = writeln!(s, "![{p}]({p})\n");
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::plan::canonical_name;

    /// With equal mean reductions the headline names the solver the config
    /// lists first (it named the last one).
    #[test]
    fn headline_names_the_first_of_tied_solvers() {
        let solver = |name: &str, reduction: f64| SolverSummary {
            solver: name.into(),
            runs: 1,
            valid: 1,
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
        let text = readme(&config, &rows, &[], &solvers, &[]);
        assert!(!text.contains("Claims (`[[claims]]`"), "{text}");
        let mut sourced = config.clone();
        sourced.claims[1].source = "the article, table 2".into();
        let text = readme(&sourced, &rows, &[], &solvers, &[]);
        assert!(
            text.contains("- `other`: 50.00%, from the article, table 2\n"),
            "{text}"
        );
        assert!(text.contains(&format!("- `{spelled}`: 10.00%\n")), "{text}");
    }
}
