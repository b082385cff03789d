//! Substring finders for fixed markers, built once: building a SIMD finder costs more than
//! searching a typical model reply.

use std::sync::OnceLock;

use memchr::memmem::Finder;

/// A fixed marker and its `memmem` searcher, built on first use and kept for the process.
pub(crate) struct Needle {
    pub text: &'static str,
    finder: OnceLock<Finder<'static>>,
}

impl Needle {
    pub const fn new(text: &'static str) -> Self {
        Self {
            text,
            finder: OnceLock::new(),
        }
    }

    /// The offset of the first occurrence in `haystack`.
    pub fn find(&self, haystack: &[u8]) -> Option<usize> {
        self.finder
            .get_or_init(|| Finder::new(self.text.as_bytes()))
            .find(haystack)
    }
}

pub(crate) static TOOL_CALL_FENCE: Needle = Needle::new(super::fence::OPEN_MARKER);
pub(crate) static TILDES: Needle = Needle::new("~~~");
pub(crate) static BACKTICKS: Needle = Needle::new("```");
pub(crate) static THINK_OPEN: Needle = Needle::new(super::think::OPEN);
pub(crate) static THINK_CLOSE: Needle = Needle::new(super::think::CLOSE);
