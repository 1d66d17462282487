//! `memsched run`: run an experiment config (resuming), then the final pass.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use crate::experiment::results_dir::{self, REJECTED, RUNS};
use crate::experiment::{self, Config, Plan, RunOptions, RunSummary, Shard};
use crate::solvers;

use super::InvalidInput;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Experiment config (`experiments/NAME.toml`).
    #[arg(value_name = "CONFIG")]
    config: PathBuf,
    /// Worker threads (default: every core).
    ///
    /// At most 4096, and never more than the larger of the solves to run
    /// and the cores.
    #[arg(long, short = 'j', value_name = "N")]
    threads: Option<usize>,
    /// Output directory (default: `results/NAME`, or `results/NAME/shard-K-of-N` with --shard).
    #[arg(long, short, value_name = "DIR")]
    out: Option<PathBuf>,
    /// No progress on standard error (for CI and batch jobs).
    ///
    /// Without it, a terminal shows a bar; otherwise (output to a file or a pipe) a
    /// line is written at every tenth of the solves (after the first, at
    /// most one a second),
    /// at least every 30 s and at the end: `[memsched] 44/126 solves, 12.3 s elapsed, ~20 s left (at
    /// most 3 min 30 s at the time limit)`: the estimate from the mean time
    /// so far, and the worst case if every solve left runs to the limit.
    #[arg(long, short)]
    quiet: bool,
    /// Run only the K-th of N shares of the items (K from 0).
    ///
    /// An item's share
    /// depends only on its graph, solver and seed, so editing the config
    /// moves no finished item; join shards with `memsched merge`.
    #[arg(long, value_name = "K/N")]
    shard: Option<String>,
    /// Discard existing results instead of resuming.
    ///
    /// The run reports at its end how many rows it discarded.
    #[arg(long)]
    fresh: bool,
    /// Solve this solver's items again (after fixing it, say); repeatable.
    ///
    /// Its rows, orders and profiles are discarded; the other solvers'
    /// rows resume. A solver of the config, in any spelling.
    #[arg(long, value_name = "SOLVER", conflicts_with = "fresh")]
    redo: Vec<String>,
    /// Solve this graph's items again (after editing its file, say);
    /// repeatable.
    ///
    /// Its rows, orders and profiles are discarded and its fingerprint
    /// recorded anew; the other graphs' rows resume. The name as in
    /// runs.csv's `graph` column (a file's stem, or SPEC#SEED). In a
    /// directory that several shards write, their rows of the graph go too:
    /// run those shards again.
    #[arg(long, value_name = "GRAPH", conflicts_with = "fresh")]
    redo_graph: Vec<String>,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let config = Config::load(&args.config).map_err(|e| InvalidInput(e.to_string()))?;
    // Graph files, globs, names and `tetris_graph`, with the config named
    // (the runner checks them again, and that every graph loads).
    let plan = Plan::new(&config)
        .map_err(|e| InvalidInput(format!("invalid config {}: {e}", args.config.display())))?;
    let shard = args
        .shard
        .as_deref()
        .map(str::parse::<Shard>)
        .transpose()
        .map_err(|e| InvalidInput(format!("--shard: {e}")))?;
    if let Some(s) = shard.filter(|&s| plan.shard_items(Some(s)).is_empty()) {
        note!(
            "warning: shard {s} holds none of the {} solves of {}: there are fewer solves than \
             shards, or none land in this one",
            plan.items.len(),
            args.config.display()
        );
    }
    let threads = super::threads_value(args.threads)?;
    let out = args
        .out
        .unwrap_or_else(|| RunOptions::default_out(&config, shard));
    super::refuse_dash_directory("run", &out)?;
    if !args.fresh {
        refuse_kept_copy(&args.config, &out)?;
    }
    // Set before anything is written: true at every stage of the run (a
    // signal during the graph check finds the directory as it was).
    let interrupt = super::interrupt::Interrupt::install(format!(
        "ended at once by a second signal: the rows that finished, if any, are kept in {}; {}",
        out.join(RUNS).display(),
        match (
            args.fresh,
            !args.redo.is_empty() || !args.redo_graph.is_empty()
        ) {
            (true, _) =>
                "if the first signal came while the graphs were checked (\"nothing is \
                 written\"), nothing in the directory changed: run the same command again; \
                 otherwise run it without --fresh to resume from them, or with it to start \
                 over",
            (false, true) =>
                "if the first signal came while the graphs were checked (\"nothing is \
                 written\"), nothing in the directory changed: run the same command again; \
                 otherwise run it without --redo or --redo-graph to resume from them, or \
                 with them to solve those rows again",
            (false, false) => "run the same command to resume",
        }
    ));
    let opts = RunOptions {
        out,
        threads,
        quiet: args.quiet,
        shard,
        fresh: args.fresh,
        redo: args.redo,
        redo_graphs: args.redo_graph,
        stop: Some(interrupt.stop()),
    };
    warn_ineffective_settings(&config, &args.config);
    let start = Instant::now();
    let summary = experiment::run(&config, &opts).map_err(|e| match e.is_invalid_input() {
        true => anyhow::Error::from(InvalidInput(format!("{}: {e}", args.config.display()))),
        false => e.into(),
    })?;
    report_summary(&config, &opts, &summary, start, &interrupt);
    if interrupt.happened() {
        interrupt.end_as_interrupted();
        return Ok(ExitCode::from(interrupt.exit_status()));
    }
    Ok(match summary.broken {
        0 => ExitCode::SUCCESS,
        _ => ExitCode::from(1),
    })
}

