//! The provenance checks of a dataset folder's `manifest.csv`: it lists
//! every graph file once, each row's command writes that file where the
//! repository keeps it, and a generated graph's spec and seed make the
//! file's graph again (to the fingerprint).

use std::collections::BTreeMap;
use std::path::Path;

use super::stats::StatsError;
use crate::corpus::gen::{generate, GenSpec};
use crate::graph::{fingerprint, seed, Graph, NodeKind};

/// Reads `dir/manifest.csv` as rows of (header -> value).
pub(super) fn manifest(dir: &Path) -> Result<Vec<Vec<(String, String)>>, StatsError> {
    let path = dir.join("manifest.csv");
    let shown = path.display().to_string();
    let mut reader = csv::Reader::from_path(&path).map_err(|e| StatsError::Io {
        path: shown.clone(),
        message: e.to_string(),
    })?;
    let bad = |e: csv::Error| StatsError::Manifest {
        path: shown.clone(),
        message: e.to_string(),
    };
    let headers: Vec<String> = reader
        .headers()
        .map_err(bad)?
        .iter()
        .map(String::from)
        .collect();
    let mut rows = Vec::new();
    for rec in reader.records() {
        let rec = rec.map_err(bad)?;
        rows.push(
            headers
                .iter()
                .cloned()
                .zip(rec.iter().map(String::from))
                .collect(),
        );
    }
    check_lists_every_graph(dir, &rows).map_err(|message| StatsError::Manifest {
        path: shown.clone(),
        message,
    })?;
    Ok(rows)
}

/// The manifest names each graph file of `dir` (its `.json` files) once:
/// a file it misses would be left out of the tables, and one it repeats
/// would be counted twice, without a word.
pub(super) fn check_lists_every_graph(
    dir: &Path,
    rows: &[Vec<(String, String)>],
) -> Result<(), String> {
    let mut listed = std::collections::BTreeSet::new();
    for row in rows {
        if let Some((_, file)) = row.iter().find(|(k, _)| k == "file") {
            if !listed.insert(file.as_str()) {
                return Err(format!("`{file}` is listed twice"));
            }
        }
    }
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("cannot list {}: {e}", dir.display()))?;
    let mut missing: Vec<String> = entries
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|name| name.ends_with(".json") && !listed.contains(name.as_str()))
        .collect();
    missing.sort();
    match missing.first() {
        None => Ok(()),
        Some(first) => Err(format!(
            "`{first}` is in {} but not in the manifest ({} such file(s)): add a row for it, \
             or remove the file",
            dir.display(),
            missing.len()
        )),
    }
}

/// The value of column `key` in a manifest row.
pub(super) fn field<'a>(
    row: &'a [(String, String)],
    key: &str,
    path: &Path,
) -> Result<&'a str, StatsError> {
    row.iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
        .ok_or_else(|| StatsError::Manifest {
            path: path.join("manifest.csv").display().to_string(),
            message: format!("no `{key}` column"),
        })
}

/// `text` as a markdown table cell holds it: a `|` would end the cell.
pub(super) fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

/// The graph of a manifest row's `file`: a file of the folder `dir` (a
/// path that leaves it, or a file that is not there, is a row error).
pub(super) fn read(dir: &Path, file: &str) -> Result<Graph, StatsError> {
    let leaves = Path::new(file).components().any(|c| {
        !matches!(
            c,
            std::path::Component::Normal(_) | std::path::Component::CurDir
        )
    });
    if leaves {
        return Err(row_error(
            dir,
            file,
            "names a file outside the folder: give a file name in it".into(),
        ));
    }
    if !dir.join(file).is_file() {
        return Err(row_error(
            dir,
            file,
            format!("no such file in {}: add it, or drop its row", dir.display()),
        ));
    }
    let path = dir.join(file).display().to_string();
    seed::read_path(&path).map_err(|source| StatsError::Graph {
        path: path.clone(),
        source,
    })
}

/// A bad manifest row, the one of `file`.
pub(super) fn row_error(dir: &Path, file: &str, message: String) -> StatsError {
    StatsError::Manifest {
        path: dir.join("manifest.csv").display().to_string(),
        message: format!("`{file}`: {message}"),
    }
}

