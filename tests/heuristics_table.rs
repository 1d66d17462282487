//! The README's table of heuristics against program order (200 random
//! tensor programs of 40 ops: seeds 0..100, anchored and floating) is
//! recomputed here from the solvers and compared row by row, so the table
//! cannot drift from the code. `memsched run experiments/heuristics.toml`
//! produces the same figures in `results/heuristics/summary.csv`.

use memsched::corpus::gen::{generate, GenSpec};
use memsched::solvers::{self, SolveContext};
use memsched::Graph;

const README: &str = include_str!("../README.md");
const HEADER: &str = "| solver | beats program | ties | loses |";
const SPECS: [&str; 2] = [
    "tensor-program:ops=40",
    "tensor-program:ops=40,allocs=floating",
];

/// One row of the README table.
#[derive(Debug)]
struct Row {
    solver: String,
    wins: usize,
    ties: usize,
    losses: usize,
    mean_reduction_pct: f64,
    mean_gap_pct: f64,
}

fn readme_rows() -> Vec<Row> {
    let start = README
        .find(HEADER)
        .expect("README has the heuristics table");
    README[start..]
        .lines()
        .skip(2)
        .take_while(|l| l.starts_with("| `"))
        .map(|line| {
            let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
            assert_eq!(cells.len(), 6, "table row {line:?}");
            Row {
                solver: cells[0].trim_matches('`').to_string(),
                wins: cells[1].parse().unwrap(),
                ties: cells[2].parse().unwrap(),
                losses: cells[3].parse().unwrap(),
                mean_reduction_pct: cells[4].parse().unwrap(),
                mean_gap_pct: cells[5].parse().unwrap(),
            }
        })
        .collect()
}

fn corpus() -> Vec<Graph> {
    SPECS
        .iter()
        .flat_map(|spec| {
            let spec = GenSpec::parse(spec).unwrap();
            (0..100).map(move |seed| generate(&spec, seed).unwrap())
        })
        .collect()
}

/// The checked peak of `solver` on `g`, as the runner computes it (seed 0).
fn peak(solver: &str, g: &Graph) -> u64 {
    let s = solvers::build(solver).unwrap();
    let ctx = SolveContext::new(0, Some(std::time::Duration::from_secs(10)));
    let report = solvers::run(s.as_ref(), g, &ctx);
    report
        .peak
        .unwrap_or_else(|| panic!("{solver}: no valid schedule"))
}

#[test]
fn readme_heuristics_table_matches_the_solvers() {
    let rows = readme_rows();
    assert_eq!(rows.len(), 14, "the table lists 14 heuristics");
    let graphs = corpus();
    let program: Vec<u64> = graphs.iter().map(|g| peak("program", g)).collect();
    let peaks: Vec<Vec<u64>> = rows
        .iter()
        .map(|row| graphs.iter().map(|g| peak(&row.solver, g)).collect())
        .collect();
    let best_known: Vec<u64> = (0..graphs.len())
        .map(|i| {
            peaks
                .iter()
                .map(|p| p[i])
                .chain([program[i]])
                .min()
                .unwrap()
        })
        .collect();
    let n = graphs.len() as f64;
    for (row, peaks) in rows.iter().zip(&peaks) {
        let wins = (0..graphs.len()).filter(|&i| peaks[i] < program[i]).count();
        let ties = (0..graphs.len())
            .filter(|&i| peaks[i] == program[i])
            .count();
        let reduction: f64 = (0..graphs.len())
            .map(|i| 100.0 * (program[i] as f64 - peaks[i] as f64) / program[i] as f64)
            .sum::<f64>()
            / n;
        let gap: f64 = (0..graphs.len())
            .map(|i| 100.0 * (peaks[i] as f64 - best_known[i] as f64) / best_known[i] as f64)
            .sum::<f64>()
            / n;
        let measured = (wins, ties, graphs.len() - wins - ties);
        assert_eq!(
            (row.wins, row.ties, row.losses),
            measured,
            "{}: README says wins/ties/losses {:?}, the solver gives {:?}",
            row.solver,
            (row.wins, row.ties, row.losses),
            measured
        );
        assert!(
            (row.mean_reduction_pct - reduction).abs() < 0.006,
            "{}: README mean reduction {}, measured {reduction:.4}",
            row.solver,
            row.mean_reduction_pct
        );
        assert!(
            (row.mean_gap_pct - gap).abs() < 0.006,
            "{}: README mean gap {}, measured {gap:.4}",
            row.solver,
            row.mean_gap_pct
        );
    }
}
