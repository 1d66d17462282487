//! The article's JSON format ("seed format"), read and written.
//!
//! `{"Nodes": [{"Id", "Op", "Size"?, "BufId"?, "Inputs"?, ...}], "Edges": [[u, v], ...]}`
//!
//! [`parse`] reads text into a [`RawGraph`] (no validation beyond the shape);
//! [`Graph::from_raw`](super::Graph::from_raw) validates it. Fields other than
//! `Id`, `Op`, `Size` and `BufId` (`Inputs`, `Name`, `Latency`, ...) are kept
//! and written back unchanged. A key that is one of [`NODE_FIELDS`] (or
//! `Nodes`, `Edges`) in another case or with spaces around it (`"latency"`,
//! `"edges"`) is an error, not an unread extra field (see [`miscased`]).
//! [`write()`] emits one node per line so that committed graphs diff well.

use std::fmt;
use std::io::{self, Write};
use std::path::Path;

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::{Map, Value};

use super::{Graph, GraphError, NodeKind};
use crate::input::{self, ReadError, Start, MAX_INPUT_BYTES};

/// The node fields the format defines: the article's `Id`, `Op`, `Size`,
/// `BufId` and `Inputs` (metadata: edges are the only ordering constraints),
/// and `Latency`, which the `latency` rule feature reads. Fields an exporter
/// adds (`Name`, `Target`, ...) are not among them: memsched never reads them.
pub const NODE_FIELDS: [&str; 6] = ["Id", "Op", "Size", "BufId", "Inputs", "Latency"];

/// The top-level fields of the format.
pub const GRAPH_FIELDS: [&str; 2] = ["Nodes", "Edges"];

/// The field of `fields` that `key` names in another case or with spaces
/// around it (`"latency"` and `" Latency"` for `Latency`), if any: such a
/// key would otherwise be kept as an extra field that nothing reads, and
/// the field it means would silently be absent. A key that is exactly a
/// field is not miscased.
pub(crate) fn miscased<'a>(key: &str, fields: &[&'a str]) -> Option<&'a str> {
    let t = key.trim();
    fields
        .iter()
        .copied()
        .find(|field| key != *field && t.eq_ignore_ascii_case(field))
}

/// The field of `fields` that `key` is a near misspelling of (`"Edgs"`,
/// `"Lantency"`), if exactly one; case is ignored (a field in another case
/// is [`miscased`]).
pub(crate) fn misspelt<'a>(
    key: &str,
    fields: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let fields: Vec<&'a str> = fields.into_iter().collect();
    let lower: Vec<String> = fields.iter().map(|f| f.to_ascii_lowercase()).collect();
    match crate::spelling::near(key.trim(), lower.iter().map(String::as_str))[..] {
        [guess] => fields
            .iter()
            .zip(&lower)
            .find(|(_, l)| l.as_str() == guess)
            .map(|(f, _)| *f),
        _ => None,
    }
}

/// One entry of the `Nodes` array, as written.
#[derive(Debug, Clone, PartialEq)]
pub struct RawNode {
    /// `Id`: the node's id, unique in the graph, named by edges and orders.
    pub id: i64,
    /// `Op`: exactly `ALLOC` or `FREE`, or any other name for a compute node.
    pub op: String,
    /// `Size` as written (may be negative: validation rejects that with the id).
    pub size: Option<i128>,
    /// `BufId` as written: the buffer an ALLOC or FREE acts on (required
    /// for those two, kept as an extra field on a compute node).
    pub buf_id: Option<i64>,
    /// Every other field, kept verbatim.
    pub extra: Option<Box<Map<String, Value>>>,
}

/// A graph as written: nodes in file order, edges as pairs of ids.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RawGraph {
    /// The `Nodes` array, in file (program) order.
    pub nodes: Vec<RawNode>,
    /// The `Edges` array as `(from, to)` id pairs, in file order (empty
    /// when the file has no `Edges`).
    pub edges: Vec<(i64, i64)>,
    /// Top-level fields other than `Nodes` and `Edges`, kept verbatim.
    pub extra: Map<String, Value>,
}

/// Parses seed-format JSON text. Errors carry the line and column. A UTF-8
/// byte-order mark (some Windows editors write one) is skipped.
///
/// # Complexity
/// O(bytes); no intermediate `serde_json::Value` for the known fields.
pub fn parse(text: &[u8]) -> Result<RawGraph, GraphError> {
    let text = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text);
    if text.iter().all(u8::is_ascii_whitespace) {
        return Err(GraphError::Json {
            line: 1 + text.iter().filter(|&&b| b == b'\n').count(),
            column: 0,
            message: "the input is empty: a graph is a JSON object, \
                      {\"Nodes\": [...], \"Edges\": [...]}"
                .into(),
        });
    }
    let mut de = serde_json::Deserializer::from_slice(text);
    let raw = RawGraph::deserialize(&mut de).map_err(|e| GraphError::from_json(&e))?;
    de.end().map_err(|e| GraphError::from_json(&e))?;
    Ok(raw)
}

/// Parses seed-format JSON text and validates it: [`parse`], then
/// [`Graph::from_raw`].
///
/// ```
/// let g = memsched::graph::seed::read(br#"{"Nodes": [
///     {"Id": 0, "Op": "ALLOC", "Size": 8, "BufId": 0},
///     {"Id": 1, "Op": "matmul"},
///     {"Id": 2, "Op": "FREE", "BufId": 0}],
///   "Edges": [[0, 1], [1, 2]]}"#)?;
/// assert_eq!(g.node_count(), 3);
/// # Ok::<(), memsched::GraphError>(())
/// ```
pub fn read(text: &[u8]) -> Result<Graph, GraphError> {
    Graph::from_raw(parse(text)?)
}

