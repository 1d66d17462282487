//! Plot 2: the distribution (CDF) of each solver's gap to the best known peak.
//!
//! A point (x, y) says: a fraction y of this solver's runs have a peak at most
//! x% above the best known one. Runs without a valid order never count, so a
//! solver that fails on some graphs never reaches 1.

use std::path::Path;

use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint};
use plotters::coord::Shift;
use plotters::prelude::*;

use super::frame::{chart_builder, draw_mesh, legend_beside, legend_beside_height, Key};
use super::{color, err, render, Draw, FONT};
use crate::experiment::rows::Row;
use crate::experiment::ExperimentError;

/// Per solver: the CDF as step points.
///
/// # Complexity
/// O(R log R) per solver with R rows (sorting the gaps).
pub fn curves(rows: &[Row], solvers: &[String]) -> Vec<(String, Vec<(f64, f64)>)> {
    let by_solver = crate::experiment::rows::by_solver(rows);
    solvers
        .iter()
        .filter_map(|s| {
            let mine = by_solver.get(s.as_str())?;
            let mut gaps: Vec<f64> = mine.iter().filter_map(|r| r.gap_pct).collect();
            gaps.sort_by(f64::total_cmp);
            let n = mine.len() as f64;
            let mut pts = vec![(0.0, 0.0)];
            let mut k = 0;
            while k < gaps.len() {
                let x = gaps[k];
                let mut j = k;
                while j < gaps.len() && gaps[j] == x {
                    j += 1;
                }
                let (_, prev) = *pts.last().expect("starts non-empty");
                pts.push((x, prev));
                pts.push((x, j as f64 / n));
                k = j;
            }
            Some((s.clone(), pts))
        })
        .collect()
}

/// The legend's label of each curve: its solver, and, when an earlier
/// curve is the same (drawn over it, so hidden), that curve's solver.
fn labels(curves: &[(String, Vec<(f64, f64)>)]) -> Vec<String> {
    curves
        .iter()
        .enumerate()
        .map(
            |(i, (name, pts))| match curves[..i].iter().find(|(_, p)| p == pts) {
                Some((first, _)) => format!("{name} (same curve as {first})"),
                None => name.clone(),
            },
        )
        .collect()
}

struct Cdf<'a> {
    title: &'a str,
    curves: Vec<(String, Vec<(f64, f64)>)>,
    /// The largest gap drawn (%).
    xmax: f64,
}

/// Above this largest gap (%) the x axis is logarithmic in `1 + gap`: one
/// bad solver (a rule thousands of percent off) would otherwise squeeze
/// every good one against 0.
const LOG_ABOVE: f64 = 100.0;

/// How gaps map onto the x axis: linearly, or as `log10(1 + gap)`.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Scale {
    Linear,
    Log,
}

impl Scale {
    fn for_max(xmax: f64) -> Scale {
        if xmax > LOG_ABOVE {
            Scale::Log
        } else {
            Scale::Linear
        }
    }

    /// The axis position of gap `x`.
    fn to_axis(self, x: f64) -> f64 {
        match self {
            Scale::Linear => x,
            Scale::Log => (1.0 + x).log10(),
        }
    }

    /// Tick gaps from 0 to at most `xmax`: 1-2-5 steps, about eight of
    /// them, on a linear axis; 0, 1, 3, 10, 30, ... on a logarithmic one.
    fn ticks(self, xmax: f64) -> Vec<f64> {
        match self {
            Scale::Linear => {
                let raw = xmax / 8.0;
                let decade = 10f64.powf(raw.log10().floor());
                let step = [1.0, 2.0, 5.0, 10.0]
                    .into_iter()
                    .map(|m| m * decade)
                    .find(|&s| s >= raw)
                    .unwrap_or(10.0 * decade);
                (0..)
                    .map(|k| k as f64 * step)
                    .take_while(|&x| x <= xmax)
                    .collect()
            }
            Scale::Log => std::iter::once(0.0)
                .chain((0..).flat_map(|e| [1.0, 3.0].map(|m| m * 10f64.powi(e))))
                .take_while(|&x| x <= xmax)
                .collect(),
        }
    }
}

/// The x axis of the CDF: gaps from 0 to `max` placed by `scale`, with
/// ticks at round gaps and no light lines.
struct GapAxis {
    scale: Scale,
    max: f64,
}

impl Ranged for GapAxis {
    type ValueType = f64;
    type FormatOption = DefaultFormatting;

    fn map(&self, &gap: &f64, (lo, hi): (i32, i32)) -> i32 {
        let end = self.scale.to_axis(self.max);
        let t = self.scale.to_axis(gap.clamp(0.0, self.max)) / end;
        lo + ((hi - lo) as f64 * t).round() as i32
    }

    fn key_points<H: KeyPointHint>(&self, hint: H) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.scale.ticks(self.max)
        }
    }

    fn range(&self) -> std::ops::Range<f64> {
        0.0..self.max
    }
}

