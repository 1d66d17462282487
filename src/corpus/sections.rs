//! The marked sections of a README (`<!-- BEGIN name -->` ..
//! `<!-- END name -->`) that `memsched datasets --update` rewrites.

use super::stats::StatsError;

/// Replaces the text between `<!-- BEGIN name -->` and `<!-- END name -->`
/// (markers kept) with `body` (its line breaks written as the BEGIN
/// marker's line ends, `\n` or `\r\n`); an error when they are missing, or when
/// the BEGIN marker appears more than once.
pub fn replace_section(doc: &str, name: &str, body: &str) -> Result<String, StatsError> {
    replace_sections(doc, &[(name, body)])
}

/// Replaces several sections of `doc` at once (see [`replace_section`]),
/// each `(name, body)`, all found in `doc` as it is (errors name its
/// lines); sections that overlap are an error.
pub fn replace_sections(doc: &str, sections: &[(&str, &str)]) -> Result<String, StatsError> {
    let mut spans = (sections.iter())
        .map(|&(name, body)| Ok((section(doc, name)?, name, body)))
        .collect::<Result<Vec<_>, StatsError>>()?;
    spans.sort_by_key(|(span, _, _)| span.begin);
    let line = |at: usize| line_at(doc, at);
    let lines = |s: &Span| format!("{}-{}", line(s.begin), line(s.end));
    for pair in spans.windows(2) {
        let ((a, first, _), (b, second, _)) = (&pair[0], &pair[1]);
        if b.begin < a.end {
            return Err(StatsError::OverlappingSections {
                first: first.to_string(),
                first_lines: lines(a),
                second: second.to_string(),
                second_lines: lines(b),
            });
        }
    }
    let mut out = String::with_capacity(doc.len());
    let mut at = 0;
    for (span, _, body) in &spans {
        // Windows line breaks stay so: a section's are its BEGIN line's.
        let eol = match doc[span.body..].starts_with("\r\n") {
            true => "\r\n",
            false => "\n",
        };
        out += &doc[at..span.body];
        out += eol;
        match eol {
            "\n" => out += body,
            _ => out += &body.replace("\r\n", "\n").replace('\n', eol),
        }
        at = span.body_end;
    }
    out += &doc[at..];
    Ok(out)
}

/// The line (from 1) of byte `at` of `doc`.
pub(super) fn line_at(doc: &str, at: usize) -> usize {
    1 + doc[..at].matches('\n').count()
}

/// Where a section lies in a document (byte offsets).
pub(super) struct Span {
    /// Its BEGIN marker's first byte.
    begin: usize,
    /// The first byte after the BEGIN marker.
    body: usize,
    /// The END marker's first byte.
    body_end: usize,
    /// The first byte after the END marker.
    end: usize,
}

/// Section `name` of `doc`: an error when its markers are missing or out
/// of order, or one of them appears more than once.
pub(super) fn section(doc: &str, name: &str) -> Result<Span, StatsError> {
    let begin = format!("<!-- BEGIN {name} -->");
    let end = format!("<!-- END {name} -->");
    for (marker, text) in [("BEGIN", &begin), ("END", &end)] {
        let count = doc.matches(text.as_str()).count();
        if count > 1 {
            return Err(StatsError::RepeatedMarker {
                name: name.into(),
                marker,
                count,
            });
        }
    }
    let line = |at: usize| line_at(doc, at);
    let missing = || StatsError::MissingMarker {
        name: name.into(),
        begin: doc.find(&begin).map(line),
        end: doc.find(&end).map(line),
    };
    let start = doc.find(&begin).ok_or_else(missing)?;
    let body = start + begin.len();
    let body_end = doc[body..].find(&end).ok_or_else(missing)? + body;
    Ok(Span {
        begin: start,
        body,
        body_end,
        end: body_end + end.len(),
    })
}