/// Reads a seed-format file (`-` is standard input) and validates it.
pub fn read_path(path: impl AsRef<Path>) -> Result<Graph, GraphError> {
    read(&read_bytes(path)?)
}

/// Reads a graph file, or standard input for `-`, of at most
/// [`MAX_INPUT_BYTES`] bytes (see [`read_bytes_limited`]).
pub fn read_bytes(path: impl AsRef<Path>) -> Result<Vec<u8>, GraphError> {
    read_bytes_limited(path, MAX_INPUT_BYTES)
}

/// Reads a graph file, or standard input for `-`, refusing it before it is
/// read whole when its first bytes cannot begin a graph (after an optional
/// byte-order mark and blanks, a graph starts with `{`; no control byte)
/// or when it holds more than `limit` bytes: see [`input::read`].
pub fn read_bytes_limited(path: impl AsRef<Path>, limit: u64) -> Result<Vec<u8>, GraphError> {
    let path = path.as_ref();
    input::read(path, limit, Start::GRAPH).map_err(|e| match e {
        ReadError::Refused(r) => GraphError::NotAGraphFile(r),
        e => GraphError::Io {
            path: path.display().to_string(),
            message: e.to_string(),
            kind: match &e {
                ReadError::Io(io) => io.kind(),
                _ => io::ErrorKind::InvalidData,
            },
        },
    })
}

/// Writes `graph` in seed format, one node and one edge per line, nodes in
/// program order, extra fields preserved.
pub fn write<W: Write>(graph: &Graph, mut out: W) -> io::Result<()> {
    out.write_all(b"{\"Nodes\": [\n")?;
    for v in 0..graph.node_count() as u32 {
        write!(out, "{{\"Id\": {}, \"Op\": ", graph.id(v))?;
        serde_json::to_writer(&mut out, graph.op(v))?;
        match graph.kind(v) {
            NodeKind::Alloc => write!(
                out,
                ", \"Size\": {}, \"BufId\": {}",
                graph.delta(v),
                graph.buf_id(v).unwrap_or_default()
            )?,
            NodeKind::Free => write!(out, ", \"BufId\": {}", graph.buf_id(v).unwrap_or_default())?,
            NodeKind::Compute => {}
        }
        if let Some(extra) = graph.extra(v) {
            for (key, value) in extra {
                out.write_all(b", ")?;
                serde_json::to_writer(&mut out, key)?;
                out.write_all(b": ")?;
                serde_json::to_writer(&mut out, value)?;
            }
        }
        let sep = if (v as usize) + 1 < graph.node_count() {
            ","
        } else {
            ""
        };
        writeln!(out, "}}{sep}")?;
    }
    out.write_all(b"],\n\"Edges\": [\n")?;
    let m = graph.edge_count();
    let mut k = 0;
    for u in 0..graph.node_count() as u32 {
        for &v in graph.succs(u) {
            k += 1;
            let sep = if k < m { "," } else { "" };
            writeln!(out, "[{}, {}]{sep}", graph.id(u), graph.id(v))?;
        }
    }
    out.write_all(b"]")?;
    for (key, value) in graph.graph_extra() {
        out.write_all(b",\n")?;
        serde_json::to_writer(&mut out, key)?;
        out.write_all(b": ")?;
        serde_json::to_writer(&mut out, value)?;
    }
    out.write_all(b"}\n")
}

/// Writes `graph` to a file (whole or not at all: [`crate::output`]), or
/// standard output for `-`.
pub fn write_path(graph: &Graph, path: impl AsRef<Path>) -> io::Result<()> {
    let path = path.as_ref();
    if path == Path::new("-") {
        // Flushed here, not on drop, which would swallow the error.
        let mut w = io::BufWriter::new(io::stdout().lock());
        write(graph, &mut w)?;
        w.flush()
    } else {
        crate::output::write_file(path, |w| write(graph, w))
    }
}

// ---- deserialization -------------------------------------------------------

