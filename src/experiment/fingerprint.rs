//! `fingerprints.toml`, the file of an output directory that records the
//! content fingerprints of its graphs ([`crate::graph::fingerprint`],
//! re-exported here).
//!
//! `memsched run` records the fingerprint of every graph it loads before
//! solving, and refuses to resume on a graph whose rows exist and whose
//! fingerprint changed since (an edit that keeps node and edge counts and
//! the program-order peak included); `memsched merge` unites the inputs'
//! files and refuses two inputs that disagree on a graph.

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::one_line;
use super::results_dir::FINGERPRINTS;
use super::ExperimentError;
pub use crate::graph::fingerprint::{of, Fingerprint, SCHEME};

/// Graph name -> fingerprint.
pub type Fingerprints = BTreeMap<String, Fingerprint>;

/// `fingerprints.toml` as written.
#[derive(Debug, Serialize, Deserialize)]
struct FingerprintsFile {
    scheme: u32,
    #[serde(default)]
    graphs: BTreeMap<String, String>,
}

/// The fingerprints recorded in `dir`'s `fingerprints.toml`: none without
/// the file, or when it is of an older [`SCHEME`] (they were computed
/// another way). A file of a newer scheme is an error (a newer `memsched`
/// wrote it, and this one would overwrite what it cannot read), as is one
/// that cannot be read or parsed; both name the file.
pub fn read(dir: &Path) -> Result<Fingerprints, ExperimentError> {
    let path = dir.join(FINGERPRINTS);
    let text = match fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Fingerprints::new()),
        Err(e) => return Err(ExperimentError::io("read", &path, e)),
    };
    let malformed = |why: String| {
        ExperimentError::Directory(format!(
            "{} is not a graph fingerprint file as `memsched run` writes it: {}; delete it \
             (resuming then compares node and edge counts and the program-order peak only)",
            path.display(),
            one_line(&why)
        ))
    };
    let file: FingerprintsFile = toml::from_str(&text).map_err(|e| malformed(e.to_string()))?;
    if file.scheme > SCHEME {
        return Err(ExperimentError::Directory(format!(
            "{} was written by a newer memsched (fingerprint scheme {}; this one knows \
             scheme {SCHEME} and would overwrite it): resume with that version, or start \
             over with `--fresh`",
            path.display(),
            file.scheme
        )));
    }
    if file.scheme < SCHEME {
        return Ok(Fingerprints::new());
    }
    file.graphs
        .into_iter()
        .map(|(name, hex)| {
            let fp = hex
                .parse()
                .map_err(|e| malformed(format!("graph `{name}`: {e}")))?;
            Ok((name, fp))
        })
        .collect()
}

/// Writes `dir`'s `fingerprints.toml` (whole, through a temporary file and
/// a rename, so an interrupted write leaves the old file).
pub fn write(dir: &Path, fingerprints: &Fingerprints) -> Result<(), ExperimentError> {
    let path = dir.join(FINGERPRINTS);
    let file = FingerprintsFile {
        scheme: SCHEME,
        graphs: fingerprints
            .iter()
            .map(|(name, fp)| (name.clone(), fp.to_string()))
            .collect(),
    };
    let text = toml::to_string(&file)
        .map_err(|e| ExperimentError::io("write", &path, io::Error::other(e)))?;
    let text = format!(
        "# Content fingerprints of the graphs whose rows this directory holds:\n\
         # `memsched run` refuses to resume on a graph that no longer matches.\n{text}"
    );
    // Whole or not at all, and on disk before it replaces the old file.
    crate::output::write_file(&path, |w| io::Write::write_all(w, text.as_bytes()))
        .map_err(|e| ExperimentError::io("write", &path, e))?;
    sync_dir(dir);
    Ok(())
}

