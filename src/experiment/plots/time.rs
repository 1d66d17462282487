//! Plot 3: solve time against graph size (nodes), log-log, by solver.

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use super::frame::{chart_builder, draw_mesh, legend_beside, legend_beside_height, Key};
use super::{color, err, render, Draw, FONT};
use crate::experiment::rows::Row;
use crate::experiment::ExperimentError;

struct Times<'a> {
    title: &'a str,
    /// How many rows took under [`FLOOR_MS`] and are drawn at it.
    floored: usize,
    series: Vec<(String, Vec<(f64, f64)>)>,
    x: (f64, f64),
    y: (f64, f64),
}

impl Draw for Times<'_> {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String> {
        let entries: Vec<_> = (self.series.iter().enumerate())
            .map(|(i, (name, _))| (name.clone(), color(i)))
            .collect();
        let area = legend_beside(root, &entries, Key::Dot)?;
        let mut chart = chart_builder(&area, 80)
            .caption(
                format!("{}: solve time against graph size (log-log)", self.title),
                (FONT, 22),
            )
            .build_cartesian_2d(
                (self.x.0..self.x.1)
                    .log_scale()
                    .with_key_points(log_ticks(self.x.0, self.x.1)),
                (self.y.0..self.y.1)
                    .log_scale()
                    .with_key_points(log_ticks(self.y.0, self.y.1)),
            )
            .map_err(err)?;
        draw_mesh(
            chart
                .configure_mesh()
                .x_desc("graph size (nodes)")
                .y_desc(if self.floored > 0 {
                    format!(
                        "solve time (ms; {} under {FLOOR_MS} ms drawn at {FLOOR_MS})",
                        match self.floored {
                            1 => "1 run".to_string(),
                            n => format!("{n} runs"),
                        }
                    )
                } else {
                    "solve time (ms)".to_string()
                })
                .x_label_formatter(&|x| format!("{x:.0}"))
                .y_label_formatter(&|y| tick_label(*y)),
        )?;
        for (i, (_, pts)) in self.series.iter().enumerate() {
            let c = color(i);
            chart
                .draw_series(pts.iter().map(|&p| Circle::new(p, 3, c.filled())))
                .map_err(err)?;
        }
        Ok(())
    }
}

/// Tick values for a log axis over `lo..hi`: powers of ten over three
/// decades or more, else 1, 2, 5 times powers of ten, or every 1-9 times a
/// power when that gives fewer than four (graphs of
/// 20-150 nodes got a single label, 100, from plotters' own choice).
fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let within = |mantissas: &[f64]| -> Vec<f64> {
        let (mut e, top) = (lo.log10().floor() as i32, hi.log10().ceil() as i32);
        let mut out = Vec::new();
        while e <= top {
            for m in mantissas {
                let v = m * 10f64.powi(e);
                if (lo..=hi).contains(&v) {
                    out.push(v);
                }
            }
            e += 1;
        }
        out
    };
    // Three decades or more: the powers of ten alone.
    let coarse = if hi / lo >= 1e3 {
        within(&[1.0])
    } else {
        within(&[1.0, 2.0, 5.0])
    };
    if coarse.len() >= 4 {
        coarse
    } else {
        within(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0])
    }
}

/// A tick value of [`log_ticks`] as written by hand: `0.009`, not the
/// `0.009000000000000001` that `9.0 * 1e-3` prints as.
fn tick_label(v: f64) -> String {
    let decimals = (-v.log10()).ceil().max(0.0) as usize;
    format!("{v:.decimals$}")
}

/// The lowest time drawn (the log axis needs > 0; `runs.csv` keeps
/// microseconds, so a faster solve is written as 0).
const FLOOR_MS: f64 = 1e-3;

/// Draws `time.png` and `time.svg` (rows with a valid order only); the
/// y axis says how many runs were drawn at [`FLOOR_MS`].
pub fn draw(
    dir: &Path,
    title: &str,
    rows: &[Row],
    solvers: &[String],
) -> Result<Vec<String>, ExperimentError> {
    let mut floored = 0;
    let by_solver = crate::experiment::rows::by_solver(rows);
    let series: Vec<(String, Vec<(f64, f64)>)> = solvers
        .iter()
        .map(|s| {
            let pts = by_solver
                .get(s.as_str())
                .map_or(&[][..], Vec::as_slice)
                .iter()
                .filter(|r| r.valid && r.nodes > 0)
                .map(|r| {
                    floored += usize::from(r.time_ms < FLOOR_MS);
                    (r.nodes as f64, r.time_ms.max(FLOOR_MS))
                })
                .collect();
            (s.clone(), pts)
        })
        .filter(|(_, p): &(String, Vec<_>)| !p.is_empty())
        .collect();
    if series.is_empty() {
        return Ok(Vec::new());
    }
    let all = || series.iter().flat_map(|(_, p)| p.iter());
    let (x0, x1) = all().fold((f64::MAX, 0f64), |(a, b), p| (a.min(p.0), b.max(p.0)));
    let (y0, y1) = all().fold((f64::MAX, 0f64), |(a, b), p| (a.min(p.1), b.max(p.1)));
    let plot = Times {
        title,
        floored,
        series,
        x: (x0 / 1.5, x1 * 1.5),
        y: (y0 / 2.0, y1 * 2.0),
    };
    let size = (1200, legend_beside_height(plot.series.len()));
    render(dir, "time", size, &plot)
}

#[cfg(test)]
mod tests {
    use super::{log_ticks, tick_label};

    #[test]
    fn tick_labels_have_the_digits_of_the_tick() {
        let labels: Vec<String> = log_ticks(0.004, 0.03).into_iter().map(tick_label).collect();
        assert_eq!(
            labels,
            ["0.004", "0.005", "0.006", "0.007", "0.008", "0.009", "0.01", "0.02", "0.03"]
        );
        assert_eq!(tick_label(200.0), "200");
        assert_eq!(tick_label(0.5), "0.5");
    }

    #[test]
    fn narrow_ranges_get_several_ticks() {
        assert_eq!(log_ticks(18.0, 225.0), [20.0, 50.0, 100.0, 200.0]);
        assert_eq!(
            log_ticks(30.0, 90.0),
            [30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0]
        );
        assert_eq!(log_ticks(600.0, 1.5e6), [1e3, 1e4, 1e5, 1e6]);
    }
}