impl<'de> Deserialize<'de> for RawGraph {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct GraphVisitor;
        impl<'de> Visitor<'de> for GraphVisitor {
            type Value = RawGraph;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object with \"Nodes\" and \"Edges\"")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawGraph, A::Error> {
                let mut nodes = None;
                let mut edges = None;
                let mut extra = Map::new();
                while let Some(key) = map.next_key::<String>()? {
                    match key.as_str() {
                        "Nodes" => {
                            if nodes.is_some() {
                                return Err(de::Error::duplicate_field("Nodes"));
                            }
                            nodes = Some(map.next_value_seed(NodesSeed)?);
                        }
                        "Edges" => {
                            if edges.is_some() {
                                return Err(de::Error::duplicate_field("Edges"));
                            }
                            edges = Some(map.next_value_seed(EdgesSeed)?);
                        }
                        _ => {
                            extra.insert(key, map.next_value::<Value>()?);
                        }
                    }
                }
                // An order object, a line of orders.jsonl or a schedule
                // report, given where the graph goes.
                if nodes.is_none() && extra.contains_key("order") {
                    return Err(de::Error::custom(
                        "an object with an \"order\" key and no \"Nodes\": is it an order or \
                         a `schedule` report? (`check` takes the graph first)",
                    ));
                }
                // A misspelt key would silently drop every edge (Edges is
                // optional) or give a puzzling "missing field".
                // All of them at once: `nodes` and `edges` are often
                // misspelt together.
                let wrong: Vec<(&String, &str)> = extra
                    .keys()
                    .filter_map(|key| Some((key, miscased(key, &GRAPH_FIELDS)?)))
                    .collect();
                let quoted = |keys: Vec<&str>| {
                    let keys: Vec<String> = keys.iter().map(|k| format!("\"{k}\"")).collect();
                    keys.join(" and ")
                };
                match wrong.as_slice() {
                    [] => {}
                    [(key, field)] => {
                        return Err(de::Error::custom(format!(
                            "top-level key \"{key}\": the key is \"{field}\" (keys are \
                         case-sensitive and take no spaces)"
                        )))
                    }
                    several => {
                        return Err(de::Error::custom(format!(
                            "top-level keys {}: the keys are {} (keys are case-sensitive and \
                             take no spaces)",
                            quoted(several.iter().map(|(k, _)| k.as_str()).collect()),
                            quoted(several.iter().map(|(_, f)| *f).collect())
                        )))
                    }
                }
                // A misspelling of a key the graph lacks (`"Edgs"`): it
                // would drop every edge and leave a puzzling error or none.
                let absent = [("Nodes", nodes.is_none()), ("Edges", edges.is_none())];
                for key in extra.keys() {
                    let lacking = absent.iter().filter(|(_, a)| *a).map(|(f, _)| *f);
                    if let Some(field) = misspelt(key, lacking) {
                        return Err(de::Error::custom(format!(
                            "top-level key \"{key}\": did you mean \"{field}\"? (the graph \
                             has no \"{field}\" key)"
                        )));
                    }
                }
                let nodes = nodes.ok_or_else(|| de::Error::missing_field("Nodes"))?;
                // Without edges every FREE may run before its ALLOC; the
                // validator's "not reachable" error would not say why.
                if edges.is_none() {
                    let allocated: std::collections::HashSet<i64> = nodes
                        .iter()
                        .filter(|v| v.op == "ALLOC")
                        .filter_map(|v| v.buf_id)
                        .collect();
                    let paired = |v: &&RawNode| {
                        v.op == "FREE" && v.buf_id.is_some_and(|b| allocated.contains(&b))
                    };
                    if let Some(free) = nodes.iter().find(paired) {
                        return Err(de::Error::custom(format!(
                            "the graph has no \"Edges\" key, so nothing orders FREE node {} \
                             after its ALLOC (edges are the only ordering constraints: add \
                             \"Edges\": [[from, to], ...])",
                            free.id
                        )));
                    }
                }
                Ok(RawGraph {
                    nodes,
                    edges: edges.unwrap_or_default(),
                    extra,
                })
            }
        }
        d.deserialize_map(GraphVisitor)
    }
}

/// Reads the `Edges` array, telling each edge its position (named in its
/// errors).
struct EdgesSeed;

impl<'de> de::DeserializeSeed<'de> for EdgesSeed {
    type Value = Vec<(i64, i64)>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for EdgesSeed {
    type Value = Vec<(i64, i64)>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an `Edges` array of [u, v] pairs of node ids")
    }
    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut edges = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(edge) = seq.next_element_seed(EdgeSeed { index: edges.len() })? {
            edges.push(edge);
        }
        Ok(edges)
    }
}

/// One `[u, v]` of the Edges array, at position `index`; any other length
/// or an id that is not an integer is an error that names the edge and
/// says what an edge is (serde's `[i64; 2]` said "trailing characters").
struct EdgeSeed {
    index: usize,
}

impl<'de> de::DeserializeSeed<'de> for EdgeSeed {
    type Value = (i64, i64);
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for EdgeSeed {
    type Value = (i64, i64);
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(
            f,
            "Edges[{}] (counted from 0) to be [u, v], two node ids",
            self.index
        )
    }
    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let at = format!("Edges[{}] (counted from 0)", self.index);
        let wrong = |n: usize| {
            de::Error::custom(format!(
                "{at}: an edge is [u, v], two node ids; this one has {}",
                if n == 1 {
                    "1 entry".into()
                } else {
                    format!("{n} entries")
                }
            ))
        };
        // serde's "invalid type: string \"10\", expected i64", without its
        // position (the error gets it again) and with the edge named.
        let id = |e: A::Error| {
            let text = e.to_string();
            let text =
                without_position(&text).replace("expected i64", "expected an integer node id");
            de::Error::custom(format!("{at}: {text}"))
        };
        let Some(u) = seq.next_element::<i64>().map_err(id)? else {
            return Err(wrong(0));
        };
        let Some(v) = seq.next_element::<i64>().map_err(id)? else {
            return Err(wrong(1));
        };
        let mut n = 2;
        while seq.next_element::<de::IgnoredAny>()?.is_some() {
            n += 1;
        }
        if n > 2 {
            return Err(wrong(n));
        }
        Ok((u, v))
    }
}

/// Reads the `Nodes` array, telling each node its position (named in the
/// errors of a node whose `Id` is not read yet).
struct NodesSeed;

impl<'de> de::DeserializeSeed<'de> for NodesSeed {
    type Value = Vec<RawNode>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Vec<RawNode>, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for NodesSeed {
    type Value = Vec<RawNode>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of node objects")
    }
    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<RawNode>, A::Error> {
        let mut nodes = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(node) = seq.next_element_seed(NodeVisitor {
            index: Some(nodes.len()),
        })? {
            nodes.push(node);
        }
        Ok(nodes)
    }
}

impl<'de> Deserialize<'de> for RawNode {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(NodeVisitor { index: None })
    }
}

/// Reads one node; `index` is its position in the `Nodes` array, if known.
struct NodeVisitor {
    index: Option<usize>,
}

