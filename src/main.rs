//! The `memsched` command line: parse arguments, hand a plan to the library,
//! map the result to an exit code (0 success, 2 invalid input, 1 otherwise;
//! a reader that closed standard output early counts as success; Ctrl-C in
//! `schedule` and `run` ends by the signal, 130 in a shell).

mod cli;

use std::io::Write as _;
use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
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
