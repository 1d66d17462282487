//! Plot 4: memory over the steps of one graph (the article's "Tetris" picture)
//! for the baseline, the article's greedy, the lowest-peak heuristic, the
//! config's `tetris_solvers` and the optimum.
//!
//! The lines come from `tetris.jsonl` (profiles recorded by the runner from
//! checked orders). The "lowest-peak heuristic" is the solver without an exactness
//! ability, other than the baseline and `seed-greedy`, with the lowest peak
//! (ties: config order); "lowest-peak other heuristic" when `seed-greedy`'s
//! peak is lower still. The optimum is a row with status `optimal`; without
//! one the lowest peak of an exact solver is drawn as "best found (no proof)".

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use super::frame::{chart_builder, draw_legend, draw_mesh, line_key, plot_height_px};
use super::{byte_unit, color, err, render, Draw, FONT};
use crate::experiment::records::Profile;
use crate::experiment::rows::{Row, RowStatus};
use crate::experiment::ExperimentError;
use crate::solvers;

/// The lines to draw: (label, solver position for the colour, profile):
/// the baseline, the article's greedy, the lowest-peak heuristic, the
/// optimum, then each of `extra` (a config's `tetris_solvers`) not drawn
/// already.
pub fn pick<'a>(
    rows: &[Row],
    solvers: &[String],
    extra: &[String],
    profiles: &'a [Profile],
) -> Vec<(String, usize, &'a Profile)> {
    let Some(graph) = profiles.first().map(|p| p.graph.as_str()) else {
        return Vec::new();
    };
    let mine: Vec<&Row> = rows
        .iter()
        .filter(|r| r.graph == graph && r.valid)
        .collect();
    let profile = |r: &Row| {
        profiles
            .iter()
            .find(|p| p.graph == graph && p.solver == r.solver && p.seed == r.seed)
    };
    let pos = |s: &str| solvers.iter().position(|x| x == s).unwrap_or(0);
    let is_exact = |s: &str| solvers::build(s).is_ok_and(|x| x.abilities().exact);
    let lowest = |f: &dyn Fn(&Row) -> bool| {
        mine.iter()
            .copied()
            .filter(|r| f(r))
            .min_by_key(|r| (r.peak_bytes, pos(&r.solver), r.seed))
    };
    let baseline = mine.first().map(|r| r.baseline.clone()).unwrap_or_default();
    let mut out = Vec::new();
    let mut drawn: Vec<String> = Vec::new();
    // `again`: draw the row's solver even if a line shows it already.
    let mut push_line = |label: String, r: Option<&Row>, again: bool| {
        if let Some(r) = r {
            if let Some(p) = profile(r).filter(|_| again || !drawn.contains(&r.solver)) {
                out.push((label, pos(&r.solver), p));
                drawn.push(r.solver.clone());
            }
        }
    };
    let peak = |r: Option<&Row>| r.and_then(|r| r.peak_bytes);
    let b = lowest(&|r| r.solver == baseline);
    push_line(format!("baseline: {baseline}"), b, true);
    let g = lowest(&|r| r.solver == "seed-greedy");
    push_line("article's greedy (seed-greedy)".into(), g, true);
    let heuristic =
        |r: &Row| r.solver != baseline && r.solver != "seed-greedy" && !is_exact(&r.solver);
    let h = lowest(&heuristic);
    if let Some(h) = h {
        // Others with the same peak are counted, so that the first in
        // config order does not read as the only one.
        let mut tied: Vec<&str> = mine
            .iter()
            .filter(|r| heuristic(r) && r.peak_bytes == h.peak_bytes && r.solver != h.solver)
            .map(|r| r.solver.as_str())
            .collect();
        tied.sort_unstable();
        tied.dedup();
        // The article's greedy, drawn above, may be lower still.
        let which = match (peak(g), h.peak_bytes) {
            (Some(greedy), Some(best)) if greedy < best => "lowest-peak other heuristic",
            _ => "lowest-peak heuristic",
        };
        let label = match tied.len() {
            0 => format!("{which}: {}", h.solver),
            k => format!("{which}: {} (+{k} tied)", h.solver),
        };
        push_line(label, Some(h), true);
    }
    let opt = lowest(&|r| r.status == RowStatus::Optimal);
    if opt.is_some() {
        push_line(
            format!("optimum ({})", opt.map_or("", |r| &r.solver)),
            opt,
            true,
        );
    } else {
        let e = lowest(&|r| is_exact(&r.solver));
        if peak(e) < peak(h).or(peak(g)) || h.is_none() {
            if let Some(e) = e {
                push_line(
                    format!("best found, no proof ({})", e.solver),
                    Some(e),
                    true,
                );
            }
        }
    }
    // Last, so that a solver already drawn as the optimum is not drawn twice.
    for solver in extra {
        push_line(solver.clone(), lowest(&|r| &r.solver == solver), false);
    }
    out
}

