//! Fuzz-style tests of the reader: arbitrary bytes, mutations of a valid
//! file, arbitrary JSON values and node objects with wrong-typed fields go
//! into `seed::parse` + `Graph::from_raw`. Nothing may panic; every input
//! ends as a graph or a typed [`GraphError`]. A sample also goes through the
//! binary, which must exit 0 or 2, never 101 (a panic).

#[cfg(feature = "cli")]
use std::io::Write;
#[cfg(feature = "cli")]
use std::process::{Command, Stdio};

use memsched::graph::{seed, Graph, GraphError};
use proptest::prelude::*;
use serde_json::{json, Map, Value};

const EXAMPLE: &str = include_str!("../examples/seed_example.json");

/// A richer valid file to mutate: floating and anchored ALLOCs, an output
/// buffer, extra fields, a top-level field.
const VALID: &str = r#"{"Nodes": [
{"Id": 0, "Op": "ALLOC", "Size": 1024, "BufId": 1},
{"Id": 1, "Op": "Matmul", "Inputs": [0, 2], "Latency": 2.5},
{"Id": 2, "Op": "FREE", "BufId": 1},
{"Id": 3, "Op": "ALLOC", "Size": 4096, "BufId": 2, "Name": "out"},
{"Id": 4, "Op": "Relu"}
],
"Edges": [[0, 1], [1, 2], [1, 3], [3, 4]],
"Model": "toy"}"#;

/// Parses and validates; the result must be a graph or a typed error whose
/// message is not empty. Returns whether it was accepted.
fn read(bytes: &[u8]) -> bool {
    let result = seed::parse(bytes).and_then(Graph::from_raw);
    match result {
        Ok(g) => {
            // An accepted graph is usable: its stored order passes the checker.
            memsched::schedule::check(&g, g.topo_order()).expect("topo order is a schedule");
            true
        }
        Err(e) => {
            assert!(!e.to_string().is_empty());
            if let GraphError::Json { line, .. } = e {
                assert!(line <= bytes.iter().filter(|&&b| b == b'\n').count() + 1);
            }
            false
        }
    }
}

/// Arbitrary JSON values, a few levels deep.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        "[a-zA-Z]{0,6}".prop_map(Value::from),
        prop_oneof![
            Just("Id"),
            Just("Op"),
            Just("ALLOC"),
            Just("FREE"),
            Just("Nodes"),
            Just("Edges")
        ]
        .prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec(
                (
                    prop_oneof![
                        Just("Id".to_string()),
                        Just("Op".to_string()),
                        Just("Size".to_string()),
                        Just("BufId".to_string()),
                        Just("Nodes".to_string()),
                        Just("Edges".to_string()),
                        "[a-z]{1,4}"
                    ],
                    inner
                ),
                0..6
            )
            .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// A JSON number or other value for an integer field, mostly wrong.
fn field_value() -> impl Strategy<Value = String> {
    prop_oneof![
        (-3i64..12).prop_map(|x| x.to_string()),
        any::<i64>().prop_map(|x| x.to_string()),
        any::<u64>().prop_map(|x| x.to_string()),
        Just("9223372036854775808".to_string()), // i64::MAX + 1
        Just("18446744073709551616".to_string()), // u64::MAX + 1
        Just("-9223372036854775809".to_string()), // i64::MIN - 1
        Just("1e400".to_string()),
        Just("1.5".to_string()),
        Just("-0".to_string()),
        Just("2.0".to_string()),
        Just("\"3\"".to_string()),
        Just("null".to_string()),
        Just("[1]".to_string()),
        Just("{}".to_string()),
        Just("true".to_string()),
    ]
}

