//! Progress of a run on standard error: indicatif's bar on a terminal,
//! plain lines otherwise (a log file, a batch job), nothing when quiet.
//! Without the `progress-bar` feature (no indicatif) the plain lines go to
//! a terminal too.
//!
//! [`Progress`] is what the runner holds: [`Progress::inc`] after each
//! solve, [`Progress::println`] for a message that must not garble the
//! bar, [`Progress::finish`] at the end. Without a terminal indicatif
//! draws nothing, so a run redirected to a file said nothing until it
//! ended; there [`Plain`] writes a line such as
//! `[memsched] 44/126 solves, 12.3 s elapsed, ~20 s left` at every tenth of
//! the solves (after the first, no closer than [`PLAIN_MIN_GAP`]), at least every
//! [`PLAIN_PERIOD`] (a thread wakes it when no solve finishes for that
//! long), and at the end. Both estimate the time left from the
//! mean time per solve so far ([`eta`]), which fast first solves make
//! optimistic, and add the worst case when every solve left runs to the
//! time limit ([`Worst`]) if that is longer; after a stop they count the
//! solves in flight instead.

use std::fmt::Write as _;
use std::io::Write;
#[cfg(feature = "progress-bar")]
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

#[cfg(feature = "progress-bar")]
use indicatif::{ProgressBar, ProgressState, ProgressStyle};

/// Longest time between two plain lines while solves run.
pub const PLAIN_PERIOD: Duration = Duration::from_secs(30);
/// Shortest time between two plain lines at tenths of the solves (the
/// first and the last excepted): a run of a fraction of a second writes
/// its opening line, its first tenth and its end, not eleven lines.
pub const PLAIN_MIN_GAP: Duration = Duration::from_secs(1);

/// What bounds the time left: each solve stops at `limit` (up to solver
/// overruns the docs name), `threads` at a time.
#[derive(Debug, Clone, Copy)]
pub struct Worst {
    /// The per-solve time limit (the config's `time_limit`).
    pub limit: Duration,
    /// Solves run at once: the thread pool's size (0 is taken as 1).
    pub threads: usize,
}

impl Worst {
    /// The time the solves left would take if each ran to the limit:
    /// `ceil(left / threads)` limits. (Not less what the solves in flight
    /// have run: a solve's clock starts after its graph is loaded, so no
    /// time seen here is surely theirs.)
    fn left(self, done: u64, total: u64) -> Duration {
        let rounds = total
            .saturating_sub(done)
            .div_ceil(self.threads.max(1) as u64);
        self.limit
            .saturating_mul(u32::try_from(rounds).unwrap_or(u32::MAX))
    }
}

/// ` (at most 5 min at the time limit)` when that exceeds the estimate
/// `left` (or there is none yet); empty otherwise.
fn at_most(worst: Option<Worst>, (done, total): (u64, u64), left: Option<Duration>) -> String {
    match worst.map(|w| w.left(done, total)) {
        Some(most) if done < total && left.is_none_or(|l| most > l) => {
            format!(" (at most {} at the time limit)", duration(most))
        }
        _ => String::new(),
    }
}

/// Progress of `total` solves (see the module doc).
pub struct Progress {
    mode: Mode,
    /// The solves to run, as planned.
    planned: usize,
    /// Solves begun, and whether a stop came: from then on the count is
    /// of the solves begun, the ones that will finish.
    begun: Mutex<(usize, bool)>,
}

enum Mode {
    Quiet,
    #[cfg(feature = "progress-bar")]
    Bar {
        bar: ProgressBar,
        /// What the bar's estimate reads besides its own state.
        shared: Arc<BarShared>,
    },
    Plain {
        plain: Arc<Plain>,
        /// Dropping it stops the ticker thread.
        stop: mpsc::Sender<()>,
        ticker: JoinHandle<()>,
    },
}