struct Steps<'a> {
    title: String,
    lines: Vec<(String, usize, &'a Profile)>,
    unit: (f64, &'static str),
    xmax: f64,
    ymax: f64,
}

impl Draw for Steps<'_> {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String> {
        let (div, unit) = self.unit;
        // Room above the highest line for the legend (20 px a line and its
        // frame, against the plot's height less caption, margins and axis
        // labels), so that it hides no peak; at most three quarters of the
        // height (past about 20 lines the legend may reach the lines).
        let plot_px = plot_height_px(root);
        let legend_px = 20.0 * self.lines.len() as f64 + 24.0;
        let headroom = 1.0 / (1.0 - (legend_px / plot_px).min(0.75));
        let mut chart = chart_builder(root, 80)
            .caption(&self.title, (FONT, 20))
            .build_cartesian_2d(0f64..self.xmax, 0f64..self.ymax / div * headroom)
            .map_err(err)?;
        let mut mesh = chart.configure_mesh();
        mesh.x_desc("step (memory after step k is drawn from k - 1 to k)")
            .x_label_formatter(&|x| format!("{x:.0}"))
            .y_desc(format!("live memory ({unit})"));
        // No more labels than whole steps: a 3-step graph printed
        // "0 0 1 2 2 2 3" from fractional ticks.
        if self.xmax < 10.0 {
            mesh.x_labels(self.xmax as usize + 1);
        }
        draw_mesh(&mut mesh)?;
        let count = self.lines.len() as u32;
        for (i, (label, ci, p)) in self.lines.iter().enumerate() {
            let c = color(*ci);
            // Earlier lines wider, so that a line under a later one with
            // the same steps still shows at its edges.
            let width = 2 + (count - 1 - i as u32);
            let peak = p.points.iter().map(|q| q.1).max().unwrap_or(0);
            // A staircase: memory after step s holds from s - 1 to s.
            let mut pts = vec![(0.0, 0.0)];
            let mut prev = 0usize;
            for &(s, m) in &p.points {
                let y = m as f64 / div;
                pts.push((prev as f64, y));
                pts.push((s as f64, y));
                prev = s;
            }
            chart
                .draw_series(LineSeries::new(pts, c.stroke_width(width)))
                .map_err(err)?
                .label(format!("{label} - peak {}", peak_text(peak as f64)))
                .legend(line_key(c));
        }
        draw_legend(&mut chart, SeriesLabelPosition::UpperRight)
    }
}

/// Draws `tetris.png` and `tetris.svg` (nothing when no profile was recorded).
pub fn draw(
    dir: &Path,
    title: &str,
    rows: &[Row],
    solvers: &[String],
    extra: &[String],
    profiles: &[Profile],
) -> Result<Vec<String>, ExperimentError> {
    let lines = pick(rows, solvers, extra, profiles);
    if lines.is_empty() {
        return Ok(Vec::new());
    }
    let graph = lines[0].2.graph.clone();
    let plot = Steps::new(format!("{title}: memory over the steps of {graph}"), lines);
    render(dir, "tetris", SIZE, &plot)
}

/// Draws the profiles `lines` (label, profile; coloured in that order) into
/// `path`, a PNG or SVG file by its extension, under `title`: the plot of
/// `memsched schedule --plot`.
pub fn draw_file(
    path: &Path,
    title: &str,
    lines: &[(String, Profile)],
) -> Result<(), ExperimentError> {
    super::register_font();
    let lines = lines
        .iter()
        .enumerate()
        .map(|(i, (label, p))| (label.clone(), i, p))
        .collect();
    super::render_file(path, SIZE, &Steps::new(title.to_string(), lines))
}

/// The size of a Tetris plot, in pixels.
const SIZE: (u32, u32) = (1100, 650);

