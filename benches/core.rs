//! Benchmark `core` (to be written).
fn main() {}
