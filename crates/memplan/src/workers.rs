//! Running one worker closure on several scoped threads. The library starts no global
//! pool: every parallel section spawns its threads here and joins them before returning.

/// The thread count [`crate::Options::threads`] asks for: 0 means one per core.
pub(crate) fn resolve(threads: usize) -> usize {
    match threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        t => t,
    }
}

/// Runs `worker` on `threads` scoped threads (on this thread alone when `threads <= 1`)
/// and returns when every copy has returned. Workers share their work through atomics
/// they capture; a panic in one is propagated when the scope ends.
pub(crate) fn run_workers(threads: usize, worker: impl Fn() + Sync) {
    if threads <= 1 {
        worker();
        return;
    }
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(&worker);
        }
    });
}
