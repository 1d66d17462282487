//! The registry: every solver by name, with a one-line description.
//!
//! A name is either plain (`kahn`) or takes an argument after a colon
//! (`rule:delta,type,id`). [`build`] turns a name into a solver; [`list`]
//! describes them all for `memsched solvers` and `--help`.

use std::sync::Arc;

use thiserror::Error;

use super::published::{
    inductor_default, xla_default, InductorBfs, InductorDfs, InductorLpmf, XlaDfs, XlaList,
    XlaPostOrder,
};
use super::{Abilities, Brute, Dp, Exact, Kahn, ProgramOrder, Scheduler, SeedGreedy};

/// Why a solver name could not be turned into a solver.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SolverError {
    /// No built-in or registered solver has the name before the `:`.
    #[error("unknown solver `{name}`{hint}; known solvers: {}", .known.join(", "))]
    Unknown {
        /// The whole name as given (trimmed), argument included.
        name: String,
        /// A guess at the meant name (` (did you mean `kahn`?)`), or empty.
        hint: String,
        /// Every solver as [`list`] shows it (`kahn`, `rule:EXPR`,
        /// `anneal[:START]`, ...).
        known: Vec<String>,
    },
    /// A solver that requires an argument was named bare (or with an
    /// empty one after the `:`).
    #[error("solver `{name}` needs an argument: `{name}:{param}`")]
    MissingArgument {
        /// The solver's base name, e.g. `rule`.
        name: String,
        /// What the argument is, as usage shows it: `EXPR` or `PATH`.
        param: String,
    },
    /// A solver that takes no argument was given one.
    #[error("solver `{name}` takes no argument (got `{arg}`)")]
    UnexpectedArgument {
        /// The solver's base name, e.g. `kahn`.
        name: String,
        /// The text after the `:`.
        arg: String,
    },
    /// The argument did not parse, or the solver it makes is refused.
    #[error("bad argument for solver `{name}`: {message}")]
    BadArgument {
        /// The solver's base name, e.g. `rule` or `exact`.
        name: String,
        /// What is wrong, from the solver's own parser.
        message: String,
    },
    /// The expression of a `rule:`, `moves:` or `noisy:` solver (or one
    /// built on them) did not parse, or leaves no room for the noise: the
    /// same text as [`SolverError::BadArgument`], with the typed cause.
    #[error("bad argument for solver `{name}`: {error}")]
    BadRule {
        /// The solver's base name, e.g. `rule` or `noisy-moves`.
        name: String,
        /// What is wrong with the expression (in the message already, so
        /// not repeated as the error's `source`).
        error: super::rule::RuleError,
    },
    /// The solver exists but its cargo feature was left out of this build.
    #[error("solver `{name}` is not in this build: it needs the `{feature}` feature (on by default; this build of memsched left it out, e.g. with --no-default-features)")]
    NotBuilt {
        /// The solver's base name, e.g. `ilp`.
        name: String,
        /// The cargo feature that adds it.
        feature: String,
    },
    /// [`register`] refused the name.
    #[error("cannot register solver `{name}`: {reason}")]
    NotRegistered {
        /// The name passed to [`register`].
        name: String,
        /// Why: empty or ill-formed, a built-in's, or registered before.
        reason: String,
    },
}

/// Builds a registered solver from its argument (`None` for the bare name).
pub(crate) type Maker = dyn Fn(Option<&str>) -> Result<Box<dyn Scheduler>, String> + Send + Sync;

/// A solver registered by a program using memsched as a library.
struct Registered {
    name: String,
    /// The argument's placeholder, and whether the solver needs one
    /// (`mine:EXPR`) or may take one (`mine[:EXPR]`); `None` when the name
    /// was registered bare, so the maker alone decides.
    param: Option<(String, bool)>,
    summary: String,
    /// Shared so that [`build_registered`] can call it with the lock
    /// released: a maker may itself build, list or register solvers.
    make: Arc<Maker>,
}

/// The solvers [`register`]ed in this process, after the built-in ones.
static REGISTERED: std::sync::RwLock<Vec<Registered>> = std::sync::RwLock::new(Vec::new());