impl<'de> de::DeserializeSeed<'de> for NodeVisitor {
    type Value = RawNode;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<RawNode, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for NodeVisitor {
    type Value = RawNode;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a node object with \"Id\" and \"Op\"")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawNode, A::Error> {
        let mut id = None;
        let mut op: Option<String> = None;
        let mut size = None;
        let mut buf_id = None;
        let mut extra: Option<Box<Map<String, Value>>> = None;
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            // Errors of a value name the node and the field.
            let at = FieldAt {
                id,
                index: self.index,
            };
            match key.as_ref() {
                "Id" => {
                    once(&id, "Id")?;
                    let seed = Integer::field("Id");
                    let value = map.next_value_seed(seed);
                    let value = at.integer(value, seed)?;
                    id = Some(value.to_i64("Id").map_err(|m| at.judged(m))?)
                }
                "Op" => {
                    once(&op, "Op")?;
                    op = Some(map.next_value::<String>().map_err(|e| at.read(e, "Op"))?)
                }
                "Size" => {
                    once(&size, "Size")?;
                    // Judged once `Op` is known: an ALLOC's range is not
                    // what a FREE or an op may hold.
                    size = Some(at.number(map.next_value_seed(Integer::field("Size")), "Size")?)
                }
                "BufId" => {
                    once(&buf_id, "BufId")?;
                    let seed = Integer::field("BufId");
                    let value = map.next_value_seed(seed);
                    let value = at.integer(value, seed)?;
                    buf_id = Some(value.to_i64("BufId").map_err(|m| at.judged(m))?)
                }
                _ => {
                    // Once, as the fields above: a second `Latency` would
                    // silently replace the first.
                    let extra = extra.get_or_insert_with(Default::default);
                    if extra.contains_key(key.as_ref()) {
                        return Err(de::Error::custom(format!("duplicate field `{key}`")));
                    }
                    let value = map.next_value::<Value>().map_err(|e| at.read(e, &key))?;
                    extra.insert(key.into_owned(), value);
                }
            }
        }
        let at = FieldAt {
            id,
            index: self.index,
        };
        let id = id.ok_or_else(|| missing("Id", &extra, at))?;
        let op = op.ok_or_else(|| missing("Op", &extra, at))?;
        let range = match op.as_str() {
            "ALLOC" => Range::Size,
            _ => Range::Kept,
        };
        let size = size
            .transpose()
            .map_err(|refused| at.judged(refused.message("Size", range)))?;
        Ok(RawNode {
            id,
            op,
            size: size.map(|s| s.0),
            buf_id,
            extra,
        })
    }
}

/// serde_json's error text without its " at line L column C": the error
/// it is wrapped in gets the position again.
fn without_position(text: &str) -> &str {
    text.rfind(" at line ").map_or(text, |i| &text[..i])
}

/// Where a field of a node is, for its errors: the node's `Id` when it has
/// been read, else its position in the `Nodes` array.
#[derive(Clone, Copy)]
struct FieldAt {
    id: Option<i64>,
    index: Option<usize>,
}

/// serde_json's message for a number beyond f64's range (`1e400`).
const NUMBER_OUT_OF_RANGE: &str = "number out of range";

impl FieldAt {
    /// `node 7`, or `Nodes[3] (counted from 0)` before its `Id` is read.
    fn node(self) -> String {
        match (self.id, self.index) {
            (Some(id), _) => format!("node {id}"),
            (None, Some(i)) => format!("Nodes[{i}] (counted from 0)"),
            (None, None) => "a node".into(),
        }
    }

    /// A field's value that was read and refused (`msg` names the field).
    fn judged<E: de::Error>(self, msg: String) -> E {
        E::custom(format!("{}: {msg}", self.node()))
    }

    /// An error reading the value of `field` (a number beyond f64's range,
    /// a wrong type, bad syntax), with the node and the field named. Its
    /// own " at line L column C" is dropped: the error gets the position again.
    fn read<E: de::Error>(self, err: E, field: &str) -> E {
        let text = err.to_string();
        let text = without_position(&text);
        let node = self.node();
        E::custom(match (field, text) {
            ("Latency", NUMBER_OUT_OF_RANGE) => format!(
                "{node} has a Latency beyond the range of a JSON number (about 1.8e308): \
                 its magnitude must be at most 2^63 (about 9.2e18); scale the graph's \
                 latencies down"
            ),
            (_, NUMBER_OUT_OF_RANGE) => format!(
                "{node}, field {field:?}: number out of range (beyond about 1.8e308, the \
                 largest JSON number memsched reads)"
            ),
            _ => format!("{node}, field {field:?}: {text}"),
        })
    }

    /// The integer of an i64 field (`Id`, `BufId`) as read: an error
    /// reading it is named with [`read`](Self::read), one refusing it with
    /// [`judged`](Self::judged).
    fn integer<E: de::Error>(
        self,
        value: Result<Result<Integer, Refused>, E>,
        IntegerField(field): IntegerField,
    ) -> Result<Integer, E> {
        (self.number(value, field)?)
            .map_err(|refused| self.judged(refused.message(field, Range::I64)))
    }

    /// The number of the integer field `field` as read, or the number
    /// refused (judged by the caller); an error reading it is named with
    /// [`read`](Self::read).
    fn number<E: de::Error>(
        self,
        value: Result<Result<Integer, Refused>, E>,
        field: &str,
    ) -> Result<Result<Integer, Refused>, E> {
        match value {
            Ok(number) => Ok(number),
            Err(e) if e.to_string().starts_with(NUMBER_OUT_OF_RANGE) => Ok(Err(Refused::Beyond)),
            Err(e) => Err(self.read(e, field)),
        }
    }
}

