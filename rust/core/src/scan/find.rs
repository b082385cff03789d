//! The crate's one byte-search module: fixed bytes and markers, tuned for model replies (most
//! are a few hundred bytes) and for the few bytes a stream chunk adds.
//!
//! memchr's top-level searchers pick AVX2 at run time through a function pointer and set up per
//! call, ~100–150 instructions a call: more than scanning a typical reply takes. Haystacks
//! shorter than [`SHORT`] are searched by a plain loop (a chunk of a stream is often a few
//! bytes, where even SSE2 set-up costs more than the search), those shorter than [`LONG`] by
//! memchr's SSE2 routines (SSE2 is part of x86-64, so they inline), and longer ones by the
//! dispatched searchers, whose wider steps then pay off.

use std::sync::OnceLock;

use memchr::memmem;

/// Below this length, a haystack is searched byte by byte.
const SHORT: usize = 16;
/// From this length on, a haystack goes to memchr's dispatched (AVX2) searchers.
const LONG: usize = 512;

/// `a == b`, in a `const` context.
pub(crate) const fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// The first `a` in `haystack`.
#[inline]
pub(crate) fn find_byte(a: u8, haystack: &[u8]) -> Option<usize> {
    if haystack.len() < SHORT {
        return haystack.iter().position(|&x| x == a);
    }
    #[cfg(target_arch = "x86_64")]
    if haystack.len() < LONG {
        if let Some(one) = memchr::arch::x86_64::sse2::memchr::One::new(a) {
            return one.find(haystack);
        }
    }
    memchr::memchr(a, haystack)
}

/// The first `a` or `b` in `haystack`.
#[inline]
pub(crate) fn find_either(a: u8, b: u8, haystack: &[u8]) -> Option<usize> {
    if haystack.len() < SHORT {
        return haystack.iter().position(|&x| x == a || x == b);
    }
    #[cfg(target_arch = "x86_64")]
    if haystack.len() < LONG {
        if let Some(two) = memchr::arch::x86_64::sse2::memchr::Two::new(a, b) {
            return two.find(haystack);
        }
    }
    memchr::memchr2(a, b, haystack)
}

/// The first `a`, `b` or `c` in `haystack`.
#[inline]
pub(crate) fn find_any3(a: u8, b: u8, c: u8, haystack: &[u8]) -> Option<usize> {
    if haystack.len() < SHORT {
        return haystack.iter().position(|&x| x == a || x == b || x == c);
    }
    #[cfg(target_arch = "x86_64")]
    if haystack.len() < LONG {
        if let Some(three) = memchr::arch::x86_64::sse2::memchr::Three::new(a, b, c) {
            return three.find(haystack);
        }
    }
    memchr::memchr3(a, b, c, haystack)
}

/// The first `a`, `b`, `c` or `d` in `haystack`: a short one in one pass, else [`find_any3`],
/// then `d` before what it found (memchr searches at most three bytes at once; `d` is a rare
/// byte in the callers).
#[inline]
pub(crate) fn find_any4(a: u8, b: u8, c: u8, d: u8, haystack: &[u8]) -> Option<usize> {
    if haystack.len() < SHORT {
        return haystack
            .iter()
            .position(|&x| x == a || x == b || x == c || x == d);
    }
    let three = find_any3(a, b, c, haystack);
    let before = &haystack[..three.unwrap_or(haystack.len())];
    find_byte(d, before).or(three)
}

/// A fixed marker and its searchers, built on first use and kept for the process (building
/// one costs more than searching a typical reply).
pub(crate) struct Needle {
    pub text: &'static str,
    finders: OnceLock<Finders>,
}

struct Finders {
    long: memmem::Finder<'static>,
    #[cfg(target_arch = "x86_64")]
    short: Option<memchr::arch::x86_64::sse2::packedpair::Finder>,
}

