//! The output directory of a run: its file names, the lock that keeps two
//! runs out of one directory, the checks that refuse another experiment's
//! directory, `shards.toml`, and the restore of a result file replaced
//! while a run appended to it.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::config::{self, Config, IMAGE_EXTENSIONS};
use super::plan::Shard;
use super::{one_line, ExperimentError};

/// One row per solve (graph x solver x seed), appended as solves end.
pub const RUNS: &str = "runs.csv";
/// Where a run keeps the lines of `runs.csv` that were not rows.
pub const REJECTED: &str = "runs.rejected.csv";
/// The config the rows were solved under (the resume check reads it).
pub const CONFIG: &str = "config.toml";
/// Memory profiles of the Tetris graph's solves, one JSON line each.
pub const PROFILES: &str = "tetris.jsonl";
/// The orders of the solves, when the config keeps them (`save_orders`).
pub const ORDERS: &str = "orders.jsonl";
/// The shards whose rows a directory holds (`merge` names the missing ones).
pub const SHARDS: &str = "shards.toml";
/// The entry of `shards.toml` for an unsharded run (every item).
pub const ALL_SHARDS: &str = "all";
/// The content fingerprint of each graph the directory's rows were solved
/// on (see [`fingerprint`](super::fingerprint)): the resume check compares it.
pub const FINGERPRINTS: &str = "fingerprints.toml";

/// Refuses to write into `out` if it holds the results of another
/// experiment (its `config.toml` has another `name`); `refusal` ends the
/// message (what would go wrong, what to do instead). The same experiment
/// with an edited config (a solver or graph added) passes. `run` and
/// `merge` both check this.
fn check_same_experiment(
    out: &Path,
    config: &Config,
    refusal: &str,
) -> Result<(), ExperimentError> {
    let Some(old) = recorded_name(&out.join(CONFIG)) else {
        return Ok(());
    };
    if old == config.name {
        return Ok(());
    }
    Err(ExperimentError::Directory(format!(
        "{} holds the results of experiment `{old}` (its {CONFIG} says so), not of `{}`; {refusal}",
        out.display(),
        config.name
    )))
}

/// An output directory checked for one `run` or `merge`, and locked if it
/// exists (see [`claim`]).
pub(super) struct Claim<'a> {
    out: &'a Path,
    lock: Option<DirLock>,
}

/// Checks `out` before anything is written: not a file, not a directory of
/// other files ([`check_not_foreign`]), and, given a `refusal`, not another
/// experiment's results ([`check_same_experiment`]). An existing directory
/// is locked now, before its rows are read; [`Claim::create`] makes and
/// locks a new one.
pub(super) fn claim<'a>(
    out: &'a Path,
    config: &Config,
    refusal: Option<&str>,
) -> Result<Claim<'a>, ExperimentError> {
    check_out_is_not_a_file(out)?;
    check_not_foreign(out, config)?;
    if let Some(refusal) = refusal {
        check_same_experiment(out, config, refusal)?;
    }
    let lock = match out.is_dir() {
        true => Some(lock_dir(out)?),
        false => None,
    };
    Ok(Claim { out, lock })
}

impl Claim<'_> {
    /// Makes the directory if it is new and returns the lock, held until
    /// the final pass is written. A directory made while this process
    /// checked it, into which another `run` or `merge` has written since, is
    /// refused: one of them would lose its rows.
    pub(super) fn create(self) -> Result<DirLock, ExperimentError> {
        let out = self.out;
        if let Some(lock) = self.lock {
            // Only a held lock says no other writer's temporary is there.
            if lock.held {
                remove_temporaries(out);
            }
            check_can_create_files(out)?;
            return Ok(lock);
        }
        fs::create_dir_all(out).map_err(|e| ExperimentError::io("create directory", out, e))?;
        let lock = lock_dir(out)?;
        if out.join(CONFIG).exists() {
            return Err(ExperimentError::Directory(format!(
                "another `memsched run` or `merge` wrote {} while this one started: run this \
                 command again",
                out.display()
            )));
        }
        Ok(lock)
    }
}

