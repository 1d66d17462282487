//! A solver registered by a program using memsched as a library
//! (`solvers::register`) is built by name, listed, and run by an
//! experiment whose config names it, its orders checked as any other's.

use memsched::experiment::{self, Config, RunOptions};
use memsched::graph::Graph;
use memsched::solvers::{self, Kahn, Outcome, Scheduler, SolveContext, SolverError};

/// Kahn's order under another name.
struct KahnAgain;

impl Scheduler for KahnAgain {
    fn name(&self) -> String {
        "kahn-again".into()
    }
    fn solve(&self, g: &Graph, ctx: &SolveContext) -> Outcome {
        Kahn.solve(g, ctx)
    }
    /// Says it reads the seed (it does not), so that messages naming the
    /// seeded solvers name it.
    fn abilities(&self) -> solvers::Abilities {
        solvers::Abilities {
            seeded: true,
            ..Default::default()
        }
    }
}

/// A solver that panics.
struct Panics;

impl Scheduler for Panics {
    fn name(&self) -> String {
        "panics".into()
    }
    fn solve(&self, _: &Graph, _: &SolveContext) -> Outcome {
        panic!("deep boom from a test solver")
    }
}

/// Kahn's order under the name it is given.
struct Spelled(String);

impl Scheduler for Spelled {
    fn name(&self) -> String {
        self.0.clone()
    }
    fn solve(&self, g: &Graph, ctx: &SolveContext) -> Outcome {
        Kahn.solve(g, ctx)
    }
}

/// Registers `kahn-again` (no argument), `misnamed` (a solver calling
/// itself `kahn`) and `lower:ARG` (calling itself by ARG in lower case, a
/// canonical spelling), once per process.
fn register_once() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let make = |arg: Option<&str>| match arg {
            None => Ok(Box::new(KahnAgain) as Box<dyn Scheduler>),
            Some(a) => Err(format!("takes no argument (got `{a}`)")),
        };
        solvers::register("kahn-again", "Kahn's order, registered by a test", make).unwrap();
        solvers::register("misnamed", "", |_| Ok(Box::new(Kahn))).unwrap();
        let lower = |arg: Option<&str>| match arg {
            Some(a) => Ok(Box::new(Spelled(format!("lower:{}", a.to_lowercase()))) as Box<_>),
            None => Err("needs an argument".to_string()),
        };
        solvers::register("lower", "names itself in lower case", lower).unwrap();
        solvers::register("panics", "panics, for a test", |_| Ok(Box::new(Panics))).unwrap();
    });
}

#[test]
fn a_registered_solver_is_built_listed_and_refuses_clashes() {
    register_once();
    assert_eq!(solvers::build("kahn-again").unwrap().name(), "kahn-again");
    let err = solvers::build("kahn-again:x").err().unwrap().to_string();
    assert!(err.contains("takes no argument (got `x`)"), "{err}");
    // A canonical spelling (one that builds a solver of that same name)
    // is the solver's name, as `rule: delta , id` is `rule:delta,id`.
    assert_eq!(solvers::build("lower:FAST").unwrap().name(), "lower:fast");
    let err = solvers::build("misnamed").err().unwrap().to_string();
    assert!(err.contains("calls itself `kahn`"), "{err}");
    assert!(solvers::list().iter().any(|i| i.name == "kahn-again"));
    // Messages that name solvers by ability name it too.
    let seeded = solvers::names_with(|a| a.seeded);
    assert!(seeded.contains(&"kahn-again".to_string()), "{seeded:?}");
    assert!(!solvers::names_with(|a| a.exact).contains(&"kahn-again".to_string()));
    // `name:` names no argument; the maker never sees an empty one.
    let err = solvers::build("kahn-again:").err().unwrap().to_string();
    assert!(err.contains("`kahn-again:` names no argument"), "{err}");
    // A registered name is guessed at as a built-in one is.
    let err = solvers::build("KAHN_again").err().unwrap().to_string();
    assert!(err.contains("did you mean `kahn-again`?"), "{err}");
    for name in [
        "kahn",
        "Kahn",
        "kahn-again",
        "KAHN-again",
        "",
        "a:b c",
        "a b",
        "a:",
        "a[:b",
        "a[:]",
        "a[b]:c",
        ":b",
    ] {
        let err = solvers::register(name, "", |_| Ok(Box::new(Kahn)))
            .err()
            .unwrap();
        assert!(
            matches!(err, SolverError::NotRegistered { .. }),
            "{name}: {err}"
        );
    }
}