impl Progress {
    /// Nothing when `quiet`, a bar when standard error is a terminal (and
    /// the build has the `progress-bar` feature), plain lines on standard
    /// error otherwise.
    pub fn new(total: usize, quiet: bool, worst: Option<Worst>) -> Progress {
        if quiet {
            return Progress::with_mode(Mode::Quiet, total);
        }
        #[cfg(feature = "progress-bar")]
        if std::io::IsTerminal::is_terminal(&std::io::stderr()) {
            let shared = Arc::new(BarShared {
                last_done: Mutex::new(Instant::now()),
                stopping: AtomicBool::new(false),
            });
            let bar = bar(total, worst, Arc::clone(&shared));
            bar.println(starting(total));
            return Progress::with_mode(Mode::Bar { bar, shared }, total);
        }
        Progress::plain(
            total,
            Box::new(std::io::stderr()),
            (PLAIN_MIN_GAP, PLAIN_PERIOD),
            worst,
        )
    }

    /// Plain lines to `out`, at every tenth of `total` (once `gaps.0` has
    /// passed since the last line) and at least every `gaps.1`; the first
    /// line says how many solves there are, the last that all are done.
    pub fn plain(
        total: usize,
        out: Box<dyn Write + Send>,
        (min_gap, period): (Duration, Duration),
        worst: Option<Worst>,
    ) -> Progress {
        let plain = Arc::new(Plain {
            min_gap,
            period,
            worst,
            start: Instant::now(),
            state: Mutex::new(PlainState {
                done: 0,
                total,
                not_started: None,
                last: Instant::now(),
                last_done: Instant::now(),
                counted: false,
                out,
            }),
        });
        plain.write(&format!("[memsched] {}", starting(total)));
        let (stop, wake) = mpsc::channel::<()>();
        let ticking = Arc::clone(&plain);
        let ticker = std::thread::spawn(move || loop {
            let wait = ticking.until_due();
            match wake.recv_timeout(wait) {
                Err(RecvTimeoutError::Timeout) => ticking.tick(),
                // The sender is gone (or sent): the run is over.
                _ => return,
            }
        });
        Progress::with_mode(
            Mode::Plain {
                plain,
                stop,
                ticker,
            },
            total,
        )
    }

    /// One more solve done.
    pub fn inc(&self) {
        match &self.mode {
            Mode::Quiet => {}
            #[cfg(feature = "progress-bar")]
            Mode::Bar { bar, shared } => {
                *shared.last_done.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
                bar.inc(1);
            }
            Mode::Plain { plain, .. } => plain.inc(),
        }
    }

    fn with_mode(mode: Mode, planned: usize) -> Progress {
        Progress {
            mode,
            planned,
            begun: Mutex::new((0, false)),
        }
    }

    /// A solve begins (it will finish and [`Progress::inc`]).
    pub fn begin(&self) {
        let mut begun = self.begun.lock().unwrap_or_else(|e| e.into_inner());
        begun.0 += 1;
        if begun.1 {
            self.set_stopping(begun.0);
        }
    }

    /// A stop came: no more solves begin but those that pass the stop
    /// check now, so the count (and the time left) is of the solves begun
    /// from now on, not of those that will not start; the lines say it is
    /// stopping, and how many solves will not start.
    pub fn stopping(&self) {
        let mut begun = self.begun.lock().unwrap_or_else(|e| e.into_inner());
        begun.1 = true;
        self.set_stopping(begun.0);
    }

    /// Counts `begun` solves as the total, the rest of the plan as not
    /// started.
    fn set_stopping(&self, begun: usize) {
        let not_started = self.planned.saturating_sub(begun);
        match &self.mode {
            Mode::Quiet => {}
            #[cfg(feature = "progress-bar")]
            Mode::Bar { bar, shared } => {
                shared.stopping.store(true, Ordering::Relaxed);
                bar.set_length(begun as u64);
                bar.set_prefix(stopping_prefix(not_started));
            }
            Mode::Plain { plain, .. } => plain.set_stopping(begun, not_started),
        }
    }

