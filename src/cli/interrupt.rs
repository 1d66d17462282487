//! Ctrl-C (or SIGTERM, a batch system's stop, or SIGHUP, a closed
//! terminal) in `memsched schedule` and `memsched run`. In `schedule` the
//! first one stops every solver at its best so far, as its time limit
//! would, and the report is still written; in `run` it starts no more
//! solves, and those in flight finish and are recorded. A second one ends
//! the process at once, as Ctrl-C does by default, unless it comes within
//! [`REPEAT_WINDOW`] of the first: `timeout` signals the process and then
//! its whole process group, and a batch system may do the same, so two
//! signals that close together are one stop. At the end, the process
//! ends by the signal it got, so that a shell loop or script around it
//! stops too. A signal ignored when the process starts (`nohup`) stays
//! ignored.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use crate::solvers::Stop;

/// The signals that stop a run or a solve: SIGINT (Ctrl-C), SIGTERM (how
/// batch systems such as Slurm stop a job) and SIGHUP (the terminal
/// closed).
#[cfg(unix)]
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
#[cfg(not(unix))]
const SIGINT: i32 = 2;
#[cfg(not(unix))]
const SIGHUP: i32 = 1;
#[cfg(not(unix))]
const SIGTERM: i32 = 15;

/// A signal this soon after the first is taken as a repeat of it, not as
/// a second stop: `timeout` sends its signal to the process and then to
/// the process group it is in, microseconds apart.
const REPEAT_WINDOW: Duration = Duration::from_millis(500);

/// Nanoseconds from the handlers' installation to the first signal, plus
/// one (0: no signal yet).
static FIRST_AT: AtomicU64 = AtomicU64::new(0);

/// What the process writes to standard error when a second signal ends it
/// at once (set by [`Interrupt::install`]).
static ON_SECOND: OnceLock<Box<str>> = OnceLock::new();

/// The number of the signal that came first (0: none); read by [`cause`].
static SIGNAL: OnceLock<Arc<AtomicUsize>> = OnceLock::new();

fn signal() -> &'static Arc<AtomicUsize> {
    SIGNAL.get_or_init(|| Arc::new(AtomicUsize::new(0)))
}

/// The signal that set the stop flag, as messages name it.
pub fn cause() -> &'static str {
    // SeqCst, as the handlers store: the marker is set before the flag.
    match signal().load(Ordering::SeqCst) as i32 {
        SIGTERM => "SIGTERM",
        SIGHUP => "SIGHUP",
        _ => "Ctrl-C",
    }
}

/// The stop flag the solvers share, set by the first Ctrl-C, SIGTERM or
/// SIGHUP.
pub struct Interrupt {
    flag: Arc<AtomicBool>,
}

impl Interrupt {
    /// Installs the handlers (on Unix; elsewhere Ctrl-C keeps its default
    /// action and the flag is never set). A signal the process was started
    /// with ignored stays ignored: SIGHUP under `nohup`, SIGINT in a
    /// script's background job. `on_second` is the line written when a
    /// second signal ends the process at once (what is kept, how to go on).
    pub fn install(on_second: String) -> Interrupt {
        // On a terminal the line may follow `^C` or a progress bar's line;
        // a log gets no blank line.
        let start = match std::io::IsTerminal::is_terminal(&std::io::stderr()) {
            true => "\n",
            false => "",
        };
        let _ = ON_SECOND.set(format!("{start}[memsched] {on_second}\n").into_boxed_str());
        let flag = Arc::new(AtomicBool::new(false));
        #[cfg(unix)]
        {
            use signal_hook::flag;
            let ignored = ignored_signals();
            let signals: Vec<i32> = [SIGINT, SIGTERM, SIGHUP]
                .into_iter()
                .filter(|&sig| ignored & (1 << (sig - 1)) == 0)
                .collect();
            let installed_at = Instant::now();
            // The second-signal handlers first, so they see the flag as an
            // earlier signal left it: unset on the first, set on a second
            // (of any kind). Then the marker, then the flag.
            let installed = signals
                .iter()
                .try_for_each(|&sig| end_on_second(sig, flag.clone(), installed_at))
                .and_then(|_| {
                    signals.iter().try_for_each(|&sig| {
                        flag::register_usize(sig, signal().clone(), sig as usize).map(drop)
                    })
                })
                .and_then(|_| {
                    signals
                        .iter()
                        .try_for_each(|&sig| flag::register(sig, flag.clone()).map(drop))
                });
            if let Err(e) = installed {
                note!("warning: Ctrl-C will end the run without a report: {e}");
            }
        }
        Interrupt { flag }
    }

