//! The `memsched` command line: all of it is [`memsched::cli::main`], which
//! a program of your own can call after registering its solvers.

fn main() -> std::process::ExitCode {
    memsched::cli::main()
}
