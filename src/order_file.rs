//! Orders made elsewhere, as files: what `memsched check` and the
//! `orders:` solver read.
//!
//! An order is the graph's node ids in the order they run, written as a
//! JSON array (`[3, 1, 2]`), as a JSON object with an `order` array (what
//! `memsched schedule --format json` prints, or a line of an experiment's
//! `orders.jsonl`, whose `graph` field names the graph it was saved for),
//! as text: ids separated by whitespace or commas, as the text report of
//! `memsched schedule` (its `order` line), or as a trace CSV of
//! `memsched schedule --trace` (its `id` column). A byte-order mark is
//! ignored.

use serde::de::{DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserializer as _;
use serde_json::Value;

use crate::text::clipped;

/// An order as read: its ids, and the graph it was saved for when it says
/// (the `graph` field of a line of an experiment's `orders.jsonl`).
#[derive(Debug, PartialEq)]
pub struct ReadOrder {
    /// The node ids, in order.
    pub ids: Vec<i64>,
    /// The graph it names, if any.
    pub graph: Option<String>,
}

/// Reads an order in any of the formats the module docs name; the error
/// says what is wrong with it (for a message that names the file).
pub fn parse(text: &str) -> Result<ReadOrder, String> {
    parse_at_most(text, usize::MAX)
}

/// [`parse`], keeping at most `max_ids` ids: for a graph of `n` nodes,
/// `n + 1` are enough to tell an order that is too long (one of them is
/// unknown or repeated), without holding a huge file's every id.
pub fn parse_at_most(text: &str, max_ids: usize) -> Result<ReadOrder, String> {
    // A byte-order mark, as some editors write, is not part of the order.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let trimmed = text.trim_start();
    if trimmed.starts_with('{') && is_graph(text) {
        return Err(
            "it is a graph file (it has `Nodes`), not an order: give the graph \
                    first and the order second"
                .into(),
        );
    }
    if trimmed.starts_with("step,id,") {
        return trace_ids(trimmed, max_ids);
    }
    if looks_like_toml(trimmed) {
        return Err(
            "it is a TOML file (an experiment config?), not an order: an order is ids, a JSON \
             array of ids, or a JSON object with an `order` list"
                .into(),
        );
    }
    // A JSON object's line: `{` then a key or its end (a TOML inline
    // table, `{ spec = ... }`, is not one).
    let objects = text
        .lines()
        .filter(|l| {
            l.trim_start().strip_prefix('{').is_some_and(|rest| {
                rest.trim_start().starts_with(['"', '}']) || rest.trim().is_empty()
            })
        })
        .count();
    if objects > 1 && trimmed.starts_with('[') {
        return Err(format!(
            "it is a JSON array of {objects} objects (`schedule -o FILE.json` with several \
             solvers), not one order: keep the report to check, e.g. \
             `jq '.[] | select(.solver == \"exact\")' FILE > o.json`"
        ));
    }
    if objects > 1 {
        // Lines of `orders.jsonl` name their graph; a report of `schedule`
        // does not.
        let pick = match text.contains("\"graph\"") {
            true => {
                "`grep '\"graph\":\"NAME\"' orders.jsonl | grep '\"solver\":\"exact\"' > o.json`"
            }
            false => "`grep '\"solver\":\"exact\"' FILE > o.json`",
        };
        return Err(format!(
            "it holds {objects} JSON objects, one order per line (an experiment's \
             `orders.jsonl`, or `schedule --format json` with several solvers): keep the \
             line to check, e.g. {pick}"
        ));
    }
    if trimmed.starts_with('[') || trimmed.starts_with('{') {
        // Streamed: past `max_ids`, ids are skipped, not held.
        let mut de = serde_json::Deserializer::from_str(text);
        let read = (&mut de)
            .deserialize_any(Json { max_ids })
            .and_then(|read| de.end().map(|()| read))
            .map_err(|e| format!("not valid JSON: {e}"))?;
        if trimmed.starts_with('{') {
            // A key given twice would be read as its last value, silently.
            serde_json::from_str::<Fields>(text).map_err(|e| format!("{e}: keep one"))?;
        }
        return read;
    }
    let text = match report_order_line(text) {
        Some(line) => line?,
        None => text,
    };
    let ids = text
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|t| !t.is_empty())
        .take(max_ids)
        .enumerate()
        .map(|(i, t)| {
            t.parse::<i64>().map_err(|_| {
                let digits = t.strip_prefix(['-', '+']).unwrap_or(t);
                let past = !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit());
                let mut why = bad_entry(
                    i,
                    &format!("`{}`", clipped(t, QUOTED_CHARS, QUOTED_CHARS)),
                    past,
                );
                if !past {
                    why += "; ids are separated by whitespace or commas";
                }
                why
            })
        })
        .collect::<Result<_, _>>()?;
    Ok(ReadOrder { ids, graph: None })
}

