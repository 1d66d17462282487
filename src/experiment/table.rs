//! Per-graph tables of a results directory's rows (`memsched table`): one
//! row per graph, one column per solver, as Markdown, CSV or LaTeX, for a
//! paper or a notebook, with no solve run again.
//!
//! A cell is the solver's row on the graph; a seeded solver's best seed
//! (lowest checked peak, then a proven row, then lowest seed) stands for
//! it, and its value, status and time are that row's. Only valid rows
//! count: a solver with none on a graph has an empty cell. The best cell of each graph row
//! among the columns shown is marked (bold), and a proven optimum too
//! (`*`). The rows should be finalized ([`super::rows::finalize`]): the
//! reductions and gaps are the final pass's.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fmt::Write as _;

use super::rows::{Row, RowStatus};
use super::wildcard;

/// What a cell shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Value {
    /// The checked peak (`peak_bytes`), in [`Unit`]s.
    Peak,
    /// The reduction against the graph's baseline, in percent.
    Reduction,
    /// The gap to the graph's best known peak, in percent.
    Gap,
    /// The solve's wall-clock time, in milliseconds.
    Time,
}

impl Value {
    /// Whether a larger value is better (the row's best is its largest).
    fn larger_is_better(self) -> bool {
        self == Value::Reduction
    }

    /// What the caption says a cell is.
    fn what(self) -> &'static str {
        match self {
            Value::Peak => "peak memory",
            Value::Reduction => "reduction against the graph's baseline, in %",
            Value::Gap => "gap to the graph's best known peak, in %",
            Value::Time => "solve time, in ms",
        }
    }
}

/// The unit of peak cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// One unit for the whole table: the largest that keeps its largest
    /// peak at 1 or more (bytes in CSV).
    Auto,
    /// Bytes.
    B,
    /// 1024 bytes.
    KiB,
    /// 1024 KiB.
    MiB,
    /// 1024 MiB.
    GiB,
}

impl Unit {
    /// The unit's size in bytes and its name.
    fn scale(self) -> (f64, &'static str) {
        match self {
            Unit::Auto | Unit::B => (1.0, "B"),
            Unit::KiB => (1024.0, "KiB"),
            Unit::MiB => (1024.0 * 1024.0, "MiB"),
            Unit::GiB => (1024.0 * 1024.0 * 1024.0, "GiB"),
        }
    }

    /// [`Unit::Auto`] resolved for a table whose largest peak is `max`.
    fn resolve(self, max: u64) -> Unit {
        if self != Unit::Auto {
            return self;
        }
        [Unit::GiB, Unit::MiB, Unit::KiB]
            .into_iter()
            .find(|u| max as f64 >= u.scale().0)
            .unwrap_or(Unit::B)
    }
}

/// How the table is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// A Markdown table and its caption.
    Markdown,
    /// Plain numbers, no marks.
    Csv,
    /// A LaTeX `tabular`, its caption as a comment.
    Latex,
}

/// What to tabulate.
#[derive(Debug, Clone)]
pub struct Options {
    /// What a cell shows.
    pub value: Value,
    /// Solvers, as columns in this order; empty: every solver, in the
    /// order of the rows (the config's).
    pub solvers: Vec<String>,
    /// Graph name patterns (`*` matches any run of characters); empty:
    /// every graph, in the order of the rows.
    pub graphs: Vec<String>,
    /// The unit of peak cells.
    pub unit: Unit,
    /// The format it will be written in (CSV keeps bytes under `Auto`).
    pub format: Format,
    /// One row per family: each cell the mean over the family's graphs
    /// (not for peaks, which do not average across graphs).
    pub by_family: bool,
    /// Solvers the rows' experiment plans (its config's), as the rows
    /// spell them: one asked for in `solvers` with no row yet is a column
    /// of `-`, not an error. Empty when unknown.
    pub planned: Vec<String>,
}