/// The error for a node (at `at`) without the required `field`: the node
/// and the field named, or, when the node has the field in another case
/// (`"id"`), an error naming both spellings.
fn missing<E: de::Error>(
    field: &'static str,
    extra: &Option<Box<Map<String, Value>>>,
    at: FieldAt,
) -> E {
    let found = extra
        .iter()
        .flat_map(|e| e.keys())
        .find(|key| miscased(key, &[field]).is_some());
    match found {
        Some(key) => E::custom(format!(
            "node field \"{key}\": the field is \"{field}\" (field names are case-sensitive \
             and take no spaces)"
        )),
        None => E::custom(format!("{} has no `{field}` field", at.node())),
    }
}

/// Rejects a second occurrence of a known node field (`{"Id": 1, "Id": 2}`)
/// rather than keeping one silently.
fn once<T, E: de::Error>(seen: &Option<T>, field: &'static str) -> Result<(), E> {
    match seen {
        Some(_) => Err(E::duplicate_field(field)),
        None => Ok(()),
    }
}

/// A JSON integer of any sign that fits i128 (floats and strings rejected).
struct Integer(i128);

/// The range of integers a field accepts: `Id` and `BufId` are i64, an
/// ALLOC's `Size` a byte count from 0 to 2^63 - 1 (integer literals up to
/// 2^64 - 1 and negative ones are read, so that validation can reject them
/// naming the node: a negative size, or sizes whose sum exceeds 2^63 - 1),
/// and the `Size` of a FREE or an op, kept as written, any integer literal
/// serde_json reads as one (-2^63 to 2^64 - 1).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Range {
    I64,
    Size,
    Kept,
}

impl Range {
    fn describe(self) -> &'static str {
        match self {
            Range::I64 => "an integer from -2^63 to 2^63 - 1",
            Range::Size => "an integer from 0 to 2^63 - 1",
            Range::Kept => {
                "an integer from -2^63 to 2^64 - 1 (a FREE's or an op's Size is not used, but kept)"
            }
        }
    }

    /// The lowest value and the first past the highest, as floats.
    fn bounds(self) -> (f64, f64) {
        let i64_min = -(2f64.powi(63));
        match self {
            Range::I64 => (i64_min, 2f64.powi(63)),
            Range::Size => (0.0, 2f64.powi(63)),
            Range::Kept => (i64_min, 2f64.powi(64)),
        }
    }
}

/// A number an integer field read and refused; why, and what to write
/// instead, depends on the field's [`Range`].
#[derive(Clone, Copy, Debug)]
enum Refused {
    /// A whole float (`2.0`, `1e19`, `-0`).
    Float(f64),
    /// A number beyond f64's range (`1e400`).
    Beyond,
}

impl Refused {
    /// Why `field`, of `range`, cannot hold the number.
    fn message(self, field: &str, range: Range) -> String {
        let must = range.describe();
        let Refused::Float(v) = self else {
            return format!("{field} is out of range: it must be {must}");
        };
        // serde_json hands integer literals in [-2^63, 2^64) over as i64 or
        // u64, and only those beyond as floats (rounded). So a whole float
        // beyond the field's range is out of range however it was written,
        // and one inside it was written as a float (`1e18`, `2.0`): the fix
        // is to write the integer. -2^63 itself is either: a literal just
        // below -2^63 rounds to it. `-0` is a float in JSON (negative zero).
        let shown = shown_float(v);
        let v = v + 0.0; // -0.0 is 0
        let (min, max) = range.bounds();
        let problem = if range != Range::Size && v == min {
            "is below -2^63 or written as a float"
        } else if range == Range::Size && v < 0.0 {
            "is negative"
        } else if v < min || v >= max {
            "is out of range"
        } else if shown == "-0" {
            return format!("{field} -0 is negative zero, which JSON reads as a float: write 0");
        } else {
            return format!(
                "{field} {shown} is written as a float: write it as an integer ({})",
                v as i128
            );
        };
        format!("{field} {shown} {problem}: it must be {must}")
    }
}

impl Integer {
    /// A seed that reads the integer field `name` (named in type errors).
    fn field(name: &'static str) -> IntegerField {
        IntegerField(name)
    }
    /// The value as an i64, or why not (naming `field`).
    fn to_i64(&self, field: &str) -> Result<i64, String> {
        i64::try_from(self.0).map_err(|_| {
            format!(
                "{field} {} is out of range: it must be {}",
                self.0,
                Range::I64.describe()
            )
        })
    }
}