/// Registers a solver of your own under `name` for this process: from then
/// on [`build`] and [`list`] know it, and so does everything that builds
/// solvers by name, such as [`experiment::run`](crate::experiment::run)
/// with a config that names it. `make` gets the text after `name:`, if
/// any (`mine:fast` gives `Some("fast")`); an `Err` it returns becomes a
/// [`SolverError::BadArgument`], as does a solver whose `name()` is not the
/// name that built it (`mine`, `mine:fast`), which rows and resumes go by,
/// or a canonical spelling of it: `mine:FAST` may call itself `mine:fast`
/// when the solver built for `mine:fast` calls itself that too.
/// The name must be new (not a built-in solver's or one registered
/// before, in any case), non-empty, and without `:`, `[`, `]`, whitespace
/// or `,`, but for the argument forms below. `name:` with nothing after
/// the colon is refused before `make` sees it.
/// Registered as `mine:ARG`, the solver needs an argument: [`list`] shows
/// `mine:ARG`, and `build("mine")` is [`SolverError::MissingArgument`]
/// without calling `make`; as `mine[:ARG]` it may take one, and [`list`]
/// shows that (ARG any placeholder without spaces, `:` or `,`).
///
/// ```
/// use memsched::graph::Graph;
/// use memsched::solvers::{self, Kahn, Outcome, Scheduler, SolveContext};
///
/// /// Kahn's order, under a name of its own.
/// struct MyKahn;
///
/// impl Scheduler for MyKahn {
///     fn name(&self) -> String {
///         "my-kahn".into()
///     }
///     fn solve(&self, g: &Graph, ctx: &SolveContext) -> Outcome {
///         Kahn.solve(g, ctx)
///     }
/// }
///
/// let make = |arg: Option<&str>| match arg {
///     None => Ok(Box::new(MyKahn) as Box<dyn Scheduler>),
///     Some(a) => Err(format!("takes no argument (got `{a}`)")),
/// };
/// solvers::register("my-kahn", "Kahn's order, registered as an example", make)?;
/// assert_eq!(solvers::build("my-kahn")?.name(), "my-kahn");
/// assert!(solvers::build("my-kahn:x").is_err());
/// # Ok::<(), solvers::SolverError>(())
/// ```
pub fn register(
    name: &str,
    summary: &str,
    make: impl Fn(Option<&str>) -> Result<Box<dyn Scheduler>, String> + Send + Sync + 'static,
) -> Result<(), SolverError> {
    let refuse = |reason: &str| SolverError::NotRegistered {
        name: name.to_string(),
        reason: reason.to_string(),
    };
    let word =
        |w: &str| !w.is_empty() && !w.contains([':', ',']) && !w.contains(char::is_whitespace);
    let (base, param) = match name.split_once(':') {
        None => (name, None),
        Some((base, arg)) => match base.strip_suffix('[') {
            Some(base) => match arg.strip_suffix(']') {
                Some(p) if word(p) => (base, Some((p.to_string(), false))),
                _ => return Err(refuse("an optional argument is written `NAME[:ARG]`")),
            },
            None if word(arg) => (base, Some((arg.to_string(), true))),
            None => return Err(refuse(
                "an argument is written `NAME:ARG` or `NAME[:ARG]`, ARG without spaces, `:` or `,`",
            )),
        },
    };
    let name = base;
    if !word(name) || name.contains(['[', ']']) {
        return Err(refuse(
            "a name is non-empty, without `:`, `,`, `[`, `]` or spaces",
        ));
    }
    // Names that differ only in case would read as one in configs and tables.
    let same = |other: &str| other.eq_ignore_ascii_case(name);
    if ENTRIES.iter().any(|e| same(e.name)) || FEATURE_SOLVERS.iter().any(|(n, _)| same(n)) {
        return Err(refuse("a built-in solver has that name (ignoring case)"));
    }
    let mut registered = REGISTERED.write().unwrap_or_else(|e| e.into_inner());
    if registered.iter().any(|r| same(&r.name)) {
        return Err(refuse(
            "a solver was registered under that name (ignoring case) before",
        ));
    }
    registered.push(Registered {
        name: name.to_string(),
        param,
        summary: summary.to_string(),
        make: Arc::new(make),
    });
    Ok(())
}

