//! Reading an input file (a graph, an order) whole, in one pass, with two
//! guards: the first bytes must be able to begin the text expected, and the
//! file may hold at most a set number of bytes.
//!
//! [`read`] reads a path (`-`: standard input) under a [`Start`] rule and
//! a byte limit ([`MAX_INPUT_BYTES`] for the command line). It fails with a
//! [`ReadError`]: an I/O error, or a [`Refusal`] saying why the bytes cannot
//! be the input. The guards look at the first [`HEAD_BYTES`] only, so
//! `/dev/zero` or a binary file given as a graph fails at once instead of
//! being read until memory runs out, and the normal read costs one extra
//! scan of 64 KiB.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

use thiserror::Error;

/// Most bytes an input file may hold: 8 GiB. A graph of a million nodes
/// is about 110 MB of seed JSON, and reading it takes two to three times
/// its size in memory, so a graph near this size is already beyond what
/// memsched can hold on most machines, while `/dev/urandom` or a runaway
/// pipe is stopped before it fills memory.
pub const MAX_INPUT_BYTES: u64 = 8 << 30;

/// How many leading bytes the [`Start`] and control-byte checks look at.
pub const HEAD_BYTES: u64 = 64 << 10;

/// What the first byte that is not blank (after an optional UTF-8
/// byte-order mark) must be.
#[derive(Debug, Clone, Copy)]
pub struct Start {
    /// Whether `byte` can begin the input.
    pub allows: fn(u8) -> bool,
    /// What the input starts with, for the message (`a graph file starts
    /// with `{` (a JSON object)`).
    pub says: &'static str,
}

impl Start {
    /// A seed-format graph: a JSON object.
    pub const GRAPH: Start = Start {
        allows: |b| b == b'{',
        says: "a graph file starts with `{` (a JSON object)",
    };
    /// An order: printable ASCII text (a JSON array or object, or ids).
    pub const ORDER: Start = Start {
        allows: |b| b.is_ascii_graphic(),
        says: "an order is text: a JSON array or object, or node ids",
    };
    /// An experiment config: TOML text (a comment, a table or a key).
    pub const CONFIG: Start = Start {
        allows: |b| b.is_ascii_graphic() || b >= 0x80,
        says: "a config is TOML text",
    };
}

/// Why a file's bytes cannot be the input expected.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Refusal {
    /// The first byte that is not blank cannot begin the input.
    #[error("it starts with {} at offset {offset}, where {says}{}", show_byte(*byte), start_hint(*byte, *offset))]
    BadStart {
        /// The offending byte.
        byte: u8,
        /// Its position in the file, in bytes from 0 (a byte-order mark
        /// and blanks before it counted).
        offset: u64,
        /// What the input should start with: the [`Start::says`] text.
        says: &'static str,
    },
    /// A byte-order mark of UTF-16 text.
    #[error("it starts with a UTF-16 byte-order mark: save it as UTF-8 text")]
    Utf16,
    /// A control byte that no text file holds (JSON allows tab, line feed
    /// and carriage return only, and orders are JSON or plain ids).
    #[error(
        "it has {} at offset {offset} (line {line}), a control character that no JSON, \
         order or config holds: it is not a text file",
        show_byte(*byte)
    )]
    ControlByte {
        /// The control byte, below 0x20.
        byte: u8,
        /// Its position in the file, in bytes from 0.
        offset: u64,
        /// Its line, counted from 1.
        line: u64,
    },
    /// More bytes than the limit.
    #[error("it is larger than {}, the most memsched reads", bytes(*limit))]
    TooLarge {
        /// The byte limit given to [`read`] or [`read_from`].
        limit: u64,
    },
}

/// Why an input could not be read.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ReadError {
    /// Opening or reading failed.
    #[error("{0}")]
    Io(#[from] io::Error),
    /// The bytes cannot be the input.
    #[error("{0}")]
    Refused(#[from] Refusal),
    /// A text input ([`read_text`]) holds a byte sequence that is not
    /// UTF-8.
    #[error("byte {valid_up_to} is not UTF-8 text")]
    NotUtf8 {
        /// Offset in bytes of the first byte that is not UTF-8; every byte
        /// before it is.
        valid_up_to: usize,
    },
}

/// A byte as a message shows it: `` `[` `` if printable, else `byte 0x00`.
fn show_byte(b: u8) -> String {
    if b.is_ascii_graphic() {
        format!("`{}`", b as char)
    } else {
        format!("byte {b:#04x}")
    }
}

/// What a bad first byte suggests: a binary file, or (at the very start,
/// `[`) an order or other JSON given where a graph goes.
fn start_hint(b: u8, offset: u64) -> &'static str {
    match b {
        b'[' => "; a JSON array: is it an order? (the graph comes first)",
        // `é` or a full-width digit starts with such a byte too.
        _ if !b.is_ascii() => "; is it a binary file, or text whose first character is not ASCII?",
        _ if b < 0x20 && offset == 0 => "; is it a binary file?",
        _ => "",
    }
}

