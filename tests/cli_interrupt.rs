//! Ctrl-C in `memsched schedule` (the report of the best found so far is
//! still written) and `memsched run` (the solves in flight are recorded,
//! no more start), and SIGTERM and SIGHUP in `run`, which act alike; each process
//! then ends by the signal (Linux only).
#![cfg(all(target_os = "linux", feature = "cli"))]

use std::io::{BufRead, BufReader, Read};
use std::os::unix::process::ExitStatusExt;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::thread::sleep;
use std::time::{Duration, Instant};

/// `memsched schedule` on BERT training with `solvers` (`-s` each) on one
/// thread, and no time limit: `exact` would search for far longer than a
/// test.
fn schedule_bert(solvers: &[&str]) -> Child {
    schedule_bert_with(solvers, &[])
}

/// [`schedule_bert`] with `more` arguments after the solvers.
fn schedule_bert_with(solvers: &[&str], more: &[&str]) -> Child {
    let graph = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/datasets/models/bert_base_training_b1.json"
    );
    let mut command = Command::new(env!("CARGO_BIN_EXE_memsched"));
    command.args(["schedule", graph, "-j", "1"]);
    for solver in solvers {
        command.args(["-s", solver]);
    }
    command.args(more);
    command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("memsched starts")
}

#[test]
fn ctrl_c_stops_the_solvers_and_the_report_is_still_written() {
    let child = schedule_bert(&["exact", "xla-list"]);
    let (status, out, err) = interrupt(child, "schedule", None, "INT");
    assert_eq!(
        status.signal(),
        Some(2),
        "ends by SIGINT: {status:?}\n{err}"
    );
    assert!(err.contains("interrupted (Ctrl-C)"), "{err}");
    let row = |solver: &str| {
        out.lines()
            .find(|l| l.starts_with(solver))
            .unwrap_or_else(|| panic!("no {solver} row in\n{out}"))
    };
    assert!(row("exact").contains("feasible"), "{}", row("exact"));
    // Its note says what stopped it: Ctrl-C, not a time limit.
    assert!(out.contains("exact: stopped by Ctrl-C"), "{out}");
    // Interrupted before it started: not run, and said so.
    assert!(row("xla-list").contains("timed_out"), "{}", row("xla-list"));
    assert!(
        err.contains("solver xla-list: not run: interrupted"),
        "{err}"
    );
    assert!(out.contains("best peak"), "{out}");
}

/// In the JSON report, a solver Ctrl-C kept from starting says so:
/// `"ran": false` beside its `timed_out`, which a reader of the status
/// alone would count as a solve that ran out of time.
#[test]
fn the_json_report_tells_solvers_not_run() {
    let child = schedule_bert_with(&["exact", "xla-list"], &["--format", "json"]);
    let (_, out, err) = interrupt(child, "schedule", None, "INT");
    let objects: Vec<serde_json::Value> = (out.lines())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}\n{err}")))
        .collect();
    let ran: Vec<_> = (objects.iter())
        .map(|o| {
            (
                o["solver"].as_str(),
                o["ran"].as_bool(),
                o["status"].as_str(),
            )
        })
        .collect();
    assert_eq!(
        ran,
        [
            (Some("exact"), Some(true), Some("feasible")),
            (Some("xla-list"), Some(false), Some("timed_out"))
        ],
        "{out}"
    );
}

/// `timeout` sends its signal to the process and then to its process
/// group: two signals microseconds apart are one stop, not a second one
/// that ends the process at once without a report.
#[test]
fn a_signal_repeated_at_once_is_one_stop_and_the_report_is_written() {
    let child = schedule_bert(&["exact"]);
    assert_not_ignored_here("TERM", 15);
    let (status, out, err) = interrupt_times(child, "schedule", None, "TERM", 2, Duration::ZERO);
    assert_eq!(status.signal(), Some(15), "{status:?}\n{err}");
    assert!(err.contains("interrupted (SIGTERM)"), "{err}");
    assert!(out.contains("stopped by SIGTERM"), "{out}\n{err}");
    assert!(out.contains("status             feasible"), "{out}");
}

