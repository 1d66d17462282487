//! Writes output files whole or not at all: into a temporary file beside
//! the target, then renamed over it, so that an interrupted write (Ctrl-C,
//! a killed job) leaves the old file, never a cut one. This matters when an
//! output names its own input on purpose (`transform G.json -o G.json`).

use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// Writes the file `path` with `fill`, through a temporary file and a
/// rename when `path` is a regular file or does not exist yet. Anything
/// else (`/dev/null`, a pipe, a symlink) is written in place: a rename would
/// replace the device or the link itself.
pub fn write_file(
    path: &Path,
    fill: impl FnOnce(&mut BufWriter<File>) -> io::Result<()>,
) -> io::Result<()> {
    let replaceable = match fs::symlink_metadata(path) {
        Ok(m) => m.file_type().is_file(),
        Err(e) => e.kind() == io::ErrorKind::NotFound,
    };
    if !replaceable {
        let mut w = BufWriter::new(File::create(path)?);
        fill(&mut w)?;
        return w.flush();
    }
    let tmp = temporary_beside(path);
    let written = File::create(&tmp).and_then(|file| {
        let mut w = BufWriter::new(file);
        fill(&mut w)?;
        w.flush()
    });
    match written.and_then(|()| fs::rename(&tmp, path)) {
        Ok(()) => Ok(()),
        Err(e) => {
            let _ = fs::remove_file(&tmp);
            Err(e)
        }
    }
}

/// `DIR/.NAME.PID.tmp` for `DIR/NAME`: the same directory (so the rename
/// stays on one file system) and a name no other process writes.
fn temporary_beside(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map_or_else(|| "output".into(), |n| n.to_string_lossy().into_owned());
    path.with_file_name(format!(".{name}.{}.tmp", std::process::id()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_fill_leaves_the_old_file_and_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("g.json");
        fs::write(&path, "old").unwrap();
        let err = write_file(&path, |w| {
            w.write_all(b"half")?;
            Err(io::Error::other("stopped"))
        })
        .unwrap_err();
        assert_eq!(err.to_string(), "stopped");
        assert_eq!(fs::read_to_string(&path).unwrap(), "old");
        assert_eq!(
            fs::read_dir(dir.path()).unwrap().count(),
            1,
            "no temporary left"
        );
        write_file(&path, |w| w.write_all(b"new")).unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "new");
    }

    #[test]
    fn a_device_is_written_in_place() {
        write_file(Path::new("/dev/null"), |w| w.write_all(b"x")).unwrap();
        assert!(!fs::metadata("/dev/null").unwrap().file_type().is_file());
    }
}
