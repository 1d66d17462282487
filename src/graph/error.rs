//! The one error type for reading and validating graphs.

use thiserror::Error;

/// Why a graph was rejected. Every variant names the original node ids (and
/// buffer ids) involved, so a user can find the problem in the file.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum GraphError {
    /// The text is not valid JSON, or not of the seed format's shape.
    #[error("malformed graph JSON at line {line}, column {column}: {message}")]
    Json {
        line: usize,
        column: usize,
        message: String,
    },
    /// Reading the file failed.
    #[error("cannot read {path}: {message}")]
    Io { path: String, message: String },
    /// The file cannot be a graph, as its first bytes or its size show
    /// before it is read whole (a binary file, `/dev/zero`, a file beyond
    /// [`MAX_INPUT_BYTES`](crate::input::MAX_INPUT_BYTES)).
    #[error("{0}")]
    NotAGraphFile(crate::input::Refusal),
    /// Two nodes share one id.
    #[error("duplicate node id {id} (nodes #{first} and #{second} of the Nodes array)")]
    DuplicateId {
        id: i64,
        first: usize,
        second: usize,
    },
    /// An edge names a node that does not exist.
    #[error("edge #{edge} [{from}, {to}] refers to missing node {missing}")]
    EdgeToMissingNode {
        edge: usize,
        from: i64,
        to: i64,
        missing: i64,
    },
    /// The edges contain a cycle; `cycle` lists its nodes in edge order.
    #[error("the edges contain a cycle: {}", fmt_cycle(.cycle))]
    Cycle { cycle: Vec<i64> },
    /// An `Op` that is `ALLOC` or `FREE` in another case (`"alloc"`, `"Free"`):
    /// Op is case-sensitive, and such a node would silently be compute.
    #[error(
        "node {id} has Op {op:?}: write exactly \"{expected}\" (Op is case-sensitive \
         and takes no spaces; any other Op is a compute node, which allocates nothing)"
    )]
    OpCase {
        id: i64,
        op: String,
        expected: &'static str,
    },
    /// A node key that is a field of the format in another case or with
    /// spaces around it (`"latency"` for `Latency`): field names are
    /// case-sensitive, and such a key would be kept as an extra field that
    /// nothing reads while the field it means is silently absent.
    #[error(
        "node {id} has a field {key:?}: write exactly \"{expected}\" (field names are \
         case-sensitive and take no spaces; {key:?} would be ignored)"
    )]
    FieldCase {
        id: i64,
        key: String,
        expected: &'static str,
    },
    /// A `Latency` field that is not a JSON number.
    #[error("node {id} has a Latency that is not a number ({value}); write a JSON number or leave it out")]
    BadLatency { id: i64, value: String },
    /// A `Latency` beyond the range the rule language's sums are checked
    /// against (see [`MAX_LATENCY`](crate::graph::MAX_LATENCY)).
    #[error(
        "node {id} has Latency {value}, out of range: its magnitude must be at most 2^63 \
         (about 9.2e18); scale the graph's latencies down"
    )]
    LatencyOutOfRange { id: i64, value: String },
    /// An ALLOC has no `Size`.
    #[error("ALLOC node {id} has no Size")]
    MissingSize { id: i64 },
    /// An ALLOC has a negative `Size`.
    #[error("ALLOC node {id} has a negative Size ({size})")]
    NegativeSize { id: i64, size: i128 },
    /// An ALLOC or FREE has no `BufId`.
    #[error("{op} node {id} has no BufId")]
    MissingBufId { id: i64, op: &'static str },
    /// A FREE's buffer has no ALLOC.
    #[error("FREE node {free} releases buffer {buf}, which no ALLOC node allocates")]
    FreeWithoutAlloc { free: i64, buf: i64 },
    /// Two ALLOCs of one buffer.
    #[error("buffer {buf} is allocated twice, by ALLOC nodes {first} and {second}")]
    DuplicateAlloc { buf: i64, first: i64, second: i64 },
    /// Two FREEs of one buffer.
    #[error("buffer {buf} is freed twice, by FREE nodes {first} and {second}")]
    DuplicateFree { buf: i64, first: i64, second: i64 },
    /// Some topological order runs the FREE before its ALLOC.
    #[error(
        "FREE node {free} of buffer {buf} is not reachable from its ALLOC node {alloc}: \
         some order would free the buffer before allocating it (add a path of edges from {alloc} to {free})"
    )]
    FreeNotReachable { buf: i64, alloc: i64, free: i64 },
    /// The sizes do not fit the model's integer range.
    #[error("the ALLOC sizes add up to more than {max} bytes (2^63 - 1) at ALLOC node {id}; memsched keeps every sum exact in i64")]
    TooLarge { max: i64, id: i64 },
    /// More nodes or edges than the compact storage holds.
    #[error("graph too large: {what} (at most {max})")]
    Capacity { what: String, max: u64 },
}

/// Most nodes of a cycle an error names: a cycle through a whole large
/// graph would fill the terminal.
const CYCLE_SHOWN: usize = 12;

/// `a -> b -> c -> a`; a longer cycle shows its first [`CYCLE_SHOWN`]
/// nodes and how many more close it.
fn fmt_cycle(cycle: &[i64]) -> String {
    let mut s: Vec<String> = cycle
        .iter()
        .take(CYCLE_SHOWN)
        .map(|id| id.to_string())
        .collect();
    match (cycle.first(), cycle.len().saturating_sub(CYCLE_SHOWN)) {
        (Some(first), 0) => s.push(first.to_string()),
        (Some(first), more) => s.push(format!("... ({more} more nodes) -> {first}")),
        (None, _) => {}
    }
    s.join(" -> ")
}

impl GraphError {
    pub(crate) fn from_json(err: &serde_json::Error) -> Self {
        let message = err.to_string();
        // serde_json appends " at line L column C"; keep the message clean.
        let message = match message.rfind(" at line ") {
            Some(i) => message[..i].to_string(),
            None => message,
        };
        GraphError::Json {
            line: err.line(),
            column: err.column(),
            message,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_cycles_are_cut_short() {
        assert_eq!(fmt_cycle(&[1, 2, 3]), "1 -> 2 -> 3 -> 1");
        let long: Vec<i64> = (0..100_000).collect();
        let shown = fmt_cycle(&long);
        assert!(
            shown.ends_with("10 -> 11 -> ... (99988 more nodes) -> 0"),
            "{shown}"
        );
    }
}
