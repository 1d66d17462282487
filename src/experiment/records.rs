//! The JSON-lines records beside `runs.csv`: memory profiles of the Tetris
//! graph's solves ([`Profile`], `tetris.jsonl`) and saved orders
//! ([`SavedOrder`], `orders.jsonl`), read last-record-per-key and written
//! in key order.

use std::fs;
use std::io::{self, Write};
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::rows::Key;
use super::ExperimentError;
use crate::graph::{Graph, NodeIdx};
use crate::schedule;

/// The memory profile of one solve of the Tetris graph (`tetris.jsonl`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Profile {
    /// The Tetris graph's name, as in `runs.csv`'s `graph` column.
    pub graph: String,
    /// The solver's registry name, as in `runs.csv`'s `solver` column.
    pub solver: String,
    /// The solve's seed, as in `runs.csv`'s `seed` column.
    pub seed: u64,
    /// Steps of the full order.
    pub steps: usize,
    /// `(step, memory)` points: every step, or per bucket the step of its maximum
    /// when the order is longer than [`MAX_PROFILE_POINTS`].
    pub points: Vec<(usize, i64)>,
}

impl Profile {
    /// The profile of `order` on `g` (named `graph`, solved by `solver`
    /// with `seed`), or `None` if the checker rejects the order.
    ///
    /// # Complexity
    /// O(n + m).
    pub fn of_order(
        g: &Graph,
        order: &[NodeIdx],
        graph: &str,
        solver: &str,
        seed: u64,
    ) -> Option<Profile> {
        let mem = schedule::profile(g, order).ok()?;
        Some(Profile {
            graph: graph.to_string(),
            solver: solver.to_string(),
            seed,
            steps: mem.len(),
            points: downsample(&mem),
        })
    }
}

/// Points kept per profile (a bucket keeps its maximum, so peaks survive).
pub const MAX_PROFILE_POINTS: usize = 4000;

/// Keeps every step, or the maximum of each of [`MAX_PROFILE_POINTS`] buckets.
///
/// # Complexity
/// O(n) for an order of n steps.
pub(super) fn downsample(mem: &[i64]) -> Vec<(usize, i64)> {
    if mem.len() <= MAX_PROFILE_POINTS {
        return mem.iter().enumerate().map(|(i, &m)| (i + 1, m)).collect();
    }
    let per = mem.len().div_ceil(MAX_PROFILE_POINTS);
    mem.chunks(per)
        .enumerate()
        .map(|(c, chunk)| {
            let (k, &m) = chunk
                .iter()
                .enumerate()
                .max_by_key(|&(k, &m)| (m, std::cmp::Reverse(k)))
                .expect("chunks are non-empty");
            (c * per + k + 1, m)
        })
        .collect()
}

/// The order of one solve (`orders.jsonl`), as the node ids of the graph.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SavedOrder {
    /// The graph's name, as in `runs.csv`'s `graph` column.
    pub graph: String,
    /// The solver's registry name, as in `runs.csv`'s `solver` column.
    pub solver: String,
    /// The solve's seed, as in `runs.csv`'s `seed` column.
    pub seed: u64,
    /// The checked schedule, as original ids (`memsched check` reads it).
    pub order: Vec<i64>,
}

/// A record of a `.jsonl` file beside `runs.csv`, keyed as rows are.
pub trait Keyed {
    /// Graph, solver and seed.
    fn key(&self) -> Key;
}

impl Keyed for Profile {
    fn key(&self) -> Key {
        (self.graph.clone(), self.solver.clone(), self.seed)
    }
}

impl Keyed for SavedOrder {
    fn key(&self) -> Key {
        (self.graph.clone(), self.solver.clone(), self.seed)
    }
}

/// Writes `records` one JSON object per line, through a temporary file and
/// a rename.
pub fn write_jsonl<T: Serialize>(path: &Path, records: &[T]) -> io::Result<()> {
    crate::output::write_file(path, |f| {
        for r in records {
            serde_json::to_writer(&mut *f, r).map_err(io::Error::other)?;
            f.write_all(b"\n")?;
        }
        Ok(())
    })
}

