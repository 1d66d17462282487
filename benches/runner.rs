//! Benchmark `runner` (to be written).
fn main() {}