/// Flushes `dir`'s entries to disk, so that a rename in it survives a
/// power loss. Best effort: some file systems cannot sync a directory,
/// and the rename itself has succeeded by then.
fn sync_dir(dir: &Path) {
    #[cfg(unix)]
    let _ = fs::File::open(dir).and_then(|d| d.sync_all());
    #[cfg(not(unix))]
    let _ = dir;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{Graph, GraphBuilder};
    use serde_json::json;

    /// ALLOC 100, a compute of latency `latency`, FREE, then ALLOC `size`
    /// and its FREE: the second buffer is not live at the peak.
    fn small(latency: f64, size: u64) -> Graph {
        let mut b = GraphBuilder::new();
        let a = b.alloc(100, 1);
        let c = b.op("matmul");
        let f = b.free(1);
        let a2 = b.alloc(size, 2);
        let f2 = b.free(2);
        b.set_extra(c, "Latency", json!(latency));
        for (u, v) in [(a, c), (c, f), (f, a2), (a2, f2)] {
            b.edge(u, v);
        }
        b.build().unwrap()
    }

    #[test]
    fn the_fingerprint_is_pinned() {
        // A change here changes every recorded fingerprint: bump SCHEME.
        // (The value was also computed by an independent reimplementation
        // of the documented encoding.)
        assert_eq!(of(&small(1.5, 10)).to_string(), "15a1d5cec2db04c5");
    }

    #[test]
    fn a_latency_a_size_or_an_edge_changes_the_fingerprint() {
        let base = of(&small(1.5, 10));
        assert_eq!(of(&small(1.5, 10)), base);
        assert_ne!(of(&small(2.0, 10)), base);
        assert_ne!(of(&small(1.5, 20)), base);
        // The same nodes with one more edge.
        let mut b = GraphBuilder::new();
        let a = b.alloc(100, 1);
        let c = b.op("matmul");
        let f = b.free(1);
        let a2 = b.alloc(10, 2);
        let f2 = b.free(2);
        b.set_extra(c, "Latency", json!(1.5));
        for (u, v) in [(a, c), (c, f), (f, a2), (a2, f2), (a, f2)] {
            b.edge(u, v);
        }
        assert_ne!(of(&b.build().unwrap()), base);
        // Latency 0 is the same as none.
        assert_eq!(of(&small(0.0, 10)), {
            let mut g = small(0.0, 10);
            g.latencies.clear();
            of(&g)
        });
    }

    #[test]
    fn the_file_round_trips_and_a_bad_one_is_named() {
        let dir = tempfile::tempdir().unwrap();
        assert!(read(dir.path()).unwrap().is_empty(), "no file, no entries");
        let fps = Fingerprints::from([
            ("a:b=1#0".to_string(), Fingerprint(1)),
            ("g".to_string(), Fingerprint(u64::MAX)),
        ]);
        write(dir.path(), &fps).unwrap();
        assert_eq!(read(dir.path()).unwrap(), fps);
        let path = dir.path().join(FINGERPRINTS);
        let text = fs::read_to_string(&path).unwrap();
        assert!(
            text.contains("\"a:b=1#0\" = \"0000000000000001\""),
            "{text}"
        );
        // An older scheme: no fingerprints; a newer one: an error.
        fs::write(&path, text.replace("scheme = 1", "scheme = 0")).unwrap();
        assert!(read(dir.path()).unwrap().is_empty());
        fs::write(&path, text.replace("scheme = 1", "scheme = 999")).unwrap();
        let err = read(dir.path()).unwrap_err().to_string();
        assert!(
            err.contains(FINGERPRINTS) && err.contains("newer memsched") && err.contains("--fresh"),
            "{err}"
        );
        for bad in ["scheme = \"x\"", "scheme = 1\n[graphs]\ng = \"xyz\"\n"] {
            fs::write(&path, bad).unwrap();
            let err = read(dir.path()).unwrap_err().to_string();
            assert!(
                err.contains(FINGERPRINTS) && err.contains("delete it"),
                "{err}"
            );
        }
    }
}
