//! Lines extracted on several threads and handed over chunk by chunk, in input order, to one
//! consumer thread that also takes part in the work.
//!
//! This is how `extract_batch` keeps the interpreter busy: its thread turns each finished chunk
//! into Python objects while helper threads extract the next ones, and extracts chunks
//! itself (detached) whenever the next one in order is not done. `threads` is the number of
//! threads at work, the consumer's included, so one thread means no helper at all.
//!
//! Chunks are handed over packed ([`PackedLines`]): a handful of blocks each, so the consumer
//! frees the chunks helpers made without cost. (As thousands of small blocks, freeing them
//! across threads made the parse cost about 40% more CPU on two threads than on one, and
//! freeing them on their helper still slowed it by 17%.)

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};

use super::packed::PackedLines;
use super::{extract_numbered_to, LineOptions};

/// Lines per chunk: enough to amortise a hand-over, few enough that the consumer starts early
/// (on the sample log, 64 lines were about 2% faster than 32 on two threads, and 128 no faster).
const LINES_PER_CHUNK: usize = 64;

/// The shared state of one ordered extraction.
pub struct OrderedLines<'a> {
    /// Each line with its number (counted from 1), which deterministic ids derive from.
    lines: &'a [(u64, &'a [u8])],
    options: &'a LineOptions<'a>,
    /// The first chunk no thread has claimed.
    next: AtomicUsize,
    /// Set when the consumer has finished: helpers claim no more chunks.
    stopped: AtomicBool,
    /// Each chunk's state, until the consumer takes it.
    done: Mutex<Vec<Slot>>,
    finished: Condvar,
}

/// A chunk as the consumer finds it.
#[derive(Default)]
enum Slot {
    /// Not claimed yet, or being extracted.
    #[default]
    Pending,
    Done(PackedLines),
    /// The thread extracting it panicked.
    Lost,
}

impl<'a> OrderedLines<'a> {
    pub fn new(lines: &'a [(u64, &'a [u8])], options: &'a LineOptions<'a>) -> Self {
        let chunks = lines.len().div_ceil(LINES_PER_CHUNK);
        Self {
            lines,
            options,
            next: AtomicUsize::new(0),
            stopped: AtomicBool::new(false),
            done: Mutex::new((0..chunks).map(|_| Slot::Pending).collect()),
            finished: Condvar::new(),
        }
    }

    pub fn chunks(&self) -> usize {
        self.lines.len().div_ceil(LINES_PER_CHUNK)
    }

    fn slots(&self) -> MutexGuard<'_, Vec<Slot>> {
        self.done.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Claims and extracts the first unclaimed chunk; `false` when none is left.
    fn work_once(&self) -> bool {
        let chunk = self.next.fetch_add(1, Ordering::Relaxed);
        let start = chunk.saturating_mul(LINES_PER_CHUNK);
        if start >= self.lines.len() {
            return false;
        }
        // Should the extraction panic, the chunk is marked lost rather than left pending for
        // a consumer that would wait on it forever.
        let mut claim = Claim {
            work: self,
            chunk,
            lines: None,
        };
        let end = self.lines.len().min(start + LINES_PER_CHUNK);
        let lines = claim.lines.insert(PackedLines::with_capacity(end - start));
        for i in start..end {
            if let Some((_, next)) = self.lines.get(i + 1) {
                prefetch(next);
            }
            let (number, line) = self.lines[i];
            extract_numbered_to(line, number, self.options, &mut *lines);
        }
        true
    }

    /// A helper thread's loop: chunks until none is left or the consumer has finished.
    fn help(&self) {
        while !self.stopped.load(Ordering::Acquire) {
            if !self.work_once() {
                break;
            }
        }
    }

    /// Chunk `chunk` (each chunk is taken once, by the consumer): extracts other chunks while
    /// it is not done, then waits for the thread working on it. Empty past the last chunk.
    ///
    /// # Panics
    /// If the thread extracting the chunk panicked.
    pub fn take(&self, chunk: usize) -> PackedLines {
        let mut slots = self.slots();
        loop {
            match slots.get_mut(chunk).map(std::mem::take) {
                // Past the end: nothing to wait for.
                None => return PackedLines::default(),
                Some(Slot::Done(lines)) => return lines,
                Some(Slot::Lost) => panic!("a thread extracting chunk {chunk} panicked"),
                Some(Slot::Pending) => {
                    drop(slots);
                    // Not done: extract another chunk, or wait when none is left.
                    let worked = self.work_once();
                    slots = self.slots();
                    if !worked && matches!(slots.get(chunk), Some(Slot::Pending)) {
                        slots = self.finished.wait(slots).unwrap_or_else(|e| e.into_inner());
                    }
                }
            }
        }
    }

    /// The consumer has finished (or given up): helpers stop after their current chunk.
    fn finish(&self) {
        self.stopped.store(true, Ordering::Release);
    }
}

