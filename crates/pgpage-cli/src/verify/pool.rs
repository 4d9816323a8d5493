//! Threads that work through numbered batches, one at a time each, while the calling thread
//! takes the finished ones in order and prints them. Knows nothing of files or pages.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

/// How often the printer looks for finished batches. The threads do not wake it for each
/// one: a wake-up per batch costs a context switch per batch (bench/NOTES.md).
const PRINT_EVERY: Duration = Duration::from_millis(10);
/// Batches a thread may finish ahead of the printer before it waits: memory stays bounded
/// when output is slow (a pipe, `--all` on a big cluster).
const MAX_AHEAD: usize = 64;

/// Runs `work` on batches 0..`batches` on `threads` threads, each with its own `state()`,
/// while `print` takes the results in batch order on this thread. When `print` fails the
/// threads stop at their next batch.
pub fn run<S, R, P, E>(
    batches: usize,
    threads: usize,
    state: impl Fn() -> S + Sync,
    work: impl Fn(&mut S, usize) -> R + Sync,
    print: impl FnOnce(&Handover<R>) -> Result<P, E>,
) -> Result<P, E>
where
    R: Send,
{
    let threads = threads.clamp(1, batches.max(1));
    let handover = Handover::new(threads);
    let next = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            let (handover, next, state, work) = (&handover, &next, &state, &work);
            scope.spawn(move || {
                let _running = Running(handover);
                let mut s = state();
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    if index >= batches || !handover.put(index, work(&mut s, index)) {
                        return;
                    }
                }
            });
        }
        let printed = print(&handover);
        if printed.is_err() {
            handover.stop();
        }
        printed
    })
}

/// Finished batches on their way from the threads to the printer.
pub struct Handover<R> {
    state: Mutex<HandoverState<R>>,
    /// A thread ended, the printer made room, or printing stopped.
    changed: Condvar,
}

struct HandoverState<R> {
    done: BTreeMap<usize, R>,
    /// The batch the printer takes next.
    next: usize,
    running: usize,
    stopped: bool,
}

impl<R> Handover<R> {
    fn new(threads: usize) -> Handover<R> {
        Handover {
            state: Mutex::new(HandoverState {
                done: BTreeMap::new(),
                next: 0,
                running: threads,
                stopped: false,
            }),
            changed: Condvar::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, HandoverState<R>> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Hands a finished batch over; false when printing has stopped.
    fn put(&self, index: usize, result: R) -> bool {
        let mut s = self.lock();
        while !s.stopped && index >= s.next.saturating_add(MAX_AHEAD) {
            // Too far ahead: the printer is woken to make room rather than left to look.
            self.changed.notify_all();
            s = self.changed.wait(s).unwrap_or_else(PoisonError::into_inner);
        }
        if s.stopped {
            return false;
        }
        s.done.insert(index, result);
        true
    }

    /// The finished batches that come next in order, waiting until there are some; empty
    /// when every thread has ended and everything was taken.
    pub fn take(&self) -> Vec<(usize, R)> {
        let mut s = self.lock();
        loop {
            let mut ready = Vec::new();
            let st = &mut *s;
            while let Some(result) = st.done.remove(&st.next) {
                ready.push((st.next, result));
                st.next = st.next.saturating_add(1);
            }
            if !ready.is_empty() {
                self.changed.notify_all();
                return ready;
            }
            if s.running == 0 {
                return ready;
            }
            s = self
                .changed
                .wait_timeout(s, PRINT_EVERY)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }

    fn stop(&self) {
        self.lock().stopped = true;
        self.changed.notify_all();
    }
}

/// Counts a thread as running until it ends, also by a panic, so the printer never waits
/// for a thread that is gone.
struct Running<'a, R>(&'a Handover<R>);

impl<R> Drop for Running<'_, R> {
    fn drop(&mut self) {
        let mut s = self.0.lock();
        s.running = s.running.saturating_sub(1);
        drop(s);
        self.0.changed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_in_batch_order_from_every_thread() {
        let got = run(
            1000,
            4,
            || 0usize,
            |done, i| {
                *done += 1;
                // Uneven work, so that batches finish out of order.
                std::thread::sleep(Duration::from_micros((i % 7) as u64 * 50));
                i
            },
            |h| -> Result<Vec<usize>, ()> {
                let mut all = Vec::new();
                loop {
                    let ready = h.take();
                    if ready.is_empty() {
                        return Ok(all);
                    }
                    all.extend(ready.into_iter().map(|(index, r)| {
                        assert_eq!(index, r);
                        r
                    }));
                }
            },
        )
        .unwrap();
        assert_eq!(got, (0..1000).collect::<Vec<_>>());
    }

    #[test]
    fn a_printer_that_fails_stops_the_threads() {
        let worked = AtomicUsize::new(0);
        let r: Result<(), &str> = run(
            100_000,
            2,
            || (),
            |(), i| {
                worked.fetch_add(1, Ordering::Relaxed);
                i
            },
            |h| {
                h.take();
                Err("output closed")
            },
        );
        assert_eq!(r, Err("output closed"));
        // Each thread stops within MAX_AHEAD batches of what the printer took.
        assert!(worked.load(Ordering::Relaxed) < 100_000);
    }

    #[test]
    fn no_batches_no_wait() {
        let r: Result<usize, ()> = run(0, 2, || (), |(), i| i, |h| Ok(h.take().len()));
        assert_eq!(r, Ok(0));
    }
}
