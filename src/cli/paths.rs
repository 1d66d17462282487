//! Where the commands write: standard output or a file, and the checks
//! that refuse an output that is one of the inputs, or cannot be written.

use super::InvalidInput;

/// Removes a file an earlier run left at `path`, an output this run does
/// not write (a stale trace beside a new report is easily misread): the
/// clause a warning adds to say so, or an empty one. Only a regular file
/// that starts as such an output does (a trace's CSV header, a PNG, an
/// SVG) is removed: the path may name any file, an input among them.
pub(crate) fn remove_stale_output(path: &std::path::Path) -> String {
    use std::io::Read;
    const STARTS: [&[u8]; 4] = [b"step,id,op,", b"\x89PNG", b"<svg", b"<?xml"];
    let mut head = [0u8; 16];
    let is_ours = std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file())
        && std::fs::File::open(path)
            .and_then(|mut f| f.read(&mut head))
            .is_ok_and(|n| STARTS.iter().any(|s| head[..n].starts_with(s)));
    if !is_ours {
        return String::new();
    }
    match std::fs::remove_file(path) {
        Ok(()) => "; the one an earlier run left there is removed".into(),
        Err(e) => format!("; the one an earlier run left there stays ({e})"),
    }
}

/// Writes `text` to `path`, or standard output when `path` is `None` or `-`.
pub(crate) fn emit(path: Option<&str>, text: &str) -> anyhow::Result<()> {
    use anyhow::Context;
    match path {
        None | Some("-") => print_stdout(text),
        Some(p) => crate::output::write_file(std::path::Path::new(p), |w| {
            std::io::Write::write_all(w, text.as_bytes())
        })
        .with_context(|| format!("cannot write {p}")),
    }
}

/// Writes `text` to standard output. A failed write is an error (`cannot
/// write to standard output: ...`), not a panic as `print!` makes it; a
/// reader that closed the pipe early ends the command quietly (see
/// [`is_broken_pipe`]).
pub(crate) fn print_stdout(text: &str) -> anyhow::Result<()> {
    use anyhow::Context;
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .context("cannot write to standard output")
}

/// Refuses an output file (`flag` is `--out` or `--plot`) that is one of
/// the command's `inputs` (each a role such as `graph` and a path; `-` is
/// standard input, compared when it is redirected from a file): the report
/// would replace the file it was made from. An output of `-` (standard
/// output) is never refused, nor one that is not an existing regular file
/// (a new file, `/dev/null`, a pipe): writing there destroys nothing.
/// Called before any input is read or solved.
pub(crate) fn check_output_is_not_an_input(
    flag: &str,
    out: &std::path::Path,
    inputs: &[(&str, &str)],
) -> Result<(), InvalidInput> {
    if out.as_os_str() == "-" || !out.is_file() {
        return Ok(());
    }
    for &(role, input) in inputs {
        if same_file(out, std::path::Path::new(input)) {
            let shown = if input == "-" {
                "standard input (redirected from it)"
            } else {
                input
            };
            return Err(InvalidInput(format!(
                "{flag} {}: it is the {role} file, {shown}: writing there would replace the \
                 {role}; name another file",
                out.display()
            )));
        }
    }
    Ok(())
}