    /// A message on its own line (above the bar, if there is one).
    pub fn println(&self, msg: &str) {
        match &self.mode {
            #[cfg(feature = "progress-bar")]
            Mode::Bar { bar, .. } => bar.println(msg),
            Mode::Plain { plain, .. } => plain.write(msg),
            // Never a panic on a closed standard error.
            Mode::Quiet => {
                let _ = writeln!(std::io::stderr(), "{msg}");
            }
        }
    }

    /// Clears the bar, or stops the plain lines' ticker.
    pub fn finish(self) {
        match self.mode {
            Mode::Quiet => {}
            #[cfg(feature = "progress-bar")]
            Mode::Bar { bar, .. } => bar.finish_and_clear(),
            Mode::Plain { stop, ticker, .. } => {
                drop(stop);
                let _ = ticker.join();
            }
        }
    }
}

/// The line that opens a run's progress: how many solves, and that an
/// interruption loses only the solves in flight (or that none is left).
fn starting(total: usize) -> String {
    if total == 0 {
        return "no solve to run: each one this run covers has its row".into();
    }
    format!(
        "{} to run (if interrupted, the finished ones are kept and the same command resumes)",
        solves(total)
    )
}

/// What a terminal's bar reads for its estimate besides its own state.
#[cfg(feature = "progress-bar")]
struct BarShared {
    /// When the last solve ended (the start before the first).
    last_done: Mutex<Instant>,
    /// A stop came: the solves left are those in flight.
    stopping: AtomicBool,
}

/// The bar of a terminal: elapsed time, whole solves per second (one
/// decimal below 10/s), and the time left (see [`left_text`]).
#[cfg(feature = "progress-bar")]
fn bar(total: usize, worst: Option<Worst>, shared: Arc<BarShared>) -> ProgressBar {
    let bar = ProgressBar::new(total as u64);
    let style = ProgressStyle::with_template(
        "{prefix}{elapsed_precise} [{bar:40}] {pos}/{len} solves, {rate}, {left}",
    )
    .expect("a valid template")
    .with_key("rate", |s: &ProgressState, w: &mut dyn std::fmt::Write| {
        let _ = w.write_str(&rate(s.pos(), s.elapsed()));
    })
    .with_key(
        "left",
        move |s: &ProgressState, w: &mut dyn std::fmt::Write| {
            let (done, total) = (s.pos(), s.len().unwrap_or(0));
            let since_last = (shared.last_done.lock())
                .unwrap_or_else(|e| e.into_inner())
                .elapsed();
            let stopping = shared.stopping.load(Ordering::Relaxed);
            let times = (s.elapsed(), since_last);
            let _ = w.write_str(&left_text(done, total, stopping, times, worst));
        },
    )
    .progress_chars("=> ");
    bar.set_style(style);
    // Redraw each second, so the clock moves while long solves run.
    bar.enable_steady_tick(Duration::from_secs(1));
    bar
}

/// Plain progress lines (see the module doc).
struct Plain {
    min_gap: Duration,
    period: Duration,
    worst: Option<Worst>,
    start: Instant,
    state: Mutex<PlainState>,
}

struct PlainState {
    done: usize,
    /// Solves to run; after a stop, those begun ([`Progress::stopping`]).
    total: usize,
    /// After a stop, the planned solves that will not start.
    not_started: Option<usize>,
    /// When the last line was written.
    last: Instant,
    /// When the last solve ended (the start before the first).
    last_done: Instant,
    /// Whether a line has counted solves yet (the first such line is not
    /// held back by the shortest gap: it says the run is moving).
    counted: bool,
    out: Box<dyn Write + Send>,
}

impl Plain {
    fn inc(&self) {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        s.done += 1;
        s.last_done = Instant::now();
        let min_gap = if s.counted {
            self.min_gap
        } else {
            Duration::ZERO
        };
        if due(
            s.done - 1,
            s.done,
            s.total,
            s.last.elapsed(),
            (min_gap, self.period),
        ) {
            self.report(&mut s);
        }
    }