/// What is wrong with the markers of section `name`, given the lines of
/// its BEGIN and first END markers.
pub(super) fn missing_marker(name: &str, begin: Option<usize>, end: Option<usize>) -> String {
    let (b, e) = (
        format!("<!-- BEGIN {name} -->"),
        format!("<!-- END {name} -->"),
    );
    match (begin, end) {
        (None, None) => format!("no `{b}` ... `{e}` markers in the document"),
        (None, Some(e_line)) => {
            format!("`{e}` (line {e_line}) has no `{b}` in the document: put one before it")
        }
        (Some(b_line), None) => {
            format!("`{b}` (line {b_line}) has no `{e}` after it in the document")
        }
        (Some(b_line), Some(e_line)) => format!(
            "`{e}` (line {e_line}) comes before `{b}` (line {b_line}): the section is \
             between BEGIN and END, so swap them"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_section_written_twice_is_refused() {
        let doc = "<!-- BEGIN t -->\na\n<!-- END t -->\n<!-- BEGIN t -->\nb\n<!-- END t -->\n";
        let err = replace_section(doc, "t", "new\n").unwrap_err();
        assert!(err.to_string().contains("appears 2 times"), "{err}");
        // A stray END marker after the section is one too many as well.
        let doc = "<!-- BEGIN t -->\na\n<!-- END t -->\nb\n<!-- END t -->\n";
        let err = replace_section(doc, "t", "new\n").unwrap_err();
        assert!(
            err.to_string().contains("`<!-- END t -->` appears 2 times"),
            "{err}"
        );
    }

    #[test]
    fn replace_section_keeps_markers_and_surroundings() {
        let doc = "a\n<!-- BEGIN t -->\nold\n<!-- END t -->\nz\n";
        let out = replace_section(doc, "t", "new\n").unwrap();
        assert_eq!(out, "a\n<!-- BEGIN t -->\nnew\n<!-- END t -->\nz\n");
        assert_eq!(replace_section(&out, "t", "new\n").unwrap(), out);
        // Windows line breaks stay so, and a second update changes nothing.
        let crlf = doc.replace('\n', "\r\n");
        let out = replace_section(&crlf, "t", "new\nrow\n").unwrap();
        assert_eq!(
            out,
            "a\r\n<!-- BEGIN t -->\r\nnew\r\nrow\r\n<!-- END t -->\r\nz\r\n"
        );
        assert_eq!(replace_section(&out, "t", "new\nrow\n").unwrap(), out);
        // A first line ending in `\n` does not decide for the rest.
        let mixed = format!("title\n{}", crlf);
        let out = replace_section(&mixed, "t", "new\n").unwrap();
        assert_eq!(
            out,
            format!("title\n{}", replace_section(&crlf, "t", "new\n").unwrap())
        );
        assert!(matches!(
            replace_section(doc, "u", ""),
            Err(StatsError::MissingMarker { .. })
        ));
        // Two sections are found in the document as it is, and may not
        // overlap.
        let two = "a\n<!-- BEGIN t -->\nold\n<!-- END t -->\n<!-- BEGIN u -->\nx\n<!-- END u -->\n";
        assert_eq!(
            replace_sections(two, &[("u", "U\n"), ("t", "T\n")]).unwrap(),
            "a\n<!-- BEGIN t -->\nT\n<!-- END t -->\n<!-- BEGIN u -->\nU\n<!-- END u -->\n"
        );
        for nested in [
            "<!-- BEGIN u -->\n<!-- BEGIN t -->\nx\n<!-- END t -->\n<!-- END u -->\n",
            "<!-- BEGIN t -->\n<!-- BEGIN u -->\nx\n<!-- END t -->\n<!-- END u -->\n",
        ] {
            let err = replace_sections(nested, &[("t", ""), ("u", "")])
                .unwrap_err()
                .to_string();
            assert!(
                err.contains("overlap: end one before the other begins"),
                "{err}"
            );
        }
        // Markers out of order or alone are named with their lines.
        for (doc, says) in [
            (
                "x\n<!-- END t -->\n<!-- BEGIN t -->\n",
                "`<!-- END t -->` (line 2) comes before `<!-- BEGIN t -->` (line 3)",
            ),
            (
                "<!-- BEGIN t -->\nold\n",
                "`<!-- BEGIN t -->` (line 1) has no `<!-- END t -->` after it",
            ),
            (
                "a\nb\n<!-- END t -->\n",
                "`<!-- END t -->` (line 3) has no `<!-- BEGIN t -->`",
            ),
            ("a\n", "no `<!-- BEGIN t -->` ... `<!-- END t -->` markers"),
        ] {
            let err = replace_section(doc, "t", "new\n").unwrap_err().to_string();
            assert!(err.contains(says), "{doc:?}: {err}");
        }
    }
}