/// Reads an [`Integer`]. A value of the wrong type is an error of
/// reading (`invalid type: string "0", expected an integer for Id`); a
/// whole float is read and returned as [`Refused`], so that the caller can
/// tell the two apart and judge it.
#[derive(Clone, Copy)]
struct IntegerField(&'static str);

impl<'de> de::DeserializeSeed<'de> for IntegerField {
    type Value = Result<Integer, Refused>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

/// A float as a user would recognise it from the file: `2.0`, `1e18`,
/// `-5.0`; negative zero (`-0` reads as a float in JSON) as `-0`.
fn shown_float(v: f64) -> String {
    if v == 0.0 && v.is_sign_negative() {
        "-0".into()
    } else {
        format!("{v:?}")
    }
}

impl<'de> Visitor<'de> for IntegerField {
    type Value = Result<Integer, Refused>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "an integer for {}", self.0)
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        Ok(Ok(Integer(v as i128)))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        Ok(Ok(Integer(v as i128)))
    }
    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Self::Value, E> {
        Ok(Ok(Integer(v)))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        // Fractions (`1.5`) are type errors; whole floats are judged by
        // the field's range.
        if !(v.is_finite() && v.fract() == 0.0) {
            return Err(E::invalid_type(de::Unexpected::Float(v), &self));
        }
        Ok(Err(Refused::Float(v)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A graph of one ALLOC with `fields`, parsed.
    fn one_alloc(fields: &str) -> Result<RawGraph, String> {
        let text = format!(r#"{{"Nodes": [{{"Op": "ALLOC", {fields}}}], "Edges": []}}"#);
        parse(text.as_bytes()).map_err(|e| e.to_string())
    }

    fn node_error(fields: &str) -> String {
        one_alloc(fields).unwrap_err()
    }

    fn size_of(fields: &str) -> Option<i128> {
        one_alloc(fields).unwrap().nodes[0].size
    }

    /// A FREE's or an op's `Size` is kept, not used: the reader takes any
    /// integer literal there (validation warns), and a number it refuses
    /// is named with that range, not an ALLOC's, whatever the field order.
    #[test]
    fn a_refused_size_of_a_free_or_an_op_names_their_range() {
        let node = |fields: &str| {
            let text = format!(r#"{{"Nodes": [{{"Id": 1, {fields}}}], "Edges": []}}"#);
            parse(text.as_bytes()).map_err(|e| e.to_string())
        };
        let kept = "an integer from -2^63 to 2^64 - 1 (a FREE's or an op's Size is not used";
        for op in ["FREE", "conv"] {
            for (size, problem) in [
                ("1e20", "Size 1e20 is out of range"),
                ("-1e30", "Size -1e30 is out of range"),
                ("1e400", "Size is out of range"),
                (
                    "-9.223372036854775808e18",
                    "Size -9.223372036854776e18 is below -2^63 or written as a float",
                ),
            ] {
                for fields in [
                    format!(r#""Op": "{op}", "BufId": 1, "Size": {size}"#),
                    format!(r#""Size": {size}, "BufId": 1, "Op": "{op}""#),
                ] {
                    let err = node(&fields).unwrap_err();
                    assert!(
                        err.contains(&format!("node 1: {problem}: it must be {kept}")),
                        "{fields}: {err}"
                    );
                }
            }
            let err = node(&format!(r#""Op": "{op}", "Size": 1.5e19"#)).unwrap_err();
            assert!(
                err.contains("Size 1.5e19 is written as a float: write it as an integer (15000000000000000000)"),
                "{err}"
            );
            for (size, read) in [("-3", -3), ("18446744073709551615", u64::MAX as i128)] {
                let graph = node(&format!(r#""Size": {size}, "Op": "{op}""#)).unwrap();
                assert_eq!(graph.nodes[0].size, Some(read));
            }
        }
        // An ALLOC's Size, the field before or after its Op, keeps its range.
        for fields in [
            r#""Op": "ALLOC", "BufId": 1, "Size": -1e30"#,
            r#""Size": -1e30, "BufId": 1, "Op": "ALLOC""#,
        ] {
            let err = node(fields).unwrap_err();
            assert!(
                err.contains(
                    "node 1: Size -1e30 is negative: it must be an integer from 0 to 2^63 - 1"
                ),
                "{err}"
            );
        }
    }

    /// A whole float literal inside Size's range (`1e18`) is wrong because
    /// it is a float, not because it is out of range; from 2^63 on it is out
    /// of range, below 0 negative, and the message names the range.
    #[test]
    fn a_float_size_within_range_is_named_as_a_float_not_out_of_range() {
        let err = node_error(r#""Id": 0, "BufId": 1, "Size": 1e18"#);
        assert!(
            err.contains(
                "Size 1e18 is written as a float: write it as an integer (1000000000000000000)"
            ),
            "{err}"
        );
        assert!(!err.contains("out of range"), "{err}");
        // The same value written as an integer is read exactly.
        assert_eq!(
            size_of(r#""Id": 0, "BufId": 1, "Size": 1000000000000000000"#),
            Some(1_000_000_000_000_000_000)
        );
        for (written, shown) in [
            ("1e19", "1e19"),
            ("9.3e18", "9.3e18"),
            ("18446744073709551616", "1.8446744073709552e19"),
        ] {
            let err = node_error(&format!(r#""Id": 0, "BufId": 1, "Size": {written}"#));
            assert!(
                err.contains(&format!(
                    "Size {shown} is out of range: it must be an integer from 0 to 2^63 - 1"
                )),
                "{written}: {err}"
            );
        }
        for (written, shown) in [("-1e19", "-1e19"), ("-5.0", "-5.0")] {
            let err = node_error(&format!(r#""Id": 0, "BufId": 1, "Size": {written}"#));
            assert!(
                err.contains(&format!("Size {shown} is negative: it must be an integer")),
                "{written}: {err}"
            );
        }
        // A float is shown as written (`2.0`, not `2e0`), negative zero as
        // `-0`, and the node is named.
        let err = node_error(r#""Id": 3, "BufId": 1, "Size": 2.0"#);
        assert!(
            err.contains("node 3: Size 2.0 is written as a float: write it as an integer (2)"),
            "{err}"
        );
        for zero in ["-0", "-0.0", "-0e0"] {
            let err = node_error(&format!(r#""Id": 0, "BufId": 1, "Size": {zero}"#));
            assert!(
                err.contains(
                    "node 0: Size -0 is negative zero, which JSON reads as a float: write 0"
                ),
                "{zero}: {err}"
            );
            assert!(!err.contains("0e0"), "{err}");
        }
    }

    /// A number beyond f64 (`1e400`) is named with its node and field, and
    /// with the range the field takes; the node is its position in the
    /// Nodes array while its Id is not read yet.
    #[test]
    fn a_number_beyond_f64_names_the_node_and_the_field() {
        let graph = |nodes: &str| {
            let text = format!(r#"{{"Nodes": [{nodes}], "Edges": []}}"#);
            parse(text.as_bytes()).unwrap_err().to_string()
        };
        let latency = "has a Latency beyond the range of a JSON number (about 1.8e308): \
                       its magnitude must be at most 2^63 (about 9.2e18)";
        let err = graph(r#"{"Id": 4, "Op": "A", "Latency": 1e400}"#);
        assert!(err.contains(&format!("node 4 {latency}")), "{err}");
        assert!(
            err.starts_with("malformed graph JSON at line 1, column 49: node 4"),
            "{err}"
        );
        let err = graph(r#"{"Id": 0, "Op": "A"}, {"Latency": -1e400, "Id": 4, "Op": "A"}"#);
        assert!(
            err.contains(&format!("Nodes[1] (counted from 0) {latency}")),
            "{err}"
        );
        let err = graph(r#"{"Id": 4, "Op": "A", "Flops": 1e400}"#);
        assert!(
            err.contains("node 4, field \"Flops\": number out of range"),
            "{err}"
        );
        for (fields, want) in [
            (
                r#""Id": 4, "Op": "ALLOC", "BufId": 1, "Size": 1e400"#,
                "node 4: Size is out of range: it must be an integer from 0 to 2^63 - 1",
            ),
            (
                r#""Id": 4, "Op": "ALLOC", "BufId": -1e400, "Size": 1"#,
                "node 4: BufId is out of range: it must be an integer from -2^63 to 2^63 - 1",
            ),
            (
                r#""Op": "A", "Id": 1e400"#,
                "Nodes[0] (counted from 0): Id is out of range",
            ),
            (
                r#""Id": 4, "Op": 3"#,
                "node 4, field \"Op\": invalid type: integer `3`, expected a string",
            ),
        ] {
            let err = graph(&format!("{{{fields}}}"));
            assert!(err.contains(want), "{fields}: {err}");
        }
        // 1.7e308 is a number: validation names it with its value.
        let text = r#"{"Nodes": [{"Id": 4, "Op": "A", "Latency": 1.7e308}]}"#;
        let err = Graph::from_raw(parse(text.as_bytes()).unwrap()).unwrap_err();
        assert!(
            err.to_string()
                .contains("node 4 has Latency 1.7e+308, out of range"),
            "{err}"
        );
    }

    /// A graph file is refused before it is read whole when its first byte
    /// cannot begin a graph or it is larger than the limit (a small one
    /// here; the command line's is `MAX_INPUT_BYTES`).
    #[test]
    fn a_file_that_cannot_be_a_graph_is_refused_before_it_is_read() {
        use crate::input::Refusal;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("g.json");
        let text = r#"{"Nodes": [{"Id": 0, "Op": "A"}]}"#;
        std::fs::write(&path, text).unwrap();
        let path = path.to_str().unwrap();
        let limit = text.len() as u64;
        assert_eq!(read_bytes_limited(path, limit).unwrap(), text.as_bytes());
        assert_eq!(
            read_bytes_limited(path, limit - 1),
            Err(GraphError::NotAGraphFile(Refusal::TooLarge {
                limit: limit - 1
            }))
        );
        std::fs::write(path, b"\0\0\0{").unwrap();
        let err = read_bytes_limited(path, limit).unwrap_err();
        assert!(
            matches!(
                err,
                GraphError::NotAGraphFile(Refusal::BadStart {
                    byte: 0,
                    offset: 0,
                    ..
                })
            ),
            "{err}"
        );
    }

    /// An edge that is not two integers names its position in `Edges`.
    #[test]
    fn a_bad_edge_is_named_by_its_position() {
        let node = r#"{"Id": 0, "Op": "x"}"#;
        for (edges, says) in [
            (r#"[[0, 0], ["0", 1]]"#, "Edges[1] (counted from 0): invalid type: string \"0\", expected an integer node id"),
            (r#"[[0, 1.5]]"#, "Edges[0] (counted from 0): invalid type: floating point `1.5`, expected an integer node id"),
            (r#"[[0, 1, 2]]"#, "Edges[0] (counted from 0): an edge is [u, v], two node ids; this one has 3 entries"),
            ("[[0, 1], 5]", "expected Edges[1] (counted from 0) to be [u, v]"),
            ("null", "expected an `Edges` array of [u, v] pairs"),
        ] {
            let text = format!(r#"{{"Nodes": [{node}], "Edges": {edges}}}"#);
            let err = parse(text.as_bytes()).unwrap_err().to_string();
            assert!(err.contains(says), "{edges}: {err}");
        }
    }

    /// A required field given only in another case is named with both
    /// spellings, not as a bare "missing field"; a top-level key with
    /// spaces around it is named as one in another case.
    #[test]
    fn a_required_field_in_another_case_is_named() {
        let err = node_error(r#""id": 0, "BufId": 1, "Size": 1"#);
        assert!(
            err.contains(
                r#"node field "id": the field is "Id" (field names are case-sensitive and take no spaces)"#
            ),
            "{err}"
        );
        let text = r#"{"Nodes": [{"Id": 0, " op ": "A"}]}"#;
        let err = parse(text.as_bytes()).unwrap_err().to_string();
        assert!(
            err.contains(r#"node field " op ": the field is "Op""#),
            "{err}"
        );
        let err = node_error(r#""BufId": 1, "Size": 1"#);
        assert!(
            err.contains("Nodes[0] (counted from 0) has no `Id` field"),
            "{err}"
        );
        let text = r#"{"Nodes": [{"Id": 0, "Op": "x"}, {"Id": 7}]}"#;
        let err = parse(text.as_bytes()).unwrap_err().to_string();
        assert!(err.contains("node 7 has no `Op` field"), "{err}");
        let text = r#"{"Nodes": [], " Edges": []}"#;
        let err = parse(text.as_bytes()).unwrap_err().to_string();
        assert!(err.contains(r#"the key is "Edges""#), "{err}");
        // Both misspelt: both named at once.
        let text = r#"{"nodes": [], "edges": []}"#;
        let err = parse(text.as_bytes()).unwrap_err().to_string();
        assert!(
            err.contains(r#"top-level keys "edges" and "nodes": the keys are "Edges" and "Nodes""#),
            "{err}"
        );
        assert_eq!(miscased("Latency", &NODE_FIELDS), None);
        assert_eq!(miscased("latency", &NODE_FIELDS), Some("Latency"));
        assert_eq!(miscased("Name", &NODE_FIELDS), None);
    }

    /// A top-level key that misspells a key the graph lacks is an error
    /// naming both (it would drop every edge); beside the real key, or far
    /// from any, it is an extra field as before.
    #[test]
    fn a_misspelt_top_level_key_is_named() {
        let text = r#"{"Nodes": [{"Id": 0, "Op": "x"}], "Edgs": [[0, 0]]}"#;
        let err = parse(text.as_bytes()).unwrap_err().to_string();
        assert!(
            err.contains(
                r#"top-level key "Edgs": did you mean "Edges"? (the graph has no "Edges" key)"#
            ),
            "{err}"
        );
        let text = r#"{"Node": [], "Edges": []}"#;
        let err = parse(text.as_bytes()).unwrap_err().to_string();
        assert!(err.contains(r#"did you mean "Nodes"?"#), "{err}");
        for text in [
            r#"{"Nodes": [], "Edges": [], "Edgs": 1}"#,
            r#"{"Nodes": [], "Meta": 1}"#,
        ] {
            assert!(parse(text.as_bytes()).is_ok(), "{text}");
        }
        assert_eq!(misspelt("Lantency", NODE_FIELDS), Some("Latency"));
        assert_eq!(misspelt("input", NODE_FIELDS), Some("Inputs"));
        // Short fields take no guess: `Ops` is not `Op`.
        assert_eq!(misspelt("Ops", NODE_FIELDS), None);
    }

    /// A graph with a buffer's ALLOC and FREE and no `Edges` key is told
    /// so, rather than that the FREE is unreachable; without such a pair it
    /// needs no edges (a lone FREE gets the validator's error).
    #[test]
    fn frees_without_an_edges_key_are_named() {
        let text = r#"{"Nodes": [{"Id": 0, "Op": "ALLOC", "Size": 4, "BufId": 1},
                                  {"Id": 7, "Op": "FREE", "BufId": 1}]}"#;
        let err = parse(text.as_bytes()).unwrap_err().to_string();
        assert!(
            err.contains(r#"the graph has no "Edges" key, so nothing orders FREE node 7"#),
            "{err}"
        );
        let text =
            r#"{"Nodes": [{"Id": 0, "Op": "ALLOC", "Size": 4, "BufId": 1}, {"Id": 1, "Op": "x"}]}"#;
        assert!(parse(text.as_bytes()).is_ok());
    }

    /// `Id` and `BufId` are i64: values beyond it name i64's range, whether
    /// written as an integer that fits u64, one beyond u64, or a float.
    #[test]
    fn ids_beyond_i64_name_the_i64_range() {
        let range = "is out of range: it must be an integer from -2^63 to 2^63 - 1";
        for (fields, want) in [
            (
                r#""Id": 9223372036854775808, "BufId": 1, "Size": 1"#,
                "Id 9223372036854775808",
            ),
            (r#""Id": 1e19, "BufId": 1, "Size": 1"#, "Id 1e19"),
            (
                r#""Id": 99999999999999999999, "BufId": 1, "Size": 1"#,
                "Id 1e20",
            ),
            (r#""Id": 0, "BufId": -1e19, "Size": 1"#, "BufId -1e19"),
        ] {
            let err = node_error(fields);
            assert!(err.contains(&format!("{want} {range}")), "{fields}: {err}");
        }
        // Inside i64's range a whole float is named as such; a fraction is a
        // type error.
        let err = node_error(r#""Id": -1e18, "BufId": 1, "Size": 1"#);
        assert!(
            err.contains(
                "Id -1e18 is written as a float: write it as an integer (-1000000000000000000)"
            ),
            "{err}"
        );
        let err = node_error(r#""Id": 1.5, "BufId": 1, "Size": 1"#);
        assert!(
            err.contains("invalid type: floating point `1.5`, expected an integer for Id"),
            "{err}"
        );
        // -2^63 - 1 rounds to -2^63: the message allows for both readings.
        let err = node_error(r#""Id": -9223372036854775809, "BufId": 1, "Size": 1"#);
        assert!(
            err.contains("Id -9.223372036854776e18 is below -2^63 or written as a float"),
            "{err}"
        );
    }

    /// A file that cannot be read says why, with the error's kind for
    /// code that acts on it.
    #[test]
    fn an_unreadable_file_names_its_io_error_kind() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("missing.json");
        match read_path(&missing).unwrap_err() {
            GraphError::Io {
                path,
                kind,
                message,
            } => {
                assert_eq!(kind, io::ErrorKind::NotFound, "{message}");
                assert_eq!(path, missing.display().to_string());
            }
            e => panic!("{e:?}"),
        }
    }
}