/// Rewrites the `.jsonl` file `path` (if it exists) with the records
/// [`read_jsonl`] finds in it less those `drop` takes, in key order: when
/// `always`, else only when `drop` takes one. Returns how many damaged
/// lines (see [`read_jsonl_counting`]) it read, and whether it rewrote the
/// file (dropping them).
pub(super) fn rewrite_jsonl<T: Serialize + serde::de::DeserializeOwned + Keyed>(
    path: &Path,
    always: bool,
    drop: impl Fn(&T) -> bool,
) -> Result<(usize, bool), ExperimentError> {
    if !path.exists() {
        return Ok((0, false));
    }
    let (records, damaged) = read_jsonl_counting::<T>(path);
    if !always && !records.iter().any(&drop) {
        return Ok((damaged, false));
    }
    let kept: Vec<T> = records.into_iter().filter(|r| !drop(r)).collect();
    write_jsonl(path, &kept).map_err(|e| ExperimentError::io("write", path, e))?;
    Ok((damaged, true))
}

/// Reads a `.jsonl` file of records: the last one per key wins, and a line
/// that does not parse (a cut last line) is ignored; in key order.
pub fn read_jsonl<T: serde::de::DeserializeOwned + Keyed>(path: &Path) -> Vec<T> {
    read_jsonl_counting(path).0
}

/// [`read_jsonl`], with the number of *damaged* lines it ignored: complete
/// lines (ended by a newline, not blank) that are not records of type `T`,
/// damaged by hand or by another program. A cut last line (a run killed
/// mid-write) is not counted; a file that cannot be read has no records
/// and no damaged line.
pub fn read_jsonl_counting<T: serde::de::DeserializeOwned + Keyed>(path: &Path) -> (Vec<T>, usize) {
    let Ok(text) = fs::read_to_string(path) else {
        return (Vec::new(), 0);
    };
    let cut_last = !text.ends_with('\n');
    let mut by_key = std::collections::BTreeMap::new();
    let mut damaged = 0;
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let cut = cut_last && lines.peek().is_none();
        match serde_json::from_str::<T>(line) {
            Ok(r) => {
                by_key.insert(r.key(), r);
            }
            Err(_) if cut || line.trim().is_empty() => {}
            Err(_) => damaged += 1,
        }
    }
    (by_key.into_values().collect(), damaged)
}

/// The damaged lines of the `.jsonl` file `path` (see
/// [`read_jsonl_counting`]), for a file the caller does not otherwise read.
pub fn damaged_lines<T: serde::de::DeserializeOwned + Keyed>(path: &Path) -> usize {
    read_jsonl_counting::<T>(path).1
}

/// Writes `profiles` as `tetris.jsonl` ([`write_jsonl`]).
pub fn write_profiles(path: &Path, profiles: &[Profile]) -> io::Result<()> {
    write_jsonl(path, profiles)
}

/// Reads `tetris.jsonl` ([`read_jsonl`]).
pub fn read_profiles(path: &Path) -> Vec<Profile> {
    read_jsonl(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn damaged_lines_count_complete_lines_only() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("orders.jsonl");
        let good = r#"{"graph": "g", "solver": "kahn", "seed": 0, "order": [1, 2]}"#;
        let text = format!("{good}\nnot json\n\n{{\"graph\": 3}}\n{good}\n{{\"graph\": \"cut");
        fs::write(&path, text).unwrap();
        assert_eq!(
            damaged_lines::<SavedOrder>(&path),
            2,
            "the cut last line is not counted"
        );
        assert_eq!(read_jsonl::<SavedOrder>(&path).len(), 1, "one key");
        assert_eq!(damaged_lines::<SavedOrder>(&dir.path().join("none")), 0);
    }

    #[test]
    fn downsample_keeps_the_peak() {
        let mut mem: Vec<i64> = (0..10_000).map(|i| i % 7).collect();
        mem[5_555] = 100;
        let pts = downsample(&mem);
        assert!(pts.len() <= MAX_PROFILE_POINTS);
        assert!(pts.contains(&(5_556, 100)));
        assert_eq!(downsample(&[3, 4]), vec![(1, 3), (2, 4)]);
    }
}
