//! Catches a solve's panic as a message for its row, without the panic
//! hook printing it over the progress bar.
//!
//! The process-wide hook is wrapped once and never swapped back and forth:
//! it stays silent only for panics on a thread that is inside
//! [`catch_panic`] or marked by [`quiet_thread`] (a worker of a run's
//! pool, whose every job catches its panics), and calls the hook it
//! wrapped everywhere else, so a panic outside a run (or in another test of
//! the same binary) still prints its message.

use std::any::Any;
use std::cell::Cell;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;

thread_local! {
    /// How many [`catch_panic`] calls this thread is inside.
    static CATCHING: Cell<u32> = const { Cell::new(0) };
}

/// Runs `f`; a panic in it becomes `Err` with the panic's message
/// (`"unknown panic"` for a payload that is not a string), printed by no
/// hook.
pub fn catch_panic<R>(f: impl FnOnce() -> R) -> Result<R, String> {
    wrap_hook();
    CATCHING.with(|c| c.set(c.get() + 1));
    let result = panic::catch_unwind(AssertUnwindSafe(f));
    CATCHING.with(|c| c.set(c.get() - 1));
    result.map_err(|payload| message(payload.as_ref()))
}

/// Silences the hook for this thread for good: for the workers of a run's
/// pool, where a solver's nested parallel task may run on a worker that is
/// not inside [`catch_panic`] itself (its panic reaches the solve that
/// spawned it, which records it). Every job the run gives its pool catches
/// its own panics, so none goes unreported.
pub fn quiet_thread() {
    wrap_hook();
    CATCHING.with(|c| c.set(c.get() + 1));
}

/// A pool of `threads` workers (0: one per core) whose threads are
/// [quiet](quiet_thread): every job given to it must catch its own panics.
pub fn quiet_pool(threads: usize) -> Result<rayon::ThreadPool, rayon::ThreadPoolBuildError> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .start_handler(|_| quiet_thread())
        .build()
}

/// Wraps the process-wide hook, once.
fn wrap_hook() {
    static WRAP_HOOK: Once = Once::new();
    WRAP_HOOK.call_once(|| {
        let wrapped = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if CATCHING.with(Cell::get) == 0 {
                wrapped(info);
            }
        }));
    });
}

/// The text of a panic payload (`panic!("..")` gives a `&str` or a `String`).
fn message(payload: &(dyn Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_its_message_and_nested_catches_unwind_in_turn() {
        assert_eq!(catch_panic(|| 7), Ok(7));
        assert_eq!(catch_panic(|| panic!("boom")), Err::<(), _>("boom".into()));
        let n = 3;
        assert_eq!(
            catch_panic(|| panic!("{n} left")),
            Err::<(), _>("3 left".into())
        );
        assert_eq!(
            catch_panic(|| std::panic::panic_any(5u8)),
            Err::<(), _>("unknown panic".into())
        );
        let outer = catch_panic(|| {
            let inner = catch_panic(|| panic!("inner"));
            assert_eq!(inner, Err::<(), _>("inner".into()));
            CATCHING.with(Cell::get)
        });
        assert_eq!(outer, Ok(1), "one level left inside the outer catch");
        assert_eq!(CATCHING.with(Cell::get), 0);
    }
}