impl Draw for Cdf<'_> {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String> {
        let scale = Scale::for_max(self.xmax);
        let axis = GapAxis {
            scale,
            max: self.xmax,
        };
        let labels = labels(&self.curves);
        let entries: Vec<_> = (labels.iter().enumerate())
            .map(|(i, label)| (label.clone(), color(i)))
            .collect();
        let area = legend_beside(root, &entries, Key::Line)?;
        let mut chart = chart_builder(&area, 70)
            .caption(
                format!(
                    "{}: gap to the best known peak, by solver (CDF)",
                    self.title
                ),
                (FONT, 22),
            )
            .build_cartesian_2d(axis, 0f64..1.02)
            .map_err(err)?;
        let x_desc = match scale {
            Scale::Linear => "gap: peak above the best known peak (%)",
            Scale::Log => "gap: peak above the best known peak (%, log scale of 1 + gap)",
        };
        draw_mesh(
            chart
                .configure_mesh()
                .x_desc(x_desc)
                .x_label_formatter(&|&x| {
                    if x >= 1.0 || x == 0.0 {
                        format!("{x:.0}")
                    } else {
                        format!("{x:.2}")
                    }
                })
                .y_desc("fraction of runs with at most this gap"),
        )?;
        for (i, (_, pts)) in self.curves.iter().enumerate() {
            let mut pts = pts.clone();
            let last = pts.last().map_or(0.0, |p| p.1);
            pts.push((self.xmax, last));
            chart
                .draw_series(LineSeries::new(pts, color(i).stroke_width(2)))
                .map_err(err)?;
        }
        Ok(())
    }
}

/// Draws `gap.png` and `gap.svg`.
pub fn draw(
    dir: &Path,
    title: &str,
    rows: &[Row],
    solvers: &[String],
) -> Result<Vec<String>, ExperimentError> {
    let curves = curves(rows, solvers);
    if curves.is_empty() {
        return Ok(Vec::new());
    }
    let xmax = curves
        .iter()
        .flat_map(|(_, p)| p.iter().map(|q| q.0))
        .fold(1.0f64, f64::max)
        * 1.05;
    let size = (1200, legend_beside_height(curves.len()));
    render(
        dir,
        "gap",
        size,
        &Cdf {
            title,
            curves,
            xmax,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A wide range of gaps gets a logarithmic axis whose ticks read as
    /// round gaps; a narrow one keeps 1-2-5 ticks on a linear axis.
    #[test]
    fn wide_gaps_get_a_log_axis_with_round_ticks() {
        let log = Scale::for_max(3300.0);
        assert_eq!(log, Scale::Log);
        assert_eq!(
            log.ticks(3300.0),
            [0.0, 1.0, 3.0, 10.0, 30.0, 100.0, 300.0, 1000.0, 3000.0]
        );
        // The axis keeps order and puts 0 at the left end, the maximum at the right.
        let axis = GapAxis {
            scale: log,
            max: 3300.0,
        };
        let px: Vec<i32> = [0.0, 1.0, 10.0, 3300.0]
            .iter()
            .map(|x| axis.map(x, (0, 1000)))
            .collect();
        assert_eq!((px[0], px[3]), (0, 1000));
        assert!(px.windows(2).all(|w| w[0] < w[1]), "{px:?}");
        let linear = Scale::for_max(42.0);
        assert_eq!(linear, Scale::Linear);
        assert_eq!(linear.ticks(42.0), [0.0, 10.0, 20.0, 30.0, 40.0]);
        let small = Scale::Linear.ticks(1.05);
        assert_eq!(small.len(), 6, "0, 0.2, ..., 1: {small:?}");
        assert!((small[5] - 1.0).abs() < 1e-12, "{small:?}");
    }

    /// A curve equal to an earlier one (drawn under it) is named in its
    /// label; others keep their solver's name.
    #[test]
    fn a_hidden_curve_names_the_one_it_repeats() {
        let a = vec![(0.0, 0.0), (0.0, 1.0)];
        let b = vec![(0.0, 0.0), (5.0, 1.0)];
        let curves = vec![
            ("exact".to_string(), a.clone()),
            ("kahn".to_string(), b),
            ("ilp".to_string(), a),
        ];
        assert_eq!(
            labels(&curves),
            ["exact", "kahn", "ilp (same curve as exact)"]
        );
    }

    #[test]
    fn cdf_counts_failures_as_never_reaching_one() {
        let row = |gap: Option<f64>| Row {
            solver: "a".into(),
            gap_pct: gap,
            ..crate::experiment::rows::blank()
        };
        let rows = vec![row(Some(0.0)), row(Some(10.0)), row(None), row(Some(0.0))];
        let c = curves(&rows, &["a".into()]);
        let pts = &c[0].1;
        assert_eq!(pts.last(), Some(&(10.0, 0.75)));
        assert!(pts.contains(&(0.0, 0.5)));
    }
}