/// One cell: the row standing for a solver on a graph.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Cell {
    /// `None`: a valid row without this value (a reduction on a graph
    /// with no valid baseline).
    value: Option<f64>,
    /// The peak, for [`Value::Peak`] cells, exactly.
    peak: u64,
    /// Proven optimal (by family: on every graph of the family).
    optimal: bool,
    /// By family, when the solver has a value on only some of its graphs:
    /// on how many, of how many.
    partial: Option<(usize, usize)>,
}

/// A table's cells, a row per graph (or family), a column per solver.
type Cells = Vec<Vec<Option<Cell>>>;

/// A table of graphs by solvers.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    value: Value,
    unit: Unit,
    /// The graphs (or families), as rows.
    pub graphs: Vec<String>,
    /// Rows are families: each cell a mean over its graphs.
    by_family: bool,
    /// By family: each row's family name and number of graphs.
    families: Vec<(String, usize)>,
    /// The solvers, as columns.
    pub solvers: Vec<String>,
    cells: Cells,
    /// Some solver ran with several seeds.
    seeded: bool,
    /// Pairs of a graph and a solver shown that have no row at all (not
    /// run yet: a run not finished, or a graph or solver added since).
    pub missing: usize,
}

/// Builds the table of `rows` (a `runs.csv`, in item order) that `opts`
/// asks for; an error names a solver or a graph pattern that is not in
/// the rows, or says that nothing is left to show.
pub fn build(rows: &[Row], opts: &Options) -> Result<Table, String> {
    // In the order they first appear; the sets keep it linear in the rows
    // (a million graphs' rows took minutes with a search per row).
    let (mut all_solvers, mut all_graphs): (Vec<&str>, Vec<&str>) = Default::default();
    let (mut solver_seen, mut graph_seen) = (HashSet::new(), HashSet::new());
    for r in rows {
        if solver_seen.insert(r.solver.as_str()) {
            all_solvers.push(&r.solver);
        }
        if graph_seen.insert(r.graph.as_str()) {
            all_graphs.push(&r.graph);
        }
    }
    if rows.is_empty() {
        return Err("there are no rows to tabulate".into());
    }
    let solvers = chosen_solvers(all_solvers, opts)?;
    let graphs = chosen_graphs(&all_graphs, opts)?;
    // The best valid row of each (graph, solver): lowest peak, then a
    // proven one (so a cell is starred when any seed proved its peak, as
    // the results README stars it), then seed.
    let mut best: BTreeMap<(&str, &str), &Row> = BTreeMap::new();
    let mut seeds: BTreeMap<&str, BTreeSet<u64>> = BTreeMap::new();
    let rank = |r: &Row| (r.peak_bytes, r.status != RowStatus::Optimal, r.seed);
    for r in rows.iter().filter(|r| r.valid && r.peak_bytes.is_some()) {
        seeds.entry(&r.solver).or_default().insert(r.seed);
        let slot = best.entry((&r.graph, &r.solver)).or_insert(r);
        if rank(r) < rank(slot) {
            *slot = r;
        }
    }
    let seeded = solvers
        .iter()
        .any(|s| seeds.get(s.as_str()).is_some_and(|k| k.len() > 1));
    let cell = |r: &Row| -> Option<Cell> {
        let peak = r.peak_bytes?;
        let value = match opts.value {
            Value::Peak => Some(peak as f64),
            Value::Reduction => r.reduction_pct,
            Value::Gap => r.gap_pct,
            Value::Time => Some(r.time_ms),
        };
        Some(Cell {
            value,
            peak,
            optimal: r.status == RowStatus::Optimal,
            partial: None,
        })
    };
    let ran: HashSet<(&str, &str)> = rows
        .iter()
        .map(|r| (r.graph.as_str(), r.solver.as_str()))
        .collect();
    let missing = graphs
        .iter()
        .flat_map(|g| solvers.iter().map(move |s| (g.as_str(), s.as_str())))
        .filter(|pair| !ran.contains(pair))
        .count();
    let cells: Vec<Vec<Option<Cell>>> = graphs
        .iter()
        .map(|g| {
            solvers
                .iter()
                .map(|s| best.get(&(g.as_str(), s.as_str())).and_then(|r| cell(r)))
                .collect()
        })
        .collect();
    let (graphs, cells, families) = match opts.by_family {
        false => (graphs, cells, Vec::new()),
        true => {
            if opts.value == Value::Peak {
                return Err(
                    "by family, a cell is a mean over graphs: give --value reduction, \
                            gap or time (peaks of different graphs do not average)"
                        .into(),
                );
            }
            let (families, cells) = by_family(rows, &graphs, &cells);
            let labels = (families.iter())
                .map(|(f, n)| match n {
                    1 => format!("{f} (1 graph)"),
                    n => format!("{f} ({n} graphs)"),
                })
                .collect();
            (labels, cells, families)
        }
    };
    let max_peak = cells.iter().flatten().flatten().map(|c| c.peak).max();
    let unit = match (opts.value, opts.format, opts.unit) {
        // CSV keeps exact bytes unless a unit is asked for.
        (_, Format::Csv, Unit::Auto) => Unit::B,
        (_, _, u) => u.resolve(max_peak.unwrap_or(0)),
    };
    Ok(Table {
        value: opts.value,
        unit,
        graphs,
        by_family: opts.by_family,
        families,
        solvers,
        cells,
        seeded,
        missing,
    })
}

