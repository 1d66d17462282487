//! The priority-rule language: `EXPR` in `rule:EXPR`, parsed into a [`Key`].
//!
//! Grammar (whitespace is ignored, except inside a word or number):
//!
//! ```text
//! expr    := term (',' term)*               lexicographic: first term first
//! term    := sign? summand (sign summand)*  a weighted sum; smaller runs first
//! summand := NUMBER '*' FEATURE | FEATURE
//! sign    := '+' | '-'
//! ```
//!
//! `-height` is the sum with weight -1, i.e. "largest height first". A term
//! whose weights are all integers is evaluated exactly in integers (i64,
//! saturating); a term
//! with a fractional weight, or with a float feature (`latency`, `random`),
//! is evaluated in `f64`. The features are listed in [`Feature`].

use std::fmt;

use thiserror::Error;

/// A feature of a ready node (or of a move), as named in a rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Feature {
    /// `delta`: memory change in bytes when the node runs (`+Size`,
    /// `-Size` or 0); a move's net change in move mode.
    Delta,
    /// `type`: the article's priority type, FREE 0, compute 1, ALLOC 2.
    Type,
    /// `id`: the node's original id.
    Id,
    /// `size`: bytes the node allocates or frees, `abs(delta)`.
    Size,
    /// `in_degree`: number of distinct predecessors.
    InDegree,
    /// `out_degree`: number of distinct successors.
    OutDegree,
    /// `depth`: longest path, in edges, from any source to the node
    /// (sources 0).
    Depth,
    /// `height`: longest path, in edges, from the node to any sink
    /// (sinks 0).
    Height,
    /// `unlocks`: distinct successors whose only unrun predecessor is the
    /// node, i.e. that become ready when it runs.
    Unlocks,
    /// `frees_after`: bytes released by the FREEs among the nodes
    /// `unlocks` counts.
    FreesAfter,
    /// `live_after`: memory in bytes after the node (or move) runs; ranks
    /// like `delta`.
    LiveAfter,
    /// `rise`: bytes allocated before anything is released, `max(delta, 0)`
    /// for a node, the pulled ALLOCs' sizes for a move.
    Rise,
    /// `latency`: the node's numeric `Latency` field, 0 when absent.
    Latency,
    /// `random`: a uniform draw in `[0, 1)` per node, from the seed and the
    /// node's position in the `Nodes` array.
    Random,
}

impl Feature {
    /// Every feature, in documentation order.
    pub const ALL: [Feature; 14] = [
        Feature::Delta,
        Feature::Type,
        Feature::Id,
        Feature::Size,
        Feature::InDegree,
        Feature::OutDegree,
        Feature::Depth,
        Feature::Height,
        Feature::Unlocks,
        Feature::FreesAfter,
        Feature::LiveAfter,
        Feature::Rise,
        Feature::Latency,
        Feature::Random,
    ];

    /// The name used in rules.
    pub fn name(self) -> &'static str {
        match self {
            Feature::Delta => "delta",
            Feature::Type => "type",
            Feature::Id => "id",
            Feature::Size => "size",
            Feature::InDegree => "in_degree",
            Feature::OutDegree => "out_degree",
            Feature::Depth => "depth",
            Feature::Height => "height",
            Feature::Unlocks => "unlocks",
            Feature::FreesAfter => "frees_after",
            Feature::LiveAfter => "live_after",
            Feature::Rise => "rise",
            Feature::Latency => "latency",
            Feature::Random => "random",
        }
    }

    /// The feature called `name`, if any.
    pub fn from_name(name: &str) -> Option<Feature> {
        Feature::ALL.into_iter().find(|f| f.name() == name)
    }

    /// The feature this one ranks as: `live_after` is `delta` plus the
    /// memory every candidate shares (and keys hold it as `delta`), any
    /// other feature itself.
    pub fn ranks_as(self) -> Feature {
        match self {
            Feature::LiveAfter => Feature::Delta,
            f => f,
        }
    }

    /// True for features whose value is a float (`latency`, `random`).
    pub fn is_float(self) -> bool {
        matches!(self, Feature::Latency | Feature::Random)
    }

    /// The largest magnitude the feature can take on a valid graph, as the
    /// f64 a float sum multiplies: byte counts (`delta`, `size`, `rise`,
    /// `frees_after`, `live_after`) and ids fit i64, so are at most 2^63 in
    /// magnitude; counts and path lengths are below 2^32 (a graph has fewer
    /// than 2^32 nodes and edges); `type` is at most 2, `random` below 1,
    /// and `latency` at most [`MAX_LATENCY`](crate::graph::MAX_LATENCY)
    /// (2^63, checked when a graph is read).
    pub fn magnitude(self) -> f64 {
        self.bound().0
    }

    /// [`Feature::magnitude`], and the same in words for error messages.
    fn bound(self) -> (f64, &'static str) {
        match self {
            Feature::Delta
            | Feature::LiveAfter
            | Feature::Rise
            | Feature::FreesAfter
            | Feature::Size
            | Feature::Id => (2f64.powi(63), "up to 2^63 in magnitude"),
            Feature::InDegree
            | Feature::OutDegree
            | Feature::Unlocks
            | Feature::Depth
            | Feature::Height => (u32::MAX as f64, "below 2^32"),
            Feature::Type => (2.0, "at most 2"),
            Feature::Random => (1.0, "below 1"),
            Feature::Latency => (
                crate::graph::MAX_LATENCY,
                "up to 2^63 in magnitude, as graphs are checked when read",
            ),
        }
    }

    /// True for features that depend on which of the node's successors'
    /// other predecessors have run (`unlocks`, `frees_after`): their keys
    /// must be refreshed as the state changes.
    pub fn is_dynamic(self) -> bool {
        matches!(self, Feature::Unlocks | Feature::FreesAfter)
    }
}

/// Names of all features, comma-separated (for error messages and help).
pub fn feature_list() -> String {
    Feature::ALL.map(Feature::name).join(", ")
}

