//! Plot 2: the distribution (CDF) of each solver's gap to the best known peak.
//!
//! A point (x, y) says: a fraction y of this solver's runs have a peak at most
//! x% above the best known one. Runs without a valid order never count, so a
//! solver that fails on some graphs never reaches 1.

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use super::{color, err, render, Draw, FONT};
use crate::experiment::rows::Row;
use crate::experiment::ExperimentError;

/// Per solver: the CDF as step points.
///
/// # Complexity
/// O(R log R) per solver with R rows (sorting the gaps).
pub fn curves(rows: &[Row], solvers: &[String]) -> Vec<(String, Vec<(f64, f64)>)> {
    solvers
        .iter()
        .filter_map(|s| {
            let mine: Vec<&Row> = rows.iter().filter(|r| &r.solver == s).collect();
            if mine.is_empty() {
                return None;
            }
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

struct Cdf<'a> {
    title: &'a str,
    curves: Vec<(String, Vec<(f64, f64)>)>,
    xmax: f64,
}

impl Draw for Cdf<'_> {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String> {
        let mut chart = ChartBuilder::on(root)
            .caption(
                format!(
                    "{}: gap to the best known peak, by solver (CDF)",
                    self.title
                ),
                (FONT, 22),
            )
            .margin(12)
            .x_label_area_size(45)
            .y_label_area_size(70)
            .build_cartesian_2d(0f64..self.xmax, 0f64..1.02)
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_desc("gap: peak above the best known peak (%)")
            .y_desc("fraction of runs with at most this gap")
            .label_style((FONT, 14))
            .axis_desc_style((FONT, 16))
            .draw()
            .map_err(err)?;
        for (i, (name, pts)) in self.curves.iter().enumerate() {
            let c = color(i);
            let mut pts = pts.clone();
            let last = pts.last().map_or(0.0, |p| p.1);
            pts.push((self.xmax, last));
            chart
                .draw_series(LineSeries::new(pts, c.stroke_width(2)))
                .map_err(err)?
                .label(name.as_str())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(2))
                });
        }
        super::draw_legend(&mut chart, SeriesLabelPosition::LowerRight)?;
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
    render(
        dir,
        "gap",
        (1000, 650),
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