    /// Writes a line if none was written for a period (no solve finished).
    fn tick(&self) {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if s.done < s.total && s.last.elapsed() >= self.period {
            self.report(&mut s);
        }
    }

    /// How long until a line is due by the clock (a period once every
    /// solve is done: nothing is due then, and the ticker must not spin).
    fn until_due(&self) -> Duration {
        let s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if s.done >= s.total {
            return self.period;
        }
        self.period.saturating_sub(s.last.elapsed())
    }

    fn report(&self, s: &mut PlainState) {
        let text = line(
            s.done,
            s.total,
            s.not_started,
            (self.start.elapsed(), s.last_done.elapsed()),
            self.worst,
        );
        // Never a panic on a closed standard error.
        let _ = writeln!(s.out, "{text}");
        let _ = s.out.flush();
        s.last = Instant::now();
        s.counted = true;
    }

    /// See [`Progress::stopping`].
    fn set_stopping(&self, begun: usize, not_started: usize) {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        s.total = begun;
        s.not_started = Some(not_started);
    }

    fn write(&self, msg: &str) {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let _ = writeln!(s.out, "{msg}");
        let _ = s.out.flush();
    }
}

/// Whether going from `before` to `done` solves of `total` calls for a
/// line: the last solve, a tenth of `total` crossed at least `min_gap`
/// after the last line, or `since_last` reaching `period`.
fn due(
    before: usize,
    done: usize,
    total: usize,
    since_last: Duration,
    (min_gap, period): (Duration, Duration),
) -> bool {
    let tenth = |n: usize| n * 10 / total.max(1);
    done >= total || (tenth(done) > tenth(before) && since_last >= min_gap) || since_last >= period
}

/// What the progress line starts with after a stop with `not_started`
/// solves held back: the count after it is of the solves that started.
fn stopping_prefix(not_started: usize) -> String {
    match not_started {
        0 => "stopping, every solve started: ".into(),
        n => format!("stopping, {n} not started; of the rest, "),
    }
}

/// `[memsched] 44/126 solves, 12.3 s elapsed, ~20 s left (at most 5 min
/// at the time limit)`; after a stop, `[memsched] stopping, 82 not
/// started; of the rest, 44/46 solves, ...`. `since_last`: the time since the last
/// solve ended (see [`eta`]).
fn line(
    done: usize,
    total: usize,
    not_started: Option<usize>,
    (elapsed, since_last): (Duration, Duration),
    worst: Option<Worst>,
) -> String {
    let stopping = match not_started {
        Some(n) => stopping_prefix(n),
        None => String::new(),
    };
    let mut s = format!(
        "[memsched] {stopping}{done}/{total} solves, {} elapsed",
        duration(elapsed)
    );
    let (done, total) = (done as u64, total as u64);
    if done < total {
        let stopping = not_started.is_some();
        let left = left_text(done, total, stopping, (elapsed, since_last), worst);
        let _ = write!(s, ", {left}");
    }
    s
}

/// What the bar and the lines say of the time left, with `done` of `total`
/// solves ended: `~20 s left` ([`eta`]; `due now` when the last solve runs
/// past the mean, `under 0.1 s left` for many quick ones), `time left unknown` before the first solve ends, or,
/// after a stop (`stopping`), how many solves are in flight, whose time no
/// mean foretells; each with the worst case at the time limit where that
/// is longer ([`at_most`]).
fn left_text(
    done: u64,
    total: u64,
    stopping: bool,
    (elapsed, since_last): (Duration, Duration),
    worst: Option<Worst>,
) -> String {
    let in_flight = total.saturating_sub(done);
    let (mut s, left) = match eta(elapsed, done, total, since_last) {
        // The bar's last drawing, every solve done.
        _ if in_flight == 0 => ("~0.0 s left".to_string(), None),
        _ if stopping => (format!("waiting for {in_flight} in flight"), None),
        // The last solve runs past the mean (or all but its last
        // twentieth of a second, which would read `~0.0 s left` while it
        // may run to the time limit): no figure would be right.
        Some(left) if left < DUE_NOW && in_flight == 1 => {
            ("due now".to_string(), Some(Duration::ZERO))
        }
        // Many quick solves left (`13/128 solves, 0.0 s elapsed`): they
        // are not overdue, just quick.
        Some(left) if left < DUE_NOW => ("under 0.1 s left".to_string(), Some(left)),
        Some(left) => (format!("~{} left", duration(left)), Some(left)),
        None => ("time left unknown".to_string(), None),
    };
    s += &at_most(worst, (done, total), left);
    s
}

