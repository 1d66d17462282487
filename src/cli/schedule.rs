//! `memsched schedule`: one graph, one or more solvers, checked reports.

use std::fmt::Write as _;
use std::io::IsTerminal as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use clap::ValueEnum;
use serde_json::json;

use crate::experiment::catch::{catch_panic, quiet_thread};
use crate::experiment::plots::{tetris, IMAGE_EXTENSIONS};
use crate::experiment::records::Profile;
use crate::experiment::rows::PANICKED;
use crate::graph::NodeIdx;
use crate::solvers::{
    self, rule, Abilities, Budget, Fallback, ProgramOrder, Report, Scheduler, SolveContext, Status,
};
use crate::Graph;

use super::{
    check_out_file, check_output_is_not_an_input, check_parent_dir, compare, count, emit,
    human_bytes, is_broken_pipe, percent, read_graph, seed_value, threads_value, InvalidInput,
};

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum Format {
    Text,
    Json,
}

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Graph file in seed JSON format (`-` reads standard input), or a
    /// generated graph's name as `runs.csv` gives it, `SPEC#SEED` (e.g.
    /// `random-layered:layers=12,width=4#3`): generated when no file has
    /// that name.
    #[arg(value_name = "GRAPH")]
    graph: String,
    /// Solver name (see `memsched solvers`), e.g. `seed-greedy` or `kahn`.
    /// Repeat it to compare solvers on the graph (`-s seed-greedy -s
    /// 'rule:-height,id' -s exact`): they run one after another, each under
    /// the same flags, and the report becomes a table (with `--format
    /// json`, one object per line, or an array in a `-o FILE.json`). A
    /// `rule:EXPR` is a comma-separated key of features, each maybe `-`
    /// (descending) or in a weighted sum
    /// (`0.7*delta+0.3*latency`); the features: delta, type, id, size,
    /// in_degree, out_degree, depth, height, unlocks, frees_after,
    /// live_after, rise, latency, random (docs/rules.md).
    #[arg(long, short, default_value = "seed-greedy")]
    solver: Vec<String>,
    /// Output format. Default: `json` when `--out` ends in `.json` or
    /// `.jsonl`, else `text`. The text report's `order` line lists every
    /// id, except on a terminal, where an order of more than 200 nodes
    /// shows its first 200 and a count (`-o FILE`, a pipe or `--format
    /// json` keep them all).
    #[arg(long, value_enum)]
    format: Option<Format>,
    /// Write the report here instead of standard output (`.json` or
    /// `.jsonl`: the JSON report, unless `--format text`; with several
    /// solvers, a `.json` file holds a JSON array of their reports and
    /// anything else one object per line, JSON Lines).
    #[arg(long, short)]
    out: Option<String>,
    /// Also draw live memory over the steps of each solver's checked
    /// schedule into this file, a PNG or an SVG by its extension (e.g.
    /// `memory.svg`): one line per solver, its peak in the legend.
    #[arg(long, value_name = "FILE")]
    plot: Option<PathBuf>,
    /// Also write the schedule step by step into this CSV file: `step`
    /// (from 1), `id`, `op`, `type`, `delta`, `memory_after`, `ready` (how
    /// many nodes were ready, the one run among them) and, for a `rule:EXPR`
    /// solver, one column per term of EXPR (`term1:TEXT`, ...) with the value the rule ranked
    /// the node by at that step (`live_after` ranks as `delta`; `unlocks`
    /// and `frees_after` as of that step), then `runner_up` (the ready node
    /// ranked next), `decided_by` (the first term the two differ on, or
    /// `id`) and `runner_up_value`: to see why a rule chose what it chose.
    /// Takes one --solver. If the solver returns no valid schedule,
    /// no trace is written, and a trace an earlier run left in the file is
    /// removed (as is such a plot at `--plot`).
    #[arg(long, value_name = "FILE.csv")]
    trace: Option<PathBuf>,
    /// Wall-clock limit for each solver, in seconds (fractions allowed).
    /// Default: none, the solver runs until it is done. Ctrl-C acts as the
    /// limit.
    ///
    /// `exact`, `dp` and `ilp` can run for hours on large graphs (and `dp`
    /// can fill gigabytes): bound a run with this and `--memory-budget`.
    /// Past the limit a solver returns its best order so far (status
    /// `feasible`, with a lower bound where it has one), or `timed_out` if
    /// it has none. Below 1.8e19.
    ///
    /// Overruns: `ilp` by one HiGHS step plus the model's construction
    /// (docs/ilp.md); on graphs of millions of nodes any solver by its
    /// set-up (a pass or two over the graph before it first looks at the
    /// clock).
    ///
    /// Ctrl-C: the solver running stops at its best so far, the solvers
    /// after it do not run (`timed_out`, noted "not run"), the report is
    /// written, and the exit is as Ctrl-C's (status 130). `ilp` stops at
    /// HiGHS's next limit check in its branch and bound, but not during
    /// HiGHS's set-up or inside an LP solve (the root LP can take
    /// minutes): a solver that has not stopped 5 s later is left behind,
    /// reported with the order it had before HiGHS. A second Ctrl-C, half a
    /// second or more after the first, ends at once. SIGTERM acts as Ctrl-C
    /// (status 143), and so does SIGHUP (the terminal closed; 129).
    #[arg(long, value_name = "SECONDS", allow_negative_numbers = true)]
    time_limit: Option<f64>,
    /// Seed for randomized solvers (0 to 18446744073709551615): `random`,
    /// `random-moves`, `noisy:EXPR`, `noisy-moves:EXPR`, `anneal`, and rules
    /// that read `random` (the solvers `memsched solvers` calls seeded);
    /// `ilp` hands it to HiGHS, whose search it steers. Default 0.
    #[arg(long, allow_negative_numbers = true)]
    seed: Option<i128>,
    /// Runs of a randomized solver (`random`, `random-moves`, `noisy:EXPR`,
    /// `noisy-moves:EXPR`), best kept; run in parallel. For an
    /// `anneal:START` whose START is one of them, the runs pick the start
    /// and the annealing runs once from it (so a larger K need not end
    /// lower). A rule that reads `random` runs once (loop over --seed for
    /// several). At least 1; default 1.
    #[arg(long, value_name = "K", allow_negative_numbers = true)]
    restarts: Option<i128>,
    /// Worker threads for the solvers that work in parallel: the restarts
    /// of `noisy:EXPR`, `random` and the others that take `--restarts`, and
    /// the members of `best-heuristic` on large graphs. Default: every core
    /// (or `RAYON_NUM_THREADS` if set); at most 4096. Without `--time-limit`
    /// the result is the same for any number.
    #[arg(long, short = 'j', value_name = "N")]
    threads: Option<usize>,
    /// What a `rule:EXPR` key ranks: single ready nodes, or moves (a delta <= 0
    /// node together with the ALLOCs it still needs). `moves` turns `rule:E` into `moves:E`
    /// (`noisy:E` stays as it is: its move form is `noisy-moves:E`).
    #[arg(long, value_enum, default_value_t = RuleMode::Nodes)]
    rule_mode: RuleMode,
    /// Most bytes the tables of a search may hold (read by `exact`, `dp` and
    /// the solvers that run one: `best-heuristic`, `anneal`), e.g.
    /// `512MiB` or `2GiB` (suffixes KiB, MiB, GiB, TiB, or K, M, G, T for
    /// the same binary units; plain number: bytes).
    /// Past it the search stops and returns its best order so far. The figure
    /// is the search's own estimate of its tables: the process uses more.
    /// [default: 4GiB]
    // The default is written above rather than given to clap, so that a
    // budget the user names (even the default) can be told from none, as
    // --seed and --restarts are.
    #[arg(
        long,
        value_name = "BYTES",
        value_parser = parse_bytes,
        allow_negative_numbers = true
    )]
    memory_budget: Option<u64>,
    /// Most states a search may store before it stops (read by `exact`, `dp`,
    /// `best-heuristic`, `anneal`). [default: 50000000]
    #[arg(
        long,
        value_name = "N",
        value_parser = parse_states,
        allow_negative_numbers = true
    )]
    max_states: Option<u64>,
}

