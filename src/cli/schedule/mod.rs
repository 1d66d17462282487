//! `memsched schedule`: one graph, one or more solvers, checked reports.
//!
//! The flags and their values are read in `args.rs`, the solvers run in
//! `solve.rs`, and the reports, plots and output checks are `report.rs`'s;
//! [`run`] ties them together.

mod args;
mod report;
mod solve;

use args::{is_rule, time_limit, with_rule_mode};
pub use args::{Args, Format, RuleMode};
pub(super) use report::{check_outputs, default_format, plot_orders, reduction_pct, About};
use report::{
    check_outputs_miss_orders, json_document, plot, to_json, to_text, TERMINAL_ORDER_IDS,
};
use solve::{solve_all, Fate, STOP_GRACE};

use std::io::IsTerminal as _;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context as _;

use crate::experiment::catch::quiet_pool;
use crate::solvers::{
    self, rule, Abilities, Budget, ProgramOrder, Report, Scheduler, SolveContext, Status,
};
use crate::Graph;

use super::{
    check_out_file, check_output_is_not_an_input, compare, emit, is_broken_pipe, read_graph,
    seed_value, threads_value, InvalidInput,
};

/// Points to `best-heuristic` when every checked order peaks above the
/// program order: the default, the article's greedy, does on graphs whose
/// ALLOCs float (it runs them all first), and a newcomer would take its
/// order for the tool's best.
fn hint_if_program_is_lower(reports: &[Report], program: Option<u64>) {
    let best = reports.iter().filter_map(|r| r.peak).min();
    if let (Some(best), Some(program)) = (best, program) {
        if best > program {
            note!(
                "hint: the program order peaks lower ({program} B) than every order found; \
                 `-s best-heuristic` runs twelve fast heuristics, the program order among \
                 them, and keeps the lowest peak (`memsched solvers` lists every solver)"
            );
        }
    }
}

/// `memsched schedule`: reads the graph, runs the chosen solvers, checks
/// every order and writes the report (and the plot).
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let time_limit = time_limit(args.time_limit)?;
    let seed = seed_value(args.seed.unwrap_or(0))?;
    let threads = threads_value(args.threads)?;
    let restarts = restarts_value(args.restarts)?;
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
        check_trace(trace, &args, chosen.len())?;
    }
    let graph = Arc::new(read_graph(&args.graph)?);
    warn_if_no_latency(&graph, &args.graph, &chosen);
    let interrupt = super::interrupt::Interrupt::install(
        "ended at once by a second signal: a report not yet written is lost".to_string(),
    );
    let mut ctx = SolveContext::new(seed, time_limit);
    ctx.stop = Some(interrupt.stop());
    ctx.restarts = restarts.unwrap_or(1);
    ctx.budget = budget;
    ctx.graph_name = super::saved_for::name_of(&args.graph);
    let progress = chosen.len() > 1 && std::io::stderr().is_terminal();
    if time_limit.is_none() {
        note_unlimited_searches(&chosen, &graph);
    }
    let pool = worker_pool(threads)?;
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
    let text = report_text(
        format,
        args.out.as_deref(),
        &graph,
        (&reports, &fates),
        program.peak,
        &about,
    );
    match emit(args.out.as_deref(), &text) {
        Ok(()) => {}
        // The reader stopped early: it has what it wanted, and the exit
        // code below still says whether a solve failed.
        Err(e) if is_broken_pipe(&e) => {}
        Err(e) => return Err(e),
    }
    hint_if_program_is_lower(&reports, program.peak);
    let code = exit_code(&reports, &fates);
    if let Some(path) = &args.plot {
        plot(path, &args.graph, &graph, &reports)?;
    }
    if let (Some(path), [report]) = (&args.trace, reports.as_slice()) {
        super::trace::write(path, &graph, report, seed)?;
    }
    if interrupt.happened() {
        note_interrupted(args.out.as_deref(), stopped_a_solve);
        interrupt.end_as_interrupted();
        return Ok(ExitCode::from(interrupt.exit_status()));
    }
    Ok(code)
}

/// `--restarts K`: at least 1, and at most `u32::MAX`.
fn restarts_value(restarts: Option<i128>) -> Result<Option<u32>, InvalidInput> {
    match restarts {
        None => Ok(None),
        Some(k) if k < 1 => Err(InvalidInput(format!(
            "--restarts must be at least 1, got {k}"
        ))),
        Some(k) => u32::try_from(k)
            .map(Some)
            .map_err(|_| InvalidInput(format!("--restarts must be at most {}, got {k}", u32::MAX))),
    }
}

