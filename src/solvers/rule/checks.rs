//! Checks of a parsed rule that parsing alone does not make: a term that
//! can never decide a tie ([`check_decisive`]), and a first term with no
//! room for `noisy:`'s noise ([`check_noise_room`]).

use super::parse::{Feature, Key, RuleError, Term};

/// Largest magnitude of a Gumbel sample as [`gumbel_f64`](crate::rng::gumbel_f64)
/// draws it: 36.7, at U = 1 - 2^-53 (U = `f64::MIN_POSITIVE` gives -6.6).
pub const GUMBEL_MAX: f64 = 36.8;

/// Refuses a term that can never decide between two nodes the terms before
/// it tie:
/// - one after `id`, which no two nodes or moves share (`id,delta`);
/// - one that reads a single feature an earlier term ranks by alone, one to
///   one (`delta,-delta`, `type,2*type`, `2*type,type`): where the earlier
///   term ties, the feature's values are equal, and so is this term. One
///   to one means, in an integer term, weight 1 or -1 on an integer
///   feature (not `-id`, which saturates at the smallest id) or any weight
///   that cannot take the feature past i64 (`3*type`, not `2*size`); in a
///   float term, 1.0 or -1.0 on a float feature (`latency`, `random`);
///   `1.0*delta` is not, since `f64` merges large deltas;
/// - an earlier term again, as it ranks (`delta+size,type,delta+size`),
///   summands of weight 0 aside (`delta` after `delta+0*size`): an integer
///   term's weights of each feature added up, in any order, where no
///   partial sum can saturate (`2*height+depth-height` after
///   `depth+height`), else two summands in any order (`size+delta` after
///   `delta+size`) and more as written (`2*size-size` is not `size` once
///   `2*size` saturates; see [`ranked_sum`]); a float term with the same
///   weights in the same order (its rounding depends on the order).
///
/// `live_after` counts as `delta`, which it ranks as, and is stored as.
/// Such a term is dead weight in the rule and in the solver's name, and
/// usually means the user expected it to act earlier.
///
/// `noisy` spares the first term, whose noise the later terms may break
/// ties of (however rarely).
pub fn check_decisive(key: &Key, noisy: bool) -> Result<(), RuleError> {
    check_decisive_as_written(key, noisy, &key.text)
}

/// [`check_decisive`], its error quoting the rule as `written` (the text
/// `key` was parsed from, whitespace aside: `2*random`, not the name's
/// `2.0*random`); the key's own text when `written` has another number of
/// terms.
pub fn check_decisive_as_written(key: &Key, noisy: bool, written: &str) -> Result<(), RuleError> {
    // The feature a term ranks by one to one, if it does.
    let one_to_one = |term: &Term| match term {
        Term::Int(s) => match s.as_slice() {
            [(1, f)] => Some(*f),
            [(-1, f)] if *f != Feature::Id => Some(*f),
            // No saturation: distinct values stay distinct (`2*type`).
            [(w, f)] if (*w as f64).abs() * f.magnitude() < I64_BOUND => Some(*f),
            _ => None,
        },
        Term::Float(s) => match s.as_slice() {
            [(w, f)] if w.abs() == 1.0 && f.is_float() => Some(*f),
            _ => None,
        },
    };
    // The one feature every summand of a term reads, if there is one
    // (`term` as it ranks: its features already as they rank).
    let reads_only = |term: &Term| {
        let mut features = term.features();
        let first = features.next()?;
        features.all(|f| f == first).then_some(first)
    };
    let ranked: Vec<Term> = key.terms.iter().map(ranked_sum).collect();
    let rule = as_written(key, written);
    let texts: Vec<&str> = rule.split(',').collect();
    let first = usize::from(noisy);
    for (index, term) in key.terms.iter().enumerate() {
        let live_after = |e: usize| match (key.terms[e].features())
            .chain(term.features())
            .any(|f| f == Feature::LiveAfter)
        {
            true => {
                " (`live_after` ranks as `delta`: every ready node starts from the same memory)"
            }
            false => "",
        };
        let earlier = (first..index).find_map(|e| {
            if ranked[e] == Term::Int(vec![(1, Feature::Id)]) {
                return Some(format!(
                    "term {} `{}` already tells every node (and move) apart",
                    e + 1,
                    texts[e]
                ));
            }
            if ranked[e] == ranked[index] {
                return Some(match texts[e] == texts[index] {
                    true => format!("it is term {} `{}` again{}", e + 1, texts[e], live_after(e)),
                    false => format!("it ranks as term {} `{}`{}", e + 1, texts[e], live_after(e)),
                });
            }
            let f = one_to_one(&ranked[e])?;
            (reads_only(&ranked[index]) == Some(f)).then(|| {
                format!(
                    "it reads only `{}`, which term {} `{}` already ranks by one to one: where \
                     that term ties, so does this one{}",
                    f.name(),
                    e + 1,
                    texts[e],
                    live_after(e)
                )
            })
        });
        if let Some(reason) = earlier {
            return Err(RuleError::shortened(RuleError::NeverDecides {
                rule: rule.clone(),
                index: index + 1,
                term: texts[index].to_string(),
                reason,
            }));
        }
    }
    Ok(())
}

