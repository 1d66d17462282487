//! The one error type for reading and validating graphs.

use thiserror::Error;

/// Why a graph was rejected. Every variant names the original node ids (and
/// buffer ids) involved, so a user can find the problem in the file.
///
/// Variants with fields may gain fields: match them with `..`.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum GraphError {
    /// The text is not valid JSON, or not of the seed format's shape.
    #[error("malformed graph JSON {}: {message}", json_position(*line, *column))]
    #[non_exhaustive]
    Json {
        /// Line of the error, counted from 1.
        line: usize,
        /// Column of the error within its line, counted from 1 (serde_json
        /// gives 0 at a line's start, e.g. for input that ends there).
        column: usize,
        /// serde_json's message without its ` at line L column C` suffix.
        message: String,
    },
    /// Reading the file failed.
    #[error("cannot read {path}: {message}")]
    #[non_exhaustive]
    Io {
        /// The path as given (`-` for standard input).
        path: String,
        /// The operating system's reason.
        message: String,
        /// Its kind (`NotFound`, `PermissionDenied`, ...), for a caller
        /// that acts on it.
        kind: std::io::ErrorKind,
    },
    /// The file cannot be a graph, as its first bytes or its size show
    /// before it is read whole (a binary file, `/dev/zero`, a file beyond
    /// [`MAX_INPUT_BYTES`](crate::input::MAX_INPUT_BYTES)).
    #[error("{0}")]
    NotAGraphFile(crate::input::Refusal),
    /// Two nodes share one id.
    #[error("duplicate node id {id} (Nodes[{first}] and Nodes[{second}], counted from 0)")]
    #[non_exhaustive]
    DuplicateId {
        /// The shared id.
        id: i64,
        /// Position (from 0) in the `Nodes` array of one node with the id.
        first: usize,
        /// Position (from 0) in the `Nodes` array of the other node.
        second: usize,
    },
    /// An edge names a node that does not exist.
    #[error("Edges[{edge}] (counted from 0) = [{from}, {to}] refers to missing node {missing}")]
    #[non_exhaustive]
    EdgeToMissingNode {
        /// Position (from 0) of the edge in the `Edges` array.
        edge: usize,
        /// The edge's source id, as written.
        from: i64,
        /// The edge's target id, as written.
        to: i64,
        /// Whichever of `from` and `to` names no node (`from` if both).
        missing: i64,
    },
    /// The edges contain a cycle; `cycle` lists its nodes in edge order.
    #[error("the edges contain a cycle: {}", fmt_cycle(.cycle))]
    #[non_exhaustive]
    Cycle {
        /// Node ids around the cycle, each with an edge to the next and the
        /// last with an edge back to the first.
        cycle: Vec<i64>,
    },
    /// An `Op` that is `ALLOC` or `FREE` in another case (`"alloc"`, `"Free"`):
    /// Op is case-sensitive, and such a node would silently be compute.
    #[error(
        "node {id} has Op {op:?}: write exactly \"{expected}\" (Op is case-sensitive \
         and takes no spaces; any other Op is a compute node, which allocates nothing)"
    )]
    #[non_exhaustive]
    OpCase {
        /// The node's id.
        id: i64,
        /// The `Op` as written, e.g. `"alloc"`.
        op: String,
        /// The spelling meant: `"ALLOC"` or `"FREE"`.
        expected: &'static str,
    },
    /// An extra field (of a node, or of the graph when `id` is `None`)
    /// that a file written from the graph would not read back: a field the
    /// graph holds itself (`Id`, `Op`; an ALLOC's `Size` and `BufId`, a
    /// FREE's `BufId`; `Nodes`, `Edges`), whose key the file would hold
    /// twice, or a `Size` or `BufId` kept on another node that is not the
    /// integer the format reads there. Only a graph built in code can have
    /// one: a parsed graph's extras read back.
    #[error(
        "{}extra field {key:?}: {why} (a file written from this graph would not read back)",
        match id { Some(id) => format!("node {id}: "), None => String::new() }
    )]
    #[non_exhaustive]
    ReservedField {
        /// The node's id; `None` for a top-level field.
        id: Option<i64>,
        /// The key, e.g. `"Id"`.
        key: String,
        /// What is wrong with it.
        why: &'static str,
    },
    /// A node key that is a field of the format in another case or with
    /// spaces around it (`"latency"` for `Latency`): field names are
    /// case-sensitive, and such a key would be kept as an extra field that
    /// nothing reads while the field it means is silently absent.
    #[error(
        "node {id} has a field {key:?}: write exactly \"{expected}\" (field names are \
         case-sensitive and take no spaces; {key:?} would be ignored)"
    )]
    #[non_exhaustive]
    FieldCase {
        /// The node's id.
        id: i64,
        /// The key as written, e.g. `"latency"`.
        key: String,
        /// The field of [`NODE_FIELDS`](crate::graph::seed::NODE_FIELDS) it
        /// was taken for, e.g. `"Latency"`.
        expected: &'static str,
    },
    /// A `Latency` field that is not a JSON number.
    #[error("node {id} has a Latency that is not a number ({value}); write a JSON number or leave it out")]
    #[non_exhaustive]
    BadLatency {
        /// The node's id.
        id: i64,
        /// The value as JSON text, cut short when long.
        value: String,
    },
    /// A `Latency` beyond the range the rule language's sums are checked
    /// against (see [`MAX_LATENCY`](crate::graph::MAX_LATENCY)).
    #[error(
        "node {id} has Latency {value}, out of range: its magnitude must be at most 2^63 \
         (about 9.2e18); scale the graph's latencies down"
    )]
    #[non_exhaustive]
    LatencyOutOfRange {
        /// The node's id.
        id: i64,
        /// The value as JSON text.
        value: String,
    },
    /// An ALLOC has no `Size`.
    #[error("ALLOC node {id} has no Size")]
    #[non_exhaustive]
    MissingSize {
        /// The ALLOC's id.
        id: i64,
    },
    /// An ALLOC has a negative `Size`.
    #[error("ALLOC node {id} has a negative Size ({size})")]
    #[non_exhaustive]
    NegativeSize {
        /// The ALLOC's id.
        id: i64,
        /// The `Size` as written, in bytes.
        size: i128,
    },
    /// An ALLOC or FREE has no `BufId`.
    #[error("{op} node {id} has no BufId")]
    #[non_exhaustive]
    MissingBufId {
        /// The node's id.
        id: i64,
        /// The node's kind: `"ALLOC"` or `"FREE"`.
        op: &'static str,
    },
    /// A FREE's buffer has no ALLOC.
    #[error("FREE node {free} releases buffer {buf}, which no ALLOC node allocates")]
    #[non_exhaustive]
    FreeWithoutAlloc {
        /// The FREE's id.
        free: i64,
        /// The `BufId` it releases.
        buf: i64,
    },
    /// Two ALLOCs of one buffer.
    #[error("buffer {buf} is allocated twice, by ALLOC nodes {first} and {second}")]
    #[non_exhaustive]
    DuplicateAlloc {
        /// The buffer id.
        buf: i64,
        /// Id of the ALLOC that comes first in the `Nodes` array.
        first: i64,
        /// Id of the next ALLOC of the same buffer.
        second: i64,
    },
    /// Two FREEs of one buffer.
    #[error("buffer {buf} is freed twice, by FREE nodes {first} and {second}")]
    #[non_exhaustive]
    DuplicateFree {
        /// The buffer id.
        buf: i64,
        /// Id of the FREE that comes first in the `Nodes` array.
        first: i64,
        /// Id of the next FREE of the same buffer.
        second: i64,
    },
    /// Some topological order runs the FREE before its ALLOC.
    #[error(
        "FREE node {free} of buffer {buf} is not reachable from its ALLOC node {alloc}: \
         some order would free the buffer before allocating it (add a path of edges from {alloc} to {free})"
    )]
    #[non_exhaustive]
    FreeNotReachable {
        /// The buffer id.
        buf: i64,
        /// Id of the buffer's ALLOC.
        alloc: i64,
        /// Id of the FREE no path of edges leads to from the ALLOC.
        free: i64,
    },
    /// The sizes do not fit the model's integer range: one `Size`, or the
    /// sum of all of them, passes `2^63 - 1` bytes.
    #[error("{}", too_large(*.max, *.id, *.size))]
    #[non_exhaustive]
    TooLarge {
        /// The limit in bytes: always `i64::MAX`.
        max: i64,
        /// Id of the ALLOC (in `Nodes` order) at which the running sum of
        /// sizes passed `max`.
        id: i64,
        /// That ALLOC's `Size`.
        size: i128,
    },
    /// [`Graph::with_latencies`](crate::Graph::with_latencies) given a
    /// slice whose length is not the graph's node count.
    #[error("{given} latencies for a graph of {nodes} nodes: give one per node, in node order")]
    #[non_exhaustive]
    LatencyCount {
        /// The slice's length.
        given: usize,
        /// The graph's node count.
        nodes: usize,
    },
    /// More nodes or edges than the compact storage holds.
    #[error("graph too large: {what} (at most {max})")]
    #[non_exhaustive]
    Capacity {
        /// The count that is too large, e.g. `5000000000 edges`.
        what: String,
        /// The most that fit: `2^32 - 2` nodes or `2^32 - 1` edges.
        max: u64,
    },
    /// An op of a [`TensorProgram`](crate::corpus::program::TensorProgram)
    /// reads a tensor that is not an output of an earlier op.
    #[error("op #{op} (`{name}`) reads output {output} of op #{producer}, {why}")]
    #[non_exhaustive]
    BadTensorRef {
        /// Index of the reading op.
        op: usize,
        /// Its name.
        name: String,
        /// The op it names as the producer.
        producer: usize,
        /// The output it names.
        output: usize,
        /// What is wrong with it.
        why: String,
    },
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
        // serde_json's two surrogate messages name neither the cause nor
        // the fix (a lone low one is a "leading surrogate").
        let message = [
            "unexpected end of hex escape",
            "lone leading surrogate in hex escape",
        ]
        .iter()
        .fold(message, |m, said| m.replace(said, LONE_SURROGATE));
        GraphError::Json {
            line: err.line(),
            column: err.column(),
            message,
        }
    }
}