/// Refuses a `--trace` file that cannot be written beside the rest: `-`,
/// with several solvers, one of the inputs, or the `--out` or `--plot`
/// file.
fn check_trace(trace: &Path, args: &Args, solvers: usize) -> Result<(), InvalidInput> {
    if trace.as_os_str() == "-" {
        return Err(InvalidInput(
            "--trace needs a file name (`-` is not standard output here: the report is)".into(),
        ));
    }
    if solvers > 1 {
        return Err(InvalidInput(format!(
            "--trace takes one --solver ({solvers} given): trace each in its own run"
        )));
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
            )));
        }
    }
    Ok(())
}

/// Warns, for each chosen rule that reads `latency`, when no node of the
/// graph (read from `path`) has a `Latency`: the feature is then 0.
fn warn_if_no_latency(graph: &Graph, path: &str, chosen: &[(&str, Arc<dyn Scheduler>)]) {
    if graph.has_latencies() {
        return;
    }
    for (shown, _) in chosen
        .iter()
        .filter(|(shown, _)| rule::reads_latency(shown))
    {
        note!(
            "warning: no node of {} has a `Latency` value (a number), so `latency` is 0 for every \
             node in `{shown}`",
            super::saved_for::shown(path)
        );
    }
}

/// Without a time limit, a search may run for hours without a word on a
/// large graph: says how to stop it, on a terminal or in a script's log
/// (a caller without a terminal waits as long). `brute` refuses graphs
/// past a dozen nodes.
fn note_unlimited_searches(chosen: &[(&str, Arc<dyn Scheduler>)], graph: &Graph) {
    let searches: Vec<&str> = chosen
        .iter()
        .filter(|(_, s)| s.abilities().exact && s.name() != "brute")
        .map(|(shown, _)| &**shown)
        .collect();
    if searches.is_empty() || graph.node_count() < 100 {
        return;
    }
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

/// The pool of `--threads N` (none: rayon's global pool, one thread per
/// core).
fn worker_pool(threads: Option<usize>) -> anyhow::Result<Option<Arc<rayon::ThreadPool>>> {
    let Some(n) = threads else {
        return Ok(None);
    };
    super::warn_if_oversubscribed(n);
    // A solver's panic on a worker is its report's reason (see
    // `run_or_abandon`), not a message of the panic hook.
    let pool = quiet_pool(n).context("cannot start the worker threads")?;
    Ok(Some(Arc::new(pool)))
}

/// The report in `format`: JSON objects, one solver's text report (its
/// order cut short on a terminal), or the comparison table of several.
/// `fates` tell the solvers a Ctrl-C kept from starting (`"ran": false`).
fn report_text(
    format: Format,
    out: Option<&str>,
    graph: &Graph,
    (reports, fates): (&[Report], &[Fate]),
    program_peak: Option<u64>,
    about: &About,
) -> String {
    match (format, reports) {
        (Format::Json, _) => {
            let objects: Vec<String> = (reports.iter().zip(fates))
                .map(|(r, fate)| to_json(graph, r, *fate != Fate::NotRun, program_peak, about))
                .collect();
            json_document(&objects, out)
        }
        (Format::Text, [report]) => {
            let on_terminal = out.is_none() && std::io::stdout().is_terminal();
            let shown = on_terminal.then_some(TERMINAL_ORDER_IDS);
            to_text(graph, report, program_peak, shown, about)
        }
        (Format::Text, _) => compare::to_table(graph, reports, program_peak, about),
    }
}

/// Says what a stop (Ctrl-C, SIGTERM) left: a solver stopped at its best
/// so far (`stopped_a_solve`), or whole reports, written to `out` or above.
fn note_interrupted(out: Option<&str>, stopped_a_solve: bool) {
    let cause = super::interrupt::cause();
    let report = match out {
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

/// The flags [`warn_unread_flags`] looks at that the user gave.
struct Given {
    seed: bool,
    restarts: bool,
    max_states: bool,
    memory_budget: bool,
}

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

/// Warns about flags that none of the `chosen` solvers reads (`--rule-mode moves`,
/// `--seed`, `--restarts`, the budgets), naming them: such a flag is ignored.
/// A flag that one of several solvers reads is meant for that one.
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
