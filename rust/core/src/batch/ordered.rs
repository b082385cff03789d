//! Lines extracted on several threads and handed over chunk by chunk, in input order, to one
//! consumer thread that also takes part in the work.
//!
//! This is how `extract_batch` keeps the interpreter busy: its thread turns each finished chunk
//! into Python objects while the pool's threads extract the next ones, and extracts chunks
//! itself (detached) whenever the next one in order is not done. `threads` is the number of
//! threads at work, the consumer's included, so one thread means no pool at all.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};

use super::{extract_line, pool, Line, LineOptions};

/// Lines per chunk: enough to amortise a hand-over, few enough that the consumer starts early.
const LINES_PER_CHUNK: usize = 32;

/// The shared state of one ordered extraction.
pub struct OrderedLines<'a> {
    lines: &'a [&'a [u8]],
    options: &'a LineOptions<'a>,
    /// The first chunk no thread has claimed.
    next: AtomicUsize,
    /// Each chunk's lines once extracted, until the consumer takes them.
    done: Mutex<Vec<Option<Vec<Line>>>>,
    finished: Condvar,
}

impl<'a> OrderedLines<'a> {
    pub fn new(lines: &'a [&'a [u8]], options: &'a LineOptions<'a>) -> Self {
        let chunks = lines.len().div_ceil(LINES_PER_CHUNK);
        Self {
            lines,
            options,
            next: AtomicUsize::new(0),
            done: Mutex::new((0..chunks).map(|_| None).collect()),
            finished: Condvar::new(),
        }
    }

    pub fn chunks(&self) -> usize {
        self.lines.len().div_ceil(LINES_PER_CHUNK)
    }

    fn slots(&self) -> MutexGuard<'_, Vec<Option<Vec<Line>>>> {
        self.done.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Claims and extracts the first unclaimed chunk; `false` when none is left.
    fn work_once(&self) -> bool {
        let chunk = self.next.fetch_add(1, Ordering::Relaxed);
        let start = chunk.saturating_mul(LINES_PER_CHUNK);
        if start >= self.lines.len() {
            return false;
        }
        let lines = &self.lines[start..self.lines.len().min(start + LINES_PER_CHUNK)];
        let extracted = lines
            .iter()
            .map(|line| extract_line(line, self.options))
            .collect();
        self.slots()[chunk] = Some(extracted);
        self.finished.notify_all();
        true
    }

    /// A helper thread's loop: chunks until none is left.
    fn help(&self) {
        while self.work_once() {}
    }

    /// Chunk `chunk`'s lines (each chunk is taken once, by the consumer): extracts other
    /// chunks while it is not done, then waits for the thread working on it.
    pub fn take(&self, chunk: usize) -> Vec<Line> {
        loop {
            if let Some(lines) = self.slots().get_mut(chunk).and_then(Option::take) {
                return lines;
            }
            if !self.work_once() {
                break;
            }
        }
        let mut slots = self.slots();
        loop {
            match slots.get_mut(chunk) {
                Some(slot @ Some(_)) => return slot.take().unwrap_or_default(),
                // Past the end: nothing to wait for.
                None => return Vec::new(),
                Some(None) => slots = self.finished.wait(slots).unwrap_or_else(|e| e.into_inner()),
            }
        }
    }

    /// Lets the helpers stop after their current chunk (the consumer gave up).
    pub fn cancel(&self) {
        self.next.fetch_max(self.chunks(), Ordering::Relaxed);
    }
}

/// Runs `consume` on this thread while `threads - 1` pool threads help with `work`; returns
/// when `consume` has returned and the helpers have stopped.
pub fn with_helpers<R>(
    work: &OrderedLines<'_>,
    threads: usize,
    consume: impl FnOnce() -> R,
) -> Result<R, String> {
    let helpers = threads.saturating_sub(1).min(work.chunks());
    if helpers == 0 {
        return Ok(consume());
    }
    Ok(pool(helpers)?.in_place_scope(|scope| {
        for _ in 0..helpers {
            scope.spawn(|_| work.help());
        }
        let result = consume();
        work.cancel();
        result
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::batch::tests::options;
    use crate::batch::Locate;
    use crate::body::Shape;
    use crate::calls::Outcome;

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

    #[test]
    fn chunks_come_in_input_order_on_any_number_of_threads() {
        let texts: Vec<String> = (0..300)
            .map(|i| match i % 7 {
                0 => "not json".to_owned(),
                _ => format!(r#"{{"tool_calls": [{{"name": "f{i}", "arguments": {{}}}}]}}"#),
            })
            .collect();
        let lines: Vec<&[u8]> = texts.iter().map(|t| t.as_bytes()).collect();
        let opts = options(Locate::Whole, Shape::Auto);
        let want = names(
            &lines
                .iter()
                .map(|l| extract_line(l, &opts))
                .collect::<Vec<_>>(),
        );
        for threads in [1, 2, 3, 8] {
            let work = OrderedLines::new(&lines, &opts);
            let got = with_helpers(&work, threads, || {
                (0..work.chunks())
                    .flat_map(|chunk| names(&work.take(chunk)))
                    .collect::<Vec<_>>()
            })
            .unwrap();
            assert_eq!(got, want, "threads={threads}");
        }
    }

    #[test]
    fn a_consumer_that_gives_up_early_returns() {
        let texts = vec![r#"{"text": "hi"}"#.as_bytes(); 1000];
        let opts = options(Locate::Whole, Shape::Auto);
        let work = OrderedLines::new(&texts, &opts);
        let first = with_helpers(&work, 2, || work.take(0).len()).unwrap();
        assert_eq!(first, LINES_PER_CHUNK);
        assert!(work.take(work.chunks()).is_empty());
    }

    #[test]
    fn no_lines_no_chunks() {
        let opts = options(Locate::Whole, Shape::Auto);
        let work = OrderedLines::new(&[], &opts);
        assert_eq!(work.chunks(), 0);
        assert_eq!(with_helpers(&work, 4, || 7).unwrap(), 7);
    }
}