/// The registered solver `base` built with `arg`, if there is one.
fn build_registered(
    base: &str,
    arg: Option<&str>,
) -> Option<Result<Box<dyn Scheduler>, SolverError>> {
    let (make, param) = {
        let registered = REGISTERED.read().unwrap_or_else(|e| e.into_inner());
        let r = registered.iter().find(|r| r.name == base)?;
        (Arc::clone(&r.make), r.param.clone())
    };
    let bad = |message: String| SolverError::BadArgument {
        name: base.to_string(),
        message,
    };
    match (param, arg) {
        (Some((param, true)), None | Some("")) => {
            return Some(Err(SolverError::MissingArgument {
                name: base.to_string(),
                param,
            }));
        }
        (Some((param, _)), Some("")) => return Some(Err(names_no(base, &param))),
        (None, Some("")) => {
            let message = format!(
                "`{base}:` names no argument: write `{base}`, or an argument after the colon \
                 if it takes one"
            );
            return Some(Err(bad(message)));
        }
        _ => {}
    }
    // Rows, resumes and reports know a solver by the name it gives: the
    // name asked for, or a spelling of it that builds itself (`mine:FAST`
    // may call itself `mine:fast` if `mine:fast` does too), as the
    // built-in rules name themselves by a canonical spelling.
    let wanted = arg.map_or(base.to_string(), |a| format!("{base}:{a}"));
    let canonical = |given: &str| match split_name(given) {
        (b, given_arg) if b == base && given_arg != Some("") => {
            make(given_arg).is_ok_and(|again| again.name() == given)
        }
        _ => false,
    };
    Some(
        make(arg)
            .map_err(bad)
            .and_then(|solver| match solver.name() {
                given if given == wanted || canonical(&given) => Ok(solver),
                given => Err(bad(format!(
                    "the solver built for `{wanted}` calls itself `{given}`: its `name()` must \
             return the name that builds it, or a spelling of it that builds a solver of that \
             same name"
                ))),
            }),
    )
}

/// Solvers behind a cargo feature, and the feature.
const FEATURE_SOLVERS: &[(&str, &str)] = &[("ilp", "ilp")];

/// A registry entry as shown to users.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SolverInfo {
    /// `kahn`; `rule:EXPR` for a solver that needs an argument;
    /// `anneal[:START]` for one that may take one.
    pub name: String,
    /// One line saying what it does.
    pub summary: String,
}

impl SolverInfo {
    /// The name that builds this solver without an argument (`kahn`,
    /// `anneal` of `anneal[:START]`), or `None` if it needs one (`rule:EXPR`).
    pub fn bare_name(&self) -> Option<&str> {
        match self.name.split_once("[:") {
            Some((bare, _)) => Some(bare),
            None if self.name.contains(':') => None,
            None => Some(&self.name),
        }
    }
}

type Make = fn(Option<&str>) -> Result<Box<dyn Scheduler>, SolverError>;

