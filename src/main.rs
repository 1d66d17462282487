//! The `memsched` command line: parse arguments, hand a plan to the library,
//! map the result to an exit code (0 success, 2 invalid input, 1 otherwise;
//! a reader that closed standard output early counts as success; Ctrl-C in
//! `schedule` and `run` ends by the signal, 130 in a shell).

mod cli;

use std::io::Write as _;
use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let args = match cli::Cli::try_parse() {
        Ok(args) => args,
        Err(err) => return usage_error_or_help(err),
    };
    match cli::run(args) {
        Ok(code) => code,
        Err(err) if cli::is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            // Not eprintln!: a closed standard error must not turn an
            // error's exit code into a panic's.
            let _ = writeln!(std::io::stderr(), "error: {}", cli::error_message(&err));
            ExitCode::from(cli::exit_code(&err))
        }
    }
}

/// Prints what clap has to say instead of running: `--help` and `--version`
/// on standard output (exit 0), a usage error on standard error (exit 2).
/// A failed write of the help is an error (exit 1), except to a reader that
/// closed the pipe early (`memsched --help | head`), as for every output.
fn usage_error_or_help(err: clap::Error) -> ExitCode {
    let code = err.exit_code() as u8;
    match err.print() {
        Ok(()) => ExitCode::from(code),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::from(code),
        Err(e) if code == 0 => {
            let _ = writeln!(
                std::io::stderr(),
                "error: cannot write to standard output: {e}"
            );
            ExitCode::FAILURE
        }
        Err(_) => ExitCode::from(code),
    }
}