/// The columns: the solvers `opts` asks for (each once, in its order), else
/// every solver of the rows (`all`, in the order they first appear) in the
/// config's order where it is known: the first graph's rows may lack a
/// solver (a run cut short, a shard), which would move it last. An error
/// names a solver asked for that has no row and is not planned.
fn chosen_solvers(mut all: Vec<&str>, opts: &Options) -> Result<Vec<String>, String> {
    let planned_at = |s: &str| opts.planned.iter().position(|p| p == s);
    all.sort_by_key(|s| planned_at(s).unwrap_or(usize::MAX));
    if opts.solvers.is_empty() {
        return Ok(all.iter().map(|s| s.to_string()).collect());
    }
    for s in &opts.solvers {
        if !all.contains(&s.as_str()) && !opts.planned.contains(s) {
            let unrun: Vec<&str> = (opts.planned.iter())
                .map(String::as_str)
                .filter(|p| !all.contains(p))
                .collect();
            let also = match unrun.is_empty() {
                true => String::new(),
                false => format!("; the config's, with no row yet: {}", unrun.join(", ")),
            };
            return Err(format!(
                "no row of solver `{s}`; the rows' solvers: {}{also}",
                all.join(", ")
            ));
        }
    }
    let mut asked: Vec<String> = Vec::new();
    for s in &opts.solvers {
        if !asked.contains(s) {
            asked.push(s.clone());
        }
    }
    Ok(asked)
}

/// The rows of the table: the graphs of the rows (`all`) that match one of
/// `opts`' patterns, or all of them; an error names a pattern that
/// matches none.
fn chosen_graphs(all: &[&str], opts: &Options) -> Result<Vec<String>, String> {
    for p in &opts.graphs {
        if !all.iter().any(|g| wildcard::matches(p, g)) {
            let names = crate::text::first_few(
                all.iter(),
                5,
                |g| format!("`{g}`"),
                |k| format!("{k} more"),
            );
            return Err(format!(
                "no graph matches `{p}` (`*` matches any run of characters); the graphs: {}",
                names.join(", ")
            ));
        }
    }
    Ok(all
        .iter()
        .filter(|g| opts.graphs.is_empty() || opts.graphs.iter().any(|p| wildcard::matches(p, g)))
        .map(|g| g.to_string())
        .collect())
}