/// An estimate below this reads `due now` for the last solve and `under
/// 0.1 s left` for more: `~0.0 s left` would promise an end that a solve
/// past the mean does not keep.
const DUE_NOW: Duration = Duration::from_millis(50);

/// The time left if solves keep ending at the rate they have: the next
/// one a mean gap after the last one ended (`since_last` ago; 0 when that
/// is past: it is then overdue), the mean gap being the time to the last
/// end per solve done; then, for each other, `mean`, the wall-clock time
/// per solve done so far (parallel solves included), which counts the
/// wait for the next one too. So the estimate counts down between solves,
/// a solve that runs long makes it grow, and it is never below `mean` per
/// solve after the next. `None` before the first solve ends.
pub fn eta(elapsed: Duration, done: u64, total: u64, since_last: Duration) -> Option<Duration> {
    if done == 0 {
        return None;
    }
    let left = total.saturating_sub(done);
    if left == 0 {
        return Some(Duration::ZERO);
    }
    let mean = elapsed.as_secs_f64() / done as f64;
    // Not `mean`, which grows with the wait itself: after a quick first
    // solve it would put the next end that quick solve's time ahead, for
    // as long as the next one ran.
    let gap = elapsed.saturating_sub(since_last).as_secs_f64() / done as f64;
    let next = (gap - since_last.as_secs_f64()).max(0.0);
    let secs = next + mean * (left - 1) as f64;
    Some(Duration::try_from_secs_f64(secs).unwrap_or(Duration::MAX))
}

/// `12.3 s`, `4 min 05 s`, `2 h 03 min`; past a year (a time limit that
/// means none), `over a year`.
pub(super) fn duration(d: Duration) -> String {
    let secs = d.as_secs_f64();
    if secs > 366.0 * 24.0 * 3600.0 {
        "over a year".into()
    } else if secs < 60.0 {
        format!("{secs:.1} s")
    } else if secs < 3600.0 {
        let s = d.as_secs();
        format!("{} min {:02} s", s / 60, s % 60)
    } else {
        let m = d.as_secs() / 60;
        format!("{} h {:02} min", m / 60, m % 60)
    }
}

/// Solves per second: whole above 10/s, else one or two decimals.
#[cfg(feature = "progress-bar")]
fn rate(done: u64, elapsed: Duration) -> String {
    let secs = elapsed.as_secs_f64();
    if secs <= 0.0 {
        return "- solves/s".into();
    }
    let r = done as f64 / secs;
    if r >= 10.0 {
        format!("{r:.0} solves/s")
    } else if r >= 1.0 {
        format!("{r:.1} solves/s")
    } else {
        format!("{r:.2} solves/s")
    }
}

