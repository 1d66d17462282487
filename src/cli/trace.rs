//! `schedule --trace FILE.csv`: a solver's schedule step by step, with the
//! values a `rule:` solver ranked each node by.

use std::io::Write;
use std::path::Path;

use anyhow::Context;

use crate::solvers::{rule, split_name, Report};
use crate::Graph;

/// Writes `report`'s order of `g` as CSV to `path` (see `--trace`); a
/// report without a valid order gets a warning and no file (one an
/// earlier run wrote there is removed). `seed` is the run's, which a
/// rule's `random` feature reads.
pub(super) fn write(path: &Path, g: &Graph, report: &Report, seed: u64) -> anyhow::Result<()> {
    let Some(order) = report.order.as_deref().filter(|_| report.valid()) else {
        note!(
            "warning: --trace: {} returned no valid schedule ({}), so {} is not written{}",
            report.solver,
            report.status,
            path.display(),
            super::remove_stale_output(path)
        );
        return Ok(());
    };
    let key = match split_name(&report.solver) {
        ("rule", Some(expr)) => rule::parse(expr).ok(),
        _ => None,
    };
    if key.is_none() && rule::reads_any_rule(&report.solver) {
        note!(
            "warning: --trace: {} is not a `rule:` solver, so the trace has no term columns \
             (the values of moves, noise or an anneal are not replayed)",
            report.solver
        );
    }
    let steps = rule::trace(g, key.as_ref(), seed, order);
    let mut header: Vec<String> = ["step", "id", "op", "type", "delta", "memory_after", "ready"]
        .map(String::from)
        .to_vec();
    // `term1:delta`...: a term's text alone may repeat a column's name.
    let terms = key.as_ref().map(rule::term_texts).unwrap_or_default();
    header.extend((terms.iter().enumerate()).map(|(k, t)| format!("term{}:{t}", k + 1)));
    if key.is_some() {
        header.extend(["runner_up", "decided_by", "runner_up_value"].map(String::from));
    }
    let mut out = csv::Writer::from_writer(Vec::new());
    out.write_record(&header)?;
    let mut memory = 0i64;
    for (k, step) in steps.iter().enumerate() {
        let v = step.node;
        memory += g.delta(v);
        let mut record = vec![
            (k + 1).to_string(),
            g.id(v).to_string(),
            g.op(v).to_string(),
            g.kind(v).label().to_string(),
            g.delta(v).to_string(),
            memory.to_string(),
            step.ready.to_string(),
        ];
        record.extend(step.terms.iter().cloned());
        if key.is_some() {
            record.extend(match &step.runner_up {
                Some(r) => [
                    g.id(r.node).to_string(),
                    r.decided_by
                        .map_or("id".to_string(), |t| format!("term{}", t + 1)),
                    r.value.clone(),
                ],
                None => Default::default(),
            });
        }
        out.write_record(&record)?;
    }
    let bytes = out.into_inner().context("cannot write the trace")?;
    crate::output::write_file(path, |w| w.write_all(&bytes))
        .with_context(|| format!("cannot write {}", path.display()))
}