/// One term of a key: a weighted sum of features.
#[derive(Debug, Clone, PartialEq)]
pub enum Term {
    /// Integer weights: evaluated exactly in i64 (saturating at its bounds).
    Int(Vec<(i64, Feature)>),
    /// Some fractional weight or float feature: evaluated in f64.
    Float(Vec<(f64, Feature)>),
}

impl Term {
    /// The features the term reads.
    pub fn features(&self) -> impl Iterator<Item = Feature> + '_ {
        let (ints, floats) = match self {
            Term::Int(s) => (s.as_slice(), &[][..]),
            Term::Float(s) => (&[][..], s.as_slice()),
        };
        let ints = ints.iter().map(|&(_, f)| f);
        ints.chain(floats.iter().map(|&(_, f)| f))
    }
}

/// A parsed rule: a lexicographic key of terms. Made only by [`parse`],
/// so its text (a solver's name) always says what its terms do.
#[derive(Debug, Clone, PartialEq)]
pub struct Key {
    /// The terms, most significant first.
    pub(crate) terms: Vec<Term>,
    /// The rule as written, whitespace removed (used in solver names).
    pub(crate) text: String,
}

impl Key {
    /// The terms, most significant first.
    pub fn terms(&self) -> &[Term] {
        &self.terms
    }
    /// The rule as written, whitespace removed (used in solver names).
    pub fn text(&self) -> &str {
        &self.text
    }
    /// Each term's text, as in [`Key::text`] (which holds no comma but
    /// those between terms).
    pub fn term_texts(&self) -> Vec<&str> {
        self.text.split(',').collect()
    }
    /// Whether any term reads `f`.
    pub fn uses(&self, f: Feature) -> bool {
        self.terms.iter().any(|t| t.features().any(|g| g == f))
    }
    /// Whether any term reads a dynamic feature (see [`Feature::is_dynamic`]).
    pub fn is_dynamic(&self) -> bool {
        Feature::ALL
            .into_iter()
            .any(|f| f.is_dynamic() && self.uses(f))
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// Why a rule did not parse. Every message names the bad term; those about
/// a name or the syntax also list the features.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RuleError {
    /// The rule is empty or all whitespace.
    #[error("empty rule; a rule is a comma-separated list of terms over the features: {features}")]
    Empty {
        /// Every feature name, comma-separated ([`feature_list`]).
        features: String,
    },
    /// Two commas in a row, or a comma at either end.
    #[error("term {index} of `{rule}` is empty; features: {features}")]
    EmptyTerm {
        /// The rule with whitespace removed.
        rule: String,
        /// Position of the empty term, counted from 1.
        index: usize,
        /// Every feature name, comma-separated ([`feature_list`]).
        features: String,
    },
    /// A summand names no [`Feature`].
    #[error("unknown feature `{name}`{}{hint}; features: {features}", in_term(.name, .term))]
    UnknownFeature {
        /// The term holding the name, whitespace removed (past 60
        /// characters, its start and its length).
        term: String,
        /// The name as written (past 60 characters, its start and length).
        name: String,
        /// What the name may have meant (` (did you mean ...)`), or empty.
        hint: String,
        /// Every feature name, comma-separated ([`feature_list`]).
        features: String,
    },
    /// A term that is not a signed sum of `NUMBER*FEATURE` or `FEATURE`
    /// summands (a stray character, a bad number, two `*`).
    #[error("bad term `{term}`: {message}; a term is like `delta`, `-height` or `0.7*delta+0.3*latency`; features: {features}")]
    Syntax {
        /// The offending term, whitespace removed (kept, when the fault is
        /// a space inside a word or number; past 60 characters, its start
        /// and its length).
        term: String,
        /// What is wrong with it.
        message: String,
        /// Every feature name, comma-separated ([`feature_list`]).
        features: String,
    },
    /// A term that can never break a tie the terms before it leave: it is
    /// an earlier term again, or it follows `id`, which tells every node
    /// apart ([`check_decisive`](super::check_decisive)).
    #[error("term {index} `{term}` of `{rule}` never decides: {reason}; drop it")]
    NeverDecides {
        /// The rule with whitespace removed.
        rule: String,
        /// Position of the term, counted from 1.
        index: usize,
        /// The term, whitespace removed.
        term: String,
        /// Which earlier term settles every tie it could break.
        reason: String,
    },
    /// A float sum whose value can exceed f64's range on some valid graph
    /// (`1e308*size`): it would be infinite there, and `inf - inf` is NaN.
    #[error("term `{term}` can overflow f64 (largest value about 1.8e308): {reason}; divide all of the term's weights by one factor (the ranking stays the same, up to rounding)")]
    Overflow {
        /// The term, whitespace removed (for `noisy:`, the first term).
        term: String,
        /// Which summand, or the noise, takes it past the range.
        reason: String,
    },
}

/// ` in term `TERM`` after an unknown name, unless the term is just the
/// name.
fn in_term(name: &str, term: &str) -> String {
    match term == name {
        true => String::new(),
        false => format!(" in term `{term}`"),
    }
}

/// Parses a rule such as `delta,type,id` or `0.7*delta+0.3*latency,-height`.
///
/// # Complexity
/// O(length of the rule).
pub fn parse(rule: &str) -> Result<Key, RuleError> {
    parse_rule(rule).map_err(RuleError::shortened)
}

/// [`parse`], with the rule's text whole in its errors.
fn parse_rule(rule: &str) -> Result<Key, RuleError> {
    split_word(rule)?;
    let text: String = rule.chars().filter(|c| !c.is_whitespace()).collect();
    if text.is_empty() {
        return Err(RuleError::Empty {
            features: feature_list(),
        });
    }
    let mut terms = Vec::new();
    for (index, term) in text.split(',').enumerate() {
        if term.is_empty() {
            return Err(RuleError::EmptyTerm {
                rule: text.clone(),
                index: index + 1,
                features: feature_list(),
            });
        }
        terms.push(parse_term(term)?);
    }
    // Spellings of one rule name one solver (one row in an experiment).
    let text = terms.iter().map(term_name).collect::<Vec<_>>().join(",");
    Ok(Key { terms, text })
}

/// A parsed term as a solver's name spells it, so that spellings of one
/// term are one name: no leading `+`; an integer term's weights in plain
/// digits, 1 left out (`+1*delta` is `delta`, `007*size` is `7*size`); a
/// float term's weights in their shortest form with a point or exponent
/// (`1E3*size` is `1000.0*size`, `2*delta+0.5*size` is
/// `2.0*delta+0.5*size`), 1.0 left out where the term stays a float term
/// without it (`1.0*latency` is `latency`; `1.0*delta` keeps it, being a
/// float term where `delta` is an integer one).
fn term_name(term: &Term) -> String {
    let mut out = String::new();
    let mut push = |k: usize, negative: bool, weight: Option<String>, f: Feature| {
        if negative {
            out.push('-');
        } else if k > 0 {
            out.push('+');
        }
        if let Some(w) = weight {
            out.push_str(&w);
            out.push('*');
        }
        out.push_str(f.name());
    };
    match term {
        Term::Int(sum) => {
            for (k, &(w, f)) in sum.iter().enumerate() {
                let m = w.unsigned_abs();
                push(k, w < 0, (m != 1).then(|| m.to_string()), f);
            }
        }
        Term::Float(sum) => {
            // Float without any `1.0*`: a float feature or another weight.
            let float_anyway = sum.iter().any(|&(w, f)| f.is_float() || w.abs() != 1.0);
            for (k, &(w, f)) in sum.iter().enumerate() {
                let m = w.abs();
                let keep = m != 1.0 || (!float_anyway && k == 0);
                push(k, w < 0.0, keep.then(|| format!("{m:?}")), f);
            }
        }
    }
    out
}

/// Refuses whitespace between two characters of words or numbers
/// (`delta id`, `0. 5*size`, `1e -3`): stripping it would parse text the
/// user never wrote.
fn split_word(rule: &str) -> Result<(), RuleError> {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '.';
    for term in rule.split(',') {
        let tokens: Vec<&str> = term.split_whitespace().collect();
        if tokens.windows(2).any(|w| {
            (w[0].ends_with(word) && w[1].starts_with(word)) || splits_exponent(w[0], w[1])
        }) {
            return Err(syntax(
                term.trim(),
                "a space inside a word or number; separate terms with commas",
            ));
        }
    }
    Ok(())
}

/// Whether `a b` is a number's exponent split by a space: `1e -3` or `1e- 3`.
fn splits_exponent(a: &str, b: &str) -> bool {
    let digit = |c: char| c.is_ascii_digit();
    let ends_in_e = |s: &str| {
        s.strip_suffix(['e', 'E'])
            .is_some_and(|m| m.ends_with(|c: char| digit(c) || c == '.'))
    };
    (ends_in_e(a) && b.starts_with(['+', '-']))
        || (a.strip_suffix(['+', '-']).is_some_and(ends_in_e) && b.starts_with(digit))
}

fn syntax(term: &str, message: impl Into<String>) -> RuleError {
    RuleError::Syntax {
        term: term.to_string(),
        message: message.into(),
        features: feature_list(),
    }
}

impl RuleError {
    /// The error with the rule's text in it shortened where it is long (a
    /// pasted blob must not make an error of kilobytes): each field that
    /// holds a term or a name, and each `quoted` piece of a message.
    pub(super) fn shortened(self) -> RuleError {
        let quoted = |message: String| {
            let pieces: Vec<String> = (message.split('`').enumerate())
                .map(|(i, piece)| {
                    if i % 2 == 1 {
                        shown(piece)
                    } else {
                        piece.to_string()
                    }
                })
                .collect();
            pieces.join("`")
        };
        match self {
            RuleError::Empty { features } => RuleError::Empty { features },
            RuleError::EmptyTerm {
                rule,
                index,
                features,
            } => RuleError::EmptyTerm {
                rule: shown(&rule),
                index,
                features,
            },
            RuleError::UnknownFeature {
                term,
                name,
                hint,
                features,
            } => RuleError::UnknownFeature {
                term: shown(&term),
                name: shown(&name),
                hint: quoted(hint),
                features,
            },
            RuleError::Syntax {
                term,
                message,
                features,
            } => RuleError::Syntax {
                term: shown(&term),
                message: quoted(message),
                features,
            },
            RuleError::Overflow { term, reason } => RuleError::Overflow {
                term: shown(&term),
                reason: quoted(reason),
            },
            RuleError::NeverDecides {
                rule,
                index,
                term,
                reason,
            } => RuleError::NeverDecides {
                rule: shown(&rule),
                index,
                term: shown(&term),
                reason: quoted(reason),
            },
        }
    }
}

/// Text of the rule as an error shows it: whole up to 80 characters, else
/// its first 60 and how long it is.
fn shown(text: &str) -> String {
    crate::text::clipped(text, 80, 60)
}

/// Splits a term into signed summands and parses each.
fn parse_term(term: &str) -> Result<Term, RuleError> {
    let summands = split_summands(term);
    let mut parsed: Vec<(Weight, Feature)> = Vec::with_capacity(summands.len());
    for (k, &(negative, s)) in summands.iter().enumerate() {
        let last = k + 1 == summands.len();
        let (weight, feature) = parse_summand(term, s, last)?;
        parsed.push((if negative { weight.neg() } else { weight }, feature));
    }
    let constant = is_constant(&parsed);
    let all_int = parsed
        .iter()
        .all(|(w, f)| matches!(w, Weight::Int(_)) && !f.is_float());
    let parsed = if all_int {
        Term::Int(parsed.into_iter().map(|(w, f)| (w.as_int(), f)).collect())
    } else {
        let sum: Vec<(f64, Feature)> = parsed.into_iter().map(|(w, f)| (w.as_f64(), f)).collect();
        let texts: Vec<&str> = summands.iter().map(|&(_, s)| s).collect();
        check_range(term, &sum, &texts)?;
        if let Some((f, total, largest)) = nearly_cancelled(&sum).filter(|_| !constant) {
            return Err(syntax(
                term,
                format!(
                    "its weights of `{}`{} add up to {}, against {} for the largest: summed in \
                     f64, terms that large cannot keep so small a total, so the term ranks by \
                     rounding noise; combine them into one weight, or drop `{}`",
                    f.name(),
                    match sum.iter().any(|&(_, g)| g != f && g.ranks_as() == f) {
                        true => " (with the features that rank as it)",
                        false => "",
                    },
                    readable(total),
                    readable(largest),
                    f.name()
                ),
            ));
        }
        Term::Float(sum)
    };
    if constant {
        return Err(syntax(
            term,
            "its weights cancel (or are 0), so it is the same for every node and orders \
             nothing: drop the term or change a weight (for a random order: `random`)",
        ));
    }
    Ok(parsed)
}

/// A term cut at its signs into summands, each with whether it is
/// negated: `-a+2*b` gives `[(true, "a"), (false, "2*b")]`. An exponent's
/// sign (`1e-3`) does not cut.
fn split_summands(term: &str) -> Vec<(bool, &str)> {
    let mut summands: Vec<(bool, &str)> = Vec::new();
    let bytes = term.as_bytes();
    let mut start = 0;
    let mut negative = false;
    let mut i = 0;
    if matches!(bytes.first(), Some(b'+' | b'-')) {
        negative = bytes[0] == b'-';
        start = 1;
        i = 1;
    }
    while i < bytes.len() {
        let c = bytes[i];
        let exponent_sign = i > start
            && matches!(bytes[i - 1], b'e' | b'E')
            && bytes[start..i - 1]
                .iter()
                .all(|b| b.is_ascii_digit() || *b == b'.');
        if matches!(c, b'+' | b'-') && !exponent_sign {
            summands.push((negative, &term[start..i]));
            negative = c == b'-';
            start = i + 1;
        }
        i += 1;
    }
    summands.push((negative, &term[start..]));
    summands
}

/// One summand `s` of `term` (`delta`, `0.7*latency`), unsigned: its
/// weight and feature. `last`: whether it ends the term (an empty one
/// then means a trailing sign).
fn parse_summand(term: &str, s: &str, last: bool) -> Result<(Weight, Feature), RuleError> {
    if s.is_empty() {
        let message = if last {
            "it ends in a sign: a feature (or `weight*feature`) must follow it"
        } else {
            "two signs in a row: put a feature (or `weight*feature`) between them"
        };
        return Err(syntax(term, message));
    }
    let (weight, name) = match s.split_once('*') {
        // `delta*2`: the weight comes first.
        Some((num, name)) if Feature::from_name(num).is_some() && name.parse::<f64>().is_ok() => {
            return Err(syntax(
                term,
                format!("write the weight first: `{name}*{num}`"),
            ));
        }
        // `delta*` or `delta*height`: only a number may come before `*`.
        Some((num, _)) if Feature::from_name(num).is_some() => {
            return Err(syntax(
                term,
                format!(
                    "`{num}` is a feature: a weight (a number) comes before `*`, as in \
                     `2*{num}`, and features are not multiplied"
                ),
            ));
        }
        Some((num, name)) => (parse_number(term, num)?, name),
        None => (Weight::Int(1), s),
    };
    if name.is_empty() {
        let message = if term.contains("*-") || term.contains("*+") {
            format!("write a sign before its weight (`-{s}feature`), not after the `*`")
        } else {
            format!("`{s}` has no feature after `*`")
        };
        return Err(syntax(term, message));
    }
    let feature = Feature::from_name(name).ok_or_else(|| not_a_feature(term, s, name))?;
    Ok((weight, feature))
}

/// Why `name`, the part of summand `s` after its weight, is not a
/// feature: a misplaced operator or number, or an unknown name with the
/// nearest feature suggested.
fn not_a_feature(term: &str, s: &str, name: &str) -> RuleError {
    if let Some(op) = name.chars().find(|c| matches!(c, '/' | '(' | ')' | '^')) {
        syntax(
            term,
            format!(
                "`{op}` is not part of the language, which has only weights, `*`, \
                 `+` and `-` (`0.5*unlocks` for a half)"
            ),
        )
    } else if name.parse::<f64>().is_ok() && s.contains('*') {
        syntax(
            term,
            format!("`{s}` multiplies two numbers: a weight multiplies a feature (`{name}*delta`)"),
        )
    } else if name.parse::<f64>().is_ok() {
        syntax(
            term,
            format!(
                "`{name}` stands alone: a number must multiply a feature \
                 (`{name}*delta`), and a comma separates terms (`1000`, not `1,000`)"
            ),
        )
    } else if name.contains('*') {
        syntax(
            term,
            format!("`{s}` has two `*`: a summand is one weight times one feature (`6*delta`)"),
        )
    } else if let Some((num, f)) = weight_and_feature(name) {
        syntax(
            term,
            format!("`{name}` lacks a `*`: write `{num}*{}`", f.name()),
        )
    } else if name.starts_with(|c: char| c.is_ascii_digit() || c == '.') {
        syntax(
            term,
            format!(
                "`{name}` is neither a number (a weight is written like `3`, `0.5` or \
                 `2e-3`) nor a feature"
            ),
        )
    } else {
        RuleError::UnknownFeature {
            term: term.to_string(),
            name: name.to_string(),
            hint: meant(name, term),
            features: feature_list(),
        }
    }
}

/// Whether a term is the same for every node: each feature's weights add
/// up to exactly 0 (`0*delta`, `delta-delta`, `delta-0.5*delta-0.5*delta`).
/// The sums are exact, not f64's: `1e16*size+size-1e16*size` is `size`,
/// though its weights add up to 0 in f64.
fn is_constant(summands: &[(Weight, Feature)]) -> bool {
    Feature::ALL.iter().all(|&f| {
        let weights = weights_of(summands, f);
        let ints: Option<Vec<i64>> = weights
            .clone()
            .map(|w| match w {
                Weight::Int(w) => Some(w),
                Weight::Float(_) => None,
            })
            .collect();
        match ints {
            Some(ints) => ints.iter().map(|&w| w as i128).sum::<i128>() == 0,
            None => adds_up_to_zero(weights.map(Weight::as_f64)),
        }
    })
}

/// The weights a term's `summands` give feature `f`, counting the
/// features that rank as it (`live_after` as `delta`).
fn weights_of<W: Copy>(
    summands: &[(W, Feature)],
    f: Feature,
) -> impl Iterator<Item = W> + Clone + '_ {
    (summands.iter())
        .filter(move |&&(_, g)| g.ranks_as() == f)
        .map(|&(w, _)| w)
}

