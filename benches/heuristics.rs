//! Benchmark `heuristics` (to be written).
fn main() {}