/// Refuses, before any solve, an existing directory in which no file can be
/// made (read-only, or immutable while its files are not): rows would be
/// appended to `runs.csv` and only the final pass, whose files are written
/// whole through temporaries, would fail.
fn check_can_create_files(out: &Path) -> Result<(), ExperimentError> {
    let probe = out.join(format!("{PROBE}{}", std::process::id()));
    let made = OpenOptions::new().write(true).create_new(true).open(&probe);
    match made {
        Ok(file) => {
            drop(file);
            let _ = fs::remove_file(&probe);
            Ok(())
        }
        // Left by a killed process of this id: the directory takes files.
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(ExperimentError::io("create a file in", out, e)),
    }
}

/// How the file [`check_can_create_files`] makes begins (the process id
/// follows).
const PROBE: &str = ".memsched-probe-";

/// Removes the temporary files (see [`crate::output::is_temporary_of`])
/// and probe files that a killed run or merge left in `out` beside its
/// files: only the lock holder writes there, so none is in use. Best
/// effort: one that cannot be removed stays.
fn remove_temporaries(out: &Path) {
    let mut names = written_files();
    names.extend([CONFIG.to_string(), REJECTED.to_string()]);
    let Ok(entries) = fs::read_dir(out) else {
        return;
    };
    for entry in entries.flatten() {
        let file = entry.file_name();
        let Some(file) = file.to_str() else {
            continue;
        };
        let temporary = names
            .iter()
            .any(|name| crate::output::is_temporary_of(file, name));
        if temporary || file.starts_with(PROBE) {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// The lock file of an output directory (see [`lock_dir`]).
pub(crate) const LOCK: &str = ".memsched.lock";

/// An output directory locked by this process (released when dropped, or
/// when the process ends, however it ends).
#[derive(Debug)]
pub(super) struct DirLock {
    _file: File,
    /// Whether the lock was taken: false where the file system has no
    /// locks (the run goes ahead unlocked).
    held: bool,
}

/// Locks `dir` (an existing directory) for one `run` or `merge`: a second
/// one writing there would rename `runs.csv` from under the first, and the
/// rows of one would be lost. Refused, naming the directory, while another
/// process holds it. Where locking fails otherwise (a file system without
/// locks, an NFS mount without its lock daemon) the run goes ahead
/// unlocked, as it did before there was a lock.
fn lock_dir(dir: &Path) -> Result<DirLock, ExperimentError> {
    let path = dir.join(LOCK);
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| ExperimentError::io("open", &path, e))?;
    // A lock seen held is tried again for a moment: a child process
    // between fork and exec holds a copy of every descriptor, so a lock
    // this process has just released can look held by another for that
    // long (a test spawning `chattr` beside a run's test hit it).
    let mut attempt = file.try_lock();
    for _ in 0..10 {
        if !matches!(attempt, Err(fs::TryLockError::WouldBlock)) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
        attempt = file.try_lock();
    }
    match attempt {
        Ok(()) => Ok(DirLock {
            _file: file,
            held: true,
        }),
        Err(fs::TryLockError::WouldBlock) => Err(ExperimentError::Directory(format!(
            "{} is in use by another `memsched run` or `merge` (it holds {LOCK}): wait for \
             it to finish, or write to another directory (--out)",
            dir.display()
        ))),
        Err(fs::TryLockError::Error(_)) => Ok(DirLock {
            _file: file,
            held: false,
        }),
    }
}

/// Whether another process holds `dir`'s lock (a `run` or `merge` writing
/// there now). A directory without the lock file, or where locks do not
/// work, is not in use. Not for a directory this process holds.
pub(super) fn in_use(dir: &Path) -> bool {
    let Ok(file) = File::open(dir.join(LOCK)) else {
        return false;
    };
    matches!(file.try_lock(), Err(fs::TryLockError::WouldBlock))
}

/// Refuses an output directory that exists as a file (or anything but a
/// directory), or lies under one, before anything is written.
fn check_out_is_not_a_file(out: &Path) -> Result<(), ExperimentError> {
    match out.ancestors().find(|p| p.exists()) {
        Some(p) if !p.is_dir() => Err(ExperimentError::Directory(format!(
            "the output directory {} cannot be made: {} exists and is not a directory; \
             choose another --out",
            out.display(),
            p.display()
        ))),
        _ => Ok(()),
    }
}

/// Files a run or merge writes in its output directory besides
/// `config.toml` (which marks a results directory) and the final pass's.
const WRITTEN: &[&str] = &[RUNS, SHARDS, FINGERPRINTS, PROFILES, ORDERS];

/// Every file a run or merge may write besides `config.toml`: [`WRITTEN`]
/// and [`final_pass_files`].
fn written_files() -> Vec<String> {
    let mut files: Vec<String> = WRITTEN.iter().map(|s| s.to_string()).collect();
    files.extend(final_pass_files());
    files
}

/// The files the final pass derives from `runs.csv`: the summaries, the
/// README and every plot.
pub fn final_pass_files() -> Vec<String> {
    let derived = [super::GRAPHS, "summary.csv", "README.md"];
    let plots = config::PlotKind::ALL.iter().flat_map(|kind| {
        IMAGE_EXTENSIONS
            .iter()
            .map(move |ext| format!("{}.{ext}", kind.stem()))
    });
    derived.iter().map(|s| s.to_string()).chain(plots).collect()
}

/// Removes the final pass's files from `out` (see [`final_pass_files`]):
/// summaries of rows a run or merge is about to change must not outlive
/// it if it stops before its final pass writes them again.
pub(super) fn remove_final_pass(out: &Path) -> Result<(), ExperimentError> {
    for name in final_pass_files() {
        remove_if_present(&out.join(name))?;
    }
    Ok(())
}

/// Removes the file `path` if there is one.
pub(super) fn remove_if_present(path: &Path) -> Result<(), ExperimentError> {
    match fs::remove_file(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => {
            Err(ExperimentError::io("remove", path, e))
        }
        _ => Ok(()),
    }
}

/// Refuses an output directory that is not a results directory and holds
/// a file a run would replace (`README.md`, `summary.csv`, the plots, a
/// `config.toml` of something else...). A results directory has an
/// experiment's `config.toml` ([`name_in`]: a run writes it before the
/// first row of a new directory), or the `config.toml` being run, or a
/// `runs.csv` of ours beside any `config.toml`. Other files (`.gitkeep`,
/// notes) are left alone, so such a directory is used. `--fresh` does not
/// lift this: there are no results of ours to discard.
fn check_not_foreign(out: &Path, config: &Config) -> Result<(), ExperimentError> {
    // With a `runs.csv` of ours beside it, a damaged `config.toml` is
    // ours: the settings check says what is wrong with it. Without, a config that
    // names no experiment is ours only if it is the one being run
    // (`memsched run DIR/config.toml --out DIR`): another study's config
    // kept beside notes is not.
    if !out.is_dir() {
        return Ok(());
    }
    let path = out.join(CONFIG);
    let ours = match fs::read_to_string(&path) {
        Ok(text) => {
            name_in(&text).is_some()
                || holds_our_rows(out)
                || Config::parse(&text, CONFIG, &config.name).is_ok_and(|c| c == *config)
        }
        Err(_) => path.exists() && holds_our_rows(out),
    };
    if ours {
        return Ok(());
    }
    let taken: Vec<String> = std::iter::once(CONFIG.to_string())
        .chain(written_files())
        .filter(|name| out.join(name).exists())
        .collect();
    if taken.is_empty() {
        return Ok(());
    }
    Err(ExperimentError::Directory(format!(
        "{} is not a results directory (it has no experiment's {CONFIG} and no {RUNS} of \
         memsched's) and holds {}, which memsched would replace; choose another directory \
         (--out)",
        out.display(),
        taken.join(", ")
    )))
}

/// The `name` in a results directory's `config.toml`, if it has one (read
/// leniently: a config of an older version still names its experiment,
/// and any top-level `name` other than the experiment's is refused).
fn recorded_name(config_toml: &Path) -> Option<String> {
    top_level_name(&fs::read_to_string(config_toml).ok()?).map(|(name, _)| name)
}

/// Whether `out/runs.csv` holds rows of ours: its header, as every
/// version writes it, begins with `item,graph,`. A `runs.csv` of another
/// tool does not make a directory ours (`--fresh` would clear it).
fn holds_our_rows(out: &Path) -> bool {
    use std::io::Read as _;
    let mut start = [0u8; 11];
    fs::File::open(out.join(RUNS))
        .and_then(|mut f| f.read_exact(&mut start))
        .is_ok_and(|()| &start == b"item,graph,")
}

/// The `name` of a `config.toml`'s text, if it is an experiment config:
/// TOML with a `name` and a `solvers` list (every version writes both). A
/// `name` alone is too common in other tools' `config.toml` to count:
/// taking such a directory for ours, `--fresh` would clear it.
fn name_in(text: &str) -> Option<String> {
    top_level_name(text)
        .filter(|&(_, has_solvers)| has_solvers)
        .map(|(name, _)| name)
}

/// The top-level `name` of a TOML text, if it has one, and whether the
/// text also has a `solvers` list.
fn top_level_name(text: &str) -> Option<(String, bool)> {
    let table: toml::Table = toml::from_str(text).ok()?;
    let name = table.get("name")?.as_str()?.to_string();
    Some((
        name,
        table.get("solvers").is_some_and(toml::Value::is_array),
    ))
}

/// `shards.toml` as written: the shards whose runs wrote into `dir` (`K/N`,
/// or [`ALL_SHARDS`] for an unsharded run); `None` without the file. A file
/// that cannot be read or parsed is an error, not a missing file: a run
/// would otherwise write over it and forget the shards it named.
pub(crate) fn read_shards_file(dir: &Path) -> Result<Option<ShardsFile>, ExperimentError> {
    let path = dir.join(SHARDS);
    let text = match fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(ExperimentError::io("read", &path, e)),
    };
    toml::from_str(&text).map(Some).map_err(|e| {
        ExperimentError::Directory(format!(
            "{} is damaged ({}): it names the shards whose rows the directory holds; \
             fix it as this version writes it: `shards = [\"0/2\", \"1/2\"]` (or \
             `[\"all\"]` for an unsharded run) and `placement = {SHARD_PLACEMENT}`, or the \
             placement line it had if an older memsched wrote it",
            path.display(),
            one_line(e.message())
        ))
    })
}

/// How this version places items in shards (`placement` in `shards.toml`):
/// by a hash of the item's key. Versions that wrote no `placement` placed
/// them by position in the plan.
pub const SHARD_PLACEMENT: u32 = 3;

/// Refuses to resume, as shard `shard`, the directory `out` whose
/// `shards.toml` (`file`, as [`read_shards_file`] read it) lists rows of
/// shards placed by an older version: its items would move between
/// shards, and about half of them would be solved again.
pub(super) fn check_shard_placement(
    out: &Path,
    shard: Option<Shard>,
    file: Option<&ShardsFile>,
) -> Result<(), ExperimentError> {
    if shard.is_none() {
        return Ok(());
    }
    let Some(file) = file.filter(|f| f.placed_by_older_version()) else {
        return Ok(());
    };
    Err(ExperimentError::Directory(format!(
        "{} holds rows of shards ({}) placed by an older memsched, which deals items to \
         shards differently: finish it with the version that began it, or pass --fresh",
        out.display(),
        file.shards.join(", ")
    )))
}

/// Writes `shards.toml`: the shards, sorted, each once (just [`ALL_SHARDS`]
/// if an unsharded run is among them), placed as `placement` says
/// ([`SHARD_PLACEMENT`] for this version's, 0 for an older one's).
pub(crate) fn write_shards(dir: &Path, mut shards: Vec<String>, placement: u32) -> io::Result<()> {
    if shards.iter().any(|s| s == ALL_SHARDS) {
        shards = vec![ALL_SHARDS.to_string()];
    }
    shards.sort_by_key(|s| {
        s.parse::<Shard>()
            .map_or((usize::MAX, usize::MAX), |s| (s.count, s.index))
    });
    shards.dedup();
    let file = ShardsFile { shards, placement };
    let text = toml::to_string(&file).map_err(io::Error::other)?;
    // Whole or not at all: a cut file would stop every later resume.
    crate::output::write_file(&dir.join(SHARDS), |w| {
        use std::io::Write;
        write!(
            w,
            "# The runs (`--shard K/N`, or \"all\") whose rows this directory holds.\n{text}"
        )
    })
}

#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct ShardsFile {
    pub shards: Vec<String>,
    /// How items were placed in shards ([`SHARD_PLACEMENT`]); 0 in files
    /// of versions before it was written.
    #[serde(default)]
    placement: u32,
}

