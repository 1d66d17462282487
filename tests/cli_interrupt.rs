//! Ctrl-C in `memsched schedule`: the report of the best found so far is
//! still written, and the process then ends by the signal (Unix only).
#![cfg(target_os = "linux")]

use std::io::Read;
use std::os::unix::process::ExitStatusExt;
use std::process::{Command, Stdio};
use std::thread::sleep;
use std::time::{Duration, Instant};

#[test]
fn ctrl_c_stops_the_solvers_and_the_report_is_still_written() {
    let graph = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/datasets/models/bert_base_training_b1.json"
    );
    // No time limit: `exact` would search for far longer than the test.
    let mut child = Command::new(env!("CARGO_BIN_EXE_memsched"))
        .args([
            "schedule", graph, "-s", "exact", "-s", "xla-list", "-j", "1",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("memsched starts");
    // Until the handler is in place (SigCgt lists SIGINT, bit 2), then a
    // little more so that `exact` is searching.
    let status_file = format!("/proc/{}/status", child.id());
    let waited = Instant::now();
    while !catches_sigint(&status_file) {
        assert!(
            waited.elapsed() < Duration::from_secs(30),
            "no SIGINT handler"
        );
        sleep(Duration::from_millis(20));
    }
    sleep(Duration::from_millis(300));
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(sent.success());
    let began = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if began.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("schedule did not stop within 60 s of Ctrl-C");
        }
        sleep(Duration::from_millis(50));
    };
    let (mut out, mut err) = (String::new(), String::new());
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
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

/// Whether the process whose `/proc/PID/status` is `path` catches SIGINT
/// (signal 2: bit 1 of the `SigCgt` mask).
fn catches_sigint(path: &str) -> bool {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|text| {
            let mask = text.lines().find_map(|l| l.strip_prefix("SigCgt:"))?;
            u64::from_str_radix(mask.trim(), 16).ok()
        })
        .is_some_and(|mask| mask & 0b10 != 0)
}