/// A chunk being extracted: published when dropped, as done, or as lost in a panic.
struct Claim<'w, 'a> {
    work: &'w OrderedLines<'a>,
    chunk: usize,
    lines: Option<PackedLines>,
}

impl Drop for Claim<'_, '_> {
    fn drop(&mut self) {
        let slot = match (self.lines.take(), std::thread::panicking()) {
            (Some(lines), false) => Slot::Done(lines),
            _ => Slot::Lost,
        };
        self.work.slots()[self.chunk] = slot;
        self.work.finished.notify_all();
    }
}

/// Asks for `bytes` to be brought into the cache while the line before it is read: lines are
/// separate buffers, where the hardware's own prefetching does not follow.
#[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables))]
fn prefetch(bytes: &[u8]) {
    #[cfg(target_arch = "x86_64")]
    for line in bytes.chunks(64).take(64) {
        // SAFETY: a prefetch is a hint; it reads nothing and cannot fault.
        unsafe {
            std::arch::x86_64::_mm_prefetch(line.as_ptr().cast(), std::arch::x86_64::_MM_HINT_T0)
        };
    }
}

/// Runs `consume` on this thread while `threads - 1` helper threads extract `work`; returns
/// when `consume` has returned (or panicked) and the helpers have stopped.
///
/// The helpers are threads of this call, not of a shared pool, whose jobs could queue behind
/// other calls' while this consumer waits for them (and the helpers borrow the call's lines).
/// Starting a thread costs tens of microseconds; a batch small enough to be one chunk starts
/// none.
pub fn with_helpers<R>(
    work: &OrderedLines<'_>,
    threads: usize,
    consume: impl FnOnce() -> R,
) -> Result<R, String> {
    let helpers = threads
        .saturating_sub(1)
        .min(work.chunks().saturating_sub(1));
    if helpers == 0 {
        return Ok(consume());
    }
    std::thread::scope(|scope| {
        // Whatever happens here (a thread that cannot start, a panic in `consume`), the
        // helpers are told to stop before the scope waits for them.
        let _finish = Finish(work);
        for i in 0..helpers {
            std::thread::Builder::new()
                .name(format!("toolwire-{i}"))
                .spawn_scoped(scope, || work.help())
                .map_err(|e| format!("cannot start {helpers} threads: {e}"))?;
        }
        Ok(consume())
    })
}

/// Calls [`OrderedLines::finish`] when dropped.
struct Finish<'w, 'a>(&'w OrderedLines<'a>);

