//! Writes output files whole or not at all: into a temporary file beside
//! the target, then renamed over it, so that an interrupted write (Ctrl-C,
//! a killed job) leaves the old file, never a cut one. This matters when an
//! output names its own input on purpose (`transform G.json -o G.json`).

use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// Writes the file `path` with `fill`, through a temporary file and a
/// rename when `path` is a regular file we own and may write, or does not
/// exist yet: the new file takes the old one's permissions. Anything else
/// is written in place, as `File::create` does: a link (`/dev/stdout`
/// names the shell's redirect target, which a rename would replace), a
/// device or pipe, a file we may not write (refused, as `File::create`
/// refuses it) or do not own (a rename would make it ours), or a directory
/// where no temporary can be made.
pub fn write_file(
    path: &Path,
    fill: impl FnOnce(&mut BufWriter<File>) -> io::Result<()>,
) -> io::Result<()> {
    let old = fs::symlink_metadata(path);
    let replaceable = match &old {
        // A read-only mode is kept even for root; otherwise the kernel
        // judges (owner, group, ACLs). Opening without truncating changes
        // nothing.
        Ok(m) => {
            m.file_type().is_file()
                && !m.permissions().readonly()
                && fs::OpenOptions::new().write(true).open(path).is_ok()
        }
        Err(e) => e.kind() == io::ErrorKind::NotFound,
    };
    let beside = if replaceable {
        create_beside(path).ok().and_then(|(tmp, file)| match &old {
            Ok(m) if !same_owner(m, &file) => {
                let _ = fs::remove_file(&tmp);
                None
            }
            _ => Some((tmp, file)),
        })
    } else {
        None
    };
    let Some((tmp, file)) = beside else {
        let mut w = BufWriter::new(File::create(path)?);
        fill(&mut w)?;
        return w.flush();
    };
    let written = (|| {
        if let Ok(m) = &old {
            file.set_permissions(m.permissions())?;
        }
        let mut w = BufWriter::new(file);
        fill(&mut w)?;
        // On disk before the rename: after a crash of the machine, some
        // file systems can otherwise show the renamed file empty.
        w.into_inner()
            .map_err(io::IntoInnerError::into_error)?
            .sync_all()?;
        fs::rename(&tmp, path)
    })();
    if written.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    written
}

/// Whether the file we just made has `old`'s owner and group: a rename
/// over a file of another owner (in a directory we may write) would hand
/// it to us. Always true off Unix.
fn same_owner(old: &fs::Metadata, made: &File) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        made.metadata()
            .is_ok_and(|m| m.uid() == old.uid() && m.gid() == old.gid())
    }
    #[cfg(not(unix))]
    {
        let _ = (old, made);
        true
    }
}

/// Whether the file name `file` is one [`create_beside`] makes for the
/// file name `name`: `.NAME.PID-K.tmp`.
pub(crate) fn is_temporary_of(file: &str, name: &str) -> bool {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    file.strip_prefix('.')
        .and_then(|f| f.strip_prefix(name))
        .and_then(|f| f.strip_prefix('.'))
        .and_then(|f| f.strip_suffix(".tmp"))
        .and_then(|f| f.split_once('-'))
        .is_some_and(|(pid, k)| digits(pid) && digits(k))
}