/// Checks that `spec` and `seed` (a row of a generated graphs' manifest)
/// make the graph `g` of `file`, to the fingerprint: a table row must not
/// pair one graph's figures with another's spec.
pub(super) fn check_generated(
    dir: &Path,
    file: &str,
    spec: &str,
    seed: &str,
    g: &Graph,
) -> Result<(), StatsError> {
    let bad = |message: String| row_error(dir, file, message);
    let parsed = GenSpec::parse(spec)
        .map_err(|e| e.to_string())
        .and_then(|parsed| parsed.check_names().map(|()| parsed))
        .map_err(|e| bad(format!("spec `{spec}`: {e}")))?;
    let seed_n: u64 = seed
        .parse()
        .map_err(|_| bad(format!("seed `{seed}` is not a whole number")))?;
    let made = generate(&parsed, seed_n).map_err(|e| bad(format!("spec `{spec}`: {e}")))?;
    // The experiments' fingerprint: ids, kinds, buffers, sizes, latencies, edges.
    if fingerprint::of(&made) != fingerprint::of(g) {
        return Err(bad(format!(
            "the file is not the graph `memsched gen '{spec}' --seed {seed}` makes (its \
             nodes, sizes or edges differ): fix the row, or write the file anew with that \
             command and `-o {}`",
            dir.join(file).display()
        )));
    }
    Ok(())
}

/// Checks that a generated graph's `command` column is the command that
/// makes it, run from the repository: `memsched gen SPEC --seed SEED -o
/// datasets/FOLDER/FILE`, FOLDER the name of `dir` (quotes around a word
/// allowed; the path compared after `.`, `..` and repeated `/` are
/// resolved), each flag once, so the table's provenance column cannot
/// drift from the spec and seed the file was checked against, nor write it
/// elsewhere.
pub(super) fn check_command(
    dir: &Path,
    file: &str,
    spec: &str,
    seed: &str,
    command: &str,
) -> Result<(), StatsError> {
    let words = shell_words(command);
    let once = |flag: &str| match words.iter().filter(|w| *w == flag).count() {
        1 => (words.iter().position(|w| w == flag))
            .and_then(|i| words.get(i + 1))
            .map(String::as_str),
        _ => None,
    };
    let path = repo_path(dir, file);
    if words.iter().take(3).eq(["memsched", "gen", spec].iter())
        && once("--seed") == Some(seed)
        && once("-o").and_then(lexical).as_deref() == Some(path.as_str())
    {
        return Ok(());
    }
    let wanted = format!(
        "memsched gen {} --seed {seed} -o {}",
        shell_word(spec),
        shell_word(&path)
    );
    Err(row_error(
        dir,
        file,
        format!(
            "the command `{command}` is not the one that makes it: write `{}` \
             in the `command` column",
            csv_cell(&wanted)
        ),
    ))
}

