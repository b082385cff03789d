//! Small pieces the stream machines of every group are built from.

use crate::json::{skip_value, ParseOptions};
use crate::scan::call_scan::{CallRecord, CallScanner, Stop};

/// Whether `buf[at..]` starts with `lit`: `None` while too short to tell.
pub(crate) fn starts(buf: &[u8], at: usize, lit: &str) -> Option<bool> {
    let avail = &buf[at.min(buf.len())..];
    let lit = lit.as_bytes();
    if avail.len() >= lit.len() {
        Some(avail.starts_with(lit))
    } else if lit.starts_with(avail) {
        None
    } else {
        Some(false)
    }
}

/// The first of `lits` that `buf[at..]` starts with: `Err(())` while one may still match.
pub(crate) fn starts_any(buf: &[u8], at: usize, lits: &[&str]) -> Result<Option<usize>, ()> {
    let mut undecided = false;
    for (k, lit) in lits.iter().enumerate() {
        match starts(buf, at, lit) {
            Some(true) => return Ok(Some(k)),
            None => undecided = true,
            Some(false) => {}
        }
    }
    if undecided {
        Err(())
    } else {
        Ok(None)
    }
}

/// `p` moved past JSON whitespace.
pub(crate) fn ws(buf: &[u8], mut p: usize) -> usize {
    while p < buf.len() && matches!(buf[p], b' ' | b'\t' | b'\n' | b'\r') {
        p += 1;
    }
    p
}

/// A call whose name is known. `derived`: its arguments are not JSON text the model wrote
/// (they are sent as compact JSON when the call ends).
pub(crate) fn named(name: &str, id: Option<String>, derived: bool, item: usize) -> CallRecord {
    CallRecord {
        item,
        name: Some(name.to_owned()).filter(|n| !n.is_empty()),
        ready: (!name.is_empty()).then(|| id.clone()),
        id,
        derived,
        ..CallRecord::default()
    }
}

/// A JSON value read structurally (strings, nesting) until it closes.
pub(crate) struct JsonValue {
    pub scanner: CallScanner,
    /// Where the value starts, and whether the strict skipper may still take it whole.
    start: usize,
    skippable: bool,
}

pub(crate) enum Scanned {
    More,
    Closed(usize),
    /// A byte that cannot be JSON, at this position.
    Broken(usize),
}

impl JsonValue {
    /// A value that starts at `start`; its calls are recorded when `track` (a value that is a
    /// call or a list of calls, in a parse that announces them), else only its end is found.
    pub fn new(start: usize, options: ParseOptions, track: bool) -> Self {
        let mut scanner = CallScanner::tracking(options, true, track);
        scanner.pos = start;
        Self {
            scanner,
            start,
            skippable: !track,
        }
    }

    /// Reads another top-level value from `start`, keeping the calls recorded so far.
    pub fn restart(&mut self, start: usize) {
        self.scanner.restart(start);
        self.start = start;
    }

    pub fn scan(&mut self, buf: &str) -> Scanned {
        // A value whose calls are not recorded and that has all arrived is taken by the strict
        // skipper in one go; it ends a valid value where the scanner would, and leaves anything
        // else (invalid, unfinished, lenient) to the scanner from the start.
        if self.skippable {
            self.skippable = false;
            if let Some(end) = skip_value(buf.as_bytes(), self.start, 0) {
                self.scanner.pos = end;
                return Scanned::Closed(end);
            }
        }
        loop {
            match self.scanner.scan(buf) {
                Stop::End => return Scanned::More,
                Stop::Newline => {}
                Stop::TopClosed => return Scanned::Closed(self.scanner.pos),
                Stop::NotJson => return Scanned::Broken(self.scanner.pos - 1),
            }
        }
    }
}

/// The JSON arguments of the last call of `records`, which start at `start` (bytes the model
/// wrote, forwarded as they come).
pub(crate) fn arguments_at(
    records: &mut [CallRecord],
    start: usize,
    options: ParseOptions,
) -> JsonValue {
    if let Some(record) = records.last_mut() {
        record.args_start = Some(start);
        record.derived = false;
    }
    JsonValue::new(start, options, false)
}

/// Scans arguments opened by [`arguments_at`]; where they close, or break, is the end of the
/// last call's arguments (a broken call's argument bytes end there: the scanner then reads the
/// next call's, and no byte after the break is this call's).
pub(crate) fn scan_arguments(
    args: &mut JsonValue,
    buf: &str,
    records: &mut [CallRecord],
) -> Scanned {
    let scanned = args.scan(buf);
    if let (Scanned::Closed(end) | Scanned::Broken(end), Some(record)) =
        (&scanned, records.last_mut())
    {
        record.args_end = Some(*end);
    }
    scanned
}

/// Marks the last call found as ended.
pub(crate) fn close_last(records: &mut [CallRecord]) {
    if let Some(record) = records.last_mut() {
        record.closed = true;
    }
}