/// The ids of the `order` line when `text` is the text report of one
/// `memsched schedule` solve (its first line `solver NAME`); an error when
/// the report has no order, or shows only a terminal's preview of it, or
/// is the table of several solvers (first line `graph ...`), which has none.
fn report_order_line(text: &str) -> Option<Result<&str, String>> {
    let labelled = |line: &str, label: &str| {
        line.strip_prefix(label)
            .filter(|rest| rest.starts_with([' ', '\t']))
            .is_some()
    };
    let first = text.lines().find(|l| !l.trim().is_empty())?.trim_start();
    if labelled(first, "graph") && text.contains("\nsolver ") {
        return Some(Err(
            "it is the table `memsched schedule` prints for several \
                         solvers, which holds no order: save one solver's report with \
                         `-o FILE`, or use `--format json` and keep one line"
                .into(),
        ));
    }
    if !labelled(first, "solver") {
        return None;
    }
    let order = text
        .lines()
        .find(|l| labelled(l, "order"))
        .map(|l| &l["order".len()..]);
    Some(match order {
        None => Err(
            "it is a report of `memsched schedule` without an `order` line \
                     (its solve gave no order)"
                .into(),
        ),
        Some(ids) if ids.contains("...") => Err("it is a report of `memsched schedule` \
             that shows only the first ids of its order, as on a terminal: save the \
             report with `-o FILE` or `--format json`"
            .into()),
        Some(ids) => Ok(ids),
    })
}

/// An order in JSON, streamed: an array of ids, or an object with an
/// `order` array (and maybe a `graph`). Its value is our own verdict, so
/// that a bad entry or a missing `order` gets its message, not serde's.
struct Json {
    max_ids: usize,
}

impl<'de> Visitor<'de> for Json {
    type Value = Result<ReadOrder, String>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an array of node ids or an object with an `order` array")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        let ids = Ids { max: self.max_ids }.read(seq)?;
        Ok(ids.map(|ids| ReadOrder { ids, graph: None }))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let (mut order, mut graph) = (None, None);
        // The last of a key given twice wins here; `parse` refuses such
        // objects after (`Fields`).
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "order" => order = Some(map.next_value_seed(Ids { max: self.max_ids })?),
                "graph" => graph = map.next_value::<Value>()?.as_str().map(String::from),
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(match order {
            Some(OrderField::Ids(ids)) => ids.map(|ids| ReadOrder { ids, graph }),
            Some(OrderField::Null) => {
                Err("its `order` is null (the solve it reports found no schedule)".into())
            }
            Some(OrderField::Other) | None => Err("a JSON object must have an `order` array of \
                 node ids (as `memsched schedule --format json` prints)"
                .into()),
        })
    }
}

/// An `order` field as read: ids (or the first bad entry's message),
/// null, or something else.
enum OrderField {
    Ids(Result<Vec<i64>, String>),
    Null,
    Other,
}

/// Reads a JSON array of ids, keeping at most `max` and skipping the rest.
struct Ids {
    max: usize,
}