/// Checks that an exported model's `command` column is the exporter's
/// command for its row, run from the repository (as
/// `scripts/export_torch.py` writes it): `python scripts/export_torch.py
/// --model MODEL --mode MODE --batch BATCH [--allocs floating]
/// [--include-params] -o datasets/FOLDER/FILE`, with `python3` for
/// `python`, flags in any order and each once (spelt in full, as
/// `--flag VALUE`, `--flag=VALUE` or `-oPATH`), `--mode`, `--batch` and
/// `--allocs` left out at the exporter's defaults (`inference`, 1,
/// `anchored`), `--output` for `-o`, the paths compared as
/// [`check_command`] does, `-o` left out when the exporter's own name for
/// the row is FILE in `datasets/models`, and `--no-manifest` allowed; no
/// other word. The table's command column then
/// cannot name another model, mode, batch, encoding or file than the row's.
pub(super) fn check_model_command(
    dir: &Path,
    file: &str,
    row: &[(String, String)],
    command: &str,
) -> Result<(), StatsError> {
    let column = |k| field(row, k, dir);
    let (model, mode, batch, allocs) = (
        column("model")?,
        column("mode")?,
        column("batch")?,
        column("allocs")?,
    );
    let path = repo_path(dir, file);
    let words = shell_words(command);
    let mut given: BTreeMap<&str, &str> = BTreeMap::new();
    let (mut params, mut no_manifest) = (false, false);
    let mut ok = words.len() >= 2
        && matches!(words[0].as_str(), "python" | "python3")
        && lexical(&words[1]).as_deref() == Some("scripts/export_torch.py");
    let mut rest = words.iter().skip(2);
    while ok {
        let Some(word) = rest.next() else { break };
        // `--flag=value`, `-oPATH` and `-o=PATH`, as argparse reads them
        // (flags spelt in full: not its abbreviations).
        let (flag, attached) = match word.split_once('=') {
            Some((flag, value)) if flag.starts_with("--") => (flag, Some(value)),
            _ => match word.strip_prefix("-o") {
                // `-o=PATH` is PATH to argparse.
                Some(value) if !value.is_empty() && !word.starts_with("--") => {
                    ("-o", Some(value.strip_prefix('=').unwrap_or(value)))
                }
                _ => (word.as_str(), None),
            },
        };
        let flag = match flag {
            "--output" => "-o",
            f => f,
        };
        match (flag, attached) {
            ("--include-params", None) => ok = !std::mem::replace(&mut params, true),
            ("--no-manifest", None) => ok = !std::mem::replace(&mut no_manifest, true),
            ("--model" | "--mode" | "--batch" | "--allocs" | "-o", value) => {
                ok = match value.or_else(|| rest.next().map(String::as_str)) {
                    Some(value) => given.insert(flag, value).is_none(),
                    None => false,
                }
            }
            _ => ok = false,
        }
    }
    let has = |flag: &str| given.get(flag).copied();
    let number = |b: &str| b.parse::<u64>().ok();
    // Without `-o` the exporter names the file from the row.
    let default_file = {
        let mut name = format!("{model}_{mode}_b{batch}");
        if allocs == "floating" {
            name += "_floating";
        }
        if params {
            name += "_params";
        }
        name + ".json"
    };
    ok = ok
        && has("--model") == Some(model)
        && has("--mode").unwrap_or("inference") == mode
        && number(has("--batch").unwrap_or("1")).is_some_and(|b| Some(b) == number(batch))
        && has("--allocs").unwrap_or("anchored") == allocs
        && match has("-o") {
            Some(o) => lexical(o).as_deref() == Some(path.as_str()),
            None => default_file == file && dir.file_name().is_some_and(|f| f == "models"),
        };
    if ok {
        return Ok(());
    }
    let mut wanted = format!(
        "python scripts/export_torch.py --model {} --mode {} --batch {}",
        shell_word(model),
        shell_word(mode),
        shell_word(batch)
    );
    if allocs != "anchored" {
        wanted += &format!(" --allocs {}", shell_word(allocs));
    }
    if params {
        wanted += " --include-params";
    }
    wanted += &format!(" -o {}", shell_word(&path));
    Err(row_error(
        dir,
        file,
        format!(
            "the command `{command}` is not the exporter's for this row (its model, mode, \
             batch, allocs and file): write `{}` in the `command` column",
            csv_cell(&wanted)
        ),
    ))
}

/// Where a manifest's command, run from the repository, writes `file` of
/// the folder `dir`: `datasets/FOLDER/FILE`.
pub(super) fn repo_path(dir: &Path, file: &str) -> String {
    let folder = dir.file_name().map(|f| f.to_string_lossy());
    format!("datasets/{}/{file}", folder.unwrap_or_default())
}

/// A relative file path with `.`, `..` and repeated `/` resolved by its
/// text alone; `None` for an absolute path, a directory (a trailing `/`)
/// or one that climbs above its start.
pub(super) fn lexical(path: &str) -> Option<String> {
    if path.starts_with('/') || path.ends_with('/') {
        return None;
    }
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            name => parts.push(name),
        }
    }
    Some(parts.join("/"))
}

/// The words of a command line as a POSIX shell splits them: at blanks
/// outside quotes, with `'...'` taken as written, `"..."` with `\` before
/// `"`, `\` or `$` taken as that character, and `\` outside quotes
/// escaping the next character.
pub(super) fn shell_words(command: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = command.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => words.extend(word.take()),
            '\'' => {
                let w = word.get_or_insert_with(String::new);
                w.extend(chars.by_ref().take_while(|&c| c != '\''));
            }
            '"' => {
                let w = word.get_or_insert_with(String::new);
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => match chars.next() {
                            Some(e @ ('"' | '\\' | '$')) => w.push(e),
                            Some(other) => w.extend(['\\', other]),
                            None => w.push('\\'),
                        },
                        c => w.push(c),
                    }
                }
            }
            '\\' => word.get_or_insert_with(String::new).extend(chars.next()),
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    words
}

