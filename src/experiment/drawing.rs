//! The plots of the final pass: drawn by `plots` in a build
//! with the `plots` feature, named as not drawn in one without it.

use std::path::Path;

use super::config::Config;
use super::plan::Plan;
use super::rows::Row;
use super::ExperimentError;

/// What [`draw`] did.
#[derive(Debug, Default)]
pub(super) struct Drawn {
    /// Plot files written (PNG and SVG).
    pub files: Vec<String>,
    /// Plots the config asks for that were not drawn, and why.
    pub warnings: Vec<String>,
    /// Why no plot was drawn, for the README, when the build cannot draw.
    pub note: Option<&'static str>,
}

/// Whether some valid row's graph has no baseline row in `rows`: a
/// shard's, whose baseline rows of that graph went to other shards.
#[cfg(feature = "plots")]
fn lacks_baseline_rows(rows: &[Row], config: &Config) -> bool {
    let with_baseline: std::collections::HashSet<&str> = rows
        .iter()
        .filter(|r| config.baselines.contains(&r.solver))
        .map(|r| r.graph.as_str())
        .collect();
    rows.iter()
        .any(|r| r.valid && !with_baseline.contains(r.graph.as_str()))
}

/// Draws the config's plots into `out` from `rows` (`solvers` in the
/// config's order) and the recorded profiles of the Tetris graph; warns
/// about a plot with nothing to draw.
#[cfg(feature = "plots")]
pub(super) fn draw(
    out: &Path,
    config: &Config,
    rows: &[Row],
    solvers: &[String],
    plan: Option<&Plan>,
) -> Result<Drawn, ExperimentError> {
    use super::config::PlotKind;
    use super::{plan, records, results_dir};

    // Runs record profiles of the Tetris graph (the named one, else the
    // plan's first), which may have changed between runs. Without a plan
    // (a config whose graph files are not here, merged elsewhere), item 0's
    // graph, which a graph dropped from the config may still hold.
    let first = |plan: &Plan| plan.graphs.first().map(|g| g.name.clone());
    let tetris = match (&config.tetris_graph, plan) {
        (Some(name), _) => Some(plan::canonical_name(name)),
        (None, Some(plan)) => first(plan),
        (None, None) => match Plan::new(config) {
            Ok(plan) => first(&plan),
            Err(_) => rows.iter().find(|r| r.item == 0).map(|r| r.graph.clone()),
        },
    };
    let mut profiles = records::read_profiles(&out.join(results_dir::PROFILES));
    if let Some(name) = &tetris {
        profiles.retain(|p| &p.graph == name);
    }
    let files = super::plots::draw_all(out, config, rows, solvers, &profiles)?;
    let mut warnings = Vec::new();
    // The Tetris plot has its own warning below, when its graph was solved.
    let missing: Vec<String> = config
        .plots
        .iter()
        .filter(|&&k| k != PlotKind::Tetris)
        .filter(|k| {
            !files
                .iter()
                .any(|f| f.starts_with(&format!("{}.", k.stem())))
        })
        .map(|&k| match k {
            PlotKind::Reduction if lacks_baseline_rows(rows, config) => format!(
                "`{}` (it needs {}; the rows of a baseline ({}) are not here for some \
                 graphs: they are in shards not run or not merged into this directory, so \
                 `memsched merge` every shard to draw it)",
                k.stem(),
                k.needs(),
                config.baselines.join(", ")
            ),
            _ => format!("`{}` (it needs {})", k.stem(), k.needs()),
        })
        .collect();
    if !missing.is_empty() {
        warnings.push(format!("plot(s) not drawn: {}", missing.join("; ")));
    }
    let solved = |g: &String| rows.iter().any(|r| &r.graph == g && r.valid);
    if config.plots.contains(&PlotKind::Tetris)
        && tetris.as_ref().is_some_and(solved)
        && profiles.is_empty()
    {
        warnings.push(format!(
            "no Tetris plot: no memory profile of the Tetris graph `{}` is recorded (profiles \
             are recorded as its solves run, so a `tetris_graph` chosen after they ran, or a \
             first graph that became first by a change of the config, has none; \
             `--redo-graph '{}'` solves that graph's rows again)",
            tetris.as_deref().unwrap_or_default(),
            tetris.as_deref().unwrap_or_default().replace('\'', r"'\''")
        ));
    }
    Ok(Drawn {
        files,
        warnings,
        note: None,
    })
}

/// Why a build without the `plots` feature draws none.
#[cfg(not(feature = "plots"))]
const NOT_DRAWN: &str = "not drawn: this build of memsched lacks the `plots` feature";

/// Without the `plots` feature: no plot, and a warning and a README note
/// if the config asks for some. Their files from an earlier pass are
/// removed, as a full build removes a plot left without data: they would
/// outlive the rows they were drawn from.
#[cfg(not(feature = "plots"))]
pub(super) fn draw(
    out: &Path,
    config: &Config,
    _rows: &[Row],
    _solvers: &[String],
    _plan: Option<&Plan>,
) -> Result<Drawn, ExperimentError> {
    if config.plots.is_empty() {
        return Ok(Drawn::default());
    }
    for kind in &config.plots {
        kind.remove_files(out);
    }
    let stems: Vec<String> = config
        .plots
        .iter()
        .map(|k| format!("`{}`", k.stem()))
        .collect();
    Ok(Drawn {
        files: Vec::new(),
        warnings: vec![format!("plot(s) {} {NOT_DRAWN}", stems.join(", "))],
        note: Some(NOT_DRAWN),
    })
}