impl Ids {
    /// The array's first `max` ids, or the first bad entry's message; the
    /// rest is skipped.
    fn read<'de, A: SeqAccess<'de>>(
        self,
        mut seq: A,
    ) -> Result<Result<Vec<i64>, String>, A::Error> {
        let mut ids = Vec::new();
        let mut bad = None;
        while ids.len() < self.max && bad.is_none() {
            let Some(x) = seq.next_element::<Value>()? else {
                break;
            };
            match x.as_i64() {
                Some(id) => ids.push(id),
                None => {
                    // Past i64: a u64, or a float as serde_json reads larger
                    // integers. -2^63 as a float is either a literal just
                    // below it (rounded) or -2^63 written as a float.
                    let shown = x.to_string();
                    let edge = -(2f64.powi(63));
                    bad = Some(match x.as_f64() {
                        Some(f) if f == edge && !x.is_u64() => format!(
                            "{} ({shown}) is below -2^63 or written as a float: {ID_RANGE}",
                            nth_entry(ids.len())
                        ),
                        f => {
                            let past = x.is_u64() || f.is_some_and(|f| f.abs() >= 2f64.powi(63));
                            bad_entry(ids.len(), &shown, past)
                        }
                    });
                }
            }
        }
        // The rest must still be JSON, but is not kept.
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(bad.map_or(Ok(ids), Err))
    }
}

impl<'de> DeserializeSeed<'de> for Ids {
    type Value = OrderField;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<OrderField, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Ids {
    type Value = OrderField;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an array of node ids")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<OrderField, A::Error> {
        self.read(seq).map(OrderField::Ids)
    }
    fn visit_unit<E>(self) -> Result<OrderField, E> {
        Ok(OrderField::Null)
    }
    fn visit_bool<E>(self, _: bool) -> Result<OrderField, E> {
        Ok(OrderField::Other)
    }
    fn visit_i64<E>(self, _: i64) -> Result<OrderField, E> {
        Ok(OrderField::Other)
    }
    fn visit_u64<E>(self, _: u64) -> Result<OrderField, E> {
        Ok(OrderField::Other)
    }
    fn visit_f64<E>(self, _: f64) -> Result<OrderField, E> {
        Ok(OrderField::Other)
    }
    fn visit_str<E>(self, _: &str) -> Result<OrderField, E> {
        Ok(OrderField::Other)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<OrderField, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(OrderField::Other)
    }
}

/// What a node id may be, as the errors about an entry past it say.
const ID_RANGE: &str = "a node id is an integer from -2^63 to 2^63 - 1";

/// Why entry `i` (0-based), shown as `shown`, is no node id: an integer
/// `past` the 64-bit range, or no integer at all.
fn bad_entry(i: usize, shown: &str, past: bool) -> String {
    let entry = nth_entry(i);
    match past {
        true => format!("{entry} ({shown}) is out of range: {ID_RANGE}"),
        false => format!("{entry} ({shown}) is not an integer node id"),
    }
}

/// Most characters of an entry an error quotes: a file whose ids are
/// separated by something else (`;`) is one entry, megabytes long.
const QUOTED_CHARS: usize = 40;

/// `the 1st entry`, `the 22nd entry`, ... for the entry at 0-based
/// position `i`: an ordinal cannot be misread as counted from 0.
pub(crate) fn nth_entry(i: usize) -> String {
    let n = i as u64 + 1;
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("the {n}{suffix} entry")
}

/// The fields of an order object that memsched reads (`parse`, and the
/// `orders:` solver's `solver` and `seed` of a line): serde refuses any of
/// them given twice (other fields are ignored).
#[derive(serde::Deserialize)]
struct Fields {
    #[serde(rename = "order")]
    _order: Option<serde::de::IgnoredAny>,
    #[serde(rename = "graph")]
    _graph: Option<serde::de::IgnoredAny>,
    #[serde(rename = "solver")]
    _solver: Option<serde::de::IgnoredAny>,
    #[serde(rename = "seed")]
    _seed: Option<serde::de::IgnoredAny>,
}