/// `8589934592 bytes (8 GiB)`; `1000 bytes` when not a whole number of GiB.
fn bytes(n: u64) -> String {
    if n >= 1 << 30 && n.is_multiple_of(1 << 30) {
        format!("{n} bytes ({} GiB)", n >> 30)
    } else {
        format!("{n} bytes")
    }
}

/// Reads the file `path` (`-`: standard input) whole, refusing it as soon
/// as its first bytes cannot begin the input (`start`), or when it holds
/// more than `limit` bytes (a regular file is refused by its size before
/// any byte is read).
///
/// # Complexity
/// One pass over the bytes, into one buffer sized from the file's length;
/// the checks scan the first [`HEAD_BYTES`] once more.
pub fn read(path: impl AsRef<Path>, limit: u64, start: Start) -> Result<Vec<u8>, ReadError> {
    let path = path.as_ref();
    if path == Path::new("-") {
        return read_from(io::stdin().lock(), None, limit, start);
    }
    let file = File::open(path)?;
    let size = file
        .metadata()
        .ok()
        .filter(|m| m.is_file())
        .map(|m| m.len());
    if size.is_some_and(|n| n > limit) {
        return Err(Refusal::TooLarge { limit }.into());
    }
    read_from(file, size, limit, start)
}

/// [`read`] for a text input: the bytes must also be UTF-8.
pub fn read_text(path: impl AsRef<Path>, limit: u64, start: Start) -> Result<String, ReadError> {
    String::from_utf8(read(path, limit, start)?).map_err(|e| ReadError::NotUtf8 {
        valid_up_to: e.utf8_error().valid_up_to(),
    })
}

/// Reads `reader` to its end as [`read`] does; `size` is its length when
/// known (the buffer is allocated once).
pub fn read_from<R: Read>(
    reader: R,
    size: Option<u64>,
    limit: u64,
    start: Start,
) -> Result<Vec<u8>, ReadError> {
    let mut buf = Vec::new();
    if let Some(n) = size {
        let n = usize::try_from(n.min(limit)).unwrap_or(usize::MAX);
        buf.try_reserve_exact(n)
            .map_err(|e| io::Error::new(io::ErrorKind::OutOfMemory, e))?;
    }
    // One byte beyond the limit tells a file at the limit from a larger one.
    let mut reader = reader.take(limit.saturating_add(1));
    (&mut reader).take(HEAD_BYTES).read_to_end(&mut buf)?;
    check_head(&buf, start)?;
    reader.read_to_end(&mut buf)?;
    if buf.len() as u64 > limit {
        return Err(Refusal::TooLarge { limit }.into());
    }
    Ok(buf)
}

