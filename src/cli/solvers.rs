//! `memsched solvers`: the registry, one line each.

use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct Args {}

pub fn run(_: Args) -> anyhow::Result<ExitCode> {
    let infos = crate::solvers::list();
    let width = infos.iter().map(|i| i.name.len()).max().unwrap_or(0);
    let mut text = String::new();
    for info in infos {
        text += &format!("{:width$}  {}\n", info.name, info.summary);
    }
    for (name, feature) in crate::solvers::not_built() {
        text += &format!(
            "{name:width$}  not in this build: it needs the `{feature}` feature (on by default; \
             this binary was built with --no-default-features)\n"
        );
    }
    text += &format!(
        "\nEXPR (rule:, moves:, noisy:): comma-separated terms, each a feature, `-feature` \
         (descending) or a weighted sum (`0.7*delta+0.3*latency`), over the features: {} \
         (docs/rules.md)\n",
        crate::solvers::rule::feature_list()
    );
    super::print_stdout(&text)?;
    Ok(ExitCode::SUCCESS)
}