/// True when `text` is a JSON object with a top-level `Nodes` key: a graph
/// file given where the order goes.
fn is_graph(text: &str) -> bool {
    /// Reads the top-level keys only, skipping their values.
    #[derive(serde::Deserialize)]
    struct Probe {
        #[serde(rename = "Nodes")]
        nodes: Option<IgnoredAny>,
    }
    serde_json::from_str::<Probe>(text).is_ok_and(|p| p.nodes.is_some())
}

/// The `id` column of a trace CSV (`step,id,...`, as `schedule --trace`
/// writes it), at most `max_ids` of them.
fn trace_ids(text: &str, max_ids: usize) -> Result<ReadOrder, String> {
    let mut reader = csv::ReaderBuilder::new()
        .flexible(true)
        .from_reader(text.as_bytes());
    let mut ids = Vec::new();
    for record in reader.records() {
        if ids.len() >= max_ids {
            break;
        }
        let record = record.map_err(|e| format!("trace CSV: {e}"))?;
        let line = record.position().map_or(0, |p| p.line());
        let Some(id) = record.get(1) else {
            return Err(format!(
                "trace CSV line {line}: the row has no `id` cell (cut short?)"
            ));
        };
        ids.push(id.trim().parse().map_err(|_| {
            format!(
                "trace CSV line {line}: the `id` cell `{}` is not an integer node id",
                clipped(id, QUOTED_CHARS, QUOTED_CHARS)
            )
        })?);
    }
    Ok(ReadOrder { ids, graph: None })
}