/// The rule of `key` as an error quotes it: `written`, the text it was
/// parsed from, whitespace removed (as the parser removes it); the key's
/// own text when `written` has another number of terms.
fn as_written(key: &Key, written: &str) -> String {
    let written: String = written.chars().filter(|c| !c.is_whitespace()).collect();
    match written.split(',').count() == key.terms.len() {
        true => written,
        false => key.text.clone(),
    }
}

/// 2^63: an integer term whose values stay below it in magnitude never
/// saturates.
const I64_BOUND: f64 = 9_223_372_036_854_775_808.0;

/// A term as it ranks, for comparing terms: each feature as it ranks
/// (`live_after` as `delta`), and summands of weight 0 dropped (they add
/// exactly 0). An integer term is evaluated left to right with saturating
/// arithmetic ([`int_term`](super::features::int_term)), which does not
/// let summands be merged or reordered freely: `2*size-size` is not `size`
/// once `2*size` saturates. So its weights of one feature are added up and
/// its features put in documentation order only when no partial sum can
/// saturate (the sum of `|weight| * bound` over its summands is below
/// 2^63); else two summands of different features are put in order
/// (saturating addition of two values commutes), and more stay as written.
/// A float term keeps its order and weights, which its rounding depends on.
fn ranked_sum(term: &Term) -> Term {
    match term {
        Term::Int(s) => {
            let kept: Vec<(i64, Feature)> = (s.iter())
                .filter(|&&(w, _)| w != 0)
                .map(|&(w, f)| (w, f.ranks_as()))
                .collect();
            let at = |f: Feature| Feature::ALL.iter().position(|&g| g == f);
            // Exact: every integer feature's bound is an integer of at
            // most 2^63.
            let bound = (kept.iter()).fold(0u128, |sum, &(w, f)| {
                sum.saturating_add(w.unsigned_abs() as u128 * f.magnitude() as u128)
            });
            if bound < 1 << 63 {
                let mut sums: Vec<(Feature, i64)> = Vec::new();
                for &(w, f) in &kept {
                    match sums.iter_mut().find(|(g, _)| *g == f) {
                        // Below 2^62 in magnitude: every bound is at least 2.
                        Some((_, sum)) => *sum += w,
                        None => sums.push((f, w)),
                    }
                }
                sums.retain(|&(_, w)| w != 0);
                sums.sort_by_key(|&(f, _)| at(f));
                return Term::Int(sums.into_iter().map(|(f, w)| (w, f)).collect());
            }
            match kept.as_slice() {
                [a, b] if at(b.1) < at(a.1) => Term::Int(vec![*b, *a]),
                _ => Term::Int(kept),
            }
        }
        Term::Float(s) => Term::Float(
            (s.iter())
                .filter(|&&(w, _)| w != 0.0)
                .map(|&(w, f)| (w, f.ranks_as()))
                .collect(),
        ),
    }
}

/// Refuses a rule whose first term `noisy:`'s noise could take past f64's
/// range on some valid graph. The noise is the term's mean magnitude over
/// the graph's nodes (at most the term's bound; 1 when it is 0) times a
/// Gumbel sample of magnitude at most [`GUMBEL_MAX`], so the noised term is
/// within `bound + GUMBEL_MAX * max(bound, 1)`. Integer terms stay below
/// 2^63 in magnitude and always leave room.
pub fn check_noise_room(key: &Key) -> Result<(), RuleError> {
    check_noise_room_as_written(key, &key.text)
}