/// Where [`GraphError::Json`] is: `at line 3, column 9`. serde_json gives
/// column 0 for the place just after a line break, before the line's
/// first character (where an edge of the wrong shape that starts a line is
/// refused): `at the start of line 3`, not a column no editor shows.
fn json_position(line: usize, column: usize) -> String {
    match column {
        0 => format!("at the start of line {line}"),
        _ => format!("at line {line}, column {column}"),
    }
}

/// What a `\uD800`-`\uDFFF` escape without its other half is.
const LONE_SURROGATE: &str = "a \\u escape of half a UTF-16 surrogate pair (D800 to DFFF) \
     without the other half: a \\uD800-\\uDBFF escape must be followed by a \\uDC00-\\uDFFF one, \
     and text read as UTF-8 cannot hold either alone (write the character itself, or drop it)";

/// [`GraphError::TooLarge`]'s message: the one `Size` that passes the limit
/// alone, or the sum that passes it.
fn too_large(max: i64, id: i64, size: i128) -> String {
    let why = "memsched counts bytes in 64-bit integers, so that every sum of sizes is exact";
    match size > max as i128 {
        true => format!(
            "ALLOC node {id} has Size {size}, more than {max} bytes (2^63 - 1), the most a graph \
             may allocate: {why}"
        ),
        false => format!(
            "the ALLOC sizes add up to more than {max} bytes (2^63 - 1), the most a graph may \
             allocate: the running sum, in `Nodes` order, passes it at the ALLOC with Id {id}: \
             {why}"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A lone surrogate escape, high or low, anywhere in the text, is named
    /// as one, with the fix (serde_json says "unexpected end of hex
    /// escape" or calls a low one "leading").
    #[test]
    fn a_lone_surrogate_escape_is_named_with_its_fix() {
        for escape in [
            r"\ud800",
            r"\ud800x",
            r"\ud800\n",
            r"\ud800\u0041",
            r"\udfff",
        ] {
            for text in [
                format!(
                    r#"{{"Nodes": [{{"Id": 0, "Op": "conv", "Name": "a{escape}"}}], "Edges": []}}"#
                ),
                format!(r#"{{"Nodes": [], "Edges": [], "Note{escape}": 1}}"#),
            ] {
                let err = crate::graph::seed::parse(text.as_bytes())
                    .unwrap_err()
                    .to_string();
                assert!(
                    err.contains("half a UTF-16 surrogate pair") && !err.contains("hex escape"),
                    "{text}: {err}"
                );
            }
        }
    }

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