/// `1 solve`, `126 solves`.
fn solves(n: usize) -> String {
    if n == 1 {
        "1 solve".into()
    } else {
        format!("{n} solves")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// After a late stop (every solve started) the line does not call the
    /// solves left "the rest".
    #[test]
    fn a_stop_after_every_start_says_so() {
        assert_eq!(stopping_prefix(0), "stopping, every solve started: ");
        assert_eq!(stopping_prefix(3), "stopping, 3 not started; of the rest, ");
    }

    /// A writer the test reads back.
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl Shared {
        fn text(&self) -> String {
            String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
        }
    }

    #[test]
    fn a_line_at_each_tenth_and_at_the_end() {
        let long = Duration::from_secs(3600);
        let zero = Duration::ZERO;
        let gaps = (zero, long);
        let lines: Vec<usize> = (1..=126)
            .filter(|&d| due(d - 1, d, 126, zero, gaps))
            .collect();
        assert_eq!(lines, [13, 26, 38, 51, 63, 76, 89, 101, 114, 126]);
        // Fewer solves than tenths: a line each.
        let lines: Vec<usize> = (1..=3).filter(|&d| due(d - 1, d, 3, zero, gaps)).collect();
        assert_eq!(lines, [1, 2, 3]);
        // The clock: a line after a period whatever the count.
        assert!(due(1, 2, 126, long, gaps));
        // Tenths come no closer than the shortest gap; the last line does.
        let second = Duration::from_secs(1);
        let gaps = (second, long);
        assert!(!due(12, 13, 126, Duration::from_millis(300), gaps));
        assert!(due(12, 13, 126, second, gaps));
        assert!(due(125, 126, 126, zero, gaps));
    }

    /// The estimate is the mean time per solve times the solves left (the
    /// bar's own estimate showed 4 s with 20 s left).
    #[test]
    fn eta_and_lines_read_well() {
        let e = Duration::from_secs_f64(12.3);
        let zero = Duration::ZERO;
        assert_eq!(eta(e, 0, 126, zero), None);
        let left = eta(e, 44, 126, zero).unwrap().as_secs_f64();
        assert!((left - 12.3 / 44.0 * 82.0).abs() < 1e-6, "{left}");
        // The time since the last solve ended counts down, at most a
        // mean's worth: the solves after the next take a mean each.
        let mean = 12.3 / 44.0;
        let since = Duration::from_secs_f64(0.1);
        let left = eta(e, 44, 126, since).unwrap().as_secs_f64();
        let gap = 12.2 / 44.0;
        assert!((left - (gap - 0.1 + mean * 81.0)).abs() < 1e-6, "{left}");
        let late = eta(e, 44, 126, Duration::from_secs(60))
            .unwrap()
            .as_secs_f64();
        assert!((late - mean * 81.0).abs() < 1e-6, "{late}");
        // The last solve past the mean: due now.
        assert_eq!(eta(e, 125, 126, Duration::from_secs(60)), Some(zero));
        assert_eq!(
            line(125, 126, None, (e, Duration::from_secs(60)), None),
            "[memsched] 125/126 solves, 12.3 s elapsed, due now"
        );
        // After a stop, the solves in flight are waited for: no mean
        // foretells them (it said 19.9 s left 0.1 s before the end).
        assert_eq!(
            line(2, 4, Some(16), (Duration::from_secs(40), zero), None),
            "[memsched] stopping, 16 not started; of the rest, 2/4 solves, 40.0 s elapsed, waiting for 2 \
             in flight"
        );
        assert_eq!(
            line(44, 126, None, (e, zero), None),
            "[memsched] 44/126 solves, 12.3 s elapsed, ~22.9 s left"
        );
        // 82 solves left on 4 threads: 21 rounds of at most 10 s.
        let worst = Some(Worst {
            limit: Duration::from_secs(10),
            threads: 4,
        });
        assert_eq!(
            line(44, 126, None, (e, zero), worst),
            "[memsched] 44/126 solves, 12.3 s elapsed, ~22.9 s left (at most 3 min 30 s at \
             the time limit)"
        );
        // One solve ended at 0.2 s; the other has run 30 s since: due
        // now, not "~0.2 s left" as long as it runs.
        let worst2 = Some(Worst {
            limit: Duration::from_secs(40),
            threads: 2,
        });
        let times = (Duration::from_secs_f64(30.2), Duration::from_secs(30));
        assert_eq!(
            line(1, 2, None, times, worst2),
            "[memsched] 1/2 solves, 30.2 s elapsed, due now (at most 40.0 s at the time limit)"
        );
        // With more left, the overdue one counts 0 and the others a mean
        // that grows with the wait.
        assert_eq!(
            eta(times.0, 1, 3, times.1),
            Some(Duration::from_secs_f64(30.2))
        );
        // Many quick solves left are not overdue: under 0.1 s, not due now.
        let quick = (Duration::from_millis(4), Duration::ZERO);
        assert_eq!(
            line(13, 128, None, quick, None),
            "[memsched] 13/128 solves, 0.0 s elapsed, under 0.1 s left"
        );
        // Not when the estimate is already longer.
        let slow = Duration::from_secs(3600);
        assert!(!line(44, 126, None, (slow, zero), worst).contains("at most"));
        assert_eq!(
            line(126, 126, None, (Duration::from_secs(245), zero), worst),
            "[memsched] 126/126 solves, 4 min 05 s elapsed"
        );
        assert_eq!(duration(Duration::from_secs(7380)), "2 h 03 min");
        assert_eq!(duration(Duration::from_secs(1 << 62)), "over a year");
    }

    /// The bar's rate keeps two or three digits.
    #[cfg(feature = "progress-bar")]
    #[test]
    fn the_bar_rate_reads_well() {
        assert_eq!(rate(10027, Duration::from_secs_f64(1.0)), "10027 solves/s");
        assert_eq!(rate(3, Duration::from_secs(2)), "1.5 solves/s");
        assert_eq!(rate(1, Duration::from_secs(30)), "0.03 solves/s");
    }

    /// A resume with nothing left says so, not "0 solves to run".
    #[test]
    fn nothing_to_run_is_said_in_words() {
        let out = Shared::default();
        let gaps = (Duration::ZERO, Duration::from_millis(100));
        Progress::plain(0, Box::new(out.clone()), gaps, None).finish();
        let text = out.text();
        assert!(
            text.starts_with("[memsched] no solve to run: each one this run covers has its row"),
            "{text}"
        );
    }

    /// Plain progress writes its lines, and the ticker writes one when no
    /// solve finishes for a period.
    #[test]
    fn plain_lines_by_count_and_by_clock() {
        let out = Shared::default();
        let gaps = (Duration::ZERO, Duration::from_millis(100));
        let p = Progress::plain(20, Box::new(out.clone()), gaps, None);
        p.inc();
        p.inc();
        p.println("a message");
        std::thread::sleep(Duration::from_millis(350));
        p.finish();
        let text = out.text();
        let lines: Vec<&str> = text.lines().collect();
        assert!(
            lines[0].starts_with("[memsched] 20 solves to run (if interrupted,"),
            "{text}"
        );
        assert!(lines[1].starts_with("[memsched] 2/20 solves, "), "{text}");
        assert_eq!(lines[2], "a message", "{text}");
        // At least two lines by the clock in 350 ms of 100 ms periods.
        let ticks = lines[3..]
            .iter()
            .filter(|l| l.starts_with("[memsched] 2/20 solves"))
            .count();
        assert!(ticks >= 2, "{text}");
    }

    /// After a stop the lines count only the solves begun, so the time
    /// left is theirs (it counted the 16 that would not start), a solve
    /// that begins as the stop comes included.
    #[test]
    fn after_a_stop_the_lines_count_the_solves_begun() {
        let out = Shared::default();
        let gaps = (Duration::ZERO, Duration::from_secs(3600));
        let p = Progress::plain(20, Box::new(out.clone()), gaps, None);
        for _ in 0..3 {
            p.begin();
        }
        p.inc();
        p.inc();
        p.stopping();
        p.begin();
        p.inc();
        p.inc();
        p.finish();
        let text = out.text();
        assert!(
            text.contains("[memsched] stopping, 16 not started; of the rest, 3/4 solves, "),
            "{text}"
        );
        assert!(
            text.contains("[memsched] stopping, 16 not started; of the rest, 4/4 solves, "),
            "{text}"
        );
    }
}