/// [`check_noise_room`], its error quoting the first term as `written`
/// (see [`check_decisive_as_written`]).
pub fn check_noise_room_as_written(key: &Key, written: &str) -> Result<(), RuleError> {
    let Some(Term::Float(sum)) = key.terms.first() else {
        return Ok(());
    };
    let bound: f64 = sum.iter().map(|&(w, f)| w.abs() * f.magnitude()).sum();
    if (bound + GUMBEL_MAX * bound.max(1.0)).is_finite() {
        return Ok(());
    }
    let rule = as_written(key, written);
    Err(RuleError::shortened(RuleError::Overflow {
        term: rule.split(',').next().unwrap_or_default().to_string(),
        reason: format!(
            "`noisy:` adds noise of up to {GUMBEL_MAX} times the term's mean magnitude, which \
             takes it past that when the features near their bounds"
        ),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solvers::rule::parse::parse;

    #[test]
    fn terms_that_never_decide_are_refused_naming_the_earlier_term() {
        let refused = |rule: &str, noisy: bool| {
            let key = parse(rule).unwrap();
            check_decisive(&key, noisy).unwrap_err().to_string()
        };
        let e = refused("delta,type,delta", false);
        assert!(
            e.starts_with(
                "term 3 `delta` of `delta,type,delta` never decides: it is term 1 `delta` again"
            ),
            "{e}"
        );
        let e = refused("delta, live_after", false);
        assert!(
            e.contains("term 2 `live_after`") && e.contains("ranks as `delta`"),
            "{e}"
        );
        let e = refused("-height,id,type", false);
        assert!(
            e.contains("term 3 `type`")
                && e.contains("term 2 `id` already tells every node (and move) apart"),
            "{e}"
        );
        for (rule, term) in [
            ("delta,-delta", "term 2 `-delta`"),
            ("delta,type,2*delta", "term 3 `2*delta`"),
            ("type,0.5*type", "term 2 `0.5*type`"),
            ("-random,2*random", "term 2 `2.0*random`"),
            ("live_after,type,-3*delta", "term 3 `-3*delta`"),
            ("-height,delta,-2*height", "term 3 `-2*height`"),
            ("2*type,type", "term 2 `type`"),
            ("3*depth,id,-depth", "term 3 `-depth`"),
            ("3*depth,-depth", "term 2 `-depth`"),
            ("delta+size,size+delta", "ranks as term 1 `delta+size`"),
            ("delta+0*size,delta", "ranks as term 1 `delta+0*size`"),
            ("depth+height,type,2*height+depth-height", "ranks as term 1"),
            ("id+0*size,delta", "term 1 `id+0*size` already tells"),
            ("0.5*random+0*size,0.5*random", "ranks as term 1"),
        ] {
            let e = refused(rule, false);
            assert!(e.contains(term), "{rule}: {e}");
        }
        // The error quotes the rule as written, not as its name spells it.
        let written = "1*delta, 2 * type,type";
        let e = check_decisive_as_written(&parse(written).unwrap(), false, written)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("term 3 `type` of `1*delta,2*type,type`") && e.contains("term 2 `2*type`"),
            "{e}"
        );
        // noisy: spares only its first term.
        let e = refused("delta,type,type", true);
        assert!(e.contains("term 3 `type`"), "{e}");
        for (rule, noisy) in [
            ("delta,type,id", false),
            ("id", false),
            // Float sums rank by their order's rounding.
            ("0.5*latency+0.25*size,0.25*size+0.5*latency", false),
            // Saturating integer sums that may rank apart: a size of
            // 2^62 + 1 saturates `2*size`, so `2*size-size` is not `size`.
            ("delta+size,type,2*size+delta-size", false),
            ("2*size-size,size", false),
            ("size,size+delta-delta", false),
            // Not one to one: saturation, or `f64` merging large values.
            ("2*delta,delta", false),
            ("-id,delta", false),
            ("1.0*delta,delta", false),
            ("delta,delta+size", false),
            ("2*id,delta", false),
            ("id+delta,delta", false),
            ("id,delta", true),
            ("delta,delta", true),
        ] {
            let key = parse(rule).unwrap();
            assert!(
                check_decisive(&key, noisy).is_ok(),
                "{rule} (noisy: {noisy})"
            );
        }
    }

    /// A first term that fits f64 but not with `noisy:`'s noise on top is
    /// refused for `noisy:` only; the noise's bound is the sampler's.
    #[test]
    fn noisy_rules_leave_room_for_the_noise() {
        let tight = parse("1e288*size,id").unwrap();
        let e = check_noise_room(&tight).unwrap_err().to_string();
        assert!(
            e.contains("term `1e288*size` can overflow") && e.contains("`noisy:` adds noise"),
            "{e}"
        );
        for fits in ["1e286*size,id", "delta,1e288*size", "-unlocks,id"] {
            check_noise_room(&parse(fits).unwrap()).unwrap();
        }
        // The error quotes the term as written.
        let written = "1E288 * size, id";
        let e = check_noise_room_as_written(&parse(written).unwrap(), written)
            .unwrap_err()
            .to_string();
        assert!(e.contains("term `1E288*size` can overflow"), "{e}");
        // The extremes of the sampler: U = 1 - 2^-53 and U = MIN_POSITIVE.
        let top = crate::rng::gumbel_f64(u64::MAX);
        let bottom = crate::rng::gumbel_f64(0);
        assert!(top > 36.0 && top <= GUMBEL_MAX, "{top}");
        assert!(bottom < -6.0 && -bottom <= GUMBEL_MAX, "{bottom}");
    }
}