/// Whether `values` add up to exactly 0, computed without rounding.
/// An overflow on the way counts as not 0.
fn adds_up_to_zero(values: impl Iterator<Item = f64>) -> bool {
    exact_sum(values) == Some(0.0)
}

/// A feature of a float term whose weights cancel but for rounding
/// (`0.1*delta+0.2*delta-0.3*delta`: 2.8e-17), or so nearly that the
/// term's `f64` value, summed left to right, ranks by rounding (their sum
/// at most 1e-9 of the largest): the feature, the sum and that weight.
fn nearly_cancelled(summands: &[(f64, Feature)]) -> Option<(Feature, f64, f64)> {
    Feature::ALL.iter().find_map(|&f| {
        let weights: Vec<f64> = weights_of(summands, f).collect();
        let largest = weights.iter().fold(0.0f64, |m, w| m.max(w.abs()));
        let sum = exact_sum(weights.iter().copied())?;
        (weights.len() > 1 && sum != 0.0 && sum.abs() <= 1e-9 * largest)
            .then_some((f, sum, largest))
    })
}

/// `x` shortest in plain notation from 0.001 to a million, else as
/// `2.78e-17`.
fn readable(x: f64) -> String {
    match (1e-3..1e6).contains(&x.abs()) {
        true => x.to_string(),
        false => format!("{x:.2e}"),
    }
}

