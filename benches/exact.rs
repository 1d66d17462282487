//! Benchmark `exact` (to be written).
fn main() {}
