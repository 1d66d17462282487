//! `orders:PATH` rows whose files changed after they were written: a
//! resume keeps every row it finds, so such rows would go on describing
//! orders the files no longer hold, without a word.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;
use std::time::SystemTime;

use crate::experiment::rows::Row;
use crate::solvers::{orders_source_path, split_name};

/// A warning naming the `orders:PATH` solvers among `existing` rows whose
/// files were changed after `runs` (the rows' file) was last written;
/// `None` when there are none, or `runs` is not there.
pub(super) fn stale_orders_warning(existing: &[Row], runs: &Path) -> Option<String> {
    let written = fs::metadata(runs).and_then(|m| m.modified()).ok()?;
    let solvers: BTreeSet<&str> = existing.iter().map(|r| r.solver.as_str()).collect();
    let stale: Vec<&str> = (solvers.into_iter())
        .filter(|name| match split_name(name) {
            ("orders", Some(argument)) => {
                last_change(orders_source_path(argument)).is_some_and(|t| t > written)
            }
            _ => false,
        })
        .collect();
    let first = stale.first()?;
    let named: Vec<String> = stale.iter().map(|name| format!("`{name}`")).collect();
    Some(format!(
        "the order files of {} changed after this directory's rows were written: a resume \
         keeps rows as they are, so theirs may not describe the files now; \
         `--redo '{first}'` reads the files again",
        named.join(", ")
    ))
}

/// When the file at `path`, or a directory or any file directly in it,
/// was last changed (a file added or removed changes the directory's time).
fn last_change(path: &Path) -> Option<SystemTime> {
    let meta = fs::metadata(path).ok()?;
    let own = meta.modified().ok()?;
    if !meta.is_dir() {
        return Some(own);
    }
    let entries = fs::read_dir(path).ok()?;
    let files = entries
        .flatten()
        .filter_map(|e| e.metadata().ok()?.modified().ok());
    Some(files.fold(own, SystemTime::max))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::rows;
    use std::time::Duration;

    #[test]
    fn order_files_changed_after_the_rows_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let orders = dir.path().join("ord");
        fs::create_dir(&orders).unwrap();
        let order = orders.join("g.json");
        fs::write(&order, "[0]").unwrap();
        let runs = dir.path().join("runs.csv");
        fs::write(&runs, "rows").unwrap();
        let name = format!("orders:{}", orders.display());
        let existing = [Row {
            solver: name.clone(),
            ..rows::blank()
        }];
        let set = |path: &Path, t: SystemTime| {
            fs::File::options()
                .write(true)
                .open(path)
                .unwrap()
                .set_modified(t)
                .unwrap()
        };
        let now = SystemTime::now();
        set(&runs, now);
        set(&order, now - Duration::from_secs(60));
        let dir_time = |t: SystemTime| {
            fs::File::open(&orders).unwrap().set_modified(t).unwrap();
        };
        dir_time(now - Duration::from_secs(60));
        assert_eq!(stale_orders_warning(&existing, &runs), None);
        set(&order, now + Duration::from_secs(60));
        let warning = stale_orders_warning(&existing, &runs).expect("a changed file");
        assert!(warning.contains(&format!("`{name}`")), "{warning}");
        // Other solvers' rows are not looked at; no runs.csv, no warning.
        let kahn = [Row {
            solver: "kahn".into(),
            ..rows::blank()
        }];
        assert_eq!(stale_orders_warning(&kahn, &runs), None);
        assert_eq!(
            stale_orders_warning(&existing, &dir.path().join("none.csv")),
            None
        );
    }
}