/// A new file `DIR/.NAME.PID-K.tmp` beside `DIR/NAME` (the same directory,
/// so the rename stays on one file system), created only if no such file
/// exists: never one another writer, or a planted link, holds.
fn create_beside(path: &Path) -> io::Result<(PathBuf, File)> {
    let name = path
        .file_name()
        .map_or_else(|| "output".into(), |n| n.to_string_lossy().into_owned());
    let mut k = 0u32;
    loop {
        let tmp = path.with_file_name(format!(".{name}.{}-{k}.tmp", std::process::id()));
        match fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
        {
            Ok(file) => return Ok((tmp, file)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && k < 1000 => k += 1,
            Err(e) => return Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The temporaries `create_beside` makes are the ones
    /// `is_temporary_of` recognises, and only for their own file.
    #[test]
    fn temporaries_are_recognised_by_their_file() {
        let dir = tempfile::tempdir().unwrap();
        let (tmp, _file) = create_beside(&dir.path().join("runs.csv")).unwrap();
        let made = tmp.file_name().unwrap().to_str().unwrap();
        assert!(is_temporary_of(made, "runs.csv"), "{made}");
        assert!(!is_temporary_of(made, "runs"), "{made}");
        for other in [".runs.csv.1x-0.tmp", ".runs.csv.12.tmp", "runs.csv.1-0.tmp"] {
            assert!(!is_temporary_of(other, "runs.csv"), "{other}");
        }
    }

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

    /// A link is written through in place (it may be `/dev/stdout`, whose
    /// target a rename would replace), the old permissions are kept, and a
    /// read-only file is never replaced by another (same inode).
    #[cfg(unix)]
    #[test]
    fn links_permissions_and_read_only_files() {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("g.json");
        fs::write(&file, "old").unwrap();
        fs::set_permissions(&file, fs::Permissions::from_mode(0o640)).unwrap();
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        let inode = fs::metadata(&file).unwrap().ino();
        write_file(&link, |w| w.write_all(b"new")).unwrap();
        assert!(fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(fs::read_to_string(&file).unwrap(), "new");
        assert_eq!(
            fs::metadata(&file).unwrap().ino(),
            inode,
            "written in place"
        );
        // A regular file is replaced, keeping its mode.
        write_file(&file, |w| w.write_all(b"newer")).unwrap();
        assert_ne!(fs::metadata(&file).unwrap().ino(), inode, "renamed over");
        let mode = fs::metadata(&file).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o640);
        // Read-only: refused as File::create refuses it, or (root) written
        // in place; never replaced.
        fs::set_permissions(&file, fs::Permissions::from_mode(0o440)).unwrap();
        let inode = fs::metadata(&file).unwrap().ino();
        let _ = write_file(&file, |w| w.write_all(b"x"));
        assert_eq!(fs::metadata(&file).unwrap().ino(), inode);
        // A dangling link: the file it names is made, the link stays.
        let dangling = dir.path().join("dangling.json");
        std::os::unix::fs::symlink(dir.path().join("made.json"), &dangling).unwrap();
        write_file(&dangling, |w| w.write_all(b"m")).unwrap();
        assert!(fs::symlink_metadata(&dangling)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(
            fs::read_to_string(dir.path().join("made.json")).unwrap(),
            "m"
        );
    }

    /// A file of another owner is written in place, never renamed over
    /// (which would hand it to us). Only root can make one to test with.
    #[cfg(unix)]
    #[test]
    fn a_file_of_another_owner_keeps_its_owner() {
        use std::os::unix::fs::MetadataExt;
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("theirs.json");
        fs::write(&file, "old").unwrap();
        if std::os::unix::fs::chown(&file, Some(4242), Some(4242)).is_err() {
            return; // not root: cannot give a file away
        }
        let inode = fs::metadata(&file).unwrap().ino();
        write_file(&file, |w| w.write_all(b"new")).unwrap();
        let m = fs::metadata(&file).unwrap();
        assert_eq!((m.ino(), m.uid(), m.gid()), (inode, 4242, 4242));
        assert_eq!(fs::read_to_string(&file).unwrap(), "new");
        assert_eq!(
            fs::read_dir(dir.path()).unwrap().count(),
            1,
            "no temporary left"
        );
    }

    /// A named pipe is written through, not renamed over: the reader at
    /// its other end gets the bytes, and the pipe stays a pipe.
    #[cfg(unix)]
    #[test]
    fn a_pipe_is_written_in_place() {
        use std::os::unix::fs::FileTypeExt;
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("out.fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.is_ok_and(|s| s.success()), "mkfifo");
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || fs::read_to_string(fifo).unwrap())
        };
        write_file(&fifo, |w| w.write_all(b"x")).unwrap();
        assert_eq!(reader.join().unwrap(), "x");
        assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
        assert_eq!(
            fs::read_dir(dir.path()).unwrap().count(),
            1,
            "no temporary left"
        );
    }
}
