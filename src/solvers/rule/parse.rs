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
    Delta,
    Type,
    Id,
    Size,
    InDegree,
    OutDegree,
    Depth,
    Height,
    Unlocks,
    FreesAfter,
    LiveAfter,
    Rise,
    Latency,
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

    /// True for features whose value is a float (`latency`, `random`).
    pub fn is_float(self) -> bool {
        matches!(self, Feature::Latency | Feature::Random)
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

/// A parsed rule: a lexicographic key of terms.
#[derive(Debug, Clone, PartialEq)]
pub struct Key {
    /// The terms, most significant first.
    pub terms: Vec<Term>,
    /// The rule as written, whitespace removed (used in solver names).
    pub text: String,
}

impl Key {
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

/// Why a rule did not parse. Every message names the bad term and lists the features.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RuleError {
    #[error("empty rule; a rule is a comma-separated list of terms over the features: {features}")]
    Empty { features: String },
    #[error("term {index} of `{rule}` is empty; features: {features}")]
    EmptyTerm {
        rule: String,
        index: usize,
        features: String,
    },
    #[error("unknown feature `{name}` in term `{term}`; features: {features}")]
    UnknownFeature {
        term: String,
        name: String,
        features: String,
    },
    #[error("bad term `{term}`: {message}; a term is like `delta`, `-height` or `0.7*delta+0.3*latency`; features: {features}")]
    Syntax {
        term: String,
        message: String,
        features: String,
    },
}

/// Parses a rule such as `delta,type,id` or `0.7*delta+0.3*latency,-height`.
///
/// # Complexity
/// O(length of the rule).
pub fn parse(rule: &str) -> Result<Key, RuleError> {
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
    Ok(Key { terms, text })
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

/// Splits a term into signed summands and parses each.
fn parse_term(term: &str) -> Result<Term, RuleError> {
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
        // A sign splits summands unless it is an exponent's sign (`1e-3`).
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

    let mut parsed: Vec<(Weight, Feature)> = Vec::with_capacity(summands.len());
    for (negative, s) in summands {
        if s.is_empty() {
            return Err(syntax(term, "a sign is not followed by a feature"));
        }
        let (weight, name) = match s.split_once('*') {
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
        let feature = Feature::from_name(name).ok_or_else(|| {
            if name.parse::<f64>().is_ok() {
                syntax(
                    term,
                    format!("`{s}`: a number must multiply a feature (`{name}*delta`)"),
                )
            } else {
                RuleError::UnknownFeature {
                    term: term.to_string(),
                    name: name.to_string(),
                    features: feature_list(),
                }
            }
        })?;
        let weight = if negative { weight.neg() } else { weight };
        parsed.push((weight, feature));
    }
    let all_int = parsed
        .iter()
        .all(|(w, f)| matches!(w, Weight::Int(_)) && !f.is_float());
    Ok(if all_int {
        Term::Int(parsed.into_iter().map(|(w, f)| (w.as_int(), f)).collect())
    } else {
        Term::Float(parsed.into_iter().map(|(w, f)| (w.as_f64(), f)).collect())
    })
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
    match num.parse::<f64>() {
        Ok(w) if w.is_finite() => Ok(Weight::Float(w)),
        Ok(w) if w.is_nan() => Err(syntax(term, format!("`{num}` is not a number"))),
        Ok(_) => Err(syntax(term, format!("`{num}` is too large for a weight"))),
        Err(_) => Err(syntax(term, format!("`{num}` is not a number"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn misplaced_signs_and_huge_weights_say_so() {
        let err = parse("2*-delta").unwrap_err().to_string();
        assert!(err.contains("write a sign before its weight"), "{err}");
        let err = parse("1e400*delta").unwrap_err().to_string();
        assert!(err.contains("`1e400` is too large"), "{err}");
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
            e.contains("`bogus`") && e.contains("frees_after") && e.contains("latency"),
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
    }

    #[test]
    fn spaces_between_terms_parts_are_fine_inside_words_not() {
        assert_eq!(
            parse(" -height , 0.5 * delta + id ").unwrap().text,
            "-height,0.5*delta+id"
        );
        assert_eq!(parse("size - 1e-3 * rise").unwrap().text, "size-1e-3*rise");
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