/// The sum of `values` computed without rounding (Shewchuk's exact
/// partial sums, as Python's `math.fsum` keeps them), rounded once at
/// the end; `None` on an overflow on the way.
fn exact_sum(values: impl Iterator<Item = f64>) -> Option<f64> {
    let mut partials: Vec<f64> = Vec::new();
    for value in values {
        let mut x = value;
        let mut kept = 0;
        for j in 0..partials.len() {
            let mut y = partials[j];
            if x.abs() < y.abs() {
                std::mem::swap(&mut x, &mut y);
            }
            let hi = x + y;
            let lo = y - (hi - x);
            if !hi.is_finite() {
                return None;
            }
            if lo != 0.0 {
                partials[kept] = lo;
                kept += 1;
            }
            x = hi;
        }
        partials.truncate(kept);
        partials.push(x);
    }
    // Non-overlapping, largest last: summed from the smallest.
    Some(partials.iter().sum())
}

/// A name that is a number run into a feature (`3delta`, `0.5size`): the
/// number and the feature.
fn weight_and_feature(name: &str) -> Option<(&str, Feature)> {
    name.char_indices().skip(1).find_map(|(at, _)| {
        let (num, rest) = name.split_at(at);
        let feature = Feature::from_name(rest)?;
        num.parse::<f64>().is_ok().then_some((num, feature))
    })
}

