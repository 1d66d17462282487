//! `memsched merge`: joins the output directories of shards into one.
//!
//! The config is read from the first directory's `config.toml` (every shard
//! writes the same one); rows are united by (graph, solver, seed), the first
//! directory winning a duplicate; Tetris profiles are concatenated; then the
//! final pass ([`super::finish`]) recomputes baselines, best known peaks and
//! gaps over the union and draws the plots.

use std::fs;
use std::path::{Path, PathBuf};

use super::config::Config;
use super::rows;
use super::runner::{CONFIG, PROFILES, RUNS};
use super::{finish, ExperimentError, Finished};

/// Merges `dirs` into `out` (which may be one of them).
pub fn merge(dirs: &[PathBuf], out: &Path) -> Result<Finished, ExperimentError> {
    let first = dirs
        .first()
        .ok_or_else(|| ExperimentError::Config("merge needs at least one directory".into()))?;
    let config_path = first.join(CONFIG);
    let config = Config::load(&config_path).map_err(|e| ExperimentError::Config(e.to_string()))?;
    let mut all = Vec::new();
    let mut profiles = String::new();
    for d in dirs {
        let runs = d.join(RUNS);
        if !runs.is_file() {
            return Err(ExperimentError::Config(format!(
                "{} has no {RUNS}",
                d.display()
            )));
        }
        all.extend(rows::read_rows(&runs).map_err(|e| ExperimentError::io(&runs, e))?);
        if let Ok(text) = fs::read_to_string(d.join(PROFILES)) {
            for line in text.lines() {
                profiles.push_str(line);
                profiles.push('\n');
            }
        }
    }
    let mut seen = std::collections::BTreeSet::new();
    all.retain(|r| seen.insert(r.key()));
    fs::create_dir_all(out).map_err(|e| ExperimentError::io(out, e))?;
    let path = out.join(CONFIG);
    fs::write(&path, config.to_toml()).map_err(|e| ExperimentError::io(&path, e))?;
    let path = out.join(RUNS);
    rows::write_rows(&path, &all).map_err(|e| ExperimentError::io(&path, e))?;
    let path = out.join(PROFILES);
    fs::write(&path, profiles).map_err(|e| ExperimentError::io(&path, e))?;
    finish(out, &config)
}
