//! Stopping HiGHS mid-solve when a context's stop flag is set (Ctrl-C in
//! `memsched schedule`), through the HiGHS C API's interrupt callbacks:
//! neither good_lp nor the `highs` crate exposes them.
//!
//! HiGHS asks its callback at each limit check of its MIP search (and of
//! the simplex, for a model without binaries, which it solves as an LP);
//! the callback reads the flag and, once it is set, asks HiGHS to stop.
//! HiGHS then returns as at its time limit (status `ReachedInterrupt`),
//! with its incumbent and its bound, so `ilp` answers with its best so far
//! instead of running on inside a HiGHS call. The callback does not reach
//! HiGHS's set-up of a MIP (symmetry detection, clique table) nor the LP
//! relaxations it solves in a separate instance of its own: a stop there
//! waits for them.

#![allow(unsafe_code)]

use std::ffi::{c_char, c_int, c_void};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use highs_sys::{
    kHighsCallbackMipInterrupt, kHighsCallbackSimplexInterrupt, kHighsStatusOk,
    HighsCallbackDataIn, HighsCallbackDataOut, Highs_setCallback, Highs_startCallback,
};

/// Arms the interrupt callbacks of the HiGHS instance behind `highs` on
/// `flag`; `None` if HiGHS refuses them (the solve then runs to its limit,
/// as before). The returned guard holds the flag, which HiGHS reads through
/// a pointer.
///
/// # Safety
/// `highs` must point to a live HiGHS instance (a model's mutable
/// pointer), and the guard must outlive every solve of that instance: hold
/// it until the solve has returned.
pub(super) unsafe fn on_flag(highs: *mut c_void, flag: &Arc<AtomicBool>) -> Option<Armed> {
    let flag = Arc::clone(flag);
    let data = Arc::as_ptr(&flag) as *mut c_void;
    // SAFETY: the caller vouches for `highs` and for the guard's lifetime;
    // `interrupt_when_set` matches `HighsCCallbackType`, and `data` points
    // to the `AtomicBool` the guard keeps alive.
    let armed = unsafe {
        Highs_setCallback(highs, Some(interrupt_when_set), data) == kHighsStatusOk
            && Highs_startCallback(highs, kHighsCallbackMipInterrupt) == kHighsStatusOk
            && Highs_startCallback(highs, kHighsCallbackSimplexInterrupt) == kHighsStatusOk
    };
    armed.then_some(Armed { _flag: flag })
}

/// Keeps the flag HiGHS's callback reads alive while it may read it.
pub(super) struct Armed {
    _flag: Arc<AtomicBool>,
}

/// HiGHS's callback: asks it to stop once the flag behind `data` is set.
/// Only for the interrupt callbacks, the two `on_flag` starts: for any
/// other, HiGHS does not expect `user_interrupt`.
unsafe extern "C" fn interrupt_when_set(
    callback_type: c_int,
    _message: *const c_char,
    _data_out: *const HighsCallbackDataOut,
    data_in: *mut HighsCallbackDataIn,
    data: *mut c_void,
) {
    let interrupt = callback_type == kHighsCallbackMipInterrupt
        || callback_type == kHighsCallbackSimplexInterrupt;
    if !interrupt || data_in.is_null() || data.is_null() {
        return;
    }
    // SAFETY: `data` is the `AtomicBool` `on_flag` registered, alive while
    // HiGHS solves; an atomic read needs no exclusive access.
    let set = unsafe { &*(data as *const AtomicBool) }.load(Ordering::Relaxed);
    if set {
        // SAFETY: for interrupt callbacks HiGHS passes its `data_in`,
        // valid for this call, whose `user_interrupt` asks it to stop.
        unsafe { (*data_in).user_interrupt = 1 };
    }
}
