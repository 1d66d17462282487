//! Every committed graph under `datasets/` validates; the NAS instances are
//! reproducible from their manifest; the README tables are up to date (the
//! tests through the binary need the `cli` feature).

use std::path::{Path, PathBuf};
#[cfg(feature = "cli")]
use std::process::{Command, Output};

use memsched::corpus::gen::{generate, GenSpec};
use memsched::graph::seed;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs the binary with `args` in the package root and asserts it
/// succeeds (the failure message shows its standard error).
#[cfg(feature = "cli")]
fn memsched_ok(args: &[&str]) -> Output {
    let out = memsched(args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Runs the binary with `args` in the package root.
#[cfg(feature = "cli")]
fn memsched(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_memsched"))
        .current_dir(root())
        .args(args)
        .output()
        .unwrap()
}

fn json_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            json_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "json") {
            out.push(p);
        }
    }
}

#[test]
fn every_json_file_in_datasets_validates() {
    let mut files = Vec::new();
    json_files(&root().join("datasets"), &mut files);
    assert!(
        files.len() >= 27,
        "expected the 24 models and 3 NAS graphs, found {}",
        files.len()
    );
    for f in &files {
        let g =
            seed::read_path(f.to_str().unwrap()).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        assert!(
            g.program_order_is_topological(),
            "{}: program order breaks an edge",
            f.display()
        );
    }
}

#[cfg(feature = "cli")]
#[test]
fn one_dataset_validates_through_the_binary() {
    let f = root().join("datasets/nas/darts_v2_c48_14cells_224_b1.json");
    let out = memsched_ok(&["validate", f.to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&out.stdout).contains(": ok: 1133 nodes"));
}

#[test]
fn nas_instances_regenerate_byte_for_byte() {
    let dir = root().join("datasets/nas");
    let manifest = std::fs::read_to_string(dir.join("manifest.csv")).unwrap();
    let mut rows = 0;
    for line in manifest.lines().skip(1) {
        let cols: Vec<&str> = line.split(',').collect();
        let (file, spec, seed_) = (cols[0], cols[1], cols[2].parse::<u64>().unwrap());
        let g = generate(&GenSpec::parse(spec).unwrap(), seed_).unwrap();
        let mut bytes = Vec::new();
        seed::write(&g, &mut bytes).unwrap();
        let committed = std::fs::read(dir.join(file)).unwrap();
        assert!(
            bytes == committed,
            "{file} differs from `memsched gen {spec} --seed {seed_}`"
        );
        rows += 1;
    }
    assert_eq!(rows, 3);
}

#[cfg(feature = "cli")]
#[test]
fn readme_tables_are_up_to_date() {
    memsched_ok(&["datasets", "--update", "datasets/README.md", "--check"]);
}

/// A graph file the manifest misses, or a row it repeats, is an error
/// naming the file (they were left out of the tables, or counted twice,
/// without a word).
#[cfg(feature = "cli")]
#[test]
fn the_manifest_names_every_graph_once() {
    let tmp = tempfile::tempdir().unwrap();
    for sub in ["models", "nas"] {
        let from = root().join("datasets").join(sub);
        let to = tmp.path().join(sub);
        std::fs::create_dir(&to).unwrap();
        for e in std::fs::read_dir(&from).unwrap() {
            let e = e.unwrap();
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
    let datasets = || memsched(&["datasets", "--dir", tmp.path().to_str().unwrap()]);
    assert!(datasets().status.success());
    let nas = tmp.path().join("nas");
    std::fs::copy(
        nas.join("darts_v2_c48_14cells_224_b1.json"),
        nas.join("extra.json"),
    )
    .unwrap();
    let out = datasets();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("`extra.json` is in"),
        "{err}"
    );
    std::fs::remove_file(nas.join("extra.json")).unwrap();
    let manifest = nas.join("manifest.csv");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let first_row = text.lines().nth(1).unwrap().to_string();
    std::fs::write(&manifest, format!("{text}{first_row}\n")).unwrap();
    let out = datasets();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("is listed twice"),
        "{err}"
    );
    // A row whose spec or seed does not make its file is refused too (its
    // figures would stand beside another graph's spec).
    for (from, to) in [
        (",randwire,0,", ",darts,0,"),
        (",randwire,0,", ",randwire:nodes=16,0,"),
        (",randwire,0,", ",randwire,1,"),
    ] {
        assert!(text.contains(from), "{text}");
        std::fs::write(&manifest, text.replacen(from, to, 1)).unwrap();
        let out = datasets();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{to}: {err}");
        assert!(
            err.contains("`randwire_ws32_k4_p075_c78_224_b1.json`: the file is not the graph"),
            "{to}: {err}"
        );
    }
    // So is a command column that is not the command that makes the file,
    // and a model row whose `allocs` column misnames the file's encoding.
    for wrong in [
        text.replacen("--seed 0 -o", "--seed 7 -o", 1),
        text.replacen("-o datasets/nas/", "-o datasets/models/", 1),
        text.replacen("-o datasets/nas/", "-o ", 1),
    ] {
        std::fs::write(&manifest, wrong).unwrap();
        let err = String::from_utf8_lossy(&datasets().stderr).to_string();
        assert!(err.contains("is not the one that makes it"), "{err}");
    }
    std::fs::write(&manifest, &text).unwrap();
    let models = tmp.path().join("models").join("manifest.csv");
    let text = std::fs::read_to_string(&models).unwrap();
    // A model row's command must be the exporter's for its columns.
    for wrong in [
        text.replacen("--batch 1 -o", "--batch 32 -o", 1),
        text.replacen(
            "-o datasets/models/bert_base",
            "-o datasets/nas/bert_base",
            1,
        ),
    ] {
        assert_ne!(wrong, text);
        std::fs::write(&models, wrong).unwrap();
        let out = datasets();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains("is not the exporter's for this row"), "{err}");
    }
    let first_row = text.lines().nth(1).unwrap();
    assert!(first_row.contains(",anchored,"), "{first_row}");
    let flipped = text.replacen(
        first_row,
        &first_row.replacen(",anchored,", ",floating,", 1),
        1,
    );
    std::fs::write(&models, flipped).unwrap();
    let out = datasets();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("says `floating`, but the file is anchored"),
        "{err}"
    );
}
