//! Content fingerprints of graphs: a stable 64-bit digest of everything a
//! solver reads, the same on every build and platform. Experiments record
//! them to tell an edited graph file (`crate::experiment`), and `memsched
//! datasets` compares a generated graph with its file.

use std::fmt;
use std::str::FromStr;

use super::Graph;

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