/// Whether `text` starts as a TOML file does, after its comments: a
/// `[table]` or `[[array]]` header, which no JSON array of ids starts
/// with, or a `key = value` line.
fn looks_like_toml(text: &str) -> bool {
    let Some(first) = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#'))
    else {
        return false;
    };
    let header = first.strip_prefix("[[").or_else(|| first.strip_prefix('['));
    let starts_key = |s: &str| s.starts_with(|c: char| c.is_ascii_alphabetic());
    // A bare or dotted key (`a.b = 1`), spaces around its dots allowed.
    let key = |c: char| c.is_ascii_alphanumeric() || "_-. \t".contains(c);
    header.is_some_and(|rest| starts_key(rest.trim_start()))
        || first.starts_with(|c: char| c.is_ascii_alphabetic())
            && first.trim_start_matches(key).trim_start().starts_with('=')
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An entry that is not an id is quoted cut short, with the separators
    /// that are read (ids separated by `;` made one entry of the file).
    #[test]
    fn a_long_bad_entry_is_quoted_short() {
        let text: Vec<String> = (0..300).map(|i| i.to_string()).collect();
        let err = parse(&text.join(";")).unwrap_err();
        assert!(
            err.starts_with(
                "the 1st entry (`0;1;2;3;4;5;6;7;8;9;10;11;12;13;14;15;16... (1089 characters)`)"
            ),
            "{err}"
        );
        assert!(
            err.ends_with("ids are separated by whitespace or commas"),
            "{err}"
        );
    }

    /// Entries are named by ordinals (`the 22nd entry`), which cannot be
    /// read as counted from 0.
    #[test]
    fn entries_are_named_by_ordinals() {
        let names: Vec<String> = [0, 1, 2, 3, 10, 11, 12, 20, 21, 101, 111, 112]
            .into_iter()
            .map(nth_entry)
            .collect();
        assert_eq!(
            names.join(", ").replace("the ", "").replace(" entry", ""),
            "1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st, 22nd, 102nd, 112th, 113th"
        );
    }

    /// A `schedule` text report saved with `-o` is read by its `order`
    /// line; a terminal's preview of it, a report without an order and the
    /// table of several solvers are refused, each saying why.
    #[test]
    fn a_schedule_text_report_is_read_by_its_order_line() {
        let report = "solver       exact\nstatus       optimal\npeak         5 B\n\
                      time         0.01 ms\norder        3 1 -2\n";
        assert_eq!(parse(report).map(|o| o.ids), Ok(vec![3, 1, -2]));
        let preview = report.replace("-2", "-2 ... and 7 more (all 10 with -o FILE)");
        assert!(parse(&preview).unwrap_err().contains("only the first ids"));
        let failed = "solver exact\nstatus failed\nnote   no order\n";
        assert!(parse(failed)
            .unwrap_err()
            .contains("without an `order` line"));
        let table = "graph  3 nodes, 2 edges\nprogram peak  5 B\n\n\
                     solver  status  peak\nexact   optimal 5\n";
        assert!(parse(table).unwrap_err().contains("holds no order"));
        // Text that only starts like a report is ids as before.
        assert!(parse("solvers 1 2")
            .unwrap_err()
            .contains("the 1st entry (`solvers`)"));
    }

    /// Lines of JSON objects are counted as orders of `orders.jsonl`;
    /// a TOML config's inline tables are not JSON objects.
    #[test]
    fn only_json_object_lines_count_as_orders() {
        let jsonl = "{\"graph\":\"a\",\"order\":[1]}\n{ \"graph\":\"b\",\"order\":[1]}\n";
        assert!(parse(jsonl)
            .unwrap_err()
            .contains("it holds 2 JSON objects"));
        let config = "[[graphs]]\nlist = [\n  { spec = \"chain\" },\n  { spec = \"tree\" },\n]\n";
        let err = parse(config).unwrap_err();
        assert!(err.starts_with("it is a TOML file"), "{err}");
        let config = config.replace("[[graphs]]", "# A config.\n\n[solvers]\n[[graphs]]");
        assert!(parse(&config).unwrap_err().starts_with("it is a TOML file"));
        let keyed = "# A config.\ndescription = \"x\"\nsolvers = [\"kahn\"]\n";
        assert!(parse(keyed).unwrap_err().starts_with("it is a TOML file"));
        for spaced in [
            "[ graphs ]\n",
            "[[ graphs ]]\n",
            "run.time_limit = 1\n",
            "description\t= \"x\"\n",
        ] {
            let err = parse(spaced).unwrap_err();
            assert!(err.starts_with("it is a TOML file"), "{spaced}: {err}");
        }
        // Ids are not keys.
        assert!(parse("3 = 1").unwrap_err().contains("the 2nd entry (`=`)"));
    }

    /// A trace CSV of `schedule --trace` is read by its `id` column, op
    /// names with commas and quotes included.
    #[test]
    fn a_trace_csv_is_read_by_its_id_column() {
        let trace = "step,id,op,type,delta,memory_after,ready,term1:delta\n\
                     1,4,ALLOC,ALLOC,5,5,3,5\n\
                     2,0,\"conv, \"\"3x3\"\"\",op,0,5,3,0\n\
                     3,7,FREE,FREE,-5,0,1,-5\n";
        let read = parse(trace).unwrap();
        assert_eq!(read.ids, vec![4, 0, 7]);
        assert_eq!(parse_at_most(trace, 2).unwrap().ids, vec![4, 0]);
        // Line numbers are the file's: a quoted op name may span lines.
        let err = parse(&trace.replace("3,7,", "3,x,").replace("conv, ", "conv,\n")).unwrap_err();
        assert!(
            err.starts_with("trace CSV line 5: the `id` cell `x`"),
            "{err}"
        );
        let err = parse(&format!("{trace}4\n")).unwrap_err();
        assert!(err.contains("line 5: the row has no `id` cell"), "{err}");
    }

    #[test]
    fn orders_parse_in_every_format() {
        for text in [
            "[3, 1, -2]",
            "{\"order\": [3, 1, -2], \"peak\": 5}",
            "3 1 -2\n",
            "3,1,\n-2",
        ] {
            assert_eq!(parse(text).map(|o| o.ids), Ok(vec![3, 1, -2]), "{text}");
        }
        // At most so many ids are kept, in every format; what is past them
        // is not read (`x` is no id, yet no error).
        for text in ["[3, 1, -2, 9]", "{\"order\": [3, 1, -2]}", "3 1 -2 x"] {
            let kept = parse_at_most(text, 2).map(|o| o.ids);
            assert_eq!(kept, Ok(vec![3, 1]), "{text}");
        }
        assert!(parse("[1, 2.5]")
            .unwrap_err()
            .contains("the 2nd entry (2.5)"));
        assert!(parse("1 x 3").unwrap_err().contains("the 2nd entry (`x`)"));
        // Integers past i64 are out of range, not "not integers".
        for text in [
            "[0, 99999999999999999999999]",
            "[0, 9223372036854775808]",
            "0 -99999999999999999999",
        ] {
            let err = parse(text).unwrap_err();
            assert!(
                err.starts_with("the 2nd entry (") && err.contains("is out of range"),
                "{text}: {err}"
            );
        }
        // -2^63 as a float may be a rounded literal below it or the id
        // written as a float: both are said.
        for text in ["[0, -9.223372036854775808e18]", "[0, -9223372036854775809]"] {
            let err = parse(text).unwrap_err();
            assert!(
                err.contains(
                    "the 2nd entry (-9.223372036854776e+18) is below -2^63 or written as a float"
                ),
                "{text}: {err}"
            );
        }
        assert_eq!(
            parse("[-9223372036854775808]").map(|o| o.ids),
            Ok(vec![i64::MIN])
        );
        for text in ["[1, 2.5]", "[1, 2.0]", "[1, 1e2]"] {
            let err = parse(text).unwrap_err();
            assert!(
                err.contains("the 2nd entry") && err.contains("not an integer node id"),
                "{err}"
            );
        }
        assert!(parse("1 - 2")
            .unwrap_err()
            .contains("not an integer node id"));
        assert!(parse("{\"peak\": 3}")
            .unwrap_err()
            .contains("`order` array"));
        assert!(parse("{\"order\": null}").unwrap_err().contains("null"));
        let twice = parse("{\"order\": [0, 1], \"order\": [1, 0]}").unwrap_err();
        assert!(twice.contains("duplicate field `order`"), "{twice}");
        let twice = parse(r#"{"seed": 0, "order": [0], "seed": 1}"#).unwrap_err();
        assert!(twice.contains("duplicate field `seed`"), "{twice}");
        for text in ["[1, 2", "{\"order\": [1, 2", "[1] 2", "{\"order\": [1]} x"] {
            assert!(
                parse(text).unwrap_err().contains("not valid JSON"),
                "{text}"
            );
        }
        assert!(parse("{\"order\": 3}")
            .unwrap_err()
            .contains("`order` array"));
        assert!(parse("{\"order\": {\"a\": [1]}}")
            .unwrap_err()
            .contains("`order` array"));
        assert_eq!(
            parse("\u{feff}[3, 1]").map(|o| o.ids),
            Ok(vec![3, 1]),
            "a byte-order mark"
        );
        assert_eq!(
            parse("\u{feff}3 1").map(|o| o.ids),
            Ok(vec![3, 1]),
            "a byte-order mark"
        );
        // A line of orders.jsonl names its graph; other formats do not.
        let line = r#"{"graph":"tree#1","solver":"kahn","seed":0,"order":[1,0]}"#;
        assert_eq!(
            parse(line),
            Ok(ReadOrder {
                ids: vec![1, 0],
                graph: Some("tree#1".into())
            })
        );
        assert_eq!(parse("[1, 0]").unwrap().graph, None);
        assert_eq!(parse("{\"order\": [1], \"graph\": 3}").unwrap().graph, None);
        let graph = "{\"Nodes\": [\n{\"Id\": 0, \"Op\": \"a\"},\n{\"Id\": 1, \"Op\": \"b\"}\n]}\n";
        assert!(parse(graph).unwrap_err().contains("it is a graph file"));
        let lines = "{\"order\": [1]}\n{\"order\": [2]}\n";
        assert!(parse(lines).unwrap_err().contains("holds 2 JSON objects"));
        // A report of `schedule` names no graph: the hint picks by solver.
        let report = "{\"solver\":\"kahn\",\"order\":[0]}\n{\"solver\":\"exact\",\"order\":[0]}\n";
        let hint = parse(report).unwrap_err();
        assert!(hint.contains("grep '\"solver\":\"exact\"' FILE"), "{hint}");
    }
}