impl Drop for Finish<'_, '_> {
    fn drop(&mut self) {
        self.0.finish();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::batch::extract_line;
    use crate::batch::packed::OutcomeRef;
    use crate::batch::tests::options;
    use crate::batch::{Line, Locate};
    use crate::body::Shape;
    use crate::calls::Outcome;

    fn numbered(texts: &[String]) -> Vec<(u64, &[u8])> {
        (1..).zip(texts.iter().map(String::as_bytes)).collect()
    }

    fn repeated(text: &'static str, n: usize) -> Vec<(u64, &'static [u8])> {
        (1..=n as u64).map(|k| (k, text.as_bytes())).collect()
    }

    fn names(lines: &[Line]) -> Vec<String> {
        lines
            .iter()
            .map(|line| match &line.result {
                Ok(outcomes) => outcomes
                    .iter()
                    .map(|o| match o {
                        Outcome::Call(call) => call.name.clone(),
                        Outcome::Invalid(_) => "invalid".to_owned(),
                    })
                    .collect::<Vec<_>>()
                    .join(","),
                Err(e) => format!("error: {}", e.message),
            })
            .collect()
    }

    fn packed_names(lines: &PackedLines) -> Vec<String> {
        (0..lines.len())
            .map(|i| match lines.line(i).unwrap() {
                Ok(outcomes) => outcomes
                    .map(|o| match o {
                        OutcomeRef::Call { name, .. } => name.to_owned(),
                        OutcomeRef::Invalid(_) => "invalid".to_owned(),
                    })
                    .collect::<Vec<_>>()
                    .join(","),
                Err(e) => format!("error: {}", e.message),
            })
            .collect()
    }

    #[test]
    fn chunks_come_in_input_order_on_any_number_of_threads() {
        let texts: Vec<String> = (0..300)
            .map(|i| match i % 7 {
                0 => "not json".to_owned(),
                _ => format!(r#"{{"tool_calls": [{{"name": "f{i}", "arguments": {{}}}}]}}"#),
            })
            .collect();
        let lines = numbered(&texts);
        let opts = options(Locate::Whole, Shape::Auto);
        let want = names(
            &lines
                .iter()
                .map(|(_, l)| extract_line(l, &opts))
                .collect::<Vec<_>>(),
        );
        for threads in [1, 2, 3, 8] {
            let work = OrderedLines::new(&lines, &opts);
            let got = with_helpers(&work, threads, || {
                (0..work.chunks())
                    .flat_map(|chunk| packed_names(&work.take(chunk)))
                    .collect::<Vec<_>>()
            })
            .unwrap();
            assert_eq!(got, want, "threads={threads}");
        }
    }

    #[test]
    fn a_consumer_that_gives_up_early_returns() {
        let texts = repeated(r#"{"text": "hi"}"#, 1000);
        let opts = options(Locate::Whole, Shape::Auto);
        let work = OrderedLines::new(&texts, &opts);
        let first = with_helpers(&work, 2, || work.take(0).len()).unwrap();
        assert_eq!(first, LINES_PER_CHUNK);
        assert!(work.take(work.chunks()).is_empty());
    }

    #[test]
    fn a_consumer_may_stop_after_any_chunk() {
        let texts = repeated(r#"{"tool_calls": [{"name": "f", "arguments": {}}]}"#, 2000);
        let opts = options(Locate::Whole, Shape::Auto);
        for (threads, give_up_after) in [(2, usize::MAX), (3, usize::MAX), (2, 5), (8, 1)] {
            let work = OrderedLines::new(&texts, &opts);
            let taken = with_helpers(&work, threads, || {
                let mut taken = 0;
                for chunk in 0..work.chunks().min(give_up_after) {
                    taken += work.take(chunk).len();
                }
                taken
            })
            .unwrap();
            assert_eq!(
                taken,
                texts
                    .len()
                    .min(give_up_after.saturating_mul(LINES_PER_CHUNK))
            );
        }
    }

    #[test]
    fn a_consumer_that_panics_stops_the_helpers() {
        let texts = repeated(r#"{"text": "hi"}"#, 1000);
        let opts = options(Locate::Whole, Shape::Auto);
        let work = OrderedLines::new(&texts, &opts);
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            with_helpers(&work, 3, || {
                work.take(0);
                panic!("the consumer fails");
            })
        }));
        assert!(outcome.is_err());
    }

    #[test]
    fn a_chunk_no_helper_claimed_is_extracted_by_take_after_the_helpers_stop() {
        let texts = repeated(r#"{"tool_calls": [{"name": "f", "arguments": {}}]}"#, 1000);
        let opts = options(Locate::Whole, Shape::Auto);
        let work = OrderedLines::new(&texts, &opts);
        with_helpers(&work, 2, || work.take(0)).unwrap();
        let last = work.chunks() - 1;
        assert_eq!(work.take(last).len(), texts.len() - last * LINES_PER_CHUNK);
    }

    #[test]
    fn a_chunk_whose_extraction_panicked_is_lost_not_waited_for() {
        let texts = repeated(r#"{"text": "hi"}"#, 100);
        let opts = options(Locate::Whole, Shape::Auto);
        let work = OrderedLines::new(&texts, &opts);
        let panicked = std::thread::scope(|scope| {
            scope
                .spawn(|| {
                    let _claim = Claim {
                        work: &work,
                        chunk: 0,
                        lines: Some(PackedLines::default()),
                    };
                    panic!("the extraction fails");
                })
                .join()
        });
        assert!(panicked.is_err());
        let taken = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| work.take(0)));
        assert!(taken.is_err(), "the consumer is told, not left waiting");
        assert_eq!(work.take(1).len(), texts.len() - LINES_PER_CHUNK);
    }

    #[test]
    fn no_lines_no_chunks() {
        let opts = options(Locate::Whole, Shape::Auto);
        let work = OrderedLines::new(&[], &opts);
        assert_eq!(work.chunks(), 0);
        assert_eq!(with_helpers(&work, 4, || 7).unwrap(), 7);
    }
}