/// A maker may itself build, list and register solvers: `build` calls
/// it with the registry's lock released (with the lock held, the
/// `register` below deadlocked).
#[test]
fn a_maker_may_use_the_registry() {
    let make = |arg: Option<&str>| {
        let inner = solvers::build(&format!("rule:{}", arg.unwrap_or("delta,id")))
            .map_err(|e| e.to_string())?;
        assert!(solvers::list().iter().any(|i| i.name == "wraps:EXPR"));
        // Registering from inside a maker is refused or accepted, never stuck.
        let made = |_: Option<&str>| Ok(Box::new(Spelled("made-by-wraps".into())) as Box<_>);
        let _ = solvers::register("made-by-wraps", "", made);
        Ok(Box::new(Spelled(format!(
            "wraps:{}",
            inner.name().trim_start_matches("rule:")
        ))) as Box<dyn Scheduler>)
    };
    solvers::register("wraps:EXPR", "a rule under another name", make).unwrap();
    // It needs its argument: listed so, and refused bare before the maker runs.
    assert!(solvers::list()
        .iter()
        .any(|i| i.name == "wraps:EXPR" && i.bare_name().is_none()));
    for bare in ["wraps", "wraps:", "wraps: "] {
        assert!(
            matches!(
                solvers::build(bare),
                Err(SolverError::MissingArgument { name, param }) if name == "wraps" && param == "EXPR"
            ),
            "{bare}"
        );
    }
    assert_eq!(
        solvers::build("wraps:size,id").unwrap().name(),
        "wraps:size,id"
    );
    assert!(solvers::build("made-by-wraps").is_ok());
    // One that may take an argument is listed with it in brackets.
    let either = |arg: Option<&str>| {
        Ok(Box::new(Spelled(
            arg.map_or("maybe".into(), |a| format!("maybe:{a}")),
        )) as Box<_>)
    };
    solvers::register("maybe[:N]", "", either).unwrap();
    let info = solvers::list()
        .into_iter()
        .find(|i| i.name == "maybe[:N]")
        .unwrap();
    assert_eq!(info.bare_name(), Some("maybe"));
    assert_eq!(solvers::build("maybe").unwrap().name(), "maybe");
    assert_eq!(solvers::build("maybe:3").unwrap().name(), "maybe:3");
    let err = solvers::build("maybe:").err().unwrap().to_string();
    assert!(err.contains("write `maybe` or `maybe:N`"), "{err}");
    let err = solvers::build("wraps:bogus").err().unwrap().to_string();
    assert!(err.contains("bogus"), "{err}");
}

/// A bad rule comes back typed: the solver's name and the rule's own
/// error, whose text the message repeats.
#[test]
fn a_bad_rule_is_a_typed_error() {
    use memsched::solvers::rule::RuleError;
    use std::error::Error as _;
    let err = solvers::build("noisy:delta,bogus").err().unwrap();
    let SolverError::BadRule { name, error } = &err else {
        panic!("{err:?}");
    };
    assert_eq!(name, "noisy");
    assert!(matches!(error, RuleError::UnknownFeature { name, .. } if name == "bogus"));
    // The message carries the cause once: not again as its source.
    assert!(err.to_string().ends_with(&error.to_string()));
    assert!(err.source().is_none());
}

#[test]
fn an_experiment_runs_a_registered_solver() {
    register_once();
    let tmp = tempfile::tempdir().unwrap();
    let text = "solvers = [\"kahn-again\", \"seed-greedy\"]\nplots = []\n\
                [graphs]\ngenerate = [{ spec = \"chain:length=4\", seeds = \"0..2\" }]\n";
    let config = Config::parse(text, "registered.toml", "registered").unwrap();
    let opts = RunOptions {
        out: tmp.path().join("out"),
        quiet: true,
        ..RunOptions::default()
    };
    experiment::run(&config, &opts).unwrap();
    let runs = std::fs::read_to_string(tmp.path().join("out/runs.csv")).unwrap();
    let rows: Vec<&str> = runs
        .lines()
        .filter(|l| l.contains(",kahn-again,"))
        .collect();
    assert_eq!(rows.len(), 2, "{runs}");
    assert!(rows.iter().all(|r| r.contains(",true,")), "{runs}");
}

/// `memsched::cli::main_from`, the binary's `main` as a function, knows a
/// solver registered before it is called: a program of one's own can
/// register and hand over.
#[cfg(feature = "cli")]
#[test]
fn the_command_line_runs_a_registered_solver() {
    use std::process::ExitCode;
    register_once();
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("report.json");
    let out = out.to_str().unwrap();
    let schedule = |solver: &str| {
        memsched::cli::main_from([
            "memsched",
            "schedule",
            "chain:length=4#0",
            "-s",
            solver,
            "--format",
            "json",
            "-o",
            out,
        ])
    };
    assert_eq!(schedule("kahn-again"), ExitCode::SUCCESS);
    let report = std::fs::read_to_string(out).unwrap();
    assert!(report.contains("\"kahn-again\""), "{report}");
    assert!(report.contains("\"feasible\""), "{report}");
    // An unknown name is invalid input, as in the binary.
    assert_eq!(schedule("kahn-agian"), ExitCode::from(2));
    // A solver that panics fails its own report; the others keep theirs,
    // and the exit code says a solve failed.
    // With `-j`, the solves run on a pool of worker threads.
    for threads in [None, Some("2")] {
        let mut args = vec![
            "memsched",
            "schedule",
            "chain:length=4#0",
            "-s",
            "kahn",
            "-s",
            "panics",
            "-s",
            "kahn-again",
            "--format",
            "json",
            "-o",
            out,
        ];
        args.extend(threads.iter().flat_map(|n| ["-j", *n]));
        assert_eq!(memsched::cli::main_from(args), ExitCode::from(1));
        // A `.json` file: one array of the three reports.
        let report = std::fs::read_to_string(out).unwrap();
        let reports: Vec<serde_json::Value> = serde_json::from_str(&report).unwrap();
        let fields = |r: &serde_json::Value| (r["solver"].clone(), r["status"].clone());
        let got: Vec<_> = reports.iter().map(fields).collect();
        let want = [
            ("kahn", "feasible"),
            ("panics", "failed"),
            ("kahn-again", "feasible"),
        ];
        let want: Vec<_> = want.iter().map(|&(s, t)| (s.into(), t.into())).collect();
        assert_eq!(got, want, "{report}");
        let reason = reports[1]["reason"].as_str().unwrap_or_default();
        assert!(
            reason.contains("panicked: deep boom from a test solver"),
            "{reason}"
        );
    }
}