/// One node object with each of Id, Op, Size, BufId present or not, and
/// possibly wrong-typed.
fn node_text() -> impl Strategy<Value = String> {
    (
        prop::option::of(field_value()),
        prop::option::of(prop_oneof![
            Just("\"ALLOC\""),
            Just("\"FREE\""),
            Just("\"Conv\""),
            Just("\"\""),
            Just("3"),
            Just("null")
        ]),
        prop::option::of(field_value()),
        prop::option::of(field_value()),
        any::<bool>(),
    )
        .prop_map(|(id, op, size, buf, extra)| {
            let mut fields = Vec::new();
            if let Some(id) = id {
                fields.push(format!("\"Id\": {id}"));
            }
            if let Some(op) = op {
                fields.push(format!("\"Op\": {op}"));
            }
            if let Some(size) = size {
                fields.push(format!("\"Size\": {size}"));
            }
            if let Some(buf) = buf {
                fields.push(format!("\"BufId\": {buf}"));
            }
            if extra {
                fields.push("\"Inputs\": [0, 1]".into());
            }
            format!("{{{}}}", fields.join(", "))
        })
}

/// An edge with 0 to 3 entries of varied types.
fn edge_text() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => ((-1i64..8), (-1i64..8)).prop_map(|(u, v)| format!("[{u}, {v}]")),
        1 => prop::collection::vec(field_value(), 0..4)
            .prop_map(|xs| format!("[{}]", xs.join(", "))),
        1 => Just("{\"from\": 0, \"to\": 1}".to_string()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in any::<Vec<u8>>()) {
        read(&bytes);
    }

    #[test]
    fn mutated_valid_files_never_panic(
        flips in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..6),
        cut in any::<prop::sample::Index>(),
        truncate in any::<bool>(),
        which in any::<bool>(),
    ) {
        let mut bytes = if which { VALID } else { EXAMPLE }.as_bytes().to_vec();
        for (at, byte) in flips {
            let i = at.index(bytes.len());
            bytes[i] = byte;
        }
        if truncate {
            bytes.truncate(cut.index(bytes.len() + 1));
        }
        read(&bytes);
    }

    #[test]
    fn arbitrary_json_values_never_panic(value in json_value()) {
        read(value.to_string().as_bytes());
        // Also as the Nodes array, as one node, and as the edges.
        let wrapped = [
            json!({"Nodes": value.clone(), "Edges": []}),
            json!({"Nodes": [value.clone()], "Edges": []}),
            json!({"Nodes": [{"Id": 0, "Op": "A"}], "Edges": value.clone()}),
            json!({"Nodes": [{"Id": 0, "Op": "A"}], "Edges": [value]}),
        ];
        for w in wrapped {
            read(w.to_string().as_bytes());
        }
    }

    #[test]
    fn wrong_typed_node_fields_never_panic(
        nodes in prop::collection::vec(node_text(), 0..6),
        edges in prop::collection::vec(edge_text(), 0..6),
    ) {
        let text = format!(
            "{{\"Nodes\": [{}],\n\"Edges\": [{}]}}",
            nodes.join(",\n"),
            edges.join(", ")
        );
        read(text.as_bytes());
    }
}