/// Reads a byte count: an integer with an optional binary suffix (`KiB`,
/// `MiB`, `GiB`, `TiB`; `K`, `M`, `G`, `T` and `B` are accepted too).
fn parse_bytes(text: &str) -> Result<u64, String> {
    let t = text.trim();
    if t.starts_with('-') {
        return Err("must be a positive number of bytes".into());
    }
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, suffix) = t.split_at(split);
    if suffix.starts_with(['.', ',']) {
        return Err("must be a whole number of bytes or units (fractions such as 1.5GiB are not supported: write 1536MiB)".into());
    }
    let unit: u64 = match suffix.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kib" => 1 << 10,
        "m" | "mib" => 1 << 20,
        "g" | "gib" => 1 << 30,
        "t" | "tib" => 1 << 40,
        unit @ ("kb" | "mb" | "gb" | "tb") => {
            let binary = format!("{}iB", unit[..1].to_ascii_uppercase());
            let power = 1 + "kmgt".find(&unit[..1]).expect("one of kmgt") as u32;
            // Digits only: a number that does not parse is past u64.
            let n = digits.parse::<u64>().ok();
            let in_binary = n.and_then(|n| n.checked_mul(1 << (10 * power)));
            if !digits.is_empty() && in_binary.is_none() {
                // Too large in the binary unit; in the decimal one, maybe not.
                let decimal = n.and_then(|n| n.checked_mul(10u64.pow(3 * power)));
                return Err(match decimal {
                    Some(bytes) => format!(
                        "`{}` is ambiguous (decimal or binary), and {digits}{binary} is too \
                         large: write the number of bytes ({bytes} for decimal)",
                        suffix.trim()
                    ),
                    None => format!("too large: at most {} bytes", u64::MAX),
                });
            }
            // Only a spelling that would be read is suggested.
            let readable = in_binary.is_some_and(|b| b >= 1);
            let write = match readable {
                true => format!("{digits}{binary}"),
                false => format!("a positive number with {binary}"),
            };
            return Err(format!(
                "`{}` is ambiguous (decimal or binary): write {write} (binary; {} means the \
                 same) or a number of bytes",
                suffix.trim(),
                &binary[..1]
            ));
        }
        _ => {
            return Err(format!(
                "unknown unit `{}`: write bytes, or a number with KiB, MiB, GiB or TiB (e.g. 2GiB)",
                suffix.trim()
            ))
        }
    };
    let too_large = || format!("too large: at most {} bytes", u64::MAX);
    let n: u64 = digits.parse().map_err(|_| match digits.is_empty() {
        true => "not a non-negative whole number of bytes (e.g. 536870912 or 512MiB)".to_string(),
        // Digits only, so past u64.
        false => too_large(),
    })?;
    let bytes = n.checked_mul(unit).ok_or_else(too_large)?;
    if bytes == 0 {
        return Err("must be at least 1 byte".into());
    }
    Ok(bytes)
}

/// Reads a state count: a positive whole number.
fn parse_states(text: &str) -> Result<u64, String> {
    match text.trim().parse::<u64>() {
        Ok(n) if n >= 1 => Ok(n),
        Ok(_) => Err("must be at least 1".into()),
        Err(_) => Err(format!(
            "must be a whole number from 1 to {} (e.g. 1000000)",
            u64::MAX
        )),
    }
}

/// Reads `--time-limit`: a positive number of seconds within Duration's range.
fn time_limit(t: Option<f64>) -> Result<Option<Duration>, InvalidInput> {
    let Some(t) = t else { return Ok(None) };
    if t.is_nan() || t <= 0.0 {
        return Err(InvalidInput(format!(
            "--time-limit must be a positive number of seconds, got {t}"
        )));
    }
    // Durations count whole nanoseconds (and round to them).
    if t < 1e-9 {
        return Err(InvalidInput(format!(
            "--time-limit {t:e} is below a nanosecond, the clock's unit: it must be at least 1e-9"
        )));
    }
    // try_from: `from_secs_f64` panics on values beyond Duration's range (1.8e19).
    let limit = Duration::try_from_secs_f64(t).map_err(|_| {
        let shown = if t.is_finite() { format!("{t:e}") } else { format!("{t}") };
        InvalidInput(format!(
            "--time-limit {shown} is too large: it must be below 1.8e19 seconds (leave the flag out for no limit)"
        ))
    })?;
    Ok(Some(limit))
}

