//! Stopping HiGHS mid-solve when a context's stop flag is set (Ctrl-C in
//! `memsched schedule`), through the HiGHS C API's interrupt callbacks:
//! neither good_lp nor the `highs` crate exposes them.
//!
//! HiGHS asks its callback at each interrupt check of the MIP search and of
//! its simplex solves; the callback reads the flag and, once it is set,
//! asks HiGHS to stop. HiGHS then returns as at its time limit (status
//! `Interrupt`), with its incumbent and its bound, so `ilp` answers with its
//! best so far instead of running on inside a HiGHS call.

#![allow(unsafe_code)]

use std::ffi::{c_char, c_int, c_void};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use highs_sys::{
    kHighsCallbackMipInterrupt, kHighsCallbackSimplexInterrupt, kHighsStatusOk,
    HighsCallbackDataIn, HighsCallbackDataOut, Highs_setCallback, Highs_startCallback,
};

/// Arms the interrupt callbacks of the HiGHS instance behind `highs` (a
/// model's mutable pointer) on `flag`. The returned guard holds the flag;
/// HiGHS keeps a pointer to it, so the guard must live until the solve
/// has returned (the caller holds it across the solve).
pub(super) fn on_flag(highs: *mut c_void, flag: &Arc<AtomicBool>) -> Result<Armed, String> {
    let flag = Arc::clone(flag);
    let data = Arc::as_ptr(&flag) as *mut c_void;
    // SAFETY: `highs` points to a live HiGHS instance the caller holds
    // mutably; `interrupt_when_set` matches `HighsCCallbackType`, and `data`
    // points to an `AtomicBool` kept alive by the returned guard, which the
    // caller holds until HiGHS has returned from its solve (the only time it
    // calls back).
    let armed = unsafe {
        Highs_setCallback(highs, Some(interrupt_when_set), data) == kHighsStatusOk
            && Highs_startCallback(highs, kHighsCallbackMipInterrupt) == kHighsStatusOk
            && Highs_startCallback(highs, kHighsCallbackSimplexInterrupt) == kHighsStatusOk
    };
    match armed {
        true => Ok(Armed { _flag: flag }),
        false => Err("HiGHS refused its interrupt callback".to_string()),
    }
}

/// Keeps the flag HiGHS's callback reads alive while it may read it.
pub(super) struct Armed {
    _flag: Arc<AtomicBool>,
}

/// HiGHS's callback: asks it to stop once the flag behind `data` is set.
unsafe extern "C" fn interrupt_when_set(
    _callback_type: c_int,
    _message: *const c_char,
    _data_out: *const HighsCallbackDataOut,
    data_in: *mut HighsCallbackDataIn,
    data: *mut c_void,
) {
    // SAFETY: `data` is the `AtomicBool` `on_flag` registered, alive while
    // HiGHS solves; an atomic read needs no exclusive access.
    let set = unsafe { &*(data as *const AtomicBool) }.load(Ordering::Relaxed);
    if set && !data_in.is_null() {
        // SAFETY: for interrupt callbacks HiGHS passes its `data_in`,
        // valid for this call, whose `user_interrupt` asks it to stop.
        unsafe { (*data_in).user_interrupt = 1 };
    }
}