/// Checks the first bytes of an input: after an optional UTF-8 byte-order
/// mark and blanks (space, tab, line feed, carriage return), the first byte
/// must be one `start` allows, and no byte may be a control character
/// other than a blank.
fn check_head(head: &[u8], start: Start) -> Result<(), Refusal> {
    if head.starts_with(&[0xFF, 0xFE]) || head.starts_with(&[0xFE, 0xFF]) {
        return Err(Refusal::Utf16);
    }
    let blank = |b: &u8| matches!(b, b' ' | b'\t' | b'\n' | b'\r');
    let skip = if head.starts_with(b"\xEF\xBB\xBF") {
        3
    } else {
        0
    };
    if let Some(i) = head[skip..].iter().position(|b| !blank(b)) {
        let byte = head[skip + i];
        if !(start.allows)(byte) {
            return Err(Refusal::BadStart {
                byte,
                offset: (skip + i) as u64,
                says: start.says,
            });
        }
    }
    if let Some(i) = head.iter().position(|b| *b < 0x20 && !blank(b)) {
        let line = 1 + head[..i].iter().filter(|&&b| b == b'\n').count() as u64;
        return Err(Refusal::ControlByte {
            byte: head[i],
            offset: i as u64,
            line,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal(bytes: &[u8], limit: u64, start: Start) -> Refusal {
        match read_from(bytes, None, limit, start) {
            Err(ReadError::Refused(r)) => r,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_graph_must_start_with_a_brace_after_a_mark_and_blanks() {
        for ok in [
            &b"{}"[..],
            b"\xEF\xBB\xBF \n\t{\"Nodes\": []}",
            b"",
            b"  \n",
        ] {
            assert_eq!(
                read_from(ok, None, 100, Start::GRAPH).unwrap(),
                ok,
                "{ok:?}"
            );
        }
        let r = refusal(b"\0\0\0\0", 100, Start::GRAPH);
        assert_eq!(
            r.to_string(),
            "it starts with byte 0x00 at offset 0, where a graph file starts with `{` \
             (a JSON object); is it a binary file?"
        );
        let r = refusal("é 0 1".as_bytes(), 100, Start::ORDER);
        assert!(
            r.to_string()
                .ends_with("text whose first character is not ASCII?"),
            "{r}"
        );
        let r = refusal(b"\xEF\xBB\xBF  [0, 1]", 100, Start::GRAPH);
        assert!(
            r.to_string().starts_with("it starts with `[` at offset 5,"),
            "{r}"
        );
        assert!(r.to_string().contains("is it an order?"), "{r}");
        assert_eq!(refusal(b"\xFF\xFE{\0", 100, Start::GRAPH), Refusal::Utf16);
        let r = refusal(b"{\"Nodes\":\n [\x07]}", 100, Start::GRAPH);
        assert_eq!(
            r,
            Refusal::ControlByte {
                byte: 7,
                offset: 12,
                line: 2
            }
        );
        // An order may start with any printable text, not with a binary byte.
        assert!(read_from(&b"0 1 2"[..], None, 100, Start::ORDER).is_ok());
        assert!(read_from(&b"[0, 1]"[..], None, 100, Start::ORDER).is_ok());
        let r = refusal(b"\x89PNG\r\n", 100, Start::ORDER);
        assert!(r.to_string().contains("byte 0x89 at offset 0"), "{r}");
    }

    /// An endless stream of zeros is refused at once; one that passes the
    /// first check is stopped at the limit, which a file may reach but not pass.
    #[test]
    fn endless_or_oversized_input_stops_at_the_limit() {
        let r = read_from(io::repeat(0), None, MAX_INPUT_BYTES, Start::GRAPH);
        assert!(matches!(
            r,
            Err(ReadError::Refused(Refusal::BadStart { .. }))
        ));
        let r = read_from(io::repeat(b' '), None, 100_000, Start::GRAPH);
        assert!(matches!(
            r,
            Err(ReadError::Refused(Refusal::TooLarge { limit: 100_000 }))
        ));
        let text = vec![b' '; 1000];
        assert_eq!(
            read_from(&text[..], None, 1000, Start::GRAPH)
                .unwrap()
                .len(),
            1000
        );
        assert!(read_from(&text[..], None, 999, Start::GRAPH).is_err());
        assert_eq!(
            Refusal::TooLarge { limit: 8 << 30 }.to_string(),
            "it is larger than 8589934592 bytes (8 GiB), the most memsched reads"
        );
    }

    /// A regular file beyond the limit is refused by its size, before any
    /// of it is read; one within it is read whole.
    #[test]
    fn a_file_is_refused_by_its_size() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("g.json");
        std::fs::write(&path, "{\"Nodes\": []}").unwrap();
        let path = path.to_str().unwrap();
        assert_eq!(read(path, 13, Start::GRAPH).unwrap(), b"{\"Nodes\": []}");
        assert!(matches!(
            read(path, 12, Start::GRAPH),
            Err(ReadError::Refused(Refusal::TooLarge { limit: 12 }))
        ));
        let missing = dir.path().join("missing.json");
        assert!(matches!(
            read(missing.to_str().unwrap(), 12, Start::GRAPH),
            Err(ReadError::Io(_))
        ));
    }

    /// A text input must be UTF-8: the error names the first bad byte.
    #[test]
    fn text_is_utf8() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("o.txt");
        std::fs::write(&path, b"1 2 \xff 3").unwrap();
        let e = read_text(&path, 100, Start::ORDER).unwrap_err();
        assert_eq!(e.to_string(), "byte 4 is not UTF-8 text");
        std::fs::write(&path, "1 2 3").unwrap();
        assert_eq!(read_text(&path, 100, Start::ORDER).unwrap(), "1 2 3");
    }
}
