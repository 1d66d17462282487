//! Appending a run's records to disk: rows to `runs.csv`, profiles and
//! orders beside it, one flushed write each.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::experiment::records::{rewrite_jsonl, Profile, SavedOrder};
use crate::experiment::results_dir::{restore_if_replaced, ORDERS, PROFILES, RUNS};
use crate::experiment::rows::{self, Row};
use crate::experiment::ExperimentError;

/// Appends rows, profiles and orders, one flushed write each.
pub(super) struct Sink {
    runs: File,
    profiles: Option<File>,
    orders: Option<File>,
}

impl Sink {
    /// Opens the record files for appending (profiles and orders only if
    /// the run keeps them); readable too, so that a file replaced mid-run
    /// can be read back ([`restore_if_replaced`]).
    pub(super) fn open(
        paths: &RecordPaths,
        profiles: bool,
        orders: bool,
    ) -> Result<Sink, ExperimentError> {
        let open = |p: &Path| {
            OpenOptions::new()
                .create(true)
                .read(true)
                .append(true)
                .open(p)
                .map_err(|e| ExperimentError::io("open", p, e))
        };
        Ok(Sink {
            runs: open(&paths.runs)?,
            profiles: profiles.then(|| open(&paths.profiles)).transpose()?,
            orders: orders.then(|| open(&paths.orders)).transpose()?,
        })
    }

    fn row(&mut self, row: &Row) -> io::Result<()> {
        self.runs.write_all(&rows::to_line(row))?;
        self.runs.flush()
    }

    /// Appends `record` as one line of `file` (if the run keeps that file).
    fn record<T: Serialize>(file: &mut Option<File>, record: &T) -> io::Result<()> {
        if let Some(f) = file {
            let mut line = serde_json::to_vec(record).map_err(io::Error::other)?;
            line.push(b'\n');
            f.write_all(&line)?;
            f.flush()?;
        }
        Ok(())
    }

    /// Writes what a solve left: its profile and order first, so that a
    /// row never lacks them (a record without its row, from a run killed
    /// between the two, is dropped when the run resumes). An error names
    /// the file (`PROFILES`, `ORDERS` or `RUNS`).
    pub(super) fn solved(&mut self, solved: &Solved) -> Result<(), (&'static str, io::Error)> {
        if let Some(p) = &solved.profile {
            Self::record(&mut self.profiles, p).map_err(|e| (PROFILES, e))?;
        }
        if let Some(o) = &solved.order {
            Self::record(&mut self.orders, o).map_err(|e| (ORDERS, e))?;
        }
        self.row(&solved.row).map_err(|e| (RUNS, e))
    }
}

impl Drop for Sink {
    /// Puts the appended records on disk when the solves end (done or
    /// stopped): a flushed row survives a killed process, a synced one a
    /// crash of the machine too. Best effort; one sync per file and run.
    fn drop(&mut self) {
        let files = [
            Some(&self.runs),
            self.profiles.as_ref(),
            self.orders.as_ref(),
        ];
        for file in files.into_iter().flatten() {
            let _ = file.sync_data();
        }
    }
}

/// The record files of a results directory.
pub(super) struct RecordPaths {
    pub(super) runs: PathBuf,
    pub(super) profiles: PathBuf,
    pub(super) orders: PathBuf,
}

impl RecordPaths {
    pub(super) fn new(out: &Path) -> RecordPaths {
        RecordPaths {
            runs: out.join(RUNS),
            profiles: out.join(PROFILES),
            orders: out.join(ORDERS),
        }
    }
}

/// After the solves: writes back a record file replaced while the run
/// appended to it (returning those paths), and rewrites the profiles (and
/// the orders, if `orders_appended`) in key order, as a resume writes
/// them, so that a fresh run and a resumed one give one file.
pub(super) fn close_records(
    mut sink: Sink,
    paths: &RecordPaths,
    tetris: Option<usize>,
    orders_appended: bool,
) -> Result<Vec<PathBuf>, ExperimentError> {
    let mut restored = Vec::new();
    let files = [
        (&paths.runs, Some(&mut sink.runs)),
        (&paths.profiles, sink.profiles.as_mut()),
        (&paths.orders, sink.orders.as_mut()),
    ];
    for (path, file) in files {
        let Some(file) = file else { continue };
        if restore_if_replaced(path, file)
            .map_err(|e| ExperimentError::io("restore rows to", path, e))?
        {
            restored.push(path.clone());
        }
    }
    drop(sink);
    if tetris.is_some() {
        rewrite_jsonl::<Profile>(&paths.profiles, true, |_| false)?;
    }
    if orders_appended {
        rewrite_jsonl::<SavedOrder>(&paths.orders, true, |_| false)?;
    }
    Ok(restored)
}

/// What one solve leaves: its row, its profile (on the Tetris graph) and
/// its order (when the config keeps orders).
pub(super) struct Solved {
    pub(super) row: Row,
    pub(super) profile: Option<Profile>,
    pub(super) order: Option<SavedOrder>,
}

impl Solved {
    /// A solve that left a row only.
    pub(super) fn row(row: Row) -> Self {
        Solved {
            row,
            profile: None,
            order: None,
        }
    }
}
