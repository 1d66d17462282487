//! Ctrl-C (or SIGTERM, a batch system's stop) in `memsched schedule` and
//! `memsched run`. In `schedule` the
//! first one stops every solver at its best so far, as its time limit
//! would, and the report is still written; in `run` it starts no more
//! solves, and those in flight finish and are recorded. A second one ends
//! the process at once, as Ctrl-C does by default. At the end, the process
//! ends by the signal it got, so that a shell loop or script around it
//! stops too.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use memsched::solvers::Stop;

/// Set by SIGTERM (how batch systems such as Slurm stop a job), which
/// acts as Ctrl-C does; read by [`cause`].
static TERMINATED: OnceLock<Arc<AtomicBool>> = OnceLock::new();

fn terminated() -> &'static Arc<AtomicBool> {
    TERMINATED.get_or_init(|| Arc::new(AtomicBool::new(false)))
}

/// The signal that set the stop flag, as messages name it.
pub fn cause() -> &'static str {
    // SeqCst, as the handlers store: the marker is set before the flag.
    match terminated().load(Ordering::SeqCst) {
        true => "SIGTERM",
        false => "Ctrl-C",
    }
}

/// The stop flag the solvers share, set by the first Ctrl-C or SIGTERM.
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
            use signal_hook::consts::{SIGINT, SIGTERM};
            use signal_hook::flag;
            // The conditional defaults first, so they see the flag as an
            // earlier signal left it: unset on the first, set on a second
            // (of either kind).
            let installed = [SIGINT, SIGTERM]
                .into_iter()
                .try_for_each(|sig| flag::register_conditional_default(sig, flag.clone()).map(drop))
                .and_then(|_| flag::register(SIGTERM, terminated().clone()))
                .and_then(|_| flag::register(SIGINT, flag.clone()))
                .and_then(|_| flag::register(SIGTERM, flag.clone()));
            if let Err(e) = installed {
                note!("warning: Ctrl-C will end the run without a report: {e}");
            }
        }
        Interrupt { flag }
    }

    /// The stop for [`SolveContext::stop`](memsched::solvers::SolveContext::stop)
    /// and `RunOptions::stop`, naming the signal that sets it.
    pub fn stop(&self) -> Stop {
        Stop {
            flag: self.flag.clone(),
            cause,
        }
    }

    /// True once Ctrl-C (or SIGTERM) came.
    pub fn happened(&self) -> bool {
        self.flag.load(Ordering::SeqCst)
    }

    /// The status a shell sees for the signal that came (130 for SIGINT,
    /// 143 for SIGTERM), where the process cannot end by the signal itself.
    pub fn exit_status(&self) -> u8 {
        match terminated().load(Ordering::SeqCst) {
            true => 143,
            false => 130,
        }
    }

    /// After the report of an interrupted run: ends the process as the
    /// signal's default action does (killed by SIGINT, shell status 130;
    /// by SIGTERM, 143). Returns only where that cannot be done.
    pub fn end_as_interrupted(&self) {
        #[cfg(unix)]
        {
            use signal_hook::consts::{SIGINT, SIGTERM};
            let signal = match terminated().load(Ordering::SeqCst) {
                true => SIGTERM,
                false => SIGINT,
            };
            // Stdout and stderr are written unbuffered or flushed by `emit`.
            let _ = signal_hook::low_level::emulate_default_handler(signal);
        }
    }
}