/// The per-graph `cells` (rows `graphs`) folded into one row per family
/// (in the order the families first appear): each cell the mean of the
/// solver's values over the family's graphs that have one, proven optimal
/// if it is on every graph, and partial if some graph has no value; with
/// each family's name and number of graphs.
fn by_family(
    rows: &[Row],
    graphs: &[String],
    cells: &[Vec<Option<Cell>>],
) -> (Vec<(String, usize)>, Cells) {
    let family_of: BTreeMap<&str, &str> = rows
        .iter()
        .map(|r| (r.graph.as_str(), r.family.as_str()))
        .collect();
    // In the order they first appear, found by name in `at`.
    let mut families: Vec<(&str, Vec<usize>)> = Vec::new();
    let mut at: HashMap<&str, usize> = HashMap::new();
    for (i, g) in graphs.iter().enumerate() {
        let family = family_of.get(g.as_str()).copied().unwrap_or_default();
        let k = *at.entry(family).or_insert_with(|| {
            families.push((family, Vec::new()));
            families.len() - 1
        });
        families[k].1.push(i);
    }
    let columns = cells.first().map_or(0, Vec::len);
    let folded = families
        .iter()
        .map(|(_, members)| {
            (0..columns)
                .map(|j| {
                    let mine: Vec<&Cell> = members
                        .iter()
                        .filter_map(|&i| cells[i][j].as_ref())
                        .collect();
                    let values: Vec<f64> = mine.iter().filter_map(|c| c.value).collect();
                    if values.is_empty() {
                        return None;
                    }
                    let n = members.len();
                    Some(Cell {
                        value: Some(values.iter().sum::<f64>() / values.len() as f64),
                        peak: 0,
                        optimal: mine.len() == n && mine.iter().all(|c| c.optimal),
                        partial: (values.len() < n).then_some((values.len(), n)),
                    })
                })
                .collect()
        })
        .collect();
    let named = (families.iter())
        .map(|(f, members)| (f.to_string(), members.len()))
        .collect();
    (named, folded)
}

impl Table {
    /// The table written as `format`.
    pub fn render(&self, format: Format) -> String {
        match format {
            Format::Markdown => self.markdown(),
            Format::Csv => self.csv(),
            Format::Latex => self.latex(),
        }
    }

    /// A cell's number as Markdown and LaTeX show it: peaks in the table's
    /// unit (whole bytes, else two decimals), percentages with two
    /// decimals as the results README writes them (two significant digits
    /// for one that is not 0 but would read `0.00`), times in ms with
    /// three, as `runs.csv` holds them (so that fast solvers do not all
    /// read 0.0).
    fn number(&self, c: &Cell) -> String {
        let Some(value) = c.value else {
            return "n/a".into();
        };
        match self.value {
            Value::Peak => match self.unit {
                Unit::B | Unit::Auto => c.peak.to_string(),
                u => significant(c.peak as f64 / u.scale().0),
            },
            Value::Reduction | Value::Gap => super::report::two(value),
            Value::Time => format!("{value:.3}"),
        }
    }

    /// A cell's number as CSV holds it, at full precision: peaks in bytes
    /// (or the unit asked for), the rest as `runs.csv` has them.
    fn plain_number(&self, c: &Cell) -> String {
        let Some(value) = c.value else {
            return String::new();
        };
        match (self.value, self.unit) {
            (Value::Peak, Unit::B | Unit::Auto) => c.peak.to_string(),
            (Value::Peak, u) => (c.peak as f64 / u.scale().0).to_string(),
            _ => value.to_string(),
        }
    }

    /// A marked cell's text: its number, `(k of n)` when a family's mean
    /// is over some of its graphs only.
    fn shown(&self, c: &Cell) -> String {
        match c.partial {
            Some((k, n)) => format!("{} ({k} of {n})", self.number(c)),
            None => self.number(c),
        }
    }

    /// Per graph row, which cells are its best: ties all marked, by exact
    /// value (two peaks that print alike but differ by bytes are not tied).
    fn best_of_row(&self, row: &[Option<Cell>]) -> Vec<bool> {
        let better = |a: f64, b: f64| match self.value.larger_is_better() {
            true => a > b,
            false => a < b,
        };
        let values = row.iter().flatten().filter_map(|c| c.value);
        let best = values.fold(None::<f64>, |acc, v| match acc {
            Some(b) if !better(v, b) => Some(b),
            _ => Some(v),
        });
        row.iter()
            .map(|c| match (c.and_then(|c| c.value), best) {
                (Some(v), Some(b)) => v == b,
                _ => false,
            })
            .collect()
    }