/// What an unknown feature `name` of `term` may have meant, as a clause
/// of the error (` (did you mean `in_degree`?)`), or empty: a feature
/// written with `-` (which splits summands) or in another case, a typo of
/// one or two letters, a separator other than `,`, an invisible character.
fn meant(name: &str, term: &str) -> String {
    let unsigned = term.trim_start_matches(['-', '+']);
    let spelled = |text: &str| Feature::from_name(&text.to_ascii_lowercase().replace('-', "_"));
    if let Some(f) = spelled(unsigned).or_else(|| spelled(name)) {
        return format!(
            " (did you mean `{}`? features are lower case, with `_`)",
            f.name()
        );
    }
    // `:` only between features (`rule:rule:delta` is another slip).
    let colon = name.contains(':')
        && name
            .split(':')
            .all(|part| spelled(part.trim_start_matches(['-', '+'])).is_some());
    if let Some(c) = name
        .chars()
        .find(|&c| matches!(c, ';' | '，' | '、' | '|') || c == ':' && colon)
    {
        return format!("; `{c}` is not a separator: separate terms with `,`");
    }
    if let Some(c) = name
        .chars()
        .find(|c| matches!(c, '\u{2212}' | '\u{2013}' | '\u{2014}'))
    {
        return format!(
            "; `{c}` (U+{:04X}) is not the ASCII `-` that makes a term descending",
            c as u32
        );
    }
    if let Some(c) = name.chars().find(|c| !c.is_ascii_graphic()) {
        return format!("; it holds the character U+{:04X}", c as u32);
    }
    let near = crate::spelling::near_or_begun(name, Feature::ALL.into_iter().map(Feature::name));
    crate::spelling::did_you_mean(&near)
}

/// Refuses a float sum that can overflow f64 on some valid graph.
///
/// The bound adds `|w| * magnitude(f)` over the summands in order, with the
/// same f64 operations the evaluation does on `w * x` (a sum of products,
/// left to right). Rounding is monotone, so each partial sum of a node's
/// key is at most the bound's partial sum in magnitude: a finite bound
/// means no term is ever infinite or NaN (`noisy:` adds its noise after;
/// [`check_noise_room`](super::check_noise_room) leaves room for it). The bound treats every feature as free to take either
/// sign at full magnitude, so it is conservative where features are tied
/// together: `1.5e289*size-1.5e289*rise` is refused although `size` and
/// `rise` are never negative. (Integer terms saturate at i64's bounds
/// instead: they never overflow.)
fn check_range(term: &str, sum: &[(f64, Feature)], texts: &[&str]) -> Result<(), RuleError> {
    let overflow = |reason: String| RuleError::Overflow {
        term: term.to_string(),
        reason,
    };
    let mut bound = 0.0f64;
    for (&(w, f), text) in sum.iter().zip(texts) {
        let product = w.abs() * f.magnitude();
        if product.is_infinite() {
            return Err(overflow(format!(
                "`{text}` alone exceeds it when `{}` nears its bound ({})",
                f.name(),
                f.bound().1
            )));
        }
        bound += product;
        if bound.is_infinite() {
            let mut bounds: Vec<String> = Vec::new();
            for &(_, f) in sum {
                let b = format!("`{}` {}", f.name(), f.bound().1);
                if !bounds.contains(&b) {
                    bounds.push(b);
                }
            }
            return Err(overflow(format!(
                "its summands add up to more when the features near their bounds ({})",
                bounds.join(", ")
            )));
        }
    }
    Ok(())
}

