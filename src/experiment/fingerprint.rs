//! Content fingerprints of graphs, and `fingerprints.toml`, the file of an
//! output directory that records them.
//!
//! `memsched run` records the fingerprint of every graph it loads before
//! solving, and refuses to resume on a graph whose rows exist and whose
//! fingerprint changed since (an edit that keeps node and edge counts and
//! the program-order peak included); `memsched merge` unites the inputs'
//! files and refuses two inputs that disagree on a graph.

use std::collections::BTreeMap;
use std::fmt;
use std::fs;
use std::io;
use std::path::Path;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::one_line;
use super::results_dir::FINGERPRINTS;
use super::ExperimentError;
use crate::graph::Graph;

/// The version of the fingerprint function, written beside the
/// fingerprints: a file of another scheme is read as no fingerprints (the
/// resume check falls back to counts and peak) rather than as a changed graph.
/// Bump it whenever [`of`] changes (its pinned test then fails).
pub const SCHEME: u32 = 1;

/// A stable 64-bit digest of a graph's content, shown as 16 hex digits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Fingerprint(pub u64);

impl fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:016x}", self.0)
    }
}

impl FromStr for Fingerprint {
    type Err = String;
    /// Exactly 16 hex digits.
    fn from_str(s: &str) -> Result<Self, String> {
        if s.len() != 16 || !s.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(format!("`{s}` is not 16 hex digits"));
        }
        u64::from_str_radix(s, 16)
            .map(Fingerprint)
            .map_err(|e| format!("`{s}`: {e}"))
    }
}

/// Graph name -> fingerprint.
pub type Fingerprints = BTreeMap<String, Fingerprint>;

/// Odd multiplier of [`step`] (2^64 over the golden ratio).
const K: u64 = 0x9e37_79b9_7f4a_7c15;
/// Start of every stream (`"memsched"` in ASCII).
const SEED: u64 = 0x6d65_6d73_6368_6564;

/// One step of a stream: `(h ^ w) * K`, then its high half folded into its
/// low half. For a fixed word it is a bijection of the state, so changing
/// one word of a stream always changes the stream's end state.
#[inline(always)]
fn step(h: u64, w: u64) -> u64 {
    let x = (h ^ w).wrapping_mul(K);
    x ^ (x >> 32)
}

/// SplitMix64's finalizer: every input bit reaches every output bit.
fn avalanche(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The graph's content fingerprint: everything a solver reads.
///
/// Covered, node by node in program (`Nodes`) order: the original id, the
/// kind (ALLOC, FREE, compute), the buffer id (ALLOC and FREE), the memory
/// delta (so the size), the `Latency` (0 where absent, so an explicit
/// `Latency: 0` is the same graph) and the number of successors; then every
/// node's successors in the order their edges were written; and the node
/// and edge counts. Not covered: `Op` names of compute nodes, extra fields
/// other than `Latency`, top-level fields, whitespace and key order: no
/// solver reads them.
///
/// Encoding: stream `i` starts at `SEED ^ i` and takes one word per node
/// through `step`: 0 the id, 1 the kind's type code, 2 the buffer id (0
/// for compute), 3 the delta, 4 the latency's bits, 5 the out-degree (all
/// as two's-complement `u64`); streams 6 and 7 take the successor lists
/// end to end, alternately. Stream 8 starts at `SEED ^ 8` and takes the
/// node count, the edge count and the ends of streams 0 to 7; its end
/// through `avalanche` is the fingerprint. Only integer arithmetic with
/// fixed constants, never `std`'s hashers, so the value is the same on
/// every build and platform; [`SCHEME`] names this function.
///
/// # Complexity
/// O(n + m), one pass over the node tables and the edges: about 3 ms for
/// 750,000 nodes and a million edges, 19 ms for 22 million edges (one core).
pub fn of(g: &Graph) -> Fingerprint {
    // Independent streams, so the CPU runs them side by side.
    let mut s = [SEED; 6];
    for (i, lane) in s.iter_mut().enumerate() {
        *lane ^= i as u64;
    }
    let succ = g.succ_csr();
    for (v, (&id, &delta)) in g.nodes().zip(g.ids().iter().zip(g.deltas())) {
        s[0] = step(s[0], id as u64);
        s[1] = step(s[1], g.kind(v).type_code() as u64);
        s[2] = step(s[2], g.buf_id(v).unwrap_or(0) as u64);
        s[3] = step(s[3], delta as u64);
        s[4] = step(s[4], g.latency(v).to_bits());
        s[5] = step(s[5], succ.degree(v) as u64);
    }
    let (mut even, mut odd) = (SEED ^ 6, SEED ^ 7);
    let mut pairs = succ.targets().chunks_exact(2);
    for pair in &mut pairs {
        even = step(even, pair[0] as u64);
        odd = step(odd, pair[1] as u64);
    }
    for &t in pairs.remainder() {
        even = step(even, t as u64);
    }
    let counts = [g.node_count() as u64, g.edge_count() as u64];
    let ends = [even, odd];
    let all = counts.iter().chain(&s).chain(&ends);
    Fingerprint(avalanche(all.fold(SEED ^ 8, |h, &w| step(h, w))))
}

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
        ExperimentError::Config(format!(
            "{} is not a graph fingerprint file as `memsched run` writes it: {}; delete it \
             (resuming then compares node and edge counts and the program-order peak only)",
            path.display(),
            one_line(&why)
        ))
    };
    let file: FingerprintsFile = toml::from_str(&text).map_err(|e| malformed(e.to_string()))?;
    if file.scheme > SCHEME {
        return Err(ExperimentError::Config(format!(
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
    // Written aside, flushed to disk, then renamed over the old file: a
    // crash leaves the old file or the new one, never a torn one.
    let tmp = path.with_extension("toml.writing");
    let written = fs::File::create(&tmp).and_then(|mut f| {
        io::Write::write_all(&mut f, text.as_bytes())?;
        f.sync_all()
    });
    written.map_err(|e| ExperimentError::io("write", &tmp, e))?;
    fs::rename(&tmp, &path).map_err(|e| ExperimentError::io("rename to", &path, e))?;
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
    use crate::graph::GraphBuilder;
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