/// Fixed inputs with a known verdict, so the properties above cannot pass
/// by rejecting everything or accepting everything.
#[test]
fn wrong_types_are_rejected_and_valid_files_accepted() {
    assert!(read(EXAMPLE.as_bytes()));
    assert!(read(VALID.as_bytes()));
    let rejected = [
        r#"{"Nodes": [{"Id": "0", "Op": "A"}], "Edges": []}"#,
        r#"{"Nodes": [{"Id": 0.5, "Op": "A"}], "Edges": []}"#,
        r#"{"Nodes": [{"Id": 9223372036854775808, "Op": "A"}], "Edges": []}"#,
        r#"{"Nodes": [{"Id": 0, "Op": "ALLOC", "Size": 1.5, "BufId": 1}], "Edges": []}"#,
        r#"{"Nodes": [{"Id": 0, "Op": "ALLOC", "Size": -1, "BufId": 1}], "Edges": []}"#,
        r#"{"Nodes": [{"Id": 0, "Op": "ALLOC", "Size": 18446744073709551616, "BufId": 1}], "Edges": []}"#,
        r#"{"Nodes": [{"Id": 0, "Op": "ALLOC", "Size": 9223372036854775808, "BufId": 1}], "Edges": []}"#,
        r#"{"Nodes": [{"Id": 0, "Op": "ALLOC", "Size": 1}], "Edges": []}"#,
        r#"{"Nodes": [{"Id": 0, "Op": "A"}, {"Id": 1, "Op": "B"}], "Edges": [[0]]}"#,
        r#"{"Nodes": [{"Id": 0, "Op": "A"}, {"Id": 1, "Op": "B"}], "Edges": [[0, 1, 1]]}"#,
        r#"{"Nodes": [{"Id": 0, "Op": 5}], "Edges": []}"#,
        r#"{"Nodes": [{"Id": 0}], "Edges": []}"#,
        r#"{"Nodes": [], "Nodes": [], "Edges": []}"#,
        r#"{"Nodes": [{"Id": 0, "Op": "A", "Id": 1}], "Edges": []}"#,
        r#"{"Nodes": [{"Id": 0, "Op": "ALLOC", "Size": 1, "Size": 2, "BufId": 1}], "Edges": []}"#,
        r#"{"Nodes": []} trailing"#,
    ];
    for text in rejected {
        assert!(!read(text.as_bytes()), "accepted: {text}");
    }
    // Size u64::MAX alone fits neither i64 nor the sum rule: TooLarge, typed.
    let big = r#"{"Nodes": [{"Id": 0, "Op": "ALLOC", "Size": 18446744073709551615, "BufId": 1}], "Edges": []}"#;
    let err = seed::parse(big.as_bytes())
        .and_then(Graph::from_raw)
        .unwrap_err();
    assert!(matches!(err, GraphError::TooLarge { .. }), "{err}");
    assert!(
        err.to_string()
            .starts_with("ALLOC node 0 has Size 18446744073709551615, more than"),
        "{err}"
    );
    // Accepted oddities: no Edges key, a compute node with Size and BufId, empty graph.
    for text in [
        r#"{"Nodes": [{"Id": 0, "Op": "A"}]}"#,
        r#"{"Nodes": [{"Id": 0, "Op": "A", "Size": 3, "BufId": 1}], "Edges": []}"#,
        r#"{"Nodes": [], "Edges": []}"#,
    ] {
        assert!(read(text.as_bytes()), "rejected: {text}");
    }
}

/// A sample of bad inputs through the binary: exit code 2, never a panic.
#[cfg(feature = "cli")]
#[test]
fn the_binary_exits_2_never_101_on_bad_input() {
    let mut inputs: Vec<Vec<u8>> = vec![
        b"".to_vec(),
        b"\xff\xfe\x00garbage".to_vec(),
        b"{\"Nodes\": [{\"Id\": 0, \"Op\": \"ALLOC\", \"Size\": 18446744073709551616, \"BufId\": 1}]}"
            .to_vec(),
        b"{\"Nodes\": [{\"Id\": 0, \"Op\": \"ALLOC\", \"Size\": 18446744073709551615, \"BufId\": 1}]}"
            .to_vec(),
        b"{\"Nodes\": [{\"Id\": 0, \"Op\": \"A\"}], \"Edges\": [[0, 0, 0]]}".to_vec(),
        b"{\"Nodes\": [{\"Id\": \"7\", \"Op\": \"A\"}]}".to_vec(),
        b"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[".to_vec(),
    ];
    // Deep nesting beyond serde_json's recursion limit.
    inputs.push(format!("{{\"Nodes\": {}", "[".repeat(10_000)).into_bytes());
    for n in [10, 37, 80, VALID.len() - 3] {
        inputs.push(VALID.as_bytes()[..n].to_vec());
    }
    for input in inputs {
        for args in [
            &["validate", "-"][..],
            &["schedule", "-", "--solver", "kahn"][..],
        ] {
            let mut child = Command::new(env!("CARGO_BIN_EXE_memsched"))
                .args(args)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            let _ = child.stdin.take().unwrap().write_all(&input);
            let out = child.wait_with_output().unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(
                out.status.code(),
                Some(2),
                "{args:?} on {:?}: {err}",
                String::from_utf8_lossy(&input)
            );
            assert!(!err.contains("panicked"), "{err}");
        }
    }
}