impl<'a> Steps<'a> {
    /// The plot of `lines`, its axes fitted to the longest and highest.
    fn new(title: String, lines: Vec<(String, usize, &'a Profile)>) -> Self {
        let xmax = lines.iter().map(|l| l.2.steps).max().unwrap_or(1).max(1) as f64;
        let ymax = lines
            .iter()
            .flat_map(|l| l.2.points.iter().map(|q| q.1))
            .max()
            .unwrap_or(1)
            .max(1) as f64;
        Steps {
            title,
            lines,
            unit: byte_unit(ymax),
            xmax,
            ymax,
        }
    }
}

/// A line's peak in the legend, in its own unit (`143.36 MiB`, not the
/// axis's `0.14 GiB`), so that peaks near each other read apart.
fn peak_text(bytes: f64) -> String {
    match super::byte_unit(bytes) {
        (_, "B") => format!("{bytes:.0} B"),
        (div, unit) => format!("{:.2} {unit}", bytes / div),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each peak is read in its own unit: beside a 2 GiB line, a 150 MB
    /// one shows `143.05 MiB`, not the axis's `0.14 GiB`.
    #[test]
    fn peaks_read_in_their_own_unit() {
        assert_eq!(peak_text(150e6), "143.05 MiB");
        assert_eq!(peak_text(3.0 * 2f64.powi(30)), "3.00 GiB");
        assert_eq!(peak_text(1500.0), "1500 B");
    }
    use crate::experiment::rows;

    fn row(solver: &str, peak: u64, status: &str) -> Row {
        Row {
            graph: "g".into(),
            solver: solver.into(),
            status: RowStatus::from_label(status).expect("a status label"),
            valid: true,
            peak_bytes: Some(peak),
            baseline: "program".into(),
            ..rows::blank()
        }
    }

    fn profile(solver: &str) -> Profile {
        Profile {
            graph: "g".into(),
            solver: solver.into(),
            seed: 0,
            steps: 1,
            points: vec![(1, 1)],
        }
    }

    /// A few steps get one label each: fractional ticks printed
    /// "0 0 1 2 2 2 3" for three steps.
    #[test]
    fn short_profiles_label_each_step_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.svg");
        let p = Profile {
            steps: 3,
            points: vec![(1, 5), (2, 9), (3, 0)],
            ..profile("exact")
        };
        draw_file(&path, "t", &[("exact".into(), p)]).unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        // Text elements are `<text ...>\nLABEL\n</text>`; x ticks are bare integers.
        let whole: Vec<&str> = svg
            .lines()
            .filter(|l| !l.is_empty() && l.bytes().all(|b| b.is_ascii_digit()))
            .collect();
        assert_eq!(whole, ["0", "1", "2", "3"], "{svg}");
    }

    /// The labels of the lines [`pick`] draws, in order.
    fn labels(
        rows: &[Row],
        solvers: &[String],
        extra: &[String],
        profiles: &[Profile],
    ) -> Vec<String> {
        (pick(rows, solvers, extra, profiles).into_iter())
            .map(|(label, ..)| label)
            .collect()
    }

    /// The lowest-peak heuristic is the first in config order among the lowest,
    /// and its label counts the others that tie with it.
    #[test]
    fn the_best_heuristic_label_counts_ties() {
        let solvers: Vec<String> = ["program", "kahn", "xla-default", "best-heuristic", "exact"]
            .map(String::from)
            .to_vec();
        let rows = vec![
            row("program", 10, "feasible"),
            row("kahn", 8, "feasible"),
            row("xla-default", 8, "feasible"),
            row("best-heuristic", 8, "feasible"),
            row("exact", 7, "optimal"),
        ];
        let profiles: Vec<Profile> = solvers.iter().map(|s| profile(s)).collect();
        let has_label = |rows: &[Row], wanted: &str| {
            let labels = labels(rows, &solvers, &[], &profiles);
            assert!(labels.iter().any(|l| l == wanted), "{wanted}: {labels:?}");
        };
        has_label(&rows, "lowest-peak heuristic: kahn (+2 tied)");
        has_label(&rows[..2], "lowest-peak heuristic: kahn");
        // The article's greedy below them: the label does not claim the
        // lowest peak of every heuristic.
        let mut solvers = solvers.clone();
        solvers.insert(1, "seed-greedy".into());
        let profiles: Vec<Profile> = solvers.iter().map(|s| profile(s)).collect();
        let mut rows = rows;
        rows.insert(1, row("seed-greedy", 7, "feasible"));
        let labels = labels(&rows, &solvers, &[], &profiles);
        assert!(
            labels.contains(&"lowest-peak other heuristic: kahn (+2 tied)".to_string()),
            "{labels:?}"
        );
    }

    /// `tetris_solvers` adds a line per solver not drawn already, after the
    /// optimum's (so `exact` listed there is not drawn twice).
    #[test]
    fn extra_solvers_get_their_own_line_once() {
        let solvers: Vec<String> = ["program", "kahn", "rule:id", "exact"]
            .map(String::from)
            .to_vec();
        let rows = vec![
            row("program", 10, "feasible"),
            row("kahn", 8, "feasible"),
            row("rule:id", 9, "feasible"),
            row("exact", 7, "optimal"),
        ];
        let profiles: Vec<Profile> = solvers.iter().map(|s| profile(s)).collect();
        let extra = ["rule:id", "kahn", "program", "exact"].map(String::from);
        assert_eq!(
            labels(&rows, &solvers, &extra, &profiles),
            [
                "baseline: program",
                "lowest-peak heuristic: kahn",
                "optimum (exact)",
                "rule:id"
            ]
        );
    }
}