impl Needle {
    pub const fn new(text: &'static str) -> Self {
        Self {
            text,
            finders: OnceLock::new(),
        }
    }

    /// The offset of the first occurrence in `haystack`.
    #[inline]
    pub fn find(&self, haystack: &[u8]) -> Option<usize> {
        let needle = self.text.as_bytes();
        let finders = self.finders.get_or_init(|| Finders {
            long: memmem::Finder::new(needle),
            #[cfg(target_arch = "x86_64")]
            short: memchr::arch::x86_64::sse2::packedpair::Finder::new(needle),
        });
        #[cfg(target_arch = "x86_64")]
        if haystack.len() < LONG {
            if let Some(short) = &finders.short {
                return if haystack.len() >= short.min_haystack_len() {
                    short.find(haystack, needle)
                } else {
                    find_short(haystack, needle)
                };
            }
        }
        finders.long.find(haystack)
    }
}

/// The first occurrence of a short fixed `needle` in `haystack`: a search for its first byte
/// and a comparison where it stops. For haystacks too short for a vector search and for the
/// few bytes of a header, where building a `memmem` searcher costs more than the search;
/// linear, as the needle is a constant.
pub(crate) fn find_short(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    let first = *needle.first()?;
    let mut pos = 0;
    while let Some(i) = find_byte(first, &haystack[pos..]) {
        let at = pos + i;
        if haystack[at..].starts_with(needle) {
            return Some(at);
        }
        pos = at + 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    static NEEDLES: [Needle; 4] = [
        Needle::new("</tool_call>"),
        Needle::new("~~~"),
        Needle::new("<｜tool▁sep｜>"),
        Needle::new("ab"),
    ];

    /// Haystacks of every length around the vector sizes and [`LONG`], with the needle (or a
    /// near miss) at every position.
    fn haystacks(needle: &[u8]) -> impl Iterator<Item = Vec<u8>> + '_ {
        let lens = (0..80).chain(LONG - 40..LONG + 40);
        let near_miss = [&needle[..needle.len() - 1], b"x"].concat();
        lens.flat_map(move |len| {
            let near_miss = near_miss.clone();
            (0..=len)
                .step_by(if len > 100 { 7 } else { 1 })
                .flat_map(move |at| {
                    [needle.to_vec(), near_miss.clone()].map(|piece| {
                        let mut hay = vec![b'.'; len];
                        hay.splice(at..at, piece);
                        hay.truncate(len);
                        hay
                    })
                })
        })
    }

    #[test]
    fn needles_are_found_as_the_naive_search_finds_them() {
        for needle in &NEEDLES {
            let bytes = needle.text.as_bytes();
            for hay in haystacks(bytes) {
                let want = hay.windows(bytes.len()).position(|w| w == bytes);
                assert_eq!(needle.find(&hay), want, "{:?} in {hay:?}", needle.text);
            }
        }
    }

    #[test]
    fn either_byte_is_found_as_the_naive_search_finds_it() {
        for hay in haystacks(b"<[") {
            for (a, b) in [(b'<', b'['), (b'[', b'['), (b'x', b'<')] {
                let want = hay.iter().position(|&c| c == a || c == b);
                assert_eq!(find_either(a, b, &hay), want, "{hay:?}");
                let want = hay.iter().position(|&c| c == a);
                assert_eq!(find_byte(a, &hay), want, "{hay:?}");
                let want = hay.iter().position(|&c| c == a || c == b || c == b'~');
                assert_eq!(find_any3(a, b, b'~', &hay), want, "{hay:?}");
                let want = hay.iter().position(|&c| [a, b, b'~', b'.'].contains(&c));
                assert_eq!(find_any4(a, b, b'~', b'.', &hay), want, "{hay:?}");
                let want = hay.iter().position(|&c| [a, b, b'~', b'x'].contains(&c));
                assert_eq!(find_any4(a, b, b'~', b'x', &hay), want, "{hay:?}");
            }
        }
    }
}