#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum RuleMode {
    Nodes,
    Moves,
}

/// Whether `name` is a `rule:EXPR`, spelt in any way the registry reads
/// (`rule:E`, ` rule : E`): the solvers `--rule-mode` applies to.
fn is_rule(name: &str) -> bool {
    matches!(solvers::split_name(name), ("rule", Some(_)))
}

/// Applies `--rule-mode moves` to a solver name: `rule:EXPR` (however
/// spaced) becomes `moves:EXPR`; any other name is left as it is.
fn with_rule_mode(name: &str, mode: RuleMode) -> String {
    match (mode, solvers::split_name(name)) {
        (RuleMode::Moves, ("rule", Some(expr))) => format!("moves:{expr}"),
        _ => name.to_string(),
    }
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let time_limit = time_limit(args.time_limit)?;
    let seed = seed_value(args.seed.unwrap_or(0))?;
    let threads = threads_value(args.threads)?;
    let restarts = match args.restarts {
        None => None,
        Some(k) if k < 1 => {
            return Err(InvalidInput(format!("--restarts must be at least 1, got {k}")).into())
        }
        Some(k) => Some(u32::try_from(k).map_err(|_| {
            InvalidInput(format!("--restarts must be at most {}, got {k}", u32::MAX))
        })?),
    };
    let chosen = args
        .solver
        .iter()
        .map(|shown| {
            let solver = solvers::build(&with_rule_mode(shown, args.rule_mode))?;
            Ok((shown.trim(), Arc::<dyn Scheduler>::from(solver)))
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    let default = Budget::default();
    let budget = Budget {
        max_states: args.max_states.unwrap_or(default.max_states),
        max_memory_bytes: args.memory_budget.unwrap_or(default.max_memory_bytes),
    };
    let given = Given {
        seed: args.seed.is_some(),
        restarts: restarts.is_some(),
        max_states: args.max_states.is_some(),
        memory_budget: args.memory_budget.is_some(),
    };
    warn_unread_flags(&chosen, args.rule_mode, given);
    warn_repeated_solvers(&chosen);
    check_outputs(
        args.out.as_deref(),
        args.plot.as_deref(),
        &[("graph", &args.graph)],
    )?;
    check_outputs_miss_orders(
        &chosen,
        args.out.as_deref(),
        args.plot.as_deref(),
        args.trace.as_deref(),
    )?;
    if let Some(trace) = &args.trace {
        if trace.as_os_str() == "-" {
            return Err(InvalidInput(
                "--trace needs a file name (`-` is not standard output here: the report is)".into(),
            )
            .into());
        }
        if chosen.len() > 1 {
            return Err(InvalidInput(format!(
                "--trace takes one --solver ({} given): trace each in its own run",
                chosen.len()
            ))
            .into());
        }
        check_output_is_not_an_input("--trace", trace, &[("graph", &args.graph)])?;
        check_out_file("--trace", trace)?;
        let others = [
            ("--out", args.out.as_deref().map(Path::new)),
            ("--plot", args.plot.as_deref()),
        ];
        for (flag, other) in others {
            if other.is_some_and(|o| o.as_os_str() != "-" && super::same_output(o, trace)) {
                return Err(InvalidInput(format!(
                    "--trace and {flag} name one file ({}): give each its own",
                    trace.display()
                ))
                .into());
            }
        }
    }
    let graph = Arc::new(read_graph(&args.graph)?);
    if !graph.has_latencies() {
        for (shown, _) in chosen
            .iter()
            .filter(|(shown, _)| rule::reads_latency(shown))
        {
            note!(
                "warning: no node of {} has a `Latency` value (a number), so `latency` is 0 for every \
                 node in `{shown}`",
                super::saved_for::shown(&args.graph)
            );
        }
    }
    let interrupt = super::interrupt::Interrupt::install(
        "ended at once by a second signal: a report not yet written is lost".to_string(),
    );
    let mut ctx = SolveContext::new(seed, time_limit);
    ctx.stop = Some(interrupt.stop());
    ctx.restarts = restarts.unwrap_or(1);
    ctx.budget = budget;
    ctx.graph_name = super::saved_for::name_of(&args.graph);
    let progress = chosen.len() > 1 && std::io::stderr().is_terminal();
    // A search with no limit may run for hours without a word on a large
    // graph: say how to stop it, on a terminal or in a script's log (a
    // caller without a terminal waits as long). `brute` refuses graphs past
    // a dozen nodes.
    let searches: Vec<&str> = chosen
        .iter()
        .filter(|(_, s)| s.abilities().exact && s.name() != "brute")
        .map(|(shown, _)| &**shown)
        .collect();
    if time_limit.is_none() && !searches.is_empty() && graph.node_count() >= 100 {
        // `ilp`, `ilp-plain`, or one inside another (`anneal:ilp`).
        let ilp = match chosen.iter().any(|(_, s)| s.name().contains("ilp")) {
            true => {
                " (`ilp` during HiGHS's set-up or inside an LP solve, which a stop cannot \
                 interrupt, is left behind after 5 s, with the order it had before HiGHS)"
            }
            false => "",
        };
        note!(
            "note: no --time-limit, so {} may search for a long time; Ctrl-C (or SIGTERM) stops \
             the running solver at its best so far{ilp} and writes the report",
            searches.join(", ")
        );
    }
    let pool = match threads {
        None => None,
        Some(n) => {
            super::warn_if_oversubscribed(n);
            Some(Arc::new(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(n)
                    // A solver's panic on a worker is its report's reason (see
                    // `run_or_abandon`), not a message of the panic hook.
                    .start_handler(|_| quiet_thread())
                    .build()
                    .context("cannot start the worker threads")?,
            ))
        }
    };
    let (reports, fates) = solve_all(&chosen, &graph, &ctx, &pool, &interrupt, progress);
    // A signal after this stopped no solver: the reports are whole.
    let stopped_a_solve = interrupt.happened();
    let program = solvers::run(&ProgramOrder, &graph, &SolveContext::default());
    // A bound above a checked peak (another solver's, or program order's)
    // is a solver bug: its row becomes invalid rather than a proof.
    let mut reports = reports;
    solvers::refute_bounds(&mut reports, program.peak.map(|p| (p, "program")));
    let about = About::new(
        &args.graph,
        &chosen,
        seed,
        ctx.restarts,
        time_limit.map(|t| t.as_secs_f64()),
    );
    let format = args
        .format
        .unwrap_or_else(|| default_format(args.out.as_deref()));
    let text = match (format, reports.as_slice()) {
        (Format::Json, _) => {
            let objects: Vec<String> = (reports.iter())
                .map(|r| to_json(&graph, r, program.peak, &about))
                .collect();
            json_document(&objects, args.out.as_deref())
        }
        (Format::Text, [report]) => {
            let on_terminal = args.out.is_none() && std::io::stdout().is_terminal();
            let shown = on_terminal.then_some(TERMINAL_ORDER_IDS);
            to_text(&graph, report, program.peak, shown, &about)
        }
        (Format::Text, _) => compare::to_table(&graph, &reports, program.peak, &about),
    };
    match emit(args.out.as_deref(), &text) {
        Ok(()) => {}
        // The reader stopped early: it has what it wanted, and the exit
        // code below still says whether a solve failed.
        Err(e) if is_broken_pipe(&e) => {}
        Err(e) => return Err(e),
    }
    let code = exit_code(&reports, &fates);
    if let Some(path) = &args.plot {
        plot(path, &args.graph, &graph, &reports)?;
    }
    if let (Some(path), [report]) = (&args.trace, reports.as_slice()) {
        super::trace::write(path, &graph, report, seed)?;
    }
    if interrupt.happened() {
        let cause = super::interrupt::cause();
        let report = match args.out.as_deref() {
            Some(path) if path != "-" => format!("in {path}"),
            _ => "above".to_string(),
        };
        if stopped_a_solve {
            note!(
                "interrupted ({cause}): the solver running stopped at its best so far, as at a \
                 time limit (or, if it did not stop within {} s, was left behind, with the order \
                 it had posted before, if any), and any after it did not run; the report \
                 {report} is what they had",
                STOP_GRACE.as_secs(),
            );
        } else {
            note!(
                "interrupted ({cause}) after every solver had finished: the report {report} \
                 is whole, and the files it wrote are complete"
            );
        }
        interrupt.end_as_interrupted();
        return Ok(ExitCode::from(interrupt.exit_status()));
    }
    Ok(code)
}

/// Runs each chosen solver in turn on its own thread (see
/// [`Solve::run_or_abandon`]), each report beside what became of it; after
/// Ctrl-C the rest do not run, and the reports say so.
fn solve_all(
    chosen: &[(&str, Arc<dyn Scheduler>)],
    graph: &Arc<Graph>,
    ctx: &SolveContext,
    pool: &Option<Arc<rayon::ThreadPool>>,
    interrupt: &super::interrupt::Interrupt,
    progress: bool,
) -> (Vec<Report>, Vec<Fate>) {
    chosen
        .iter()
        .enumerate()
        .map(|(i, (shown, solver))| {
            if interrupt.happened() {
                return (not_run(solver.name()), Fate::NotRun);
            }
            if progress {
                note!("[{}/{}] {shown}", i + 1, chosen.len());
            }
            let solve = Solve {
                solver: solver.clone(),
                graph: Arc::clone(graph),
                ctx: ctx.clone(),
                pool: pool.clone(),
            };
            let (mut report, fate) = solve.run_or_abandon(interrupt);
            if interrupt.happened() {
                // A solver whose note names its end names the signal
                // (`limit_cause`); the others are marked here.
                let cause = super::interrupt::cause();
                report.note = Some(match report.note.take() {
                    Some(n) if n.contains(cause) => n,
                    Some(n) => format!("interrupted ({cause}); {n}"),
                    None => format!("interrupted ({cause})"),
                });
            }
            (report, fate)
        })
        .unzip()
}

/// The exit code of the solves: 1 when one returned no valid schedule or a
/// wrong bound, or was left behind after Ctrl-C; each such solve, and each
/// one Ctrl-C kept from starting, is named on standard error.
fn exit_code(reports: &[Report], fates: &[Fate]) -> ExitCode {
    let mut code = ExitCode::SUCCESS;
    for (report, fate) in reports.iter().zip(fates) {
        let note = report.note.as_deref().unwrap_or_default();
        // A posted order the checker refused is an error like any other.
        let left_behind = match *fate {
            Fate::LeftBehind { posted } => !posted || report.valid(),
            Fate::Ran | Fate::NotRun => false,
        };
        if *fate == Fate::NotRun {
            note!("solver {}: {note}", report.solver);
            continue;
        } else if left_behind {
            note!("solver {}: {note}", report.solver);
        } else if !report.valid() {
            note!(
                "error: solver {} returned no valid schedule: {}",
                report.solver,
                report.status
            );
        } else if let Status::Invalid(why) = &report.status {
            // A checked order beside a wrong bound (`refute_bounds`).
            note!("error: solver {}: {why}", report.solver);
        } else {
            continue;
        }
        code = ExitCode::from(1);
    }
    code
}

/// How long a solver may take to stop after Ctrl-C before `schedule`
/// leaves it behind and writes the report without its answer: `ilp`
/// cannot stop during HiGHS's set-up of the MIP or inside an LP it solves
/// (its interrupt callback reaches the branch and bound only), and the root
/// LP alone can take minutes without `--time-limit`.
const STOP_GRACE: Duration = Duration::from_secs(5);

/// How the note of a solver left behind after Ctrl-C begins.
const LEFT_BEHIND: &str = "left without an answer";
/// How it begins when the solver had posted an order before (its
/// [`Fallback`]).
const LEFT_BEHIND_POSTED: &str = "left behind, with the order it had before HiGHS";

/// What became of a solver under Ctrl-C, beside its report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fate {
    /// It ran and returned (stopped by the signal or not).
    Ran,
    /// The signal came before it started.
    NotRun,
    /// It did not stop within [`STOP_GRACE`]; `posted`: its report holds
    /// the order it had posted before.
    LeftBehind { posted: bool },
}

/// One solve, run on a thread of its own so that it can be left behind.
struct Solve {
    solver: Arc<dyn Scheduler>,
    graph: Arc<Graph>,
    ctx: SolveContext,
    /// The `--threads` pool, for the solver's parallel work.
    pool: Option<Arc<rayon::ThreadPool>>,
}

impl Solve {
    /// The solve's report; once Ctrl-C came and the solver has not
    /// returned within [`STOP_GRACE`], the checked order it posted to its
    /// [`Fallback`] before an uninterruptible phase (`ilp`'s start, before
    /// HiGHS), or else a `timed_out` report, each saying so (the solver's
    /// thread ends with the process, after the report). A panic in the
    /// solver is a `failed` report (`panicked: MESSAGE`), as a row of `run`
    /// is, so the other solvers' reports are kept.
    fn run_or_abandon(mut self, interrupt: &super::interrupt::Interrupt) -> (Report, Fate) {
        let name = self.solver.name();
        let fallback = Fallback::default();
        self.ctx.fallback = Some(fallback.clone());
        let graph = Arc::clone(&self.graph);
        let (tx, rx) = mpsc::channel();
        let started = Instant::now();
        let thread = std::thread::Builder::new()
            .name(format!("solve {name}"))
            // The main thread's usual 8 MiB, where the solves ran before
            // without `--threads` (a spawned thread gets 2 MiB; with it the
            // solve runs on a pool worker, as before).
            .stack_size(8 << 20)
            .spawn({
                let name = name.clone();
                move || {
                    let solve = || solvers::run(self.solver.as_ref(), &self.graph, &self.ctx);
                    let report = catch_panic(|| match &self.pool {
                        Some(pool) => pool.install(solve),
                        None => solve(),
                    })
                    .unwrap_or_else(|message| failed(name, format!("{PANICKED}: {message}")));
                    let _ = tx.send(report);
                }
            });
        let thread = match thread {
            Ok(t) => t,
            Err(e) => {
                let why = format!("cannot start a thread for the solve: {e}");
                return (failed(name, why), Fate::Ran);
            }
        };
        let mut asked_to_stop: Option<Instant> = None;
        loop {
            match rx.recv_timeout(Duration::from_millis(20)) {
                Ok(report) => return (report, Fate::Ran),
                Err(mpsc::RecvTimeoutError::Disconnected) => match thread.join() {
                    Err(panic) => std::panic::resume_unwind(panic),
                    Ok(()) => {
                        let why = "the solve ended without a report".into();
                        return (failed(name, why), Fate::Ran);
                    }
                },
                Err(mpsc::RecvTimeoutError::Timeout) if interrupt.happened() => {
                    let since = *asked_to_stop.get_or_insert_with(Instant::now);
                    if since.elapsed() >= STOP_GRACE {
                        let why = format!(
                            "it did not stop within {} s of {} (`ilp` cannot stop during \
                             HiGHS's set-up or inside an LP solve; give it a --time-limit)",
                            STOP_GRACE.as_secs(),
                            super::interrupt::cause()
                        );
                        let Some(posted) = fallback.take() else {
                            let note = format!("{LEFT_BEHIND}: {why}");
                            let report = Report::unsolved(
                                name,
                                Status::TimedOut,
                                Some(note),
                                started.elapsed(),
                            );
                            return (report, Fate::LeftBehind { posted: false });
                        };
                        let mut report =
                            solvers::posted_report(name, &graph, posted, started.elapsed());
                        report.note = Some(format!("{LEFT_BEHIND_POSTED}: {why}"));
                        return (report, Fate::LeftBehind { posted: true });
                    }
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
            }
        }
    }
}

/// A report of `solver` with status `failed` for `why`, no order.
fn failed(solver: String, why: String) -> Report {
    Report::unsolved(solver, Status::Failed(why), None, Duration::ZERO)
}

/// The note of a solver that Ctrl-C (or SIGTERM) kept from starting.
fn not_run_note() -> String {
    format!(
        "not run: interrupted ({}) before it started",
        super::interrupt::cause()
    )
}

/// The report of a solver that Ctrl-C kept from starting: no order.
fn not_run(solver: String) -> Report {
    Report::unsolved(
        solver,
        Status::TimedOut,
        Some(not_run_note()),
        Duration::ZERO,
    )
}

/// Refuses, before anything is read or solved, an `--out` or `--plot` file
/// that is one of the `inputs` (see [`check_output_is_not_an_input`]) and a
/// `--plot` file that cannot be drawn (see [`check_plot_path`]).
pub(super) fn check_outputs(
    out: Option<&str>,
    plot: Option<&Path>,
    inputs: &[(&str, &str)],
) -> Result<(), InvalidInput> {
    if let Some(out) = out.filter(|&o| o != "-") {
        check_output_is_not_an_input("--out", Path::new(out), inputs)?;
        check_out_file("--out", Path::new(out))?;
    }
    if let Some(plot) = plot {
        check_output_is_not_an_input("--plot", plot, inputs)?;
        check_plot_path(plot, out)?;
    }
    Ok(())
}

/// Refuses an `--out`, `--plot` or `--trace` file that an `orders:` solver
/// among `chosen` reads: its `.jsonl` file, or any path in its directory
/// (it reads this graph's order there, and a report left there would be
/// taken for another graph's), new or not, so the same command runs twice.
fn check_outputs_miss_orders(
    chosen: &[(&str, Arc<dyn Scheduler>)],
    out: Option<&str>,
    plot: Option<&Path>,
    trace: Option<&Path>,
) -> Result<(), InvalidInput> {
    let outputs = [
        ("--out", out.filter(|&o| o != "-").map(Path::new)),
        ("--plot", plot),
        ("--trace", trace),
    ];
    for (name, _) in chosen {
        // Spelled as the registry reads it (`orders : od` too).
        let (base, Some(argument)) = solvers::split_name(name) else {
            continue;
        };
        if base != "orders" {
            continue;
        }
        let source = solvers::orders_source_path(argument);
        for (flag, path) in outputs {
            let Some(path) = path else {
                continue;
            };
            let dir = match path.parent() {
                Some(dir) if dir.as_os_str().is_empty() => Path::new("."),
                Some(dir) => dir,
                None => continue,
            };
            let inside = source.is_dir() && super::same_file(dir, source);
            if inside || super::same_file(path, source) {
                return Err(InvalidInput(format!(
                    "{flag} {}: `{name}` reads its orders from {}, so nothing is written \
                     there; name a file elsewhere",
                    path.display(),
                    source.display()
                )));
            }
        }
    }
    Ok(())
}

/// Refuses a `--plot` file that is a directory, is `--out`'s file, is
/// neither `.png` nor `.svg` or lies in no directory, before any solve.
fn check_plot_path(path: &Path, out: Option<&str>) -> Result<(), InvalidInput> {
    let refuse = |why: String| Err(InvalidInput(format!("--plot {}: {why}", path.display())));
    if path.is_dir() {
        return refuse("it is a directory: name a .png or .svg file".into());
    }
    if out.is_some_and(|o| o != "-" && super::same_output(Path::new(o), path)) {
        return refuse("--out names the same file: the plot would replace the report".into());
    }
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    if !IMAGE_EXTENSIONS.contains(&ext.to_ascii_lowercase().as_str()) {
        return Err(InvalidInput(format!(
            "--plot {}: the file name must end in .png or .svg (the format is taken from it)",
            path.display()
        )));
    }
    check_parent_dir("--plot", path)
}

/// Draws the memory profile of every valid report into `path`; warns and
/// draws nothing when no report is valid.
fn plot(path: &Path, name: &str, g: &Graph, reports: &[Report]) -> anyhow::Result<()> {
    let orders: Vec<(&str, &[NodeIdx])> = reports
        .iter()
        .filter_map(|r| Some((r.solver.as_str(), r.order.as_deref()?)))
        .collect();
    plot_orders(path, name, g, &orders)
}

/// Draws the memory profile of each labelled order of `g` (read from the
/// file `name`) into `path`; warns and draws nothing when there is none.
/// Each order is checked again on the way (an invalid one is left out).
pub(super) fn plot_orders(
    path: &Path,
    name: &str,
    g: &Graph,
    orders: &[(&str, &[NodeIdx])],
) -> anyhow::Result<()> {
    let shown = match Path::new(name).file_name() {
        _ if name == "-" => "standard input".into(),
        Some(file) => file.to_string_lossy(),
        None => name.into(),
    };
    let lines: Vec<(String, Profile)> = orders
        .iter()
        .filter_map(|&(label, order)| {
            let profile = Profile::of_order(g, order, &shown, label, 0)?;
            Some((label.to_string(), profile))
        })
        .collect();
    if lines.is_empty() {
        note!(
            "warning: no valid schedule to plot: {} not written{}",
            path.display(),
            super::remove_stale_output(path)
        );
        return Ok(());
    }
    let title = format!("memory over the steps of {shown}");
    tetris::draw_file(path, &title, &lines)
        .with_context(|| format!("cannot draw {}", path.display()))
}

/// The flags [`warn_unread_flags`] looks at that the user gave.
struct Given {
    seed: bool,
    restarts: bool,
    max_states: bool,
    memory_budget: bool,
}

/// Warns about flags that none of the `chosen` solvers reads (`--rule-mode moves`,
/// `--seed`, `--restarts`, the budgets), naming them: such a flag is ignored.
/// A flag that one of several solvers reads is meant for that one.
/// Two `-s` that build the same solver (`rule:delta` and `rule: delta`, or
/// `rule:E` and `moves:E` under `--rule-mode moves`) run it twice, each
/// with its own row: said, as an experiment config refuses them.
fn warn_repeated_solvers(chosen: &[(&str, Arc<dyn Scheduler>)]) {
    for (i, (shown, solver)) in chosen.iter().enumerate() {
        let name = solver.name();
        if let Some((first, _)) = chosen[..i].iter().find(|(_, s)| s.name() == name) {
            note!(
                "warning: `{first}` and `{shown}` are the same solver `{name}`: it runs twice, \
                 with a row each"
            );
        }
    }
}

fn warn_unread_flags(chosen: &[(&str, Arc<dyn Scheduler>)], rule_mode: RuleMode, given: Given) {
    let Given {
        seed,
        restarts,
        max_states,
        memory_budget,
    } = given;
    let named = || {
        let names: Vec<String> = chosen.iter().map(|(s, _)| format!("`{s}`")).collect();
        let noun = if names.len() == 1 {
            "solver"
        } else {
            "solvers"
        };
        format!("{noun} {}", names.join(", "))
    };
    let none = |reads: &dyn Fn(&str, &dyn Scheduler) -> bool| {
        !chosen.iter().any(|(shown, s)| reads(shown, s.as_ref()))
    };
    if rule_mode == RuleMode::Moves && none(&|shown, _| is_rule(shown)) {
        note!(
            "warning: --rule-mode moves has no effect on {} (it turns rule:EXPR into moves:EXPR)",
            named()
        );
    }
    let reads_seed = |a: Abilities| a.seeded || a.steered_by_seed;
    if seed && none(&|_, s| reads_seed(s.abilities())) {
        let steered = solvers::names_with(|a| a.steered_by_seed);
        note!(
            "warning: --seed has no effect on {} (only the seeded solvers read it: {}, \
             noisy:EXPR, noisy-moves:EXPR and rules that read `random`{})",
            named(),
            solvers::names_with(|a| a.seeded).join(", "),
            match steered.is_empty() {
                true => String::new(),
                false => format!("; and {}, whose search it steers", steered.join(", ")),
            }
        );
    }
    if restarts && none(&|_, s| s.abilities().restarts) {
        note!(
            "warning: --restarts has no effect on {} (only the solvers whose `memsched solvers` line says \"best of --restarts K\" restart, and an `anneal:START` whose START is one)",
            named()
        );
    }
    if (max_states || memory_budget) && none(&|_, s| s.abilities().budgeted) {
        let given = match (max_states, memory_budget) {
            (true, true) => "--max-states and --memory-budget have",
            (true, false) => "--max-states has",
            _ => "--memory-budget has",
        };
        note!(
            "warning: {given} no effect on {} (only {} read them)",
            named(),
            solvers::names_with(|a| a.budgeted).join(", ")
        );
    }
}

/// The JSON report of one or several solves (`objects`, one per solver):
/// one object; or, for several, JSON Lines (one object per line) on
/// standard output and in a `.jsonl` file, and one JSON array (an object
/// per line) in a `.json` file, which a JSON reader takes whole.
fn json_document(objects: &[String], out: Option<&str>) -> String {
    let is_json_file = out
        .and_then(|o| Path::new(o).extension())
        .is_some_and(|e| e.eq_ignore_ascii_case("json"));
    match objects {
        [_, _, ..] if is_json_file => format!("[\n{}\n]\n", objects.join(",\n")),
        _ => objects.iter().map(|o| format!("{o}\n")).collect(),
    }
}

/// The format `--out` asks for by its extension: JSON for `.json` and
/// `.jsonl`, else text.
pub(super) fn default_format(out: Option<&str>) -> Format {
    let ext = out
        .and_then(|o| Path::new(o).extension())
        .map(|e| e.to_ascii_lowercase());
    match ext.as_ref().and_then(|e| e.to_str()) {
        Some("json" | "jsonl") => Format::Json,
        _ => Format::Text,
    }
}

/// What a report is of, besides the solver: the graph as named on the
/// command line and the flags that decide a seeded or timed result, so
/// that a saved report says how to get it again.
#[derive(Debug, Default)]
pub struct About {
    /// The graph as given (`standard input` for `-`); `None`: not shown.
    pub graph: Option<String>,
    /// `seed 7, restarts 4, time limit 2 s`: the settings that apply to
    /// some solver of the report (`None` when none does).
    pub settings: Option<String>,
    /// `--seed` (0 by default), for the JSON report.
    seed: u64,
    /// `--restarts` (1 by default), for the JSON report.
    restarts: u32,
    /// `--time-limit` in seconds, for the JSON report.
    time_limit: Option<f64>,
}

impl About {
    /// The settings line names the seed when a solver is seeded, the
    /// restarts when one restarts and K > 1, and the time limit when set.
    fn new(
        graph: &str,
        chosen: &[(&str, Arc<dyn Scheduler>)],
        seed: u64,
        restarts: u32,
        time_limit: Option<f64>,
    ) -> About {
        let any = |has: fn(&Abilities) -> bool| chosen.iter().any(|(_, s)| has(&s.abilities()));
        let mut parts = Vec::new();
        if any(|a| a.seeded) {
            parts.push(format!("seed {seed}"));
        }
        if restarts > 1 && any(|a| a.restarts) {
            parts.push(format!("restarts {restarts}"));
        }
        if let Some(t) = time_limit {
            parts.push(format!("time limit {t} s"));
        }
        // A generated graph by its canonical name (as runs.csv spells it).
        let name = match super::saved_for::generated_name(graph) {
            Some(Ok((spec, seed))) => format!("{spec}#{seed}"),
            _ => super::saved_for::shown(graph).to_string(),
        };
        About {
            graph: Some(name),
            settings: (!parts.is_empty()).then(|| parts.join(", ")),
            seed,
            restarts,
            time_limit,
        }
    }

    /// `g.json: 24 nodes, 47 edges` (without the name when not shown).
    pub(super) fn graph_line(&self, g: &Graph) -> String {
        let size = format!(
            "{}, {}",
            count(g.node_count(), "node"),
            count(g.edge_count(), "edge")
        );
        match &self.graph {
            Some(name) => format!("{name}: {size}"),
            None => size,
        }
    }
}

/// The reduction of `peak` against `base`, in percent; 0 against a 0 B
/// base (every peak of such a graph is 0), as an experiment's
/// `reduction_pct` has it.
pub(super) fn reduction_pct(peak: Option<u64>, base: Option<u64>) -> Option<f64> {
    match (peak, base) {
        (Some(p), Some(b)) if b > 0 => Some(100.0 * (b as f64 - p as f64) / b as f64),
        (Some(_), Some(_)) => Some(0.0),
        _ => None,
    }
}

fn to_json(g: &crate::Graph, r: &Report, program_peak: Option<u64>, about: &About) -> String {
    let counters: serde_json::Map<String, serde_json::Value> = r
        .counters
        .iter()
        .map(|(k, v)| (k.clone(), json!(v)))
        .collect();
    let value = json!({
        "graph": about.graph,
        "seed": about.seed,
        "restarts": about.restarts,
        "time_limit_s": about.time_limit,
        "solver": r.solver,
        "status": r.status.label(),
        "reason": r.status.reason(),
        "valid": r.valid(),
        "peak": r.peak,
        "program_peak": program_peak,
        "reduction_pct": reduction_pct(r.peak, program_peak),
        "lower_bound": r.lower_bound,
        "gap_pct": r.gap_pct(),
        "final_memory": r.final_memory,
        "nodes": g.node_count(),
        "edges": g.edge_count(),
        "time_ms": r.time.as_secs_f64() * 1e3,
        "counters": counters,
        "note": r.note,
        "order": r.order.as_ref().map(|o| g.to_ids(o)),
    });
    serde_json::to_string(&value).expect("a JSON value always serializes")
}

/// Most ids of an order the text report shows on a terminal.
const TERMINAL_ORDER_IDS: usize = 200;

/// The text report; its `order` line shows at most `shown` ids (all with
/// `None`), then how many more there are.
fn to_text(
    g: &crate::Graph,
    r: &Report,
    program_peak: Option<u64>,
    shown: Option<usize>,
    about: &About,
) -> String {
    let opt = |x: Option<u64>| x.map(human_bytes).unwrap_or_else(|| "-".into());
    let mut lines: Vec<(String, String)> = vec![
        ("solver".into(), r.solver.clone()),
        ("status".into(), r.status.to_string()),
        ("graph".into(), about.graph_line(g)),
    ];
    if let Some(settings) = &about.settings {
        lines.push(("settings".into(), settings.clone()));
    }
    lines.extend([
        ("peak".into(), opt(r.peak)),
        (
            "program peak".into(),
            program_peak.map_or("- (the Nodes order breaks an edge)".into(), human_bytes),
        ),
    ]);
    if let Some(red) = reduction_pct(r.peak, program_peak) {
        lines.push((
            "reduction".into(),
            format!("{} vs program order", percent(red)),
        ));
    }
    lines.push(("lower bound".into(), opt(r.lower_bound)));
    if let Some(gap) = r.gap_pct() {
        lines.push((
            "gap".into(),
            format!(
                "{} above the lower bound, so at most {} above the optimum",
                percent(gap),
                percent(gap)
            ),
        ));
    }
    lines.push((
        "time".into(),
        format!("{:.3} ms", r.time.as_secs_f64() * 1e3),
    ));
    for (k, v) in &r.counters {
        lines.push((k.to_string(), v.to_string()));
    }
    if let Some(note) = &r.note {
        lines.push(("note".into(), note.clone()));
    }
    if let Some(order) = &r.order {
        let shown = shown.unwrap_or(order.len()).min(order.len());
        let ids: Vec<String> = order[..shown]
            .iter()
            .map(|&v| g.id(v).to_string())
            .collect();
        let mut line = ids.join(" ");
        if shown < order.len() {
            let _ = write!(
                line,
                " ... and {} more (all {} with -o FILE or --format json)",
                order.len() - shown,
                order.len()
            );
        }
        lines.push(("order".into(), line));
    }
    // Values line up after the longest label (a counter's may be long).
    let width = lines.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
    let mut s = String::new();
    for (k, v) in lines {
        let _ = writeln!(s, "{k:<width$} {v}");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The text report lists the whole order unless told to show fewer
    /// ids (on a terminal), and then says how many it left out and how to
    /// get them.
    #[test]
    fn text_order_is_whole_unless_capped() {
        let g = crate::corpus::gen::generate(
            &crate::corpus::gen::GenSpec::parse("chain:length=3").unwrap(),
            0,
        )
        .unwrap();
        let report = solvers::run(&solvers::Kahn, &g, &SolveContext::default());
        let order_line = |shown| {
            let text = to_text(&g, &report, None, shown, &About::default());
            let line = text.lines().find(|l| l.starts_with("order")).unwrap();
            line.trim_start_matches("order").trim().to_string()
        };
        let all: Vec<String> = g
            .to_ids(report.order.as_ref().unwrap())
            .iter()
            .map(|id| id.to_string())
            .collect();
        let n = all.len();
        assert!(n > 4);
        assert_eq!(order_line(None), all.join(" "));
        assert_eq!(order_line(Some(n)), all.join(" "));
        assert_eq!(
            order_line(Some(4)),
            format!(
                "{} ... and {} more (all {n} with -o FILE or --format json)",
                all[..4].join(" "),
                n - 4
            )
        );
    }

    /// `--rule-mode moves` reads a name as the registry does: a space
    /// around the colon or the name still makes `rule:E` into `moves:E`,
    /// and the conversion names the same solver as writing `moves:E`.
    #[test]
    fn rule_mode_converts_every_spelling_the_registry_reads() {
        for name in [
            "rule:delta,type,id",
            "rule :delta,type,id",
            " rule : delta,type,id ",
            "rule\t:delta,type,id",
        ] {
            assert!(is_rule(name), "{name:?}");
            let moved = with_rule_mode(name, RuleMode::Moves);
            assert_eq!(moved, "moves:delta,type,id", "{name:?}");
            assert_eq!(
                solvers::build(&moved).unwrap().name(),
                solvers::build("moves:delta,type,id").unwrap().name()
            );
            assert_eq!(with_rule_mode(name, RuleMode::Nodes), name);
        }
        for name in [
            "noisy:delta",
            "rules:delta",
            "anneal:rule:delta",
            "kahn",
            "rule",
        ] {
            assert!(!is_rule(name), "{name:?}");
            assert_eq!(with_rule_mode(name, RuleMode::Moves), name);
        }
    }

    /// `--solver`'s help lists the rule features as the parser knows them.
    #[test]
    fn solver_help_lists_every_feature() {
        use clap::CommandFactory;
        #[derive(clap::Parser)]
        struct Cli {
            #[command(flatten)]
            args: Args,
        }
        let help = Cli::command().render_long_help().to_string();
        let help: String = help.split_whitespace().collect::<Vec<_>>().join(" ");
        let features = rule::feature_list();
        assert!(
            help.contains(&format!("the features: {features} (docs/rules.md)")),
            "{help}"
        );
    }

    #[test]
    fn memory_budget_default_is_the_library_default_and_units_parse() {
        assert_eq!(parse_bytes("4GiB"), Ok(Budget::default().max_memory_bytes));
        // The help states both defaults, which clap does not check.
        use clap::CommandFactory;
        #[derive(clap::Parser)]
        struct Cli {
            #[command(flatten)]
            args: Args,
        }
        // In `--help` and in `-h`, which shows a flag's first paragraph.
        let states = Budget::default().max_states;
        for help in [
            Cli::command().render_long_help().to_string(),
            Cli::command().render_help().to_string(),
        ] {
            let help: String = help.split_whitespace().collect::<Vec<_>>().join(" ");
            for default in [
                "[default: 4GiB]".to_string(),
                format!("[default: {states}]"),
            ] {
                assert!(help.contains(&default), "{default}: {help}");
            }
        }
        assert_eq!(parse_bytes("512MiB"), Ok(512 << 20));
        assert_eq!(parse_bytes("3k"), Ok(3 << 10));
        assert_eq!(parse_bytes("1000"), Ok(1000));
        assert!(parse_bytes("1.5GiB").unwrap_err().contains("1536MiB"));
        assert_eq!(
            parse_bytes("2GB"),
            Err(
                "`GB` is ambiguous (decimal or binary): write 2GiB (binary; G means the same) \
                 or a number of bytes"
                    .into()
            )
        );
        // Only a spelling that would be read is suggested.
        for bad in ["0GB", "GB"] {
            let err = parse_bytes(bad).unwrap_err();
            assert!(
                err.starts_with(
                    "`GB` is ambiguous (decimal or binary): write a positive number with GiB"
                ),
                "{bad}: {err}"
            );
        }
        assert!(parse_bytes("2XB")
            .unwrap_err()
            .starts_with("unknown unit `XB`"));
        for bad in ["", "0", "-1", "1.5GiB", "2XB", "GiB", "16777216TiB"] {
            assert!(parse_bytes(bad).is_err(), "{bad}");
        }
        // Too large in any unit: no spelling is suggested.
        for huge in [
            "99999999999999999999",
            "16777216TiB",
            "20000000TB",
            "99999999999999999999GB",
        ] {
            assert!(
                parse_bytes(huge).unwrap_err().starts_with("too large"),
                "{huge}"
            );
        }
        // Too large in TiB but not in decimal terabytes: the bytes are suggested.
        let err = parse_bytes("18000000TB").unwrap_err();
        assert!(
            err.contains("18000000TiB is too large: write the number of bytes (18000000000000000000 for decimal)"),
            "{err}"
        );
    }
}