/// Warns about settings of `config` (read from `path`) that no solver of
/// it reads (`restarts`, `seeds`, `[budget]`), and notes a randomized
/// baseline.
fn warn_ineffective_settings(config: &Config, path: &Path) {
    if config.restarts > 1 && !config.restarts_apply() {
        note!(
            "warning: restarts = {} has no effect: no solver of {} restarts (only those whose \
             `memsched solvers` line says \"best of --restarts K\", and an `anneal:START` \
             whose START is one)",
            config.restarts,
            path.display()
        );
    }
    if config.seed_list().is_ok_and(|s| s != [0]) && !config.seeds_apply() {
        note!(
            "warning: seeds = {} has no effect: no solver of {} is randomized, so each runs \
             once, with seed 0 (the seeded ones: {}, noisy:EXPR, noisy-moves:EXPR and rules \
             that read `random`)",
            config.seeds,
            path.display(),
            solvers::names_with(|a| a.seeded).join(", ")
        );
    }
    if config.budget() != solvers::Budget::default() && !config.budget_applies() {
        note!(
            "warning: [budget] has no effect: no solver of {} reads it (only {} do; \
             `anneal` reads it through its start, by default best-heuristic)",
            path.display(),
            (solvers::names_with(|a| a.budgeted).into_iter())
                .filter(|name| name != "anneal")
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let seeded: Vec<String> = config
        .baselines
        .iter()
        .filter(|b| solvers::build(b).is_ok_and(|s| s.abilities().seeded))
        .map(|b| format!("`{b}`"))
        .collect();
    if !seeded.is_empty() && config.seed_list().is_ok_and(|s| s.len() > 1) {
        note!(
            "note: baseline {} is randomized: a graph's baseline is its row of the lowest seed \
             with a valid order",
            seeded.join(", ")
        );
    }
}

/// Says how the run went (the last line a user reads): solves run and
/// resumed, or where a stop left them and how to resume; then the run's
/// warnings and any broken solves.
fn report_summary(
    config: &Config,
    opts: &RunOptions,
    summary: &RunSummary,
    start: Instant,
    interrupt: &super::interrupt::Interrupt,
) {
    // After a stop, the same command would start over (--fresh) or
    // discard the redone solver's or graph's new rows (--redo, --redo-graph).
    let redid = !opts.redo.is_empty() || !opts.redo_graphs.is_empty();
    let resume = match (opts.fresh, redid) {
        // Stopped during the graph checks: nothing made or discarded yet.
        _ if summary.untouched && !summary.out.is_dir() => "run the same command to start it",
        _ if summary.untouched => "nothing in the directory changed: run the same command again",
        (true, _) => "run the command again without --fresh to resume (with it, it starts over)",
        (false, true) => {
            "run the command again without --redo or --redo-graph to resume (with them, the \
             rows this run redid are discarded again)"
        }
        (false, false) => "run the same command to resume",
    };
    if summary.discarded > 0 {
        note!(
            "{}: --fresh discarded the {} of earlier runs (and their profiles and saved orders)",
            config.name,
            super::count(summary.discarded, "row")
        );
    }
    if summary.redone + summary.dropped > 0 {
        let dropped = match summary.dropped {
            0 => String::new(),
            n => format!(
                ", and {} of solves this run does not make (another shard's, or of a graph or \
                 seed no longer in the config)",
                super::count(n, "row")
            ),
        };
        note!(
            "{}: --redo/--redo-graph discarded {} of earlier runs to solve again{dropped}",
            config.name,
            super::count(summary.redone, "row")
        );
    }
    match summary.stopped {
        None => note!(
            "{}: {} ({} run now, {} already done) in {:.1} s; results in {}",
            config.name,
            super::count(summary.items, "solve"),
            summary.ran,
            summary.resumed,
            start.elapsed().as_secs_f64(),
            summary.out.display()
        ),
        Some(_) if summary.ran == 0 => note!(
            "{}: stopped by {} after {:.1} s, before any solve of this run ({} already \
             done{}){}; {resume}",
            config.name,
            super::interrupt::cause(),
            start.elapsed().as_secs_f64(),
            summary.resumed,
            match summary.untouched && redid && summary.out.is_dir() {
                // `resumed` counts the rows the redo keeps; it discarded none yet.
                true => ", not counting the rows --redo or --redo-graph will discard",
                false => "",
            },
            no_final_pass(&summary.out, summary.untouched)
        ),
        Some(not_started) => note!(
            "{}: stopped by {} after {:.1} s: {} of {} ({} run now, {} already done) are \
             in {}; {} did not start, and the final pass did not run{}: {resume}",
            config.name,
            super::interrupt::cause(),
            start.elapsed().as_secs_f64(),
            summary.ran + summary.resumed,
            super::count(summary.items, "solve"),
            summary.ran,
            summary.resumed,
            summary.out.join(RUNS).display(),
            not_started,
            no_final_pass(&summary.out, summary.untouched)
        ),
    }
    if interrupt.happened() && summary.stopped.is_none() {
        let when = match summary.ran {
            0 => "when no solve was left to run:",
            _ => "after the last solve had started: every solve finished and",
        };
        note!(
            "{} came {when} the final pass was written",
            super::interrupt::cause()
        );
    }
    for w in &summary.warnings {
        note!("warning: {w}");
    }
    if summary.malformed > 0 {
        note!(
            "warning: {} line(s) of {} were not rows (edited by hand?): they were moved to \
             {}, and any solve missing from the file ran again",
            summary.malformed,
            summary.out.join(RUNS).display(),
            summary.out.join(REJECTED).display()
        );
    }
    for path in &summary.restored {
        note!(
            "warning: {} was replaced or removed while this run appended to it \
             (a checkout of results/?); the run's rows were written back to it",
            path.display()
        );
    }
    if summary.broken > 0 {
        note!(
            "error: {} solve(s) returned an invalid order or a wrong bound, or panicked (see `reason` \
             in runs.csv; rows kept from earlier runs count, and a resume keeps them: once the \
             cause is fixed, `--redo SOLVER` solves that solver again)",
            summary.broken
        );
    }
}

/// What a stopped run says of the final pass's files: that the directory
/// has none until a run finishes, when none is there (a run that solves
/// removes an earlier pass's files, which would not describe its rows);
/// nothing when a stop before that left them as they were; that there is
/// no directory when a stop during the graph checks came before it was made
/// (`untouched`: such a stop changed nothing, so an earlier run removed
/// what is missing).
fn no_final_pass(out: &Path, untouched: bool) -> &'static str {
    if !out.is_dir() {
        return ", and made no directory";
    }
    let files = results_dir::final_pass_files();
    match (files.iter().any(|name| out.join(name).exists()), untouched) {
        (true, _) => "",
        (false, true) => {
            ", and the directory has no README, summary or plots (gone before this run; \
             a stopped run removes them) until a run finishes"
        }
        (false, false) => {
            ", so the directory has no README, summary or plots (any earlier ones were \
             removed, as they would not describe these rows) until a run finishes"
        }
    }
}

/// Refuses to resume from `config` when it is the copy the output
/// directory `out` keeps (`out/config.toml`, by any path or link): the run
/// compares that copy with the config it runs to refuse edits that would
/// mix two settings, which it cannot do when the two are one file. (With
/// `--fresh` nothing is compared, and the run may start over from it.)
fn refuse_kept_copy(config: &Path, out: &Path) -> Result<(), InvalidInput> {
    if !super::same_file(&out.join(results_dir::CONFIG), config) {
        return Ok(());
    }
    Err(InvalidInput(format!(
        "{} is the copy of the config that the results directory {} keeps: a run rewrites it, \
         and compares it with the config it runs to catch edits that would mix two settings \
         in one directory; run the experiment's own file (experiments/NAME.toml), or copy \
         this one elsewhere, edit it there and run that (or start over from it: --fresh)",
        config.display(),
        out.display()
    )))
}
