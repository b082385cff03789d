//! The cyclic garbage collector held off while a batch's results are built.
//!
//! A batch builds thousands of lists and dicts: every 700 of them would start a collection of
//! the young objects, and every tenth of those a walk of the older ones too. The results are
//! fresh trees of JSON values that hold no cycle, so those walks free nothing. Allocations are
//! still counted while the collector is held off: the collection they call for runs once, at
//! the first allocation after the batch, and walks the results once rather than again and
//! again while they are built (not at all when they are freed before that).

use pyo3::ffi;
use pyo3::Python;

/// Holds the collector off from `hold` to `resume` (or the drop), when it was on.
///
/// Resume before the interpreter is detached or Python code runs: the collector's state is
/// the whole interpreter's, not this thread's.
pub struct GcPause<'py> {
    _attached: Python<'py>,
    /// Whether this pause turned the collector off (and so turns it back on).
    holding: bool,
}

impl<'py> GcPause<'py> {
    pub fn new(py: Python<'py>) -> Self {
        let mut pause = Self {
            _attached: py,
            holding: false,
        };
        pause.hold();
        pause
    }

    /// Turns the collector off, if it is on.
    pub fn hold(&mut self) {
        if !self.holding {
            // SAFETY: attached (`_attached`); returns whether the collector was on.
            self.holding = unsafe { ffi::PyGC_Disable() } == 1;
        }
    }

    /// Turns the collector back on, if this pause turned it off.
    pub fn resume(&mut self) {
        if self.holding {
            // SAFETY: attached (`_attached`).
            unsafe { ffi::PyGC_Enable() };
            self.holding = false;
        }
    }
}

impl Drop for GcPause<'_> {
    fn drop(&mut self) {
        self.resume();
    }
}