    /// The stop for [`SolveContext::stop`](crate::solvers::SolveContext::stop)
    /// and `RunOptions::stop`, naming the signal that sets it.
    pub fn stop(&self) -> Stop {
        Stop {
            flag: self.flag.clone(),
            cause,
        }
    }

    /// True once Ctrl-C (or SIGTERM, SIGHUP) came.
    pub fn happened(&self) -> bool {
        self.flag.load(Ordering::SeqCst)
    }

    /// The status a shell sees for the signal that came (130 for SIGINT,
    /// 143 for SIGTERM, 129 for SIGHUP), where the process cannot end by
    /// the signal itself.
    pub fn exit_status(&self) -> u8 {
        128 + self.signal() as u8
    }

    /// The signal that came (SIGINT if none did).
    fn signal(&self) -> i32 {
        match signal().load(Ordering::SeqCst) as i32 {
            sig @ (SIGTERM | SIGHUP) => sig,
            _ => SIGINT,
        }
    }

    /// After the report of an interrupted run: ends the process as the
    /// signal's default action does (killed by SIGINT, shell status 130;
    /// by SIGTERM, 143; by SIGHUP, 129). Returns only where that cannot be
    /// done.
    pub fn end_as_interrupted(&self) {
        #[cfg(unix)]
        {
            // Stdout and stderr are written unbuffered or flushed by `emit`.
            let _ = signal_hook::low_level::emulate_default_handler(self.signal());
        }
    }
}

/// Registers, for `sig`, the default action on a second signal: when
/// `stopped` is already set and the first signal came [`REPEAT_WINDOW`] or
/// more ago. The first signal's time is noted here, in [`FIRST_AT`], from
/// `installed_at`.
#[cfg(unix)]
fn end_on_second(sig: i32, stopped: Arc<AtomicBool>, installed_at: Instant) -> std::io::Result<()> {
    let action = move || {
        // Plus one: 0 means no signal yet.
        let now = installed_at.elapsed().as_nanos() as u64 + 1;
        if !stopped.load(Ordering::SeqCst) {
            let _ = FIRST_AT.compare_exchange(0, now, Ordering::SeqCst, Ordering::SeqCst);
            return;
        }
        let first = FIRST_AT.load(Ordering::SeqCst);
        if now.saturating_sub(first) >= REPEAT_WINDOW.as_nanos() as u64 {
            if let Some(text) = ON_SECOND.get() {
                write_to_stderr(text.as_bytes());
            }
            let _ = signal_hook::low_level::emulate_default_handler(sig);
        }
    };
    // SAFETY: the action is async-signal-safe: it reads the monotonic clock
    // (`clock_gettime`), uses atomics (`OnceLock::get` is one load), writes
    // to file descriptor 2 with `write(2)` and calls signal-hook's
    // `emulate_default_handler`, which its own conditional default calls
    // from a handler. It allocates nothing and takes no lock.
    #[allow(unsafe_code)]
    unsafe { signal_hook::low_level::register(sig, action) }.map(drop)
}

/// Writes `bytes` to file descriptor 2 by `write(2)` calls, with no lock
/// (`std::io::stderr` takes one, which a signal handler must not).
#[cfg(unix)]
fn write_to_stderr(bytes: &[u8]) {
    use std::io::Write;
    use std::os::fd::FromRawFd;
    // SAFETY: descriptor 2 stays open for the process's life; the
    // `ManuallyDrop` keeps this `File` from closing it.
    #[allow(unsafe_code)]
    let mut stderr = std::mem::ManuallyDrop::new(unsafe { std::fs::File::from_raw_fd(2) });
    let _ = stderr.write_all(bytes);
}

/// The signals this process was started with ignored, as a mask (bit
/// `sig - 1`), read from `/proc/self/status`. Off Linux, where that file
/// is not there, SIGHUP counts as ignored: `nohup` is the likely reason a
/// long run would get it.
#[cfg(unix)]
fn ignored_signals() -> u64 {
    let from_proc = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            let line = status.lines().find_map(|l| l.strip_prefix("SigIgn:"))?;
            u64::from_str_radix(line.trim(), 16).ok()
        });
    from_proc.unwrap_or(1 << (SIGHUP - 1))
}
