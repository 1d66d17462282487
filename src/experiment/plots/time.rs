//! Plot 3: solve time against graph size (nodes), log-log, by solver.

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use super::{color, err, render, Draw, FONT};
use crate::experiment::rows::Row;
use crate::experiment::ExperimentError;

struct Times<'a> {
    title: &'a str,
    series: Vec<(String, Vec<(f64, f64)>)>,
    x: (f64, f64),
    y: (f64, f64),
}

impl Draw for Times<'_> {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String> {
        let mut chart = ChartBuilder::on(root)
            .caption(
                format!("{}: solve time against graph size (log-log)", self.title),
                (FONT, 22),
            )
            .margin(12)
            .x_label_area_size(45)
            .y_label_area_size(80)
            .build_cartesian_2d(
                (self.x.0..self.x.1).log_scale(),
                (self.y.0..self.y.1).log_scale(),
            )
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_desc("graph size (nodes)")
            .y_desc("solve time (ms)")
            .x_label_formatter(&|x| format!("{x:.0}"))
            .y_label_formatter(&|y| format!("{y}"))
            .label_style((FONT, 14))
            .axis_desc_style((FONT, 16))
            .draw()
            .map_err(err)?;
        for (i, (name, pts)) in self.series.iter().enumerate() {
            let c = color(i);
            chart
                .draw_series(pts.iter().map(|&p| Circle::new(p, 3, c.filled())))
                .map_err(err)?
                .label(name.as_str())
                .legend(move |(x, y)| Circle::new((x + 8, y), 4, c.filled()));
        }
        super::draw_legend(&mut chart, SeriesLabelPosition::UpperLeft)?;
        Ok(())
    }
}

/// Draws `time.png` and `time.svg` (rows with a valid order only).
pub fn draw(
    dir: &Path,
    title: &str,
    rows: &[Row],
    solvers: &[String],
) -> Result<Vec<String>, ExperimentError> {
    // Times below a microsecond are drawn at 1 us (the log axis needs > 0).
    let series: Vec<(String, Vec<(f64, f64)>)> = solvers
        .iter()
        .map(|s| {
            let pts = rows
                .iter()
                .filter(|r| &r.solver == s && r.valid && r.nodes > 0)
                .map(|r| (r.nodes as f64, r.time_ms.max(1e-3)))
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
        series,
        x: (x0 / 1.5, x1 * 1.5),
        y: (y0 / 2.0, y1 * 2.0),
    };
    render(dir, "time", (1000, 650), &plot)
}
