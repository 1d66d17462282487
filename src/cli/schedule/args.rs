//! The command line of `memsched schedule` and the parsing of its values.

use std::path::PathBuf;
use std::time::Duration;

use clap::ValueEnum;

use crate::cli::InvalidInput;
use crate::solvers;

/// How `memsched schedule` writes its report (`--format`).
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum Format {
    Text,
    Json,
}

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Graph file in seed JSON format (`-`: standard input), or a generated
    /// graph's name, `SPEC#SEED`.
    ///
    /// A generated graph's name is as `runs.csv` gives it (e.g.
    /// `random-layered:layers=12,width=4#3`): generated when no file has
    /// that name.
    #[arg(value_name = "GRAPH")]
    pub(super) graph: String,
    /// Solver name (`memsched solvers` lists them); repeat it to compare
    /// solvers.
    ///
    /// E.g. `seed-greedy` or `kahn`. Given more than once (`-s seed-greedy
    /// -s 'rule:-height,id' -s exact`), the solvers run one after another, each under
    /// the same flags, and the report becomes a table (with `--format
    /// json`, one object per line, or an array in a `-o FILE.json`). A
    /// `rule:EXPR` is a comma-separated key of features, each maybe `-`
    /// (descending) or in a weighted sum
    /// (`0.7*delta+0.3*latency`); the features: delta, type, id, size,
    /// in_degree, out_degree, depth, height, unlocks, frees_after,
    /// live_after, rise, latency, random (docs/rules.md).
    #[arg(long, short, default_value = "seed-greedy")]
    pub(super) solver: Vec<String>,
    /// Output format (default: `json` when `--out` ends in `.json` or
    /// `.jsonl`, else `text`).
    ///
    /// The text report's `order` line lists every
    /// id, except on a terminal, where an order of more than 200 nodes
    /// shows its first 200 and a count (`-o FILE`, a pipe or `--format
    /// json` keep them all).
    #[arg(long, value_enum)]
    pub(super) format: Option<Format>,
    /// Write the report here instead of standard output.
    ///
    /// A name ending in `.json` or `.jsonl` gets the JSON report, unless
    /// `--format text`; with several solvers, a `.json` file holds a JSON
    /// array of their reports and anything else one object per line (JSON
    /// Lines).
    #[arg(long, short)]
    pub(super) out: Option<String>,
    /// Also draw live memory over the steps of each solver's schedule into
    /// this PNG or SVG file.
    ///
    /// The file's extension chooses (e.g. `memory.svg`): one line per
    /// solver's checked schedule, its peak in the legend.
    #[arg(long, value_name = "FILE")]
    pub(super) plot: Option<PathBuf>,
    /// Also write the schedule step by step into this CSV file (one
    /// --solver): to see why a rule chose what it chose.
    ///
    /// Columns: `step` (from 1), `id`, `op`, `type`, `delta`, `memory_after`, `ready` (how
    /// many nodes were ready, the one run among them) and, for a `rule:EXPR`
    /// solver, one column per term of EXPR (`term1:TEXT`, ...) with the value the rule ranked
    /// the node by at that step (`live_after` ranks as `delta`; `unlocks`
    /// and `frees_after` as of that step), then `runner_up` (the ready node
    /// ranked next), `decided_by` (the first term the two differ on, or
    /// `id`) and `runner_up_value`. If the solver returns no valid schedule,
    /// no trace is written, and a trace an earlier run left in the file is
    /// removed (as is such a plot at `--plot`).
    #[arg(long, value_name = "FILE.csv")]
    pub(super) trace: Option<PathBuf>,
    /// Wall-clock limit for each solver, in seconds (`30` or `30s`;
    /// default: none).
    ///
    /// Fractions allowed. Without it the solver runs until it is done.
    /// Ctrl-C acts as the limit.
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
    /// after it do not run (`timed_out`, noted "not run"; `"ran": false`
    /// in JSON), the report is
    /// written, and the exit is as Ctrl-C's (status 130). `ilp` stops at
    /// HiGHS's next limit check in its branch and bound, but not during
    /// HiGHS's set-up or inside an LP solve (the root LP can take
    /// minutes): a solver that has not stopped 5 s later is left behind,
    /// reported with the order it had before HiGHS. A second Ctrl-C, half a
    /// second or more after the first, ends at once. SIGTERM acts as Ctrl-C
    /// (status 143), and so does SIGHUP (the terminal closed; 129).
    #[arg(
        long,
        value_name = "SECONDS",
        value_parser = parse_seconds,
        // Not `allow_hyphen_values`: `--time-limit --seed 3` would read
        // `--seed` as the limit. So `-5s` is clap's error, `-5` ours.
        allow_negative_numbers = true
    )]
    pub(super) time_limit: Option<f64>,
    /// Seed for randomized solvers (default 0).
    ///
    /// From 0 to 18446744073709551615. Read by `random`, `random-moves`, `noisy:EXPR`, `noisy-moves:EXPR`, `anneal`, and rules
    /// that read `random` (the solvers `memsched solvers` calls seeded);
    /// `ilp` hands it to HiGHS, whose search it steers.
    #[arg(long, allow_negative_numbers = true)]
    pub(super) seed: Option<i128>,
    /// Runs of a randomized solver, best kept (default 1).
    ///
    /// Read by `random`, `random-moves`, `noisy:EXPR`,
    /// `noisy-moves:EXPR`; the runs are in parallel. For an
    /// `anneal:START` whose START is one of them, the runs pick the start
    /// and the annealing runs once from it (so a larger K need not end
    /// lower). A rule that reads `random` runs once (loop over --seed for
    /// several). At least 1.
    #[arg(long, value_name = "K", allow_negative_numbers = true)]
    pub(super) restarts: Option<i128>,
    /// Worker threads (default: every core).
    ///
    /// For the solvers that work in parallel: the restarts
    /// of `noisy:EXPR`, `random` and the others that take `--restarts`, and
    /// the members of `best-heuristic` on large graphs. `RAYON_NUM_THREADS`,
    /// if set, replaces the default; at most 4096. Without `--time-limit`
    /// the result is the same for any number.
    #[arg(long, short = 'j', value_name = "N")]
    pub(super) threads: Option<usize>,
    /// What a `rule:EXPR` key ranks: single ready nodes, or moves.
    ///
    /// A move is a delta <= 0
    /// node together with the ALLOCs it still needs. `moves` turns `rule:E` into `moves:E`
    /// (`noisy:E` stays as it is: its move form is `noisy-moves:E`).
    #[arg(long, value_enum, default_value_t = RuleMode::Nodes)]
    pub(super) rule_mode: RuleMode,
    /// Most bytes the tables of a search may hold, e.g. `512MiB` or `2GiB`
    /// [default: 4GiB].
    ///
    /// Read by `exact`, `dp` and
    /// the solvers that run one: `best-heuristic`, `anneal`. Suffixes KiB,
    /// MiB, GiB, TiB, or K, M, G, T for
    /// the same binary units; a plain number is bytes.
    /// Past it the search stops and returns its best order so far. The figure
    /// is the search's own estimate of its tables: the process uses more.
    // The default is written above rather than given to clap, so that a
    // budget the user names (even the default) can be told from none, as
    // --seed and --restarts are.
    #[arg(
        long,
        value_name = "BYTES",
        value_parser = parse_bytes,
        allow_negative_numbers = true
    )]
    pub(super) memory_budget: Option<u64>,
    /// Most states a search may store before it stops (read by `exact`, `dp`,
    /// `best-heuristic`, `anneal`). [default: 50000000]
    #[arg(
        long,
        value_name = "N",
        value_parser = parse_states,
        allow_negative_numbers = true
    )]
    pub(super) max_states: Option<u64>,
}

