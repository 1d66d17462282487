//! Priority rules and their randomized variants, all registry solvers.
//!
//! - [`parse()`]: the rule language (`rule:delta,type,id`, `-height`,
//!   `0.7*delta+0.3*latency`), parsed into a [`Key`]; errors are [`RuleError`].
//! - [`check_decisive`], [`check_noise_room`]: what a parsed key must also
//!   pass (every term can decide a tie; `noisy:`'s noise fits on the first).
//! - [`features`]: what each feature means and how a key is encoded.
//! - [`Rule`] (`rule:EXPR`): list scheduling of ready nodes by the key.
//! - [`Moves`] (`moves:EXPR`): the key applied to moves (a delta <= 0 node
//!   with the ALLOCs it still needs); `moves:delta,type,id` is the repaired
//!   article greedy.
//! - [`RandomOrder`] (`random`, `random-moves`): uniform choice, seeded.
//! - [`Noisy`] (`noisy:EXPR`, `noisy-moves:EXPR`): the key plus Gumbel noise,
//!   best of `--restarts K` runs in parallel.
//!
//! The language and every feature are documented in `docs/rules.md`.

mod buckets;
mod checks;
mod features;
mod heap;
mod list;
mod moves;
mod noisy;
mod packed;
mod parse;
mod queue;
mod random;
mod tiered_heap;
mod trace;

pub use checks::{
    check_decisive, check_decisive_as_written, check_noise_room, check_noise_room_as_written,
};
pub use list::Rule;
pub use moves::Moves;
pub use noisy::Noisy;
pub use parse::{feature_list, parse, Feature, Key, RuleError, Term};
pub use random::RandomOrder;
pub use trace::{term_texts, trace, TraceStep};

/// Whether the solver called `name` ranks by a rule of its own or of its
/// start: `rule:`, `moves:`, `noisy:`, `noisy-moves:`, or an `anneal:` of
/// one of them.
pub fn reads_any_rule(name: &str) -> bool {
    match crate::solvers::split_name(name) {
        ("anneal", Some(start)) => reads_any_rule(start),
        ("rule" | "moves" | "noisy" | "noisy-moves", Some(_)) => true,
        _ => false,
    }
}

/// Whether the solver named `name` is a rule (`rule:`, `moves:`,
/// `noisy:`, `noisy-moves:`, or one as `anneal:`'s start; names split as
/// the registry splits them) whose key reads `latency`, as the rule parser
/// reads it (so `orders:latency_dir` does not count): on a graph with no
/// `Latency` field that term is 0 for every node.
pub fn reads_latency(name: &str) -> bool {
    match crate::solvers::split_name(name) {
        ("anneal", Some(start)) => reads_latency(start),
        ("rule" | "moves" | "noisy" | "noisy-moves", Some(expr)) => {
            parse(expr).is_ok_and(|key| key.uses(Feature::Latency))
        }
        _ => false,
    }
}

// Registry constructors (used by `solvers::registry`): a parse error becomes
// `SolverError::BadRule`, whose `RuleError` names the bad term and lists the
// features.

use crate::solvers::{Scheduler, SolverError};

type Made = Result<Box<dyn Scheduler>, SolverError>;

/// The key of the rule `arg` for the solver `name`: parsed, with no term
/// that never decides; a `noisy` rule's first term is spared that check
/// (later terms may break its noisy ties) and must leave room for the
/// noise.
fn rule_key(name: &str, arg: Option<&str>, noisy: bool) -> Result<Key, SolverError> {
    let bad = |error| SolverError::BadRule {
        name: name.to_string(),
        error,
    };
    let key = parse(arg.unwrap_or("")).map_err(bad)?;
    check_decisive_as_written(&key, noisy, arg.unwrap_or("")).map_err(bad)?;
    if noisy {
        check_noise_room_as_written(&key, arg.unwrap_or("")).map_err(bad)?;
    }
    Ok(key)
}

/// `rule:EXPR`.
pub(crate) fn make_rule(arg: Option<&str>) -> Made {
    Ok(Box::new(Rule::new(rule_key("rule", arg, false)?)))
}

/// `moves:EXPR`.
pub(crate) fn make_moves(arg: Option<&str>) -> Made {
    Ok(Box::new(Moves::new(rule_key("moves", arg, false)?)))
}

/// `moves-greedy`: `moves:delta,type,id` under a plain name.
pub(crate) fn make_moves_greedy(_: Option<&str>) -> Made {
    let key = rule_key("moves-greedy", Some("delta,type,id"), false)?;
    Ok(Box::new(Moves::named(key, "moves-greedy")))
}

/// `random`.
pub(crate) fn make_random(_: Option<&str>) -> Made {
    Ok(Box::new(RandomOrder { moves: false }))
}

/// `random-moves`.
pub(crate) fn make_random_moves(_: Option<&str>) -> Made {
    Ok(Box::new(RandomOrder { moves: true }))
}

/// `noisy:EXPR`.
pub(crate) fn make_noisy(arg: Option<&str>) -> Made {
    Ok(Box::new(Noisy::new(rule_key("noisy", arg, true)?, false)))
}

/// `noisy-moves:EXPR`.
pub(crate) fn make_noisy_moves(arg: Option<&str>) -> Made {
    Ok(Box::new(Noisy::new(
        rule_key("noisy-moves", arg, true)?,
        true,
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The registry's rule solvers refuse a term that never decides;
    /// `noisy:` lets later terms break its first term's ties.
    #[test]
    fn rule_solvers_refuse_terms_that_never_decide() {
        for made in [
            make_rule(Some("id,delta")),
            make_moves(Some("delta,delta")),
            make_noisy(Some("delta,id,type")),
            make_noisy_moves(Some("type,delta,delta")),
        ] {
            let error = made.err().expect("refused").to_string();
            assert!(error.contains("never decides"), "{error}");
        }
        assert!(make_noisy(Some("delta,delta")).is_ok());
        assert!(make_rule(Some("delta,type,id")).is_ok());
    }

    /// The latency warning's test: rules whose key reads `latency`, as the
    /// parser reads it, and nothing else.
    #[test]
    fn latency_is_read_by_rules_naming_it_only() {
        assert!(reads_latency("rule:0.7*delta+0.3*latency,id"));
        assert!(reads_latency("noisy:-latency,id"));
        assert!(reads_latency("anneal:moves:latency"));
        assert!(reads_latency("rule : latency,id"));
        assert!(reads_latency("anneal : noisy-moves : -latency,id"));
        assert!(!reads_latency("orders:latency_dir"));
        assert!(!reads_latency("rule:delta,id"));
        assert!(!reads_latency("kahn"));
    }
}
