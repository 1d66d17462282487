//! Plot 1: per graph, each solver's peak divided by the baseline's (bars).
//!
//! The article's table as a chart: a bar left of 1.0 is a reduction. A
//! randomized solver shows its best seed. With more than [`MAX_GROUPS`]
//! graphs, bars show the mean ratio per graph family instead.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::frame::{chart_builder, draw_mesh, legend_beside, Key};
use super::{color, err, render, shorten, Draw, FONT};
use crate::experiment::rows::Row;
use crate::experiment::ExperimentError;

/// Ratios above this are drawn cut at the edge, labelled with their value.
pub const CLIP: f64 = 2.0;

/// Most bar groups drawn one per graph.
pub const MAX_GROUPS: usize = 30;

/// Bar groups: a label and, per solver, the ratio peak / baseline.
pub type Groups = Vec<(String, Vec<Option<f64>>)>;

/// What the groups are (graphs or families), and the groups.
pub fn ratios(rows: &[Row], solvers: &[String]) -> (String, Groups) {
    // Graphs in order of first row, each with the family of that row.
    let mut graphs: Vec<&str> = Vec::new();
    let mut family_of: HashMap<&str, &str> = HashMap::new();
    let mut best: BTreeMap<(&str, &str), f64> = BTreeMap::new();
    for r in rows {
        if let std::collections::hash_map::Entry::Vacant(e) = family_of.entry(&r.graph) {
            e.insert(&r.family);
            graphs.push(&r.graph);
        }
        if let (Some(p), Some(b)) = (r.peak_bytes, r.baseline_peak_bytes) {
            if b > 0 {
                let x = p as f64 / b as f64;
                let e = best.entry((&r.graph, &r.solver)).or_insert(x);
                *e = e.min(x);
            }
        }
    }
    let per_graph = |g: &str| -> Vec<Option<f64>> {
        solvers
            .iter()
            .map(|s| best.get(&(g, s.as_str())).copied())
            .collect()
    };
    if graphs.len() <= MAX_GROUPS {
        let groups = graphs
            .iter()
            .map(|g| (g.to_string(), per_graph(g)))
            .collect();
        return ("graph".into(), groups);
    }
    let mut families: Vec<String> = Vec::new();
    let mut sums: BTreeMap<(String, usize), (f64, usize)> = BTreeMap::new();
    for g in &graphs {
        let fam = family_of[g].to_string();
        if !families.contains(&fam) {
            families.push(fam.clone());
        }
        for (s, v) in per_graph(g).into_iter().enumerate() {
            if let Some(v) = v {
                let e = sums.entry((fam.clone(), s)).or_insert((0.0, 0));
                e.0 += v;
                e.1 += 1;
            }
        }
    }
    let groups = families
        .into_iter()
        .map(|f| {
            let vals = (0..solvers.len())
                .map(|s| sums.get(&(f.clone(), s)).map(|(t, n)| t / *n as f64))
                .collect();
            (f, vals)
        })
        .collect();
    ("family (mean over graphs)".into(), groups)
}

struct Bars<'a> {
    title: &'a str,
    what: String,
    groups: Groups,
    solvers: &'a [String],
}

