//! `memsched solvers`: the registry, one line each.

use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct Args {}

pub fn run(_: Args) -> anyhow::Result<ExitCode> {
    let infos = memsched::solvers::list();
    let width = infos.iter().map(|i| i.name.len()).max().unwrap_or(0);
    let mut text = String::new();
    for info in infos {
        text += &format!("{:width$}  {}\n", info.name, info.summary);
    }
    for (name, feature) in memsched::solvers::not_built() {
        text += &format!(
            "{name:width$}  not in this build: it needs the `{feature}` feature (on by default; \
             this binary was built with --no-default-features)\n"
        );
    }
    super::print_stdout(&text)?;
    Ok(ExitCode::SUCCESS)
}