/// `word` as one shell word: single-quoted unless it is plain.
pub(super) fn shell_word(word: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_-.:=/+@%".contains(c);
    if !word.is_empty() && word.chars().all(plain) {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// `text` as one CSV cell: double-quoted when it holds a comma or a quote.
pub(super) fn csv_cell(text: &str) -> String {
    if text.contains([',', '"', '\n']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

/// Checks an exported model's `allocs` column against the file: in the
/// floating encoding no ALLOC has a predecessor; an anchored export has
/// ALLOCs that wait for their op's inputs.
pub(super) fn check_allocs(
    dir: &Path,
    file: &str,
    allocs: &str,
    g: &Graph,
) -> Result<(), StatsError> {
    let anchored = g
        .nodes()
        .any(|v| g.kind(v) == NodeKind::Alloc && !g.preds(v).is_empty());
    let found = if anchored { "anchored" } else { "floating" };
    if allocs == found {
        return Ok(());
    }
    Err(row_error(
        dir,
        file,
        format!(
            "its `allocs` column says `{allocs}`, but the file is {found} (an ALLOC {} a \
             predecessor)",
            if anchored { "has" } else { "never has" }
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_manifest_row_must_name_a_file_of_the_folder() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/models");
        let err = read(&dir, "../nas/x.json").unwrap_err().to_string();
        assert!(
            err.contains("`../nas/x.json`: names a file outside the folder"),
            "{err}"
        );
        let err = read(&dir, "ghost.json").unwrap_err().to_string();
        assert!(err.contains("`ghost.json`: no such file in"), "{err}");
    }

    #[test]
    fn a_bar_in_a_manifest_field_stays_in_its_cell() {
        let row = vec![("command".to_string(), "gen | head".to_string())];
        let value = field(&row, "command", Path::new("d")).unwrap();
        assert_eq!(value, "gen | head", "the value as written (a path, say)");
        assert_eq!(cell(value), r"gen \| head");
        assert!(field(&row, "file", Path::new("d")).is_err());
    }

    #[test]
    fn the_suggested_command_cell_is_valid_csv_and_passes_the_check() {
        let (dir, file, spec) = (
            Path::new("d s"),
            "g.json",
            "random-layered:layers=3,width=2",
        );
        let err = check_command(dir, file, spec, "7", "memsched gen x").unwrap_err();
        let message = err.to_string();
        let cell = message
            .split_once("write `")
            .and_then(|(_, rest)| rest.split_once("` in the"))
            .unwrap_or_else(|| panic!("{message}"))
            .0;
        assert!(
            cell.starts_with('"'),
            "a comma needs a quoted cell: {message}"
        );
        let csv_text = format!("command\n{cell}\n");
        let mut reader = csv::Reader::from_reader(csv_text.as_bytes());
        let record = reader.records().next().unwrap().unwrap();
        assert_eq!(record.len(), 1, "{message}");
        check_command(dir, file, spec, "7", &record[0]).unwrap();
    }

    /// The command's `-o` is the repository's path to the file, however
    /// spelt; each flag is given once.
    #[test]
    fn a_command_writes_the_file_where_the_repository_keeps_it() {
        let (dir, file, spec) = (Path::new("/tmp/copy/nas"), "g.json", "darts");
        let ok = |o: &str| {
            let command = format!("memsched gen darts --seed 0 -o {o}");
            check_command(dir, file, spec, "0", &command).is_ok()
        };
        for good in [
            "datasets/nas/g.json",
            "./datasets/nas/g.json",
            "datasets//nas/./g.json",
            "datasets/models/../nas/g.json",
        ] {
            assert!(ok(good), "{good}");
        }
        for bad in [
            "nas/g.json",
            "models/../nas/g.json",
            "/tmp/copy/nas/g.json",
            "datasets/nas/g.json/",
            "../datasets/nas/g.json",
            "datasets/nas/g.json -o datasets/models/g.json",
        ] {
            assert!(!ok(bad), "{bad}");
        }
        let twice = "memsched gen darts --seed 0 --seed 7 -o datasets/nas/g.json";
        assert!(check_command(dir, file, spec, "0", twice).is_err());
        let err = check_command(dir, file, spec, "0", "x")
            .unwrap_err()
            .to_string();
        assert!(err.contains("-o datasets/nas/g.json"), "{err}");
    }

    /// A model row's command must be the exporter's for the row's model,
    /// mode, batch, encoding and file; defaults may be left out.
    #[test]
    fn a_model_command_matches_its_row() {
        let dir = Path::new("/tmp/copy/models");
        let row = |allocs: &str| -> Vec<(String, String)> {
            [
                ("model", "resnet50"),
                ("mode", "training"),
                ("batch", "32"),
                ("allocs", allocs),
            ]
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
        };
        let check = |allocs: &str, command: &str| {
            check_model_command(dir, "r.json", &row(allocs), command).map_err(|e| e.to_string())
        };
        let base = "python scripts/export_torch.py --model resnet50 --mode training --batch 32";
        for (allocs, good) in [
            ("anchored", format!("{base} -o datasets/models/r.json")),
            ("anchored", format!("{base} --allocs anchored -o ./datasets/models/r.json")),
            ("anchored", format!("{base} --allocs=anchored --output=datasets/models/r.json")),
            ("anchored", format!("{base} -odatasets/models/r.json --no-manifest")),
            ("anchored", format!("{base} -o=datasets/models/r.json")),
            ("anchored", base.replace("--batch 32", "--batch=032") + " -o datasets/models/r.json"),
            (
                "anchored",
                base.replace("python scripts/", "python ./scripts/") + " -o datasets/models/r.json",
            ),
            ("floating", format!("{base} --allocs floating -o datasets/models/r.json")),
            ("floating", format!("{base} --include-params --allocs floating --output datasets/models/r.json")),
            (
                "anchored",
                "python3 scripts/export_torch.py -o datasets/models/r.json --batch 32 --mode training --model resnet50".into(),
            ),
        ] {
            assert_eq!(check(allocs, &good), Ok(()), "{good}");
        }
        for (allocs, bad) in [
            ("floating", format!("{base} -o datasets/models/r.json")),
            ("anchored", format!("{base} -o datasets/models/s.json")),
            ("anchored", format!("{base} -o datasets/nas/r.json")),
            (
                "anchored",
                base.replace("resnet50", "bert_base") + " -o datasets/models/r.json",
            ),
            (
                "anchored",
                base.replace("--batch 32", "--batch 1") + " -o datasets/models/r.json",
            ),
            (
                "anchored",
                base.replace(" --batch 32", "") + " -o datasets/models/r.json",
            ),
            (
                "anchored",
                base.replace(" --mode training", "") + " -o datasets/models/r.json",
            ),
            (
                "anchored",
                format!("{base} --model resnet50 -o datasets/models/r.json"),
            ),
            (
                "anchored",
                format!("{base} --check -o datasets/models/r.json"),
            ),
            ("anchored", format!("{base} -o")),
            ("anchored", format!("{base} --out datasets/models/r.json")),
            (
                "anchored",
                format!("{base} --model=x -o datasets/models/r.json"),
            ),
            (
                "anchored",
                format!("{base} --include-params=1 -o datasets/models/r.json"),
            ),
            ("anchored", base.to_string()),
            (
                "anchored",
                "python other.py --model resnet50 -o datasets/models/r.json".to_string(),
            ),
        ] {
            let err = check(allocs, &bad).unwrap_err();
            assert!(
                err.contains("is not the exporter's for this row"),
                "{bad}: {err}"
            );
        }
        let err = check("floating", &format!("{base} --include-params -o x")).unwrap_err();
        assert!(
            err.contains(&format!(
                "write `{base} --allocs floating --include-params -o datasets/models/r.json`"
            )),
            "{err}"
        );
    }

    #[test]
    fn commands_split_as_a_shell_splits_them() {
        let words = shell_words(r#"memsched gen 'a b' --seed 0 -o "x \"y\"" z\ w ''"#);
        assert_eq!(
            words,
            ["memsched", "gen", "a b", "--seed", "0", "-o", "x \"y\"", "z w", ""]
        );
        assert_eq!(shell_words("  "), Vec::<String>::new());
    }
}