impl ShardsFile {
    /// Whether it lists shards placed by an older version.
    pub fn placed_by_older_version(&self) -> bool {
        self.placement != SHARD_PLACEMENT && self.shards.iter().any(|s| s.parse::<Shard>().is_ok())
    }
}

/// If `path` no longer names `file`, the file this run appended to (it was
/// replaced or removed mid-run), writes `file`'s content back to `path`
/// (through a temporary file and a rename); true if it did.
pub(super) fn restore_if_replaced(path: &Path, file: &mut File) -> io::Result<bool> {
    if names_file(path, file)? {
        return Ok(false);
    }
    let mut content = Vec::new();
    file.seek(SeekFrom::Start(0))?;
    file.read_to_end(&mut content)?;
    let tmp = path.with_extension("restoring");
    fs::write(&tmp, &content)?;
    fs::rename(&tmp, path)?;
    Ok(true)
}

/// Whether `path` names the same file as the open `file`.
#[cfg(unix)]
fn names_file(path: &Path, file: &File) -> io::Result<bool> {
    use std::os::unix::fs::MetadataExt;
    let here = match fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(e),
    };
    let ours = file.metadata()?;
    Ok(here.dev() == ours.dev() && here.ino() == ours.ino())
}

/// Whether `path` names the same file as the open `file`: without inode
/// numbers, only a removed file is noticed.
#[cfg(not(unix))]
fn names_file(path: &Path, _file: &File) -> io::Result<bool> {
    Ok(path.exists())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> Config {
        Config::parse(
            "solvers = [\"kahn\"]\n[graphs]\ngenerate = [{ spec = \"chain:length=3\" }]\n",
            "t.toml",
            "t",
        )
        .unwrap()
    }

    /// The probe leaves nothing behind where files can be made, and says
    /// where they cannot (here: the directory is gone). Under root, whom
    /// permissions do not stop, `chattr +i` makes a real case; where it
    /// works the test uses it too.
    #[test]
    fn a_directory_that_takes_no_files_is_refused_up_front() {
        let dir = tempfile::tempdir().unwrap();
        check_can_create_files(dir.path()).unwrap();
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
        let gone = dir.path().join("gone");
        let err = check_can_create_files(&gone).unwrap_err().to_string();
        assert!(
            err.contains("cannot create a file in") && err.contains("gone"),
            "{err}"
        );
        let immutable = std::process::Command::new("chattr")
            .arg("+i")
            .arg(dir.path())
            .status()
            .is_ok_and(|s| s.success());
        if immutable {
            let refused = check_can_create_files(dir.path()).is_err();
            let _ = std::process::Command::new("chattr")
                .arg("-i")
                .arg(dir.path())
                .status();
            assert!(refused, "an immutable directory takes no file");
        }
    }

    /// A directory made by another run between the checks and the
    /// creation is refused; one that stays free is made and locked.
    #[test]
    fn a_directory_another_run_wrote_while_this_one_started_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        let config = config();
        let claimed = claim(&out, &config, None).unwrap();
        fs::create_dir(&out).unwrap();
        fs::write(out.join(CONFIG), "name = \"t\"\nsolvers = [\"kahn\"]\n").unwrap();
        let err = claimed.create().unwrap_err().to_string();
        assert!(
            err.contains("wrote") && err.contains("while this one"),
            "{err}"
        );

        let fresh = dir.path().join("fresh");
        let lock = claim(&fresh, &config, None).unwrap().create().unwrap();
        assert!(fresh.is_dir());
        let err = claim(&fresh, &config, None).err().unwrap().to_string();
        assert!(err.contains("in use by another"), "{err}");
        drop(lock);
        assert!(claim(&fresh, &config, None).is_ok());
    }

    /// The temporaries and probe files a killed writer left beside the
    /// directory's files go when the next run or merge takes the
    /// directory; other files stay.
    #[test]
    fn a_claim_removes_the_temporaries_a_killed_writer_left() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path();
        fs::write(out.join(CONFIG), "name = \"t\"\nsolvers = [\"kahn\"]\n").unwrap();
        let left = [
            ".runs.csv.4242-0.tmp",
            ".graphs.csv.7-12.tmp",
            ".config.toml.1-0.tmp",
            ".memsched-probe-4242",
        ];
        let kept = [
            ".runs.csv.42x-0.tmp",
            ".runs.csv.42.tmp",
            ".notes.txt.42-0.tmp",
            "runs.csv.42-0.tmp",
            ".runs.csv.42-0.tmp.bak",
        ];
        for name in left.iter().chain(&kept) {
            fs::write(out.join(name), "x").unwrap();
        }
        let _lock = claim(out, &config(), None).unwrap().create().unwrap();
        for name in left {
            assert!(!out.join(name).exists(), "{name}");
        }
        for name in kept {
            assert!(out.join(name).exists(), "{name}");
        }
    }
}
