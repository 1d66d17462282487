//! Graphs in memory during a run: loaded (or kept from the check) on first
//! use, shared by the items that need them, dropped after their last item.

use std::sync::{Arc, Mutex};

use crate::corpus::gen;
use crate::experiment::fingerprint::{self, Fingerprint};
use crate::experiment::plan::{GraphEntry, GraphSource, Item};
use crate::graph::{seed, Graph};

/// Graphs loaded on first use, shared by the items that need them, and
/// dropped after their last pending item (so a scaling run holds only the
/// graphs in flight, not every million-node graph at once).
pub(super) struct GraphStore<'a> {
    entries: &'a [GraphEntry],
    slots: Vec<Mutex<Slot>>,
}

struct Slot {
    graph: Option<Result<Arc<Graph>, String>>,
    remaining: usize,
    /// The fingerprint the check before the run found: a graph loaded
    /// again for its items must still have it (its file may be edited
    /// while a long run goes on).
    expected: Option<Fingerprint>,
}

impl<'a> GraphStore<'a> {
    pub(super) fn new(entries: &'a [GraphEntry], pending: &[Item]) -> Self {
        let mut remaining = vec![0usize; entries.len()];
        for it in pending {
            remaining[it.graph] += 1;
        }
        GraphStore {
            entries,
            slots: remaining
                .into_iter()
                .map(|remaining| {
                    Mutex::new(Slot {
                        graph: None,
                        remaining,
                        expected: None,
                    })
                })
                .collect(),
        }
    }
    /// The graph, loaded by the first caller (others wait for it); an
    /// error if it no longer has the fingerprint it had when the run
    /// started.
    pub(super) fn get(&self, i: usize) -> Result<Arc<Graph>, String> {
        let mut slot = self.slots[i].lock().unwrap_or_else(|e| e.into_inner());
        let expected = slot.expected;
        slot.graph
            .get_or_insert_with(|| {
                let graph = load(&self.entries[i])?;
                match expected.map(|fp| (fp, fingerprint::of(&graph))) {
                    Some((then, now)) if then != now => Err(format!(
                        "it changed during the run (fingerprint {now}, {then} when the run \
                         started): its file was edited or replaced"
                    )),
                    _ => Ok(Arc::new(graph)),
                }
            })
            .clone()
    }
    /// Graph `i` had fingerprint `fp` when the run started.
    pub(super) fn set_fingerprint(&self, i: usize, fp: Fingerprint) {
        let mut slot = self.slots[i].lock().unwrap_or_else(|e| e.into_inner());
        slot.expected = Some(fp);
    }
    /// Keeps graph `i`, loaded by the check before the run, for its items.
    pub(super) fn keep(&self, i: usize, graph: Graph) {
        let mut slot = self.slots[i].lock().unwrap_or_else(|e| e.into_inner());
        slot.graph = Some(Ok(Arc::new(graph)));
    }
    /// One item of graph `i` is done; the last one drops the graph.
    pub(super) fn release(&self, i: usize) {
        let mut slot = self.slots[i].lock().unwrap_or_else(|e| e.into_inner());
        slot.remaining = slot.remaining.saturating_sub(1);
        if slot.remaining == 0 {
            slot.graph = None;
        }
    }
}

/// Loads or generates one graph.
pub fn load(entry: &GraphEntry) -> Result<Graph, String> {
    match &entry.source {
        GraphSource::File(p) => seed::read_path(p).map_err(|e| e.to_string()),
        GraphSource::Generated { spec, seed } => {
            gen::generate(spec, *seed).map_err(|e| e.to_string())
        }
    }
}

/// Most nodes plus edges of the graphs the check keeps for the run (small
/// graphs: a corpus of them is loaded once; larger ones are loaded again
/// when their items run, so peak memory stays that of the graphs in use).
pub(super) const KEEP_ELEMENTS: usize = 2_000_000;
/// Largest graph (nodes plus edges) the check keeps.
pub(super) const KEEP_ONE: usize = 100_000;
/// What a kept graph counts against [`KEEP_ELEMENTS`] besides its nodes
/// and edges: its fixed cost (about a dozen vectors, its `Generator`
/// record) is some kilobytes, so a corpus of tiny graphs must not keep
/// two million of them.
pub(super) const KEEP_OVERHEAD: usize = 200;