/// `schedule -s ilp -s kahn` on a graph whose root LP takes HiGHS over
/// 30 s, 2 s after it started (past the model's build, into HiGHS), with
/// the directory of the graph.
#[cfg(feature = "ilp")]
fn ilp_in_highs() -> (Child, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let graph = dir.path().join("adv6.json");
    let made = Command::new(env!("CARGO_BIN_EXE_memsched"))
        .args(["gen", "adversarial:target=xla-dfs,scale=6", "-o"])
        .arg(&graph)
        .output()
        .expect("memsched gen runs");
    assert!(made.status.success(), "{made:?}");
    let child = Command::new(env!("CARGO_BIN_EXE_memsched"))
        .arg("schedule")
        .arg(&graph)
        .args(["-s", "ilp", "-s", "kahn"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("memsched starts");
    sleep(Duration::from_secs(2));
    (child, dir)
}

/// In `schedule`, a second Ctrl-C while a solver has not stopped (`ilp` in
/// HiGHS's root LP) ends the process at once, saying there is no report.
#[cfg(feature = "ilp")]
#[test]
fn a_second_ctrl_c_ends_a_schedule_at_once_without_a_report() {
    let (child, _dir) = ilp_in_highs();
    let (status, out, err) =
        interrupt_times(child, "schedule", None, "INT", 2, Duration::from_secs(1));
    assert_eq!(status.signal(), Some(2), "{status:?}\n{err}");
    assert!(
        err.contains(
            "[memsched] ended at once by a second signal: a report not yet written is lost"
        ),
        "{err}"
    );
    assert!(out.is_empty(), "{out}");
}

/// A second Ctrl-C half a second or more after the first ends a run at
/// once, by the signal, saying that the finished rows are kept and how to
/// resume.
#[test]
fn a_second_ctrl_c_ends_a_run_at_once_and_says_what_is_kept() {
    let gap = Duration::from_secs(1);
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("long.toml");
    std::fs::write(
        &config,
        "solvers = [\"exact\"]\ntime_limit = 60.0\n[graphs]\ngenerate = [\n  \
         { spec = \"adversarial:target=xla-dfs,scale=7\" },\n]\n",
    )
    .unwrap();
    let out_dir = dir.path().join("out");
    let child = spawn_run(
        Command::new(env!("CARGO_BIN_EXE_memsched")),
        &config,
        &out_dir,
    );
    let (status, _, err) = interrupt_times(child, "run", Some("1/2 solves"), "INT", 2, gap);
    assert_eq!(status.signal(), Some(2), "{status:?}\n{err}");
    let kept = format!(
        "[memsched] ended at once by a second signal: the rows that finished, if any, are kept in {}; \
         run the same command to resume",
        out_dir.join("runs.csv").display()
    );
    assert!(err.contains(&kept), "{err}");
    // Standard error is a pipe, not a terminal: no blank line before it.
    assert!(!err.contains("\n\n[memsched] ended at once"), "{err}");
    let rows = std::fs::read_to_string(out_dir.join("runs.csv")).unwrap();
    assert_eq!(rows.lines().count(), 1 + 1, "the program row: {rows}");
}

/// `ilp` cannot stop inside HiGHS's root LP (the interrupt callback
/// reaches the branch and bound only), which on this graph took over 30 s
/// on the development machine (over 10 minutes to the end, without a time
/// limit): 5 s after SIGTERM `schedule` leaves it behind, reports the start
/// it posted before HiGHS (checked, feasible, with its lower bound), and
/// writes the report. (A machine that ends that LP within the 2 + 5 s
/// would see `ilp` stop instead, and this test fail.)
#[cfg(feature = "ilp")]
#[test]
fn a_solver_that_does_not_stop_is_left_behind_and_the_report_written() {
    let (child, _dir) = ilp_in_highs();
    let sent = Instant::now();
    assert_not_ignored_here("TERM", 15);
    let (status, out, err) = interrupt(child, "schedule", None, "TERM");
    assert_eq!(status.signal(), Some(15), "{status:?}\n{err}");
    assert!(
        sent.elapsed() < Duration::from_secs(30),
        "{:?}",
        sent.elapsed()
    );
    assert!(
        out.contains(
            "ilp: left behind, with the order it had before HiGHS: it did not stop within 5 s \
             of SIGTERM"
        ),
        "{out}\n{err}"
    );
    // Its row: a checked order and its lower bound, not a bare timed_out.
    let ilp_row = out
        .lines()
        .find(|l| l.starts_with("ilp "))
        .unwrap_or_default();
    let cells: Vec<&str> = ilp_row.split_whitespace().collect();
    assert_eq!(cells.get(1), Some(&"feasible"), "{out}");
    assert!(
        cells.get(5).is_some_and(|lb| lb.parse::<u64>().is_ok()),
        "{out}"
    );
    assert!(
        out.contains("kahn: not run: interrupted (SIGTERM)"),
        "{out}"
    );
    // Standard error says the same, not that it returned no valid schedule.
    assert!(
        err.contains("solver ilp: left behind") && !err.contains("no valid schedule"),
        "{err}"
    );
}

#[test]
fn ctrl_c_in_a_run_records_the_solves_in_flight_and_starts_no_more() {
    stop_a_run_by("INT", 2, "Ctrl-C");
}

/// SIGTERM, how a batch system stops a job, acts as Ctrl-C does.
#[test]
fn sigterm_in_a_run_acts_as_ctrl_c() {
    stop_a_run_by("TERM", 15, "SIGTERM");
}

/// SIGHUP, a closed terminal, acts as Ctrl-C does: the solves in flight
/// are recorded instead of lost.
#[test]
fn sighup_in_a_run_acts_as_ctrl_c() {
    stop_a_run_by("HUP", 1, "SIGHUP");
}

/// A config of six solves in `dir`: three `program` baselines, then
/// `exact` on nested joins it cannot prove, each to its 1 s limit.
fn hard_config(dir: &std::path::Path) -> std::path::PathBuf {
    let config = dir.join("hard.toml");
    std::fs::write(
        &config,
        "solvers = [\"exact\"]\ntime_limit = 1.0\n[graphs]\ngenerate = [\n  \
         { spec = \"adversarial:target=xla-dfs\" },\n  \
         { spec = \"adversarial:target=xla-dfs,scale=6\" },\n  \
         { spec = \"adversarial:target=xla-dfs,scale=7\" },\n]\n",
    )
    .unwrap();
    config
}

/// Starts `command` (memsched, or a shell that runs it) with the arguments
/// of a one-thread `run` of `config` into `out`, its output piped.
fn spawn_run(mut command: Command, config: &std::path::Path, out: &std::path::Path) -> Child {
    command
        .arg("run")
        .arg(config)
        .arg("--out")
        .arg(out)
        .args(["-j", "1"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the run starts")
}

/// A run started with SIGHUP ignored (under `nohup`) keeps it ignored:
/// it finishes every solve.
#[test]
fn a_run_under_nohup_ignores_sighup() {
    let dir = tempfile::tempdir().unwrap();
    let config = hard_config(dir.path());
    let out_dir = dir.path().join("out");
    let mut nohup = Command::new("sh");
    nohup.args(["-c", "trap '' HUP; exec \"$0\" \"$@\""]);
    nohup.arg(env!("CARGO_BIN_EXE_memsched"));
    let child = spawn_run(nohup, &config, &out_dir);
    let (status, _, err) = interrupt(child, "run", Some("1/6 solves"), "HUP");
    assert!(status.success(), "{status:?}\n{err}");
    assert!(!err.contains("SIGHUP"), "{err}");
    let rows = std::fs::read_to_string(out_dir.join("runs.csv")).unwrap();
    assert_eq!(rows.lines().count(), 1 + 6, "{err}");
}

/// Sends a run `kill -SIGNAL` (number `number`) once its first solve is
/// recorded: the solve in flight is recorded, no other starts, messages
/// name the signal as `named`, the process ends by it, and the same
/// command finishes the run.
fn stop_a_run_by(signal: &str, number: i32, named: &str) {
    assert_not_ignored_here(signal, number);
    let dir = tempfile::tempdir().unwrap();
    let config = hard_config(dir.path());
    let out_dir = dir.path().join("out");
    let run = || {
        spawn_run(
            Command::new(env!("CARGO_BIN_EXE_memsched")),
            &config,
            &out_dir,
        )
    };
    // Once the first of the six solves is recorded (a `program` baseline:
    // at once), while `exact` runs to its limit.
    let (status, _, err) = interrupt(run(), "run", Some("1/6 solves"), signal);
    assert_eq!(
        status.signal(),
        Some(number),
        "ends by SIG{signal}: {status:?}\n{err}"
    );
    assert!(
        err.contains(&format!("{named}: no more solves start")),
        "{err}"
    );
    // How to end at once, while a solve is in flight; a stop that came
    // between two solves leaves none, and says so.
    assert!(
        err.contains(&format!("{named} again")) || err.contains("none is in flight"),
        "{err}"
    );
    assert!(err.contains(&format!("stopped by {named}")), "{err}");
    let rows = std::fs::read_to_string(out_dir.join("runs.csv")).unwrap();
    // The header, then at least the solve in flight; not all six.
    let rows = rows.lines().count() - 1;
    assert!((1..6).contains(&rows), "{rows} rows\n{err}");
    assert!(
        err.contains(&format!("{} did not start", 6 - rows)),
        "{rows} rows\n{err}"
    );
    // From the stop on, the progress counts the solve in flight only.
    if rows > 1 {
        assert!(err.contains(&format!("{rows}/{rows} solves")), "{err}");
    }
    assert!(!out_dir.join("README.md").exists(), "no final pass");
    // The same command runs the rest and the final pass.
    let resumed = run().wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&resumed.stderr);
    assert!(resumed.status.success(), "{err}");
    assert!(
        err.contains(&format!("({} run now, {rows} already done)", 6 - rows)),
        "{err}"
    );
    assert!(out_dir.join("README.md").exists());
}

/// Sends `child` `signal` (`INT`, `TERM`, `HUP`) once its SIGINT handler is
/// in place (the others are installed with it) and, with `ready`,
/// once a line of its standard error holds that text (without, a little
/// later, so that it is solving); then waits for it to end: its status,
/// standard output and standard error.
fn interrupt(
    child: Child,
    command: &str,
    ready: Option<&str>,
    signal: &str,
) -> (ExitStatus, String, String) {
    interrupt_times(child, command, ready, signal, 1, Duration::ZERO)
}

/// [`interrupt`], sending the signal `times` times, `gap` apart.
fn interrupt_times(
    child: Child,
    command: &str,
    ready: Option<&str>,
    signal: &str,
    times: usize,
    gap: Duration,
) -> (ExitStatus, String, String) {
    // Killed if the test fails: some of these children solve with no time
    // limit and would run on, an orphan, after a failed test.
    let mut child = KillOnDrop(child);
    let child = &mut child.0;
    // The child inherits an ignored SIGINT and would never catch it.
    assert_not_ignored_here("INT", 2);
    // Until the handler is in place (SigCgt lists SIGINT, bit 2).
    let status_file = format!("/proc/{}/status", child.id());
    let waited = Instant::now();
    let catches_sigint =
        || signal_mask(&status_file, "SigCgt:").is_some_and(|m| m & SIGINT_BIT != 0);
    while !catches_sigint() {
        if let Some(status) = child.try_wait().expect("wait") {
            let mut err = String::new();
            let _ = child.stderr.take().unwrap().read_to_string(&mut err);
            panic!("{command} ended before it installed its SIGINT handler: {status:?}\n{err}");
        }
        assert!(
            waited.elapsed() < Duration::from_secs(30),
            "{command} installed no SIGINT handler within 30 s"
        );
        sleep(Duration::from_millis(20));
    }
    // Standard error is read line by line on a thread, so that the test
    // can wait for `ready` (and the pipe never fills).
    let (lines, read) = mpsc::channel::<String>();
    let stderr = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = lines.send(line);
        }
    });
    let mut err = String::new();
    match ready {
        Some(wanted) => loop {
            let line = read
                .recv_timeout(Duration::from_secs(60))
                .unwrap_or_else(|e| panic!("no `{wanted}` line ({e}):\n{err}"));
            err.push_str(&line);
            err.push('\n');
            if line.contains(wanted) {
                break;
            }
        },
        None => sleep(Duration::from_millis(300)),
    }
    for time in 0..times {
        if time > 0 {
            sleep(gap);
        }
        let sent = Command::new("kill")
            .args([&format!("-{signal}"), &child.id().to_string()])
            .status()
            .expect("kill runs");
        assert!(sent.success());
    }
    let began = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if began.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("{command} did not stop within 60 s of SIG{signal}");
        }
        sleep(Duration::from_millis(50));
    };
    reader.join().expect("the reader ends with the pipe");
    for line in read.try_iter() {
        err.push_str(&line);
        err.push('\n');
    }
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    (status, out, err)
}

