//! Feedback on long runs: a progress bar on stderr (only when stderr is a terminal) and
//! Ctrl-C, which stops the search so that the best plan found so far is still written.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Once, OnceLock};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};
use memplan::budget::CancelToken;

use crate::exit;

/// The token Ctrl-C cancels, once [`stop_on_ctrl_c`] has run.
static INTERRUPT: OnceLock<CancelToken> = OnceLock::new();

/// The token that Ctrl-C cancels once [`stop_on_ctrl_c`] has run; until then, Ctrl-C
/// ends the process as usual (while a command still reads its input, say).
pub fn interrupt_token() -> CancelToken {
    INTERRUPT.get_or_init(CancelToken::new).clone()
}

/// From now on, Ctrl-C cancels [`interrupt_token`] (the planner stops and returns its
/// best plan), and a second Ctrl-C ends the process at once ([`exit::INTERRUPTED`]).
/// The handler is installed once per process; if it cannot be, Ctrl-C keeps its default
/// meaning.
pub fn stop_on_ctrl_c() {
    static INSTALLED: Once = Once::new();
    INSTALLED.call_once(|| {
        let token = interrupt_token();
        let _ = ctrlc::set_handler(move || {
            if token.is_cancelled() {
                std::process::exit(exit::INTERRUPTED);
            }
            token.cancel();
        });
    });
}

/// A progress bar that redraws itself from a helper thread while the library plans.
/// The library reports no progress of its own, so the bar shows the time spent, against
/// the time limit when there is one.
pub struct Progress {
    bar: Option<(ProgressBar, Arc<AtomicBool>, std::thread::JoinHandle<()>)>,
}

impl Progress {
    /// Listens for Ctrl-C ([`stop_on_ctrl_c`]), and starts the bar unless `quiet` or
    /// stderr is not a terminal. Call it just before planning.
    pub fn start(quiet: bool, message: String, time_limit: Option<Duration>) -> Progress {
        stop_on_ctrl_c();
        if quiet || !std::io::stderr().is_terminal() {
            return Progress { bar: None };
        }
        let bar = match time_limit {
            Some(limit) => {
                let bar = ProgressBar::new(limit.as_millis().max(1) as u64);
                bar.set_style(
                    ProgressStyle::with_template(
                        "{spinner} {msg} [{elapsed_precise}] {wide_bar} time limit {prefix}",
                    )
                    .expect("valid template"),
                );
                bar.set_prefix(format!("{:.1} s", limit.as_secs_f64()));
                bar
            }
            None => {
                let bar = ProgressBar::new_spinner();
                bar.set_style(
                    ProgressStyle::with_template("{spinner} {msg} [{elapsed_precise}]")
                        .expect("valid template"),
                );
                bar
            }
        };
        bar.set_message(format!("{message} (Ctrl-C stops and keeps the best plan)"));
        let stop = Arc::new(AtomicBool::new(false));
        let (b, s) = (bar.clone(), stop.clone());
        let started = Instant::now();
        let ticker = std::thread::spawn(move || {
            while !s.load(Ordering::Relaxed) {
                b.set_position(started.elapsed().as_millis() as u64);
                b.tick();
                std::thread::sleep(Duration::from_millis(100));
            }
        });
        Progress {
            bar: Some((bar, stop, ticker)),
        }
    }

    /// Removes the bar from the terminal.
    pub fn finish(self) {
        if let Some((bar, stop, ticker)) = self.bar {
            stop.store(true, Ordering::Relaxed);
            let _ = ticker.join();
            bar.finish_and_clear();
        }
    }
}