/// Reads a byte count: an integer with an optional binary suffix (`KiB`,
/// `MiB`, `GiB`, `TiB`; `K`, `M`, `G`, `T` and `B` are accepted too).
pub(super) fn parse_bytes(text: &str) -> Result<u64, String> {
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
pub(super) fn parse_states(text: &str) -> Result<u64, String> {
    match text.trim().parse::<u64>() {
        Ok(n) if n >= 1 => Ok(n),
        Ok(_) => Err("must be at least 1".into()),
        Err(_) => Err(format!(
            "must be a whole number from 1 to {} (e.g. 1000000)",
            u64::MAX
        )),
    }
}

/// Reads `--time-limit`'s value as written: seconds, a number (`2.5`) or
/// one with an `s` (`2.5s`), as a config's `time_limit` is read
/// ([`read_seconds`](crate::experiment::config::read_seconds)); another
/// unit (`500ms`, `2m`) gets an error saying to write seconds. Its range
/// is [`time_limit`]'s to check.
pub(super) fn parse_seconds(text: &str) -> Result<f64, String> {
    crate::experiment::config::read_seconds(text).ok_or_else(|| {
        let value = match text.trim() {
            "" => "an empty value".to_string(),
            _ => format!("`{text}`"),
        };
        format!("{value} is not a number of seconds: write `30` or `30s` (`120` for two minutes)")
    })
}

/// Reads `--time-limit`: a positive number of seconds within Duration's range.
pub(super) fn time_limit(t: Option<f64>) -> Result<Option<Duration>, InvalidInput> {
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
pub(super) fn is_rule(name: &str) -> bool {
    matches!(solvers::split_name(name), ("rule", Some(_)))
}

/// Applies `--rule-mode moves` to a solver name: `rule:EXPR` (however
/// spaced) becomes `moves:EXPR`; any other name is left as it is.
pub(super) fn with_rule_mode(name: &str, mode: RuleMode) -> String {
    match (mode, solvers::split_name(name)) {
        (RuleMode::Moves, ("rule", Some(expr))) => format!("moves:{expr}"),
        _ => name.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solvers::{rule, Budget};

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