/// Fails, saying why, if this test process ignores signal `number`
/// (`SIG{signal}`): its children would inherit that, and memsched keeps
/// a signal ignored at start ignored, so the test could not stop them.
fn assert_not_ignored_here(signal: &str, number: i32) {
    let ignored = signal_mask("/proc/self/status", "SigIgn:").expect("a SigIgn line");
    assert!(
        ignored & 1 << (number - 1) == 0,
        "this test process {}",
        ignored_why(signal)
    );
}

/// Why a process ignores `SIG{signal}` that these tests send, and what to do.
fn ignored_why(signal: &str) -> String {
    format!(
        "ignores SIG{signal}, as it inherited: `nohup` starts a job with SIGHUP ignored, and \
         a non-interactive shell starts a background job (`cmd &`) with SIGINT ignored; \
         memsched keeps a signal ignored at start ignored (by design). Run the tests in \
         the foreground, without `nohup`."
    )
}

/// SIGINT's bit in a `/proc/PID/status` signal mask (signal 2: bit 1).
const SIGINT_BIT: u64 = 1 << 1;

/// The signal mask on the `field` line (`SigCgt:` caught, `SigIgn:`
/// ignored) of the process whose `/proc/PID/status` is `path`.
fn signal_mask(path: &str, field: &str) -> Option<u64> {
    let text = std::fs::read_to_string(path).ok()?;
    let mask = text.lines().find_map(|l| l.strip_prefix(field))?;
    u64::from_str_radix(mask.trim(), 16).ok()
}

/// A child process killed (and reaped) when dropped, as when a test fails.
struct KillOnDrop(Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}