/// Whether a solver takes an argument after a colon, and its placeholder.
#[derive(Clone, Copy)]
enum Param {
    /// `kahn`: no argument.
    No,
    /// `rule:EXPR`: the argument must be given.
    Required(&'static str),
    /// `anneal[:START]`: the solver runs with or without it.
    Optional(&'static str),
}

impl Param {
    /// The placeholder and whether the argument is needed, as [`usage`]
    /// takes them.
    fn placeholder(self) -> Option<(&'static str, bool)> {
        match self {
            Param::No => None,
            Param::Required(p) => Some((p, true)),
            Param::Optional(p) => Some((p, false)),
        }
    }
}

struct Entry {
    name: &'static str,
    param: Param,
    summary: &'static str,
    make: Make,
}

fn plain<S: Scheduler + Default + 'static>(
    _: Option<&str>,
) -> Result<Box<dyn Scheduler>, SolverError> {
    Ok(Box::new(S::default()))
}

/// `orders:PATH`: orders read from files (see [`super::ExternalOrders`]).
fn make_orders(path: Option<&str>) -> Result<Box<dyn Scheduler>, SolverError> {
    let path = path.expect("the registry passes a required argument");
    Ok(Box::new(super::ExternalOrders::new(path)?))
}

/// `exact`, or `exact:OPTIONS` with the reductions OPTIONS names turned off
/// (an ablation: `exact:no-split,no-beam`).
fn make_exact(options: Option<&str>) -> Result<Box<dyn Scheduler>, SolverError> {
    let Some(text) = options else {
        return Ok(Box::new(Exact::default()));
    };
    let options =
        super::exact::Options::parse(text).map_err(|message| SolverError::BadArgument {
            name: "exact".into(),
            message,
        })?;
    Ok(Box::new(Exact::with_options(
        Exact::default_upper(),
        options,
    )))
}

const ENTRIES: &[Entry] = &[
    Entry {
        name: "program",
        param: Param::No,
        summary: "the order of the Nodes array (the baseline); fails if it breaks an edge",
        make: plain::<ProgramOrder>,
    },
    Entry {
        name: "kahn",
        param: Param::No,
        summary: "Kahn's topological sort, FIFO queue, memory-oblivious",
        make: plain::<Kahn>,
    },
    Entry {
        name: "seed-greedy",
        param: Param::No,
        summary: "the article's heap greedy on (delta, type FREE<compute<ALLOC, id), exact replica",
        make: plain::<SeedGreedy>,
    },
    // ---- heuristics: priority rules, published schedulers, randomized (issue 4) ----
    Entry {
        name: "rule",
        param: Param::Required("EXPR"),
        summary: "list scheduler: runs the ready node with the smallest key EXPR (e.g. delta,type,id; see docs/rules.md)",
        make: super::rule::make_rule,
    },
    Entry {
        name: "moves",
        param: Param::Required("EXPR"),
        summary: "EXPR applied to moves (a delta<=0 node plus the ALLOCs it still needs); moves:delta,type,id repairs the article's greedy",
        make: super::rule::make_moves,
    },
    Entry {
        name: "moves-greedy",
        param: Param::No,
        summary: "moves:delta,type,id, the article's greedy over moves (ALLOCs just in time)",
        make: super::rule::make_moves_greedy,
    },
    Entry {
        name: "random",
        param: Param::No,
        summary: "uniformly random ready node, seeded; best of --restarts K",
        make: super::rule::make_random,
    },
    Entry {
        name: "random-moves",
        param: Param::No,
        summary: "uniformly random move, seeded; best of --restarts K",
        make: super::rule::make_random_moves,
    },
    Entry {
        name: "noisy",
        param: Param::Required("EXPR"),
        summary: "rule:EXPR with seeded Gumbel noise on the first term; best of --restarts K, in parallel",
        make: super::rule::make_noisy,
    },
    Entry {
        name: "noisy-moves",
        param: Param::Required("EXPR"),
        summary: "moves:EXPR with seeded Gumbel noise on the first term; best of --restarts K, in parallel",
        make: super::rule::make_noisy_moves,
    },
    Entry {
        name: "xla-list",
        param: Param::No,
        summary: "XLA's list scheduler: ready op freeing most bytes minus bytes defined, then most users",
        make: plain::<XlaList>,
    },
    Entry {
        name: "xla-dfs",
        param: Param::No,
        summary: "XLA's DFS scheduler: post-order visiting operands by cumulative extra users, then size",
        make: plain::<XlaDfs>,
    },
    Entry {
        name: "xla-postorder",
        param: Param::No,
        summary: "XLA's post-order scheduler: DFS post-order from the user-less ops, no memory heuristic",
        make: plain::<XlaPostOrder>,
    },
    Entry {
        name: "xla-default",
        param: Param::No,
        summary: "XLA's default: the lowest peak of xla-list, xla-dfs and xla-postorder",
        make: |_| Ok(Box::new(xla_default())),
    },
    Entry {
        name: "inductor-lpmf",
        param: Param::No,
        summary: "Inductor's least-peak-memory-first: ready op that keeps the running peak lowest",
        make: plain::<InductorLpmf>,
    },
    Entry {
        name: "inductor-bfs",
        param: Param::No,
        summary: "Inductor's BFS: ready op whose operands ran earliest (FIFO)",
        make: plain::<InductorBfs>,
    },
    Entry {
        name: "inductor-dfs",
        param: Param::No,
        summary: "Inductor's DFS: post-order by increasing bytes defined plus bytes read",
        make: plain::<InductorDfs>,
    },
    Entry {
        name: "inductor-default",
        param: Param::No,
        summary: "Inductor's reorder_for_peak_memory: the lowest peak of program order, lpmf, bfs, dfs",
        make: |_| Ok(Box::new(inductor_default())),
    },

    // ---- local search and best-of (issue 4) ----
    Entry {
        name: "best-heuristic",
        param: Param::No,
        summary: "the lowest peak of twelve fast heuristics (program, kahn, seed-greedy, moves-greedy, an -unlocks rule, the single XLA and Inductor schedulers, exact's F2 greedy)",
        make: |_| Ok(Box::new(super::best_heuristic())),
    },
    Entry {
        name: "anneal",
        param: Param::Optional("START"),
        summary: "simulated annealing by single-node shifts from START's schedule (any solver but anneal; default best-heuristic); `length=K,` first runs K times the default moves; seeded, anytime",
        make: super::anneal::make_anneal,
    },

    Entry {
        name: "orders",
        param: Param::Required("PATH"),
        summary: "schedules made elsewhere, read from PATH (a directory of NAME.json files, or a .jsonl of {graph, order} lines, #SOLVER to pick one solver's) and checked like any solver's",
        make: make_orders,
    },

    // ---- exact solvers (issue 3) ----
    Entry {
        name: "brute",
        param: Param::No,
        summary: "every topological order (at most 12 nodes); for tests",
        make: plain::<Brute>,
    },
    Entry {
        name: "exact",
        param: Param::Optional("OPTIONS"),
        summary: "best-first search over downsets (F1 closure, F2 moves, F4 bounds); proven optimum or bound + gap; in-trees by `liu`; OPTIONS turns reductions off for ablations (no-liu, no-split, no-symmetry, no-descents, no-beam, no-polish)",
        make: make_exact,
    },
    Entry {
        name: "liu",
        param: Param::No,
        summary: "Liu's (1987) optimal schedule of an in-tree of ops, polynomial; fails on any other shape, naming the node that breaks it",
        make: plain::<super::Liu>,
    },
    Entry {
        name: "dp",
        param: Param::No,
        summary: "plain DP over downsets, every ready node a branch (SERENITY-style baseline)",
        make: plain::<Dp>,
    },
    // ---- ILP (issue 3) ----
    #[cfg(feature = "ilp")]
    Entry {
        name: "ilp",
        param: Param::No,
        summary:
            "time-indexed integer program on the reduced graph, HiGHS; optimal or best + dual bound",
        make: plain::<super::Ilp>,
    },
];

/// The plain names (no `EXPR`) of the solvers in this build with the
/// ability `has`, in registry order, then the [`register`]ed ones that
/// build without an argument: for messages that name them.
pub fn names_with(has: impl Fn(&Abilities) -> bool) -> Vec<String> {
    // A solver that needs an argument has no abilities of its own.
    let built_in = ENTRIES
        .iter()
        .filter(|e| !matches!(e.param, Param::Required(_)))
        .map(|e| e.name.to_string());
    // Copied out first: `build` takes the lock again.
    let registered: Vec<String> = REGISTERED
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .map(|r| r.name.clone())
        .collect();
    built_in
        .chain(registered)
        .filter(|name| build(name).is_ok_and(|s| has(&s.abilities())))
        .collect()
}

/// Every solver, in registry order.
pub fn list() -> Vec<SolverInfo> {
    let mut infos: Vec<SolverInfo> = ENTRIES
        .iter()
        .map(|e| SolverInfo {
            name: usage(e.name, e.param.placeholder()),
            summary: e.summary.to_string(),
        })
        .collect();
    let registered = REGISTERED.read().unwrap_or_else(|e| e.into_inner());
    infos.extend(registered.iter().map(|r| SolverInfo {
        name: usage(
            &r.name,
            r.param.as_ref().map(|(p, needed)| (p.as_str(), *needed)),
        ),
        summary: r.summary.clone(),
    }));
    infos
}

/// A solver's name as [`list`] shows it: `name:ARG` when `param` is an
/// argument it needs (`true`), `name[:ARG]` when it may take one, `name`
/// without one.
fn usage(name: &str, param: Option<(&str, bool)>) -> String {
    match param {
        Some((p, true)) => format!("{name}:{p}"),
        Some((p, false)) => format!("{name}[:{p}]"),
        None => name.to_string(),
    }
}

/// The error for `base:` with nothing after the colon, where `base` may
/// take an argument `param` but needs none.
fn names_no(base: &str, param: &str) -> SolverError {
    SolverError::BadArgument {
        name: base.to_string(),
        message: format!("`{base}:` names no {param}: write `{base}` or `{base}:{param}`"),
    }
}

/// Solvers left out of this build, each with the cargo feature that adds it
/// (`ilp` under `--no-default-features`).
pub fn not_built() -> Vec<(&'static str, &'static str)> {
    FEATURE_SOLVERS
        .iter()
        .filter(|(name, _)| !ENTRIES.iter().any(|e| e.name == *name))
        .copied()
        .collect()
}

/// A solver name's base and argument as [`build`] reads them: split at the
/// first colon, spaces around each part dropped (`" rule : delta,id"` is
/// `("rule", Some("delta,id"))`, `"kahn"` is `("kahn", None)`). Code that
/// looks at a name's base (`--rule-mode`) must read it this way, or it
/// misses spellings `build` accepts.
pub fn split_name(name: &str) -> (&str, Option<&str>) {
    let name = name.trim();
    match name.split_once(':') {
        Some((b, a)) => (b.trim(), Some(a.trim())),
        None => (name, None),
    }
}

/// What an unknown solver base name may have meant, as a clause of the
/// error (` (did you mean `xla-list`?)`), or empty: another case or `_` for
/// `-` (`XLA_list`), a typo of a letter or two (`khan`), or several names
/// in one (`kahn,exact`, `kahn exact`).
fn meant(base: &str) -> String {
    // `kahn,exact` or `kahn exact`: several solvers in one name.
    if let Some((first, _)) = base.split_once([',', ' ']) {
        if ENTRIES.iter().any(|e| e.name == first.trim()) {
            return " (one solver per name: repeat `--solver`/`-s` for each, or list each \
                    separately in a config)"
                .to_string();
        }
    }
    let respelled = base.to_ascii_lowercase().replace('_', "-");
    // Copied out: the registered names are guessed at too.
    let registered: Vec<String> = (REGISTERED.read().unwrap_or_else(|e| e.into_inner()))
        .iter()
        .map(|r| r.name.clone())
        .collect();
    let names = (ENTRIES.iter().map(|e| e.name)).chain(registered.iter().map(String::as_str));
    let same = |n: &str| n.to_ascii_lowercase().replace('_', "-") == respelled;
    match names.clone().find(|&n| same(n)) {
        Some(n) => crate::spelling::did_you_mean(&[n]),
        None => crate::spelling::did_you_mean(&crate::spelling::near_or_begun(&respelled, names)),
    }
}

/// Builds the solver called `name` (`kahn`, `rule:delta,id`, ...).
pub fn build(name: &str) -> Result<Box<dyn Scheduler>, SolverError> {
    let name = name.trim();
    let (base, arg) = split_name(name);
    let unknown = || match FEATURE_SOLVERS.iter().find(|(n, _)| *n == base) {
        Some((n, feature)) => SolverError::NotBuilt {
            name: n.to_string(),
            feature: feature.to_string(),
        },
        None => SolverError::Unknown {
            name: name.to_string(),
            hint: meant(base),
            known: list().into_iter().map(|i| i.name).collect(),
        },
    };
    let Some(entry) = ENTRIES.iter().find(|e| e.name == base) else {
        return build_registered(base, arg).unwrap_or_else(|| Err(unknown()));
    };
    match (entry.param, arg) {
        (Param::Optional(param), Some("")) => Err(names_no(base, param)),
        (Param::Required(param), Some("") | None) => Err(SolverError::MissingArgument {
            name: base.to_string(),
            param: param.to_string(),
        }),
        (Param::No, Some(arg)) => Err(SolverError::UnexpectedArgument {
            name: base.to_string(),
            arg: arg.to_string(),
        }),
        _ => (entry.make)(arg),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `exact:OPTIONS` turns reductions off, is named canonically, refuses
    /// an unknown option, and proves the same optimum as `exact`.
    #[test]
    fn exact_ablations_prove_the_same_optima() {
        assert_eq!(build("exact").unwrap().name(), "exact");
        assert_eq!(
            build("exact: no-beam , no-split").unwrap().name(),
            "exact:no-split,no-beam"
        );
        let err = build("exact:no-magic").err().unwrap().to_string();
        assert!(
            err.contains("unknown option `no-magic`") && err.contains("no-polish"),
            "{err}"
        );
        let err = build("exact:no-split,,no-beam").err().unwrap().to_string();
        assert!(
            err.contains("option 2 of `no-split,,no-beam` is empty"),
            "{err}"
        );
        // A repeat is a typo, as for anneal's `length`.
        let err = build("exact:no-liu,no-liu").err().unwrap().to_string();
        assert!(
            err.contains("option `no-liu` is given twice in `no-liu,no-liu`"),
            "{err}"
        );
        let ctx = crate::solvers::SolveContext::new(0, None);
        // Graphs where the search has work to do: the series-parallel one
        // splits at a cut point, the tensor program expands states; the
        // tree is `liu`'s.
        for spec in [
            "series-parallel",
            "tensor-program:ops=20",
            "tree:depth=2,arity=3",
        ] {
            let spec = crate::corpus::gen::GenSpec::parse(spec).unwrap();
            let g = crate::corpus::gen::generate(&spec, 2).unwrap();
            let full = crate::solvers::run(build("exact").unwrap().as_ref(), &g, &ctx);
            assert_eq!(full.status, crate::solvers::Status::Optimal);
            let all_off = format!("exact:{}", super::super::exact::ABLATIONS.join(","));
            let singles = super::super::exact::ABLATIONS.map(|a| format!("exact:{a}"));
            for name in singles.iter().chain([&all_off]) {
                let r = crate::solvers::run(build(name).unwrap().as_ref(), &g, &ctx);
                assert_eq!(
                    (r.status.clone(), r.peak),
                    (crate::solvers::Status::Optimal, full.peak),
                    "{name} on {spec}"
                );
                // The option reaches the search: without the split, no pieces.
                if name.contains("no-split") {
                    assert_eq!(r.counter("pieces"), None, "{name} on {spec}");
                }
            }
            let by_liu =
                |r: &crate::solvers::Report| r.note.as_deref().unwrap_or("").contains("Liu");
            if spec.family == "tree" {
                assert!(by_liu(&full), "{:?}", full.note);
                let searched =
                    crate::solvers::run(build("exact:no-liu").unwrap().as_ref(), &g, &ctx);
                assert!(!by_liu(&searched), "{:?}", searched.note);
            } else if spec.family == "series-parallel" {
                assert_eq!(full.counter("pieces"), Some(2), "exact splits this one");
            } else {
                assert!(
                    full.counter("states").unwrap() > 0,
                    "exact searches this one"
                );
            }
        }
    }

    #[test]
    fn every_listed_plain_name_builds_under_its_name() {
        for info in list() {
            let Some(name) = info.bare_name() else {
                continue;
            };
            let s = build(name).unwrap();
            assert_eq!(s.name(), name);
        }
    }

    /// The solvers that keep the best of `--restarts K` runs say so in
    /// their summary, and only they have the `restarts` ability.
    #[test]
    fn restarts_ability_matches_the_summaries() {
        for info in list() {
            let name = info.bare_name().map_or_else(
                || info.name.replace("EXPR", "delta,id").replace("PATH", "."),
                str::to_string,
            );
            let restarts = build(&name).unwrap().abilities().restarts;
            assert_eq!(restarts, info.summary.contains("--restarts K"), "{name}");
        }
        for name in [
            "random",
            "random-moves",
            "noisy:delta,id",
            " noisy-moves : id",
        ] {
            assert!(build(name).unwrap().abilities().restarts, "{name}");
        }
        for name in ["kahn", "rule:delta", "anneal", "moves:random"] {
            assert!(!build(name).unwrap().abilities().restarts, "{name}");
        }
    }

    /// A solver without the `budgeted` ability gives the same result under
    /// the smallest budget as under the default one (so `schedule` is right
    /// to warn that the budget flags change nothing for it), and the
    /// searches have the ability.
    #[test]
    fn budgeted_ability_is_honest() {
        use crate::corpus::gen::{generate, GenSpec};
        use crate::solvers::{run, Budget, SolveContext};
        let graphs: Vec<_> = [
            "tensor-program:ops=5",
            "tensor-program:ops=5,allocs=floating",
        ]
        .iter()
        .map(|spec| generate(&GenSpec::parse(spec).unwrap(), 3).unwrap())
        .collect();
        let tiny = SolveContext {
            budget: Budget {
                max_states: 1,
                max_memory_bytes: 1,
            },
            ..SolveContext::default()
        };
        for info in list() {
            let name = info.bare_name().map_or_else(
                || info.name.replace("EXPR", "delta,id").replace("PATH", "."),
                str::to_string,
            );
            let Ok(solver) = build(&name) else {
                continue; // not in this build
            };
            if solver.abilities().budgeted {
                continue;
            }
            for g in &graphs {
                let free = run(solver.as_ref(), g, &SolveContext::default());
                let bound = run(solver.as_ref(), g, &tiny);
                assert_eq!(
                    (free.status.label(), free.order),
                    (bound.status.label(), bound.order),
                    "{name} reads the budget"
                );
            }
        }
        for name in ["exact", "dp", "best-heuristic", "anneal"] {
            assert!(build(name).unwrap().abilities().budgeted, "{name}");
        }
    }

    /// A solver left out of this build by a cargo feature says so.
    #[cfg(not(feature = "ilp"))]
    #[test]
    fn a_solver_behind_a_feature_names_it() {
        let err = build("ilp").err().unwrap().to_string();
        assert!(
            err.contains("not in this build") && err.contains("`ilp` feature"),
            "{err}"
        );
    }

    #[test]
    fn unknown_name_lists_the_known_ones() {
        let err = build("nope").err().unwrap().to_string();
        assert!(err.contains("unknown solver `nope`; known"), "{err}");
        assert!(err.contains("seed-greedy"), "{err}");
    }

    #[test]
    fn several_names_in_one_say_to_give_each_its_own() {
        for several in [
            "kahn,exact",
            "kahn, rule:delta,id",
            "kahn exact",
            "kahn  rule:id",
        ] {
            let err = build(several).err().unwrap().to_string();
            assert!(
                err.contains("one solver per name: repeat `--solver`"),
                "{err}"
            );
        }
    }

    #[test]
    fn unknown_name_guesses_the_meant_one() {
        for (typed, meant) in [
            ("khan", "kahn"),
            ("XLA_list", "xla-list"),
            ("seed_greedy", "seed-greedy"),
            ("Exact:split", "exact"),
            ("rules:delta", "rule"),
        ] {
            let err = build(typed).err().unwrap().to_string();
            assert!(
                err.contains(&format!("did you mean `{meant}`?")),
                "{typed}: {err}"
            );
        }
    }
}