/// Whether the existing file `out` is the input `input` (`-`: standard
/// input). On Unix: the same device and inode, so a hard link, a symbolic
/// link or a redirection of standard input counts. Elsewhere: the same
/// canonical path (standard input is never compared).
pub(crate) fn same_file(out: &std::path::Path, input: &std::path::Path) -> bool {
    let stdin = input.as_os_str() == "-";
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt as _;
        let meta = if stdin {
            use std::os::fd::AsFd as _;
            std::io::stdin()
                .as_fd()
                .try_clone_to_owned()
                .and_then(|fd| std::fs::File::from(fd).metadata())
        } else {
            std::fs::metadata(input)
        };
        match (std::fs::metadata(out), meta) {
            (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        !stdin
            && matches!(
                (std::fs::canonicalize(out), std::fs::canonicalize(input)),
                (Ok(a), Ok(b)) if a == b
            )
    }
}

/// Refuses a `flag` output file that is a directory or lies in no
/// directory, before any work (a long solve would otherwise end in "cannot
/// write").
pub(crate) fn check_out_file(flag: &str, path: &std::path::Path) -> Result<(), InvalidInput> {
    if path.is_dir() {
        return Err(InvalidInput(format!(
            "{flag} {}: it is a directory: name a file",
            path.display()
        )));
    }
    check_parent_dir(flag, path)
}

/// Refuses a `flag` file whose directory does not exist, an empty name, or
/// a name that can only be a directory (`r.txt/`, `r.txt/.`: `parent`
/// hides the separator); a symbolic link is judged by where it leads (a
/// dangling one by its target's directory, a loop refused).
pub(crate) fn check_parent_dir(flag: &str, path: &std::path::Path) -> Result<(), InvalidInput> {
    let refuse = |why: String| Err(InvalidInput(format!("{flag} {}: {why}", path.display())));
    if path.as_os_str().is_empty() {
        return Err(InvalidInput(format!("{flag} is empty: name a file")));
    }
    // Checked on the text: `components` drops a trailing `.`.
    let bytes = path.as_os_str().as_encoded_bytes();
    let last = bytes
        .rsplit(|&b| std::path::is_separator(b as char))
        .next()
        .unwrap_or_default();
    if matches!(last, b"" | b"." | b"..") {
        return refuse(
            "it names a directory (it ends in a separator, `.` or `..`): name a file".into(),
        );
    }
    let is_link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    let target = match is_link {
        true => match std::fs::metadata(path) {
            Ok(_) => None,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => resolved_link(path),
            Err(e) => return refuse(format!("a symbolic link that cannot be followed: {e}")),
        },
        false => None,
    };
    let target = target.as_deref().unwrap_or(path);
    match target.parent() {
        Some(dir) if !dir.as_os_str().is_empty() && !dir.is_dir() => refuse(format!(
            "there is no directory {}{}",
            dir.display(),
            if is_link {
                " (where the link leads)"
            } else {
                ""
            }
        )),
        _ => Ok(()),
    }
}

/// Where `path` leads once every symbolic link is followed (a relative
/// target is relative to the link's directory, an absolute one replaces
/// the path): `path` itself when it is no link; `None` past 40 links, as
/// the kernel allows.
fn resolved_link(path: &std::path::Path) -> Option<std::path::PathBuf> {
    let mut path = path.to_path_buf();
    for _ in 0..40 {
        match std::fs::read_link(&path) {
            Ok(target) => path = path.parent()?.join(target),
            Err(_) => return Some(path),
        }
    }
    None
}

/// Whether two output paths, which need not exist yet, name one file:
/// compared after following symbolic links and resolving `.` and `..`
/// through the directories that exist, and as the same file (device and
/// inode on Unix) when both exist, so a hard link counts too.
pub(crate) fn same_output(a: &std::path::Path, b: &std::path::Path) -> bool {
    let both_exist = a.exists() && b.exists();
    if both_exist && same_file(a, b) {
        return true;
    }
    match (resolved(a), resolved(b)) {
        (Some(a), Some(b)) => a == b,
        _ => a == b,
    }
}

/// `path` made absolute with its links followed ([`resolved_link`]) and
/// its directory canonical; the file itself need not exist.
fn resolved(path: &std::path::Path) -> Option<std::path::PathBuf> {
    let path = resolved_link(&std::path::absolute(path).ok()?)?;
    if let Ok(canonical) = std::fs::canonicalize(&path) {
        return Some(canonical);
    }
    let dir = std::fs::canonicalize(path.parent()?).ok()?;
    Some(dir.join(path.file_name()?))
}

/// How an output path is named in messages: `-` is standard output.
pub(crate) fn output_name(path: &str) -> &str {
    if path == "-" {
        "to standard output"
    } else {
        path
    }
}

/// Whether `err` comes from writing to a pipe whose reader has gone, as in
/// `memsched schedule ... | head` (the only pipes memsched writes are its
/// standard output and error): the reader has what it wanted, so the command
/// stops without a message and exits 0, as ripgrep does.
pub(crate) fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|e| {
        e.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