#[derive(Debug, Clone, Copy)]
enum Weight {
    Int(i64),
    Float(f64),
}

impl Weight {
    fn neg(self) -> Weight {
        match self {
            Weight::Int(w) => Weight::Int(-w),
            Weight::Float(w) => Weight::Float(-w),
        }
    }
    fn as_int(self) -> i64 {
        match self {
            Weight::Int(w) => w,
            Weight::Float(w) => w as i64,
        }
    }
    fn as_f64(self) -> f64 {
        match self {
            Weight::Int(w) => w as f64,
            Weight::Float(w) => w,
        }
    }
}

fn parse_number(term: &str, num: &str) -> Result<Weight, RuleError> {
    if num.is_empty() {
        return Err(syntax(term, "`*` needs a number before it"));
    }
    if num.bytes().all(|b| b.is_ascii_digit()) {
        if let Ok(w) = num.parse::<i64>() {
            if w.unsigned_abs() <= 1 << 40 {
                return Ok(Weight::Int(w));
            }
        }
    }
    let mantissa = num.split(['e', 'E']).next().unwrap_or("");
    match num.parse::<f64>() {
        Ok(w) if w == 0.0 && mantissa.bytes().any(|b| matches!(b, b'1'..=b'9')) => Err(syntax(
            term,
            format!("`{num}` is too small for a weight: it rounds to 0"),
        )),
        Ok(w) if w.is_finite() => Ok(Weight::Float(w)),
        Ok(w) if w.is_nan() => Err(syntax(term, format!("`{num}` is not a number"))),
        Ok(_) => Err(syntax(term, format!("`{num}` is too large for a weight"))),
        Err(_) => Err(syntax(term, format!("`{num}` is not a number"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Spellings of one rule are one name; an integer weight and a float
    /// one stay apart (they are evaluated differently).
    #[test]
    fn a_rule_is_named_in_one_spelling() {
        for (spelled, name) in [
            ("+delta, id", "delta,id"),
            ("1*delta,+1*id", "delta,id"),
            ("-1*delta", "-delta"),
            ("007*size+delta", "7*size+delta"),
            ("1E3*size", "1000.0*size"),
            ("1e3*size", "1000.0*size"),
            ("1000.0*size", "1000.0*size"),
            ("0.50*size-.5*delta", "0.5*size-0.5*delta"),
            ("2.0*delta", "2.0*delta"),
            ("1e-7*size+delta", "1e-7*size+delta"),
            ("0.7*delta+0.3*latency,id", "0.7*delta+0.3*latency,id"),
            // Weights of a float term are floats, however written.
            ("2*delta+0.5*size", "2.0*delta+0.5*size"),
            ("1.0*latency", "latency"),
            ("1*delta+0.5*size", "delta+0.5*size"),
            ("1.0*delta+0.5*size", "delta+0.5*size"),
            ("1.0*delta+1.0*size", "1.0*delta+size"),
            ("-1.0*delta", "-1.0*delta"),
            ("delta+0.0*size", "delta+0.0*size"),
            ("delta-0.0*size", "delta+0.0*size"),
        ] {
            let key = parse(spelled).unwrap();
            assert_eq!(key.text, name, "{spelled}");
            // The name is a spelling of the same rule.
            let again = parse(name).unwrap();
            assert_eq!(
                (&again.terms, &again.text),
                (&key.terms, &key.text),
                "{name}"
            );
        }
    }

    #[test]
    fn article_rule_parses_to_three_integer_terms() {
        let k = parse("delta, type ,id").unwrap();
        assert_eq!(k.text, "delta,type,id");
        assert_eq!(
            k.terms,
            vec![
                Term::Int(vec![(1, Feature::Delta)]),
                Term::Int(vec![(1, Feature::Type)]),
                Term::Int(vec![(1, Feature::Id)]),
            ]
        );
        assert!(!k.is_dynamic());
    }

    /// An unknown name gets a guess where one is likely, and none where
    /// it is not.
    #[test]
    fn unknown_names_get_a_guess() {
        for (rule, says) in [
            (
                "in-degree",
                "(did you mean `in_degree`? features are lower case, with `_`)",
            ),
            ("-frees-after,id", "did you mean `frees_after`?"),
            ("Latency", "did you mean `latency`?"),
            ("hieght", "did you mean `height`?"),
            ("delta;id", "`;` is not a separator"),
            ("delta:id", "`:` is not a separator"),
            ("delta\u{200b}", "it holds the character U+200B"),
            (
                "1,000*delta",
                "a comma separates terms (`1000`, not `1,000`)",
            ),
            (
                "2*3*delta",
                "has two `*`: a summand is one weight times one feature",
            ),
        ] {
            let err = parse(rule).unwrap_err().to_string();
            assert!(err.contains(says), "{rule}: {err}");
        }
        for far in ["de", "foo"] {
            let err = parse(far).unwrap_err().to_string();
            assert!(!err.contains("did you mean"), "{far}: {err}");
        }
    }

    #[test]
    fn constant_terms_are_refused() {
        for rule in [
            "0*delta",
            "delta-delta",
            "id,0.5*size-0.5*size",
            "random-random",
            "delta-0.5*delta-0.5*delta",
            "delta-live_after",
            "live_after-delta,id",
            "3*size-2*size-size",
            "0.75*latency-0.5*latency-0.25*latency",
        ] {
            let err = parse(rule).unwrap_err().to_string();
            assert!(err.contains("weights cancel"), "{rule}: {err}");
        }
        // A zero weight beside a live one, or a cancelled feature beside
        // another, still orders nodes. (A sum that only rounds to 0 is
        // refused as ranking by rounding: see below.)
        for rule in ["delta+0*size", "delta-delta+id", "2*size-size"] {
            assert!(parse(rule).is_ok(), "{rule}");
        }
    }

    #[test]
    fn misplaced_signs_and_huge_weights_say_so() {
        let err = parse("2*-delta").unwrap_err().to_string();
        assert!(err.contains("write a sign before its weight"), "{err}");
        let err = parse("1e400*delta").unwrap_err().to_string();
        assert!(err.contains("`1e400` is too large"), "{err}");
        let err = parse("1e-400*delta").unwrap_err().to_string();
        assert!(err.contains("`1e-400` is too small"), "{err}");
        let err = parse("0e-400*delta,id").unwrap_err().to_string();
        assert!(err.contains("weights cancel (or are 0)"), "{err}");
        // Weights that cancel but for rounding rank by it: refused too.
        for (rule, sum) in [
            ("0.1*delta+0.2*delta-0.3*delta,id", "2.78e-17, against 0.3"),
            ("1e16*size+size-1e16*size,id", "1, against 1.00e16"),
            ("size+0.1*delta+0.2*delta-0.3*delta", "2.78e-17"),
        ] {
            let err = parse(rule).unwrap_err().to_string();
            assert!(
                err.contains(&format!("add up to {sum}"))
                    && err.contains("ranks by rounding noise"),
                "{rule}: {err}"
            );
        }
        assert!(parse("0.5*size-0.5*size+delta,id").is_ok());
        let err = parse("0.7*delta+").unwrap_err().to_string();
        assert!(err.contains("ends in a sign"), "{err}");
        let err = parse("delta+-size").unwrap_err().to_string();
        assert!(err.contains("two signs in a row"), "{err}");
    }

    #[test]
    fn signs_weights_and_exponents() {
        let k = parse("-height,0.7*delta+0.3*latency,2*depth-unlocks,1e-3*size").unwrap();
        assert_eq!(k.terms[0], Term::Int(vec![(-1, Feature::Height)]));
        assert_eq!(
            k.terms[1],
            Term::Float(vec![(0.7, Feature::Delta), (0.3, Feature::Latency)])
        );
        assert_eq!(
            k.terms[2],
            Term::Int(vec![(2, Feature::Depth), (-1, Feature::Unlocks)])
        );
        assert_eq!(k.terms[3], Term::Float(vec![(1e-3, Feature::Size)]));
        assert!(k.is_dynamic());
        assert_eq!(
            parse("random").unwrap().terms[0],
            Term::Float(vec![(1.0, Feature::Random)])
        );
    }

    #[test]
    fn errors_name_the_term_and_list_features() {
        let e = parse("delta,bogus").unwrap_err().to_string();
        assert!(
            e.starts_with("unknown feature `bogus`; features: delta,") && e.contains("latency"),
            "{e}"
        );
        let e = parse("2*bogus").unwrap_err().to_string();
        assert!(
            e.starts_with("unknown feature `bogus` in term `2*bogus`;"),
            "{e}"
        );
        let e = parse("delta,,id").unwrap_err().to_string();
        assert!(e.contains("term 2") && e.contains("unlocks"), "{e}");
        let e = parse("0.5*").unwrap_err().to_string();
        assert!(e.contains("`0.5*`") && e.contains("delta"), "{e}");
        let e = parse("x*delta").unwrap_err().to_string();
        assert!(e.contains("`x*delta`") && e.contains("not a number"), "{e}");
        let e = parse("delta+").unwrap_err().to_string();
        assert!(e.contains("`delta+`"), "{e}");
        let e = parse("3").unwrap_err().to_string();
        assert!(e.contains("must multiply"), "{e}");
        assert!(matches!(parse("  "), Err(RuleError::Empty { .. })));
        let e = parse("NaN*delta").unwrap_err().to_string();
        assert!(e.contains("`NaN` is not a number"), "{e}");
        let e = parse("delta*2").unwrap_err().to_string();
        assert!(e.contains("write the weight first: `2*delta`"), "{e}");
        for expr in ["delta*", "delta*height"] {
            let e = parse(expr).unwrap_err().to_string();
            assert!(e.contains("`delta` is a feature: a weight"), "{expr}: {e}");
        }
        let e = parse("2*3").unwrap_err().to_string();
        assert!(e.contains("`2*3` multiplies two numbers"), "{e}");
        let e = parse("\u{2212}delta").unwrap_err().to_string();
        assert!(e.contains("is not the ASCII `-`"), "{e}");
        let e = parse("2*delta-unlocks/2").unwrap_err().to_string();
        assert!(e.contains("`/` is not part of the language"), "{e}");
        for (rule, op) in [("delta^2", "^"), ("max(delta)", "(")] {
            let e = parse(rule).unwrap_err().to_string();
            assert!(e.contains(&format!("`{op}` is not part")), "{e}");
        }
        for (rule, fix) in [
            ("3delta", "3*delta"),
            ("0.5size", "0.5*size"),
            ("2e3id", "2e3*id"),
        ] {
            let e = parse(rule).unwrap_err().to_string();
            assert!(
                e.contains(&format!("`{rule}` lacks a `*`: write `{fix}`")),
                "{e}"
            );
        }
        for rule in ["1e", "2x", ".5x"] {
            let e = parse(rule).unwrap_err().to_string();
            let said = format!("`{rule}` is neither a number (a weight is written like");
            assert!(e.contains(&said), "{e}");
        }
        // A pasted blob is shown by its start and length.
        let blob = "q".repeat(100_000);
        let e = parse(&blob).unwrap_err().to_string();
        assert!(e.len() < 1_000, "{} bytes", e.len());
        assert!(
            e.contains(&format!("{}... (100000 characters)`", "q".repeat(60))),
            "{e}"
        );
        let e = parse(&format!("{blob}+")).unwrap_err().to_string();
        assert!(e.len() < 1_000 && e.contains("(100001 characters)"), "{e}");
        // Every path: the whole rule, a number, a product, an overflow.
        let digits = "7".repeat(100_000);
        for rule in [
            format!("id,,{blob}"),
            format!("{digits}*delta"),
            format!("2*2*{blob}"),
            format!("{digits}*delta*id"),
            format!("1{digits}e300*size"),
            format!("{digits}.5*size+{digits}.5*id"),
        ] {
            let e = parse(&rule).unwrap_err().to_string();
            assert!(e.len() < 1_000, "{} bytes: {}", e.len(), &e[..300]);
        }
        // Up to 80 characters a term is shown whole.
        let e = parse(&"q".repeat(80)).unwrap_err().to_string();
        assert!(e.contains(&format!("`{}`", "q".repeat(80))), "{e}");
    }

    /// `1e308*size-1e308*size` used to parse, and its products overflowed
    /// to inf on sizes above 1 (`inf - inf` is a NaN key): now the term is
    /// refused, naming the summand and the feature's bound.
    #[test]
    fn sums_that_can_overflow_f64_are_refused_naming_the_term() {
        let e = parse("delta,1e308*size-1e308*size,id").unwrap_err();
        assert!(matches!(e, RuleError::Overflow { .. }), "{e:?}");
        let e = e.to_string();
        assert!(
            e.contains("term `1e308*size-1e308*size` can overflow f64")
                && e.contains("`1e308*size` alone exceeds it when `size` nears its bound (up to 2^63 in magnitude)")
                && e.contains("divide all of the term's weights by one factor"),
            "{e}"
        );
        // No single product overflows, the sum can: each feature's bound is named.
        let e = parse("1e289*latency+1e289*size").unwrap_err().to_string();
        assert!(
            e.contains("term `1e289*latency+1e289*size` can overflow f64")
                && e.contains("its summands add up to more")
                && e.contains("`latency` up to 2^63 in magnitude"),
            "{e}"
        );
        let e = parse("1e300*id").unwrap_err().to_string();
        assert!(e.contains("`1e300*id` alone exceeds it when `id`"), "{e}");
        let e = parse("-1e300*latency").unwrap_err().to_string();
        assert!(e.contains("`1e300*latency` alone"), "{e}");
        // Integer terms saturate instead; large but safe float sums parse.
        for ok in [
            "0.7*delta+0.3*latency",
            "1e280*size-1e280*rise",
            "1.7e308*random",
            "latency-1e-300*size",
            "0.5*latency+0.5*latency",
            "latency+latency",
            "-2*latency+1e6*size",
            "1099511627776*size+1099511627776*id",
            "-0.5*latency+0.25*random-1.5*depth",
        ] {
            assert!(parse(ok).is_ok(), "{ok}: {:?}", parse(ok));
        }
    }

    /// The check matches its model: a float term is refused exactly when
    /// evaluating it with every feature at its magnitude (with the weight's
    /// sign, as a key is evaluated: products summed left to right) gives a
    /// non-finite value. So an accepted term is finite on every valid graph.
    /// The model lets each feature take either sign on its own, so a
    /// refused term can still be finite where features are tied (`size`
    /// and `rise` are never negative).
    #[test]
    fn overflow_check_is_exactly_the_worst_case() {
        let weights = [
            "0.5",
            "1",
            "1.0000001",
            "2",
            "1e18",
            "9.7e288",
            "9.8e288",
            "1e289",
            "1e298",
            "1.7e308",
        ];
        let features = [
            Feature::Size,
            Feature::Delta,
            Feature::Latency,
            Feature::Depth,
        ];
        let (mut refused, mut total) = (0, 0);
        for a in weights {
            for b in weights {
                for (fa, fb) in features.iter().flat_map(|&x| features.map(|y| (x, y))) {
                    for sign in ["+", "-"] {
                        total += 1;
                        let text = format!("{a}*{}{sign}{b}*{}", fa.name(), fb.name());
                        let (wa, wb): (f64, f64) = (a.parse().unwrap(), b.parse().unwrap());
                        let wb = if sign == "-" { -wb } else { wb };
                        // Worst case: each feature at its magnitude, signed to add up.
                        let xa = fa.magnitude();
                        let xb = fb.magnitude() * wb.signum();
                        let worst = [wa * xa, wb * xb].into_iter().sum::<f64>();
                        match parse(&text) {
                            Ok(_) => assert!(worst.is_finite(), "{text} accepted, reaches {worst}"),
                            // `w*f-w*f` is refused as constant when finite.
                            Err(RuleError::Syntax { .. }) if fa == fb && wa == -wb => {
                                assert!(worst.is_finite(), "{text}");
                            }
                            Err(RuleError::Overflow { .. }) => {
                                refused += 1;
                                assert!(!worst.is_finite(), "{text} refused, worst {worst}");
                            }
                            Err(e) => panic!("{text}: {e}"),
                        }
                    }
                }
            }
        }
        assert!(refused > 0 && refused < total, "{refused} of {total}");
    }

    #[test]
    fn spaces_between_terms_parts_are_fine_inside_words_not() {
        assert_eq!(
            parse(" -height , 0.5 * delta + id ").unwrap().text,
            "-height,0.5*delta+id"
        );
        assert_eq!(parse("size - 1e-3 * rise").unwrap().text, "size-0.001*rise");
        assert_eq!(
            parse("+delta, + 0.5*size+id").unwrap().text,
            "delta,0.5*size+id"
        );
        for bad in [
            "delta id",
            "delta, type id",
            "0. 5*delta",
            "de lta",
            "2 3*size",
            "1e -3*delta",
            "1e- 3*delta",
        ] {
            let e = parse(bad).unwrap_err().to_string();
            assert!(e.contains("a space inside a word"), "{bad}: {e}");
        }
        let e = parse("delta, type id").unwrap_err().to_string();
        assert!(e.contains("`type id`"), "{e}");
    }
}
