//! How messages show what they quote: long lists cut to their first few,
//! long text to its start, multi-line text put on one line, control
//! characters escaped, counts with their noun in the right number, and
//! the others like the first counted.

/// The first `shown` of `items` as `show` writes them, then `more(k)` for
/// the `k` left out, if any: how messages cut a long list short.
pub(crate) fn first_few<T>(
    items: impl ExactSizeIterator<Item = T>,
    shown: usize,
    show: impl FnMut(T) -> String,
    more: impl FnOnce(usize) -> String,
) -> Vec<String> {
    let left_out = items.len().saturating_sub(shown);
    let mut listed: Vec<String> = items.take(shown).map(show).collect();
    if left_out > 0 {
        listed.push(more(left_out));
    }
    listed
}

/// `text` whole when it has at most `whole` characters, else its first
/// `keep` and how many it has: `0;1;2... (1089 characters)`. A pasted
/// blob must not make a message of kilobytes.
pub(crate) fn clipped(text: &str, whole: usize, keep: usize) -> String {
    if text.chars().nth(whole).is_none() {
        return text.to_string();
    }
    let cut = text.char_indices().nth(keep).map_or(text.len(), |(i, _)| i);
    format!("{}... ({} characters)", &text[..cut], text.chars().count())
}

/// `s` on one line, runs of whitespace (newlines too) made one space.
pub(crate) fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The tail of a warning that names the first of `count` cases:
/// ` (1 more FREE like it)`, ` (3 more FREEs like it)`, or nothing when it
/// is the only one.
pub(crate) fn more_like_it(count: usize, one: &str, many: &str) -> String {
    match count {
        0 | 1 => String::new(),
        2 => format!(" (1 more {one} like it)"),
        n => format!(" ({} more {many} like it)", n - 1),
    }
}

/// `text` as a warning may print it: with control characters (an escape
/// sequence, a line break) escaped, so a graph's strings cannot redraw the
/// terminal or forge a line of output.
pub(crate) fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    match text.chars().any(char::is_control) {
        true => text.escape_debug().to_string().into(),
        false => text.into(),
    }
}

/// `1 node`, `2 nodes`: a count and its noun, plural unless the count is 1
/// (`s` added; [`count_of`] for other plurals).
pub(crate) fn count(n: usize, noun: &str) -> String {
    count_of(n, noun, &format!("{noun}s"))
}

/// `1 directory`, `2 directories`: a count and the noun's form for it.
pub(crate) fn count_of(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

#[cfg(test)]
mod tests {
    use super::first_few;

    #[test]
    fn first_few_counts_what_it_leaves_out() {
        let more = |k: usize| format!("{k} more");
        let list = |n: usize| first_few(0..n, 2, |i| i.to_string(), more);
        assert_eq!(list(0), Vec::<String>::new());
        assert_eq!(list(2), ["0", "1"]);
        assert_eq!(list(5), ["0", "1", "3 more"]);
    }
}