impl Draw for Bars<'_> {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String> {
        let (title, what, groups, solvers) = (self.title, &self.what, &self.groups, self.solvers);
        let k = solvers.len().max(1);
        // Bars beyond CLIP (a heuristic far worse than the baseline) are cut
        // at the edge and labelled with their value, so they do not flatten
        // the differences near 1.0.
        let xmax = groups
            .iter()
            .flat_map(|(_, v)| v.iter().flatten())
            .fold(1.0f64, |a, &b| a.max(b))
            .min(CLIP)
            * 1.08;
        let n = groups.len() as f64;
        // The legend beside the chart, so that it covers no bar.
        let entries: Vec<_> = (solvers.iter().enumerate())
            .map(|(s, name)| (name.clone(), color(s)))
            .collect();
        let area = legend_beside(root, &entries, Key::Block)?;
        let mut chart = chart_builder(&area, 300)
            .caption(
                format!("{title}: peak memory relative to the baseline, per {what}"),
                (FONT, 22),
            )
            .build_cartesian_2d(0f64..xmax, 0f64..n)
            .map_err(err)?;
        draw_mesh(
            chart
                .configure_mesh()
                .disable_y_mesh()
                .y_labels(0)
                .x_desc("peak / baseline peak (lower is better; 1.0 = baseline)")
                .y_desc(what.as_str()),
        )?;
        for s in 0..solvers.len() {
            let c = color(s);
            let bars = groups.iter().enumerate().filter_map(|(gi, (_, vals))| {
                let v = vals[s]?;
                // Group 0 at the top.
                let top = n - gi as f64 - 0.1 - 0.8 * s as f64 / k as f64;
                Some(Rectangle::new(
                    [(0.0, top - 0.8 / k as f64), (v.min(xmax), top)],
                    c.filled(),
                ))
            });
            chart.draw_series(bars).map_err(err)?;
        }
        chart
            .draw_series(LineSeries::new(
                vec![(1.0, 0.0), (1.0, n)],
                BLACK.stroke_width(1),
            ))
            .map_err(err)?;
        for (gi, (_, vals)) in groups.iter().enumerate() {
            for (si, v) in vals.iter().enumerate() {
                let Some(v) = v.filter(|&v| v > xmax) else {
                    continue;
                };
                let mid = n - gi as f64 - 0.1 - 0.8 * (si as f64 + 0.5) / k as f64;
                let (px, py) = chart.backend_coord(&(xmax, mid));
                // Dark on a white box at the bar's cut end: readable on any
                // bar colour and however thin the bar.
                let text = format!("{v:.1}x");
                let width = 7 * text.len() as i32 + 6;
                root.draw(&Rectangle::new(
                    [(px - 2 - width, py - 7), (px - 2, py + 7)],
                    WHITE.mix(0.9).filled(),
                ))
                .map_err(err)?;
                root.draw(&Text::new(
                    text,
                    (px - 5, py),
                    TextStyle::from((FONT, 12).into_font())
                        .color(&BLACK)
                        .pos(Pos::new(HPos::Right, VPos::Center)),
                ))
                .map_err(err)?;
            }
        }
        for (gi, (name, _)) in groups.iter().enumerate() {
            let (px, py) = chart.backend_coord(&(0.0, n - gi as f64 - 0.5));
            root.draw(&Text::new(
                shorten(name, 42),
                (px - 8, py),
                TextStyle::from((FONT, 13).into_font()).pos(Pos::new(HPos::Right, VPos::Center)),
            ))
            .map_err(err)?;
        }
        Ok(())
    }
}

/// Draws `reduction.png` and `reduction.svg`.
pub fn draw(
    dir: &Path,
    title: &str,
    rows: &[Row],
    solvers: &[String],
) -> Result<Vec<String>, ExperimentError> {
    let (what, groups) = ratios(rows, solvers);
    if groups.iter().all(|(_, v)| v.iter().all(Option::is_none)) {
        return Ok(Vec::new());
    }
    let k = solvers.len().max(1) as u32;
    let group_px = (k * 9 + 8).max(22);
    // The groups, or the legend beside them if it is taller.
    let height = (160 + groups.len() as u32 * group_px)
        .max(140 + 20 * k)
        .clamp(400, 6000);
    let plot = Bars {
        title,
        what,
        groups,
        solvers,
    };
    render(dir, "reduction", (1200, height), &plot)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The value of attribute `name` in an SVG element's text.
    fn attribute(element: &str, name: &str) -> Option<i32> {
        let start = element.find(&format!(" {name}=\""))? + name.len() + 3;
        element[start..].split('"').next()?.parse().ok()
    }

    /// The legend stands beside the bars, one entry per solver: no bar,
    /// even one cut at the edge, reaches into it (it stood inside the
    /// chart, with room left below the bars).
    #[test]
    fn the_legend_stands_beside_the_bars() {
        let solvers: Vec<String> = (0..15).map(|i| format!("solver-{i}")).collect();
        let groups: Groups = (0..2)
            .map(|g| {
                let mut ratios = vec![Some(0.9); solvers.len()];
                ratios[3] = Some(5.0);
                (format!("family-{g}"), ratios)
            })
            .collect();
        let bars = Bars {
            title: "t",
            what: "family".into(),
            groups,
            solvers: &solvers,
        };
        super::super::register_font();
        let mut svg = String::new();
        let root = SVGBackend::with_string(&mut svg, (1200, 446)).into_drawing_area();
        bars.draw(&root).unwrap();
        root.present().unwrap();
        drop(root);
        let legend_x = (solvers.iter())
            .map(|name| {
                let end = svg
                    .find(&format!(">\n{name}\n</text>"))
                    .unwrap_or_else(|| panic!("no {name} in {svg}"));
                let start = svg[..end].rfind("<text").unwrap();
                attribute(&svg[start..end], "x").unwrap()
            })
            .min()
            .unwrap();
        // Left of the legend's keys and frame (30 px before the labels).
        let edge = legend_x - 40;
        for rect in svg.split("<rect").skip(1) {
            let (x, width) = (
                attribute(rect, "x").unwrap(),
                attribute(rect, "width").unwrap(),
            );
            assert!(
                x >= edge || x + width <= edge,
                "a rect crosses {edge}: {rect}"
            );
        }
    }
}