    /// What the cells are, the marks, and where the seeds went.
    fn caption(&self) -> String {
        let mut s = match self.value {
            Value::Peak => format!("Cells: peak memory in {}", self.unit.scale().1),
            v if self.by_family => format!(
                "Cells: the mean over the family's graphs of the {}; (k of n): over the k \
                 graphs with a value only",
                v.what()
            ),
            v => format!("Cells: {}", v.what()),
        };
        let (row, proven) = match self.by_family {
            true => ("family", "proven optimal on every graph"),
            false => ("graph", "proven optimal"),
        };
        let _ = write!(
            s,
            "; bold: the {row}'s best of the columns shown (by exact value); *: {proven}; -: no \
             valid order"
        );
        if self.missing > 0 {
            let _ = write!(s, ", or, in {} cell(s), no row yet", self.missing);
        }
        if self
            .cells
            .iter()
            .flatten()
            .flatten()
            .any(|c| c.value.is_none())
        {
            s += "; n/a: a valid order but no value (no valid baseline on the graph)";
        }
        if self.seeded {
            s += "; a seeded solver's cell is its best seed";
        }
        s + "."
    }

    fn markdown(&self) -> String {
        let esc = markdown_escape;
        let first = if self.by_family { "family" } else { "graph" };
        let mut s = format!("| {first} |");
        for solver in &self.solvers {
            let _ = write!(s, " `{}` |", esc(solver));
        }
        s += "\n|---|";
        s += &"---:|".repeat(self.solvers.len());
        s.push('\n');
        for (graph, row) in self.graphs.iter().zip(&self.cells) {
            let _ = write!(s, "| {} |", esc(graph));
            for (c, best) in row.iter().zip(self.best_of_row(row)) {
                let text = match c {
                    None => "-".to_string(),
                    Some(c) => {
                        let n = self.shown(c) + if c.optimal { "\\*" } else { "" };
                        if best {
                            format!("**{n}**")
                        } else {
                            n
                        }
                    }
                };
                let _ = write!(s, " {text} |");
            }
            s.push('\n');
        }
        let _ = writeln!(s, "\n{}", self.caption());
        s
    }

    /// Plain numbers, no marks: empty where there is no valid order. By
    /// family, the family's name and graph count, and after each solver's
    /// mean the number of graphs it is over.
    fn csv(&self) -> String {
        let mut w = csv::Writer::from_writer(Vec::new());
        let number = |c: &Option<Cell>| c.as_ref().map_or(String::new(), |c| self.plain_number(c));
        if self.by_family {
            let mut header = vec!["family".to_string(), "graphs".to_string()];
            for s in &self.solvers {
                header.extend([s.clone(), format!("{s} graphs")]);
            }
            let _ = w.write_record(&header);
            for ((family, n), row) in self.families.iter().zip(&self.cells) {
                let mut record = vec![family.clone(), n.to_string()];
                for c in row {
                    let over = match c {
                        Some(c) if c.value.is_some() => c.partial.map_or(*n, |(k, _)| k),
                        _ => 0,
                    };
                    record.extend([number(c), over.to_string()]);
                }
                let _ = w.write_record(&record);
            }
        } else {
            let header = std::iter::once("graph").chain(self.solvers.iter().map(String::as_str));
            let _ = w.write_record(header);
            for (graph, row) in self.graphs.iter().zip(&self.cells) {
                let _ =
                    w.write_record(std::iter::once(graph.clone()).chain(row.iter().map(number)));
            }
        }
        String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
    }

    /// A `tabular` (no package needed), its caption as a comment.
    fn latex(&self) -> String {
        let mut s = format!("% {}\n", self.caption());
        let _ = writeln!(
            s,
            "\\begin{{tabular}}{{l{}}}\n\\hline",
            "r".repeat(self.solvers.len())
        );
        s += if self.by_family { "family" } else { "graph" };
        for solver in &self.solvers {
            let _ = write!(s, " & \\texttt{{{}}}", latex_escape(solver));
        }
        s += " \\\\\n\\hline\n";
        for (graph, row) in self.graphs.iter().zip(&self.cells) {
            s += &latex_escape(graph);
            for (c, best) in row.iter().zip(self.best_of_row(row)) {
                let text = match c {
                    None => "--".to_string(),
                    Some(c) => {
                        let n = self.shown(c);
                        let n = if best { format!("\\textbf{{{n}}}") } else { n };
                        if c.optimal {
                            n + "$^*$"
                        } else {
                            n
                        }
                    }
                };
                let _ = write!(s, " & {text}");
            }
            s += " \\\\\n";
        }
        s + "\\hline\n\\end{tabular}\n"
    }
}

