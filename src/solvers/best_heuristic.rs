//! `best-heuristic`: twelve fast heuristics (the eleven registry solvers
//! below and the exact search's move greedy, `move-greedy` in notes), the
//! lowest checked peak kept. Other rules can beat it on some graphs.

use super::{registry, BestOf, MoveGreedy, Scheduler};

/// The fast heuristics `best-heuristic` runs, in tie-breaking order: the
/// baselines, the article's greedy and its repair over moves, a dynamic
/// rule (most unlocks first), and the published XLA and Inductor
/// schedulers; the exact search's F2 greedy ([`MoveGreedy`]) comes last.
/// Randomized and local-search solvers are left out: they are not single
/// fast passes.
pub const MEMBERS: &[&str] = &[
    "program",
    "kahn",
    "seed-greedy",
    "moves-greedy",
    "rule:-unlocks,-frees_after,delta,id",
    "xla-list",
    "xla-dfs",
    "xla-postorder",
    "inductor-lpmf",
    "inductor-bfs",
    "inductor-dfs",
];

/// The best of [`MEMBERS`] plus the exact search's move greedy; the upper
/// bound of `exact` and the start of `anneal`. Wrong wherever all its members
/// are (e.g. the fork-joins of `memsched gen adversarial`), which is why the
/// exact solvers exist.
pub fn best_heuristic() -> BestOf {
    let mut members: Vec<Box<dyn Scheduler>> = MEMBERS
        .iter()
        .map(|name| registry::build(name).expect("best-heuristic members are registry names"))
        .collect();
    members.push(Box::new(MoveGreedy));
    BestOf::new("best-heuristic", members)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::gen::{generate, GenSpec};
    use crate::solvers::{run, SolveContext};

    #[test]
    fn best_heuristic_is_no_worse_than_any_member() {
        let spec = GenSpec::parse("random-layered:layers=8,width=4,allocs=floating").unwrap();
        for seed in 0..5 {
            let g = generate(&spec, seed).unwrap();
            let ctx = SolveContext::default();
            let best = run(&best_heuristic(), &g, &ctx);
            assert!(best.valid(), "{}", best.status);
            for name in MEMBERS {
                let r = run(registry::build(name).unwrap().as_ref(), &g, &ctx);
                if let Some(p) = r.peak {
                    assert!(best.peak.unwrap() <= p, "{name} beat best-heuristic");
                }
            }
        }
    }

    /// Under a time limit that has passed before they start, the members
    /// that watch the clock stop; the result is the best of the others and
    /// the note says how many stopped.
    #[test]
    fn the_note_counts_the_members_a_time_limit_stopped() {
        let spec = GenSpec::parse("tensor-program:ops=3000").unwrap();
        let g = generate(&spec, 0).unwrap();
        let ctx = SolveContext::new(0, Some(std::time::Duration::from_nanos(1)));
        let r = run(&best_heuristic(), &g, &ctx);
        assert!(r.valid(), "{}", r.status);
        let note = r.note.unwrap();
        let n = MEMBERS.len() + 1;
        assert!(
            note.contains(&format!(" of {n} members stopped by the time limit")),
            "{note}"
        );
        let full = run(&best_heuristic(), &g, &SolveContext::default());
        assert!(!full.note.unwrap().contains("stopped"));
    }
}
