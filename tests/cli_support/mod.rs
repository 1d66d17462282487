//! Running the `memsched` binary from the command-line tests.
#![allow(dead_code)]

use std::io::Write;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_memsched");

/// Runs the binary with `args`, feeding `stdin` if given.
pub fn run(args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = spawn(args, Stdio::piped());
    {
        let mut pipe = child.stdin.take().unwrap();
        if let Some(text) = stdin {
            // The binary may exit (bad flag) before reading: a broken pipe is fine.
            let _ = pipe.write_all(text.as_bytes());
        }
    }
    child.wait_with_output().unwrap()
}

/// Writes `text` to the file `name` in a fresh directory; returns both
/// (the directory lives as long as the handle) and the file's path.
pub fn temp_file(name: &str, text: &str) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    (dir, arg(&path).to_string())
}

/// A path as an argument (the tests' paths are UTF-8).
pub fn arg(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The arguments of `memsched run CONFIG --out OUT -q`, then `flags`.
pub fn run_args<'a>(config: &'a str, out: &'a Path, flags: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["run", config, "--out", arg(out), "-q"];
    args.extend_from_slice(flags);
    args
}

/// Runs `memsched schedule -` followed by `args`, with `graph` on
/// standard input.
pub fn schedule(args: &[&str], graph: &str) -> Output {
    let mut all = vec!["schedule", "-"];
    all.extend_from_slice(args);
    run(&all, Some(graph))
}

/// Asserts that the binary exited with `code` (the failure message shows
/// its standard error); returns standard error as text.
pub fn expect_exit(o: &Output, code: i32) -> String {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(code), "{err}");
    err
}

/// Standard error as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Standard output as text.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Which output pipe [`run_with_closed`] closes.
pub enum Closed {
    Stdout,
    Stderr,
}

/// Runs the binary with `args` (no input) and the read end of one output
/// pipe closed at once, as a reader that stops early leaves it; the other
/// pipe is captured.
pub fn run_with_closed(args: &[&str], closed: Closed) -> Output {
    let mut child = spawn(args, Stdio::null());
    match closed {
        Closed::Stdout => drop(child.stdout.take()),
        Closed::Stderr => drop(child.stderr.take()),
    }
    child.wait_with_output().unwrap()
}

/// The binary with `args` started, its standard output and error piped.
fn spawn(args: &[&str], stdin: Stdio) -> Child {
    Command::new(BIN)
        .args(args)
        .stdin(stdin)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("memsched binary runs")
}

/// Runs the binary with `args` and no input, failing the test (and
/// killing the process) if it takes more than `secs` seconds. For commands
/// that print little: the output is collected once the process has ended.
pub fn run_within(args: &[&str], secs: u64) -> Output {
    let mut child = spawn(args, Stdio::null());
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed().as_secs() >= secs {
            child.kill().unwrap();
            panic!("{args:?} still runs after {secs} s");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}
