//! A cache prefetch hint: one of the crate's few `unsafe` blocks (the
//! crate's docs list them).
//!
//! A list scheduler whose key orders nodes far from memory order (the
//! article's greedy runs the floating encoding's ALLOCs smallest first)
//! waits on a cache miss for each array it reads per node. When the ready
//! set knows which nodes it pops next, the loop asks for their cache lines
//! some pops early and the misses overlap (see `list_schedule` in
//! `solvers/kahn.rs`). A prefetch is only a hint: it never faults, whatever
//! the address, and changes no result.

/// Asks the CPU to bring the cache line holding `data[i]` into its caches;
/// `i` may be out of bounds (nothing is read). A no-op off x86-64.
#[inline(always)]
pub(crate) fn prefetch<T>(data: &[T], i: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let p = data.as_ptr().wrapping_add(i).cast::<i8>();
        // SAFETY: `prefetcht0` has no architectural effect and never
        // faults, even on an invalid address; `p` is not dereferenced.
        #[allow(unsafe_code)]
        unsafe {
            _mm_prefetch::<_MM_HINT_T0>(p)
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (data, i);
}
