//! Ctrl-C in `memsched schedule` and `memsched run`. In `schedule` the
//! first one stops every solver at its best so far, as its time limit
//! would, and the report is still written; in `run` it starts no more
//! solves, and those in flight finish and are recorded. A second one ends
//! the process at once, as Ctrl-C does by default. At the end, the process
//! ends by the signal it got, so that a shell loop or script around it
//! stops too.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// The stop flag the solvers share, set by the first Ctrl-C.
pub struct Interrupt {
    flag: Arc<AtomicBool>,
}

impl Interrupt {
    /// Installs the handlers (on Unix; elsewhere Ctrl-C keeps its default
    /// action and the flag is never set).
    pub fn install() -> Interrupt {
        let flag = Arc::new(AtomicBool::new(false));
        #[cfg(unix)]
        {
            use signal_hook::consts::SIGINT;
            use signal_hook::flag;
            // Registered first, so it sees the flag as the earlier Ctrl-C
            // left it: unset on the first, set on the second.
            let installed = flag::register_conditional_default(SIGINT, flag.clone())
                .and_then(|_| flag::register(SIGINT, flag.clone()));
            if let Err(e) = installed {
                note!("warning: Ctrl-C will end the run without a report: {e}");
            }
        }
        Interrupt { flag }
    }

    /// The flag for [`SolveContext::stop`](memsched::solvers::SolveContext::stop).
    pub fn flag(&self) -> Arc<AtomicBool> {
        self.flag.clone()
    }

    /// True once Ctrl-C was pressed.
    pub fn happened(&self) -> bool {
        self.flag.load(Ordering::Relaxed)
    }

    /// After the report of an interrupted run: ends the process as the
    /// signal's default action does (killed by SIGINT, shell status 130).
    /// Returns only where that cannot be done.
    pub fn end_as_interrupted(&self) {
        #[cfg(unix)]
        {
            // Stdout and stderr are written unbuffered or flushed by `emit`.
            let _ = signal_hook::low_level::emulate_default_handler(signal_hook::consts::SIGINT);
        }
    }
}
