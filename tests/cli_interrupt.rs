//! Ctrl-C in `memsched schedule`: the report of the best found so far is
//! still written, and the process then ends by the signal (Unix only).
#![cfg(unix)]

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
    sleep(Duration::from_millis(1500));
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
    for solver in ["exact", "xla-list"] {
        let row = out
            .lines()
            .find(|l| l.starts_with(solver))
            .unwrap_or_else(|| panic!("no {solver} row in\n{out}"));
        assert!(row.contains("feasible"), "{row}");
    }
    assert!(out.contains("best peak"), "{out}");
}