/// A number in the table's unit with two decimals, or, below 1, three
/// significant digits (`0.0312`), so that small peaks stay readable.
fn significant(x: f64) -> String {
    if x >= 1.0 || x == 0.0 {
        return format!("{x:.2}");
    }
    let decimals = (2 - x.log10().floor() as i32).clamp(2, 12) as usize;
    format!("{x:.decimals$}")
}

/// `text` with the characters Markdown would read as markup escaped
/// (`*` emphasis, `|` a cell's end, `` ` `` code, `<` a tag), and control
/// characters (a newline in a file name would end the table's row) shown
/// as Rust escapes (`\n`).
pub(crate) fn markdown_escape(text: &str) -> String {
    let mut s = String::with_capacity(text.len());
    for ch in text.chars() {
        if ch.is_control() {
            s.extend(ch.escape_default());
            continue;
        }
        if matches!(ch, '\\' | '*' | '|' | '`' | '<') {
            s.push('\\');
        }
        s.push(ch);
    }
    s
}

/// `text` with LaTeX's special characters escaped; a leading `[` or `*`,
/// after any spaces, is shielded by `{}` (after a row's `\\`, which skips
/// spaces, `[` would open an optional argument and `*` be swallowed).
fn latex_escape(text: &str) -> String {
    let mut s = String::with_capacity(text.len() + 2);
    let shown = text.trim_start_matches(|c: char| c.is_whitespace() || c.is_control());
    if shown.starts_with(['[', '*']) {
        s += "{}";
    }
    for ch in text.chars() {
        match ch {
            '\\' => s += "\\textbackslash{}",
            '~' => s += "\\textasciitilde{}",
            '^' => s += "\\textasciicircum{}",
            '|' => s += "\\textbar{}",
            '<' => s += "\\textless{}",
            '>' => s += "\\textgreater{}",
            c if c.is_control() => s.push(' '),
            '&' | '%' | '$' | '#' | '_' | '{' | '}' => {
                s.push('\\');
                s.push(ch);
            }
            _ => s.push(ch),
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(graph: &str, solver: &str, seed: u64, status: &str, peak: Option<u64>) -> Row {
        Row {
            graph: graph.into(),
            solver: solver.into(),
            seed,
            status: RowStatus::from_label(status).expect("a status label"),
            valid: peak.is_some(),
            peak_bytes: peak,
            reduction_pct: peak.map(|p| 100.0 * (4096.0 - p as f64) / 4096.0),
            gap_pct: Some(0.0),
            time_ms: 1.5,
            ..super::super::rows::blank()
        }
    }

    fn rows() -> Vec<Row> {
        vec![
            row("g1", "program", 0, "feasible", Some(4096)),
            row("g1", "random", 0, "feasible", Some(3072)),
            row("g1", "random", 1, "feasible", Some(2048)),
            row("g1", "exact", 0, "optimal", Some(2048)),
            row("g2_x", "program", 0, "feasible", Some(4096)),
            row("g2_x", "random", 0, "feasible", Some(4096)),
            row("g2_x", "exact", 0, "timed_out", None),
        ]
    }

    /// Columns follow the config's order when it is known, though the
    /// first graph's rows lack a solver (a run cut short, a shard).
    #[test]
    fn columns_follow_the_config_order() {
        let mut o = opts(Value::Peak, Format::Csv);
        let rows = rows()[1..].to_vec();
        let header = |o: &Options| {
            let t = build(&rows, o).unwrap().render(Format::Csv);
            t.lines().next().unwrap().to_string()
        };
        assert_eq!(header(&o), "graph,random,exact,program");
        o.planned = ["program", "random", "exact"].map(String::from).to_vec();
        assert_eq!(header(&o), "graph,program,random,exact");
        o.solvers = vec!["kahn".into()];
        o.planned.push("kahn".into());
        o.planned.push("dp".into());
        assert!(build(&rows, &o).is_ok());
        o.solvers = vec!["ilp".into()];
        let err = build(&rows, &o).unwrap_err();
        assert!(
            err.ends_with("the config's, with no row yet: kahn, dp"),
            "{err}"
        );
    }

    fn opts(value: Value, format: Format) -> Options {
        Options {
            value,
            solvers: Vec::new(),
            graphs: Vec::new(),
            unit: Unit::Auto,
            format,
            by_family: false,
            planned: Vec::new(),
        }
    }

    /// A seeded solver's cell is its best seed; the row's best is bold,
    /// ties included, a proven optimum starred, a missing order a dash.
    #[test]
    fn markdown_marks_the_best_and_the_proven() {
        let t = build(&rows(), &opts(Value::Peak, Format::Markdown)).unwrap();
        let text = t.render(Format::Markdown);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "| graph | `program` | `random` | `exact` |");
        assert_eq!(lines[2], "| g1 | 4.00 | **2.00** | **2.00\\*** |");
        assert_eq!(lines[3], "| g2_x | **4.00** | **4.00** | - |");
        assert!(text.contains("peak memory in KiB"), "{text}");
        assert!(text.contains("its best seed"), "{text}");
    }

    /// Of two seeds at one peak, the one that proved it is the cell's
    /// row, so the cell is starred whichever seed is lower.
    #[test]
    fn a_seed_that_proved_the_peak_stars_the_cell() {
        let mut rows = rows();
        rows.push(row("g1", "anneal", 0, "feasible", Some(2048)));
        rows.push(row("g1", "anneal", 1, "optimal", Some(2048)));
        let mut o = opts(Value::Peak, Format::Markdown);
        o.solvers = vec!["anneal".into()];
        let text = build(&rows, &o).unwrap().render(Format::Markdown);
        assert!(text.contains("| g1 | **2.00\\*** |"), "{text}");
    }

    /// CSV keeps exact bytes and no marks; reductions are best when largest.
    #[test]
    fn csv_is_plain_numbers_and_reduction_prefers_the_largest() {
        let t = build(&rows(), &opts(Value::Peak, Format::Csv)).unwrap();
        assert_eq!(
            t.render(Format::Csv),
            "graph,program,random,exact\ng1,4096,2048,2048\ng2_x,4096,4096,\n"
        );
        let t = build(&rows(), &opts(Value::Reduction, Format::Markdown)).unwrap();
        let text = t.render(Format::Markdown);
        assert!(
            text.contains("| g1 | 0.00 | **50.00** | **50.00\\*** |"),
            "{text}"
        );
    }

    /// LaTeX escapes names and marks as Markdown does.
    #[test]
    fn latex_escapes_and_marks() {
        let t = build(&rows(), &opts(Value::Peak, Format::Latex)).unwrap();
        let text = t.render(Format::Latex);
        assert!(
            text.contains("g2\\_x & \\textbf{4.00} & \\textbf{4.00} & -- \\\\"),
            "{text}"
        );
        assert!(text.contains("\\textbf{2.00}$^*$"), "{text}");
        assert!(text.starts_with("% Cells: peak memory in KiB"), "{text}");
        assert_eq!(latex_escape("[a]_b"), "{}[a]\\_b");
        assert_eq!(latex_escape(" [c]"), "{} [c]");
        assert_eq!(latex_escape("\u{1}[c]"), "{} [c]");
        assert_eq!(latex_escape("*star"), "{}*star");
        assert_eq!(latex_escape("a[b]*"), "a[b]*");
    }

    /// Solvers in the asked order, graphs by pattern; unknown ones are
    /// errors that name them.
    #[test]
    fn filters_pick_and_order_and_name_what_is_missing() {
        let mut o = opts(Value::Peak, Format::Csv);
        o.solvers = vec!["exact".into(), "program".into()];
        o.graphs = vec!["g2*".into()];
        let t = build(&rows(), &o).unwrap();
        assert_eq!(t.render(Format::Csv), "graph,exact,program\ng2_x,,4096\n");
        o.solvers = vec!["kahn".into()];
        let err = build(&rows(), &o).unwrap_err();
        assert!(err.contains("no row of solver `kahn`") && err.contains("program, random, exact"));
        // A solver the config plans but that has no row yet is a column
        // of `-`, counted as missing.
        o.planned = vec!["kahn".into()];
        o.format = Format::Markdown;
        let t = build(&rows(), &o).unwrap();
        assert_eq!(t.missing, 1);
        assert!(t
            .render(Format::Markdown)
            .starts_with("| graph | `kahn` |\n|---|---:|\n| g2_x | - |"));
        o.planned.clear();
        o.solvers.clear();
        o.graphs = vec!["h*".into()];
        assert!(build(&rows(), &o)
            .unwrap_err()
            .contains("no graph matches `h*`"));
    }

    /// Peaks below 1 in the table's unit keep three significant digits;
    /// names are escaped for Markdown and LaTeX.
    #[test]
    fn small_peaks_stay_readable_and_names_are_escaped() {
        assert_eq!(significant(150.0625), "150.06");
        assert_eq!(significant(0.03125), "0.0312");
        assert_eq!(significant(0.000123456), "0.000123");
        assert_eq!(significant(0.5), "0.500");
        assert_eq!(significant(0.0), "0.00");
        assert_eq!(markdown_escape("a*b|c`d<e_f"), "a\\*b\\|c\\`d\\<e_f");
        assert_eq!(markdown_escape("a\nb\tc"), "a\\nb\\tc");
        assert_eq!(latex_escape("a\nb"), "a b");
        assert_eq!(
            latex_escape("a|b<c>d_e"),
            "a\\textbar{}b\\textless{}c\\textgreater{}d\\_e"
        );
    }

    /// A valid row without the value asked for (a reduction where the
    /// graph has no valid baseline) is `n/a`, said in the caption, and is
    /// never the row's best; in CSV it is empty.
    #[test]
    fn a_valid_row_without_a_value_is_not_applicable() {
        let mut rows = rows();
        for r in rows.iter_mut().filter(|r| r.graph == "g2_x") {
            r.reduction_pct = None;
        }
        let t = build(&rows, &opts(Value::Reduction, Format::Markdown)).unwrap();
        let text = t.render(Format::Markdown);
        assert!(text.contains("| g2_x | n/a | n/a | - |"), "{text}");
        assert!(text.contains("n/a: a valid order but no value"), "{text}");
        let t = build(&rows, &opts(Value::Reduction, Format::Csv)).unwrap();
        assert!(t.render(Format::Csv).ends_with("g2_x,,,\n"));
    }

    /// By family, a cell is the mean over the family's graphs; a solver
    /// with a value on some graphs only says on how many; a star needs a
    /// proof on every graph; peaks are refused.
    #[test]
    fn by_family_cells_are_means_over_the_graphs() {
        let mut rows = rows();
        for r in &mut rows {
            r.family = "f".into();
        }
        let mut o = opts(Value::Reduction, Format::Markdown);
        o.by_family = true;
        let text = build(&rows, &o).unwrap().render(Format::Markdown);
        // random: 50 on g1 (its best seed), 0 on g2_x; exact: g1 only.
        assert!(
            text.starts_with("| family | `program` | `random` | `exact` |"),
            "{text}"
        );
        assert!(
            text.contains("| f (2 graphs) | 0.00 | 25.00 | **50.00 (1 of 2)** |"),
            "{text}"
        );
        assert!(text.contains("mean over the family's graphs"), "{text}");
        // CSV keeps the counts in columns of their own.
        o.format = Format::Csv;
        assert_eq!(
            build(&rows, &o).unwrap().render(Format::Csv),
            "family,graphs,program,program graphs,random,random graphs,exact,exact graphs\n\
             f,2,0,2,25,2,50,1\n"
        );
        o.value = Value::Peak;
        assert!(build(&rows, &o).unwrap_err().contains("do not average"));
    }
}
