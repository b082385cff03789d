//! The scan at the heart of string decoding: how far a string's bytes run without anything
//! that needs a closer look (its closing quote, an escape, a control character), and whether
//! that run is ASCII (so the string can be built without decoding UTF-8).
//!
//! Strings are most of a JSON document and most of them are short keys, so the scan takes 16
//! bytes a step with SSE2 (part of every x86-64 CPU), then 8 bytes a step in a `u64`, then
//! single bytes at the very end of the input.

/// Whether `c` ends a plain run of a string opened by `quote`: the quote, a backslash, or a
/// control character.
pub(super) fn ends_plain_run(c: u8, quote: u8) -> bool {
    c < 0x20 || c == quote || c == b'\\'
}

/// The end of the run of plain bytes ([`ends_plain_run`]) that starts at `start`, and whether
/// the run is ASCII.
#[inline]
pub(crate) fn plain_run(data: &[u8], start: usize, quote: u8) -> (usize, bool) {
    #[cfg(target_arch = "x86_64")]
    let (start, ascii) = match sse2::plain_run(data, start, quote) {
        (end, ascii, true) => return (end, ascii),
        (end, ascii, false) => (end, ascii),
    };
    #[cfg(not(target_arch = "x86_64"))]
    let ascii = true;
    let (end, tail_ascii) = swar_plain_run(data, start, quote);
    (end, ascii && tail_ascii)
}

/// Eight bytes at a time in a `u64`, then byte by byte.
fn swar_plain_run(data: &[u8], start: usize, quote: u8) -> (usize, bool) {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);
    // High bit set in each byte of `word` that is below `n` (n <= 0x80). Borrows only carry
    // towards higher bytes, so the lowest flagged byte is always a real one.
    let below = |word: u64, n: u8| word.wrapping_sub(ONES * u64::from(n)) & !word & HIGHS;
    let mut i = start;
    let mut high_bits = 0u64;
    while let Some(chunk) = data.get(i..i + 8) {
        let word = u64::from_le_bytes(chunk.try_into().unwrap_or_default());
        let stops = below(word, 0x20)
            | below(word ^ (ONES * u64::from(quote)), 1)
            | below(word ^ (ONES * u64::from(b'\\')), 1);
        if stops != 0 {
            let run = (stops.trailing_zeros() / 8) as usize;
            high_bits |= word & ((1u64 << (8 * run)) - 1);
            return (i + run, high_bits & HIGHS == 0);
        }
        high_bits |= word;
        i += 8;
    }
    let mut ascii = high_bits & HIGHS == 0;
    while let Some(&c) = data.get(i) {
        if ends_plain_run(c, quote) {
            break;
        }
        ascii &= c.is_ascii();
        i += 1;
    }
    (i, ascii)
}

#[cfg(target_arch = "x86_64")]
mod sse2 {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_max_epu8, _mm_movemask_epi8, _mm_or_si128,
        _mm_set1_epi8,
    };

    /// Sixteen bytes at a time while sixteen remain: the end of the run, whether it is ASCII,
    /// and whether a stop byte was found (`false`: fewer than 16 bytes were left at `end`).
    #[inline]
    pub(super) fn plain_run(data: &[u8], start: usize, quote: u8) -> (usize, bool, bool) {
        let mut i = start;
        let mut high_bits = 0u32;
        // SAFETY: SSE2 is part of the x86-64 baseline; every load reads 16 bytes that lie
        // inside `data` (`i + 16 <= data.len()`), unaligned loads being allowed.
        unsafe {
            let quotes = _mm_set1_epi8(quote as i8);
            let backslashes = _mm_set1_epi8(b'\\' as i8);
            let controls_max = _mm_set1_epi8(0x1F);
            while i + 16 <= data.len() {
                let bytes = _mm_loadu_si128(data.as_ptr().add(i).cast::<__m128i>());
                // A byte is a control character when max(byte, 0x1F) == 0x1F (unsigned).
                let controls = _mm_cmpeq_epi8(_mm_max_epu8(bytes, controls_max), controls_max);
                let stops = _mm_or_si128(
                    _mm_or_si128(
                        _mm_cmpeq_epi8(bytes, quotes),
                        _mm_cmpeq_epi8(bytes, backslashes),
                    ),
                    controls,
                );
                let stop_mask = _mm_movemask_epi8(stops) as u32;
                let high_mask = _mm_movemask_epi8(bytes) as u32;
                if stop_mask != 0 {
                    let run = stop_mask.trailing_zeros();
                    high_bits |= high_mask & ((1 << run) - 1);
                    return (i + run as usize, high_bits == 0, true);
                }
                high_bits |= high_mask;
                i += 16;
            }
        }
        (i, high_bits == 0, false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The byte-at-a-time definition `plain_run` must agree with.
    fn plain_run_bytewise(data: &[u8], start: usize, quote: u8) -> (usize, bool) {
        let end = data[start..]
            .iter()
            .position(|&c| ends_plain_run(c, quote))
            .map_or(data.len(), |n| start + n);
        (end, data[start..end].is_ascii())
    }

    #[test]
    fn plain_run_stops_at_every_stop_byte_in_every_lane() {
        let fillers: [&[u8]; 3] = [b"a", "é".as_bytes(), b"\x7f"];
        for stop in [b'"', b'\'', b'\\', 0x00, 0x1F, b'\n'] {
            for quote in [b'"', b'\''] {
                for filler in fillers {
                    for len in 0..40 {
                        for tail in [0, 1, 9, 17] {
                            let mut data = filler.repeat(len);
                            let stop_at = data.len();
                            data.push(stop);
                            data.extend_from_slice(&filler.repeat(tail));
                            for start in 0..=stop_at.min(3) {
                                let got = plain_run(&data, start, quote);
                                let want = plain_run_bytewise(&data, start, quote);
                                assert_eq!(got, want, "stop {stop:#x} len {len} start {start}");
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn a_run_without_a_stop_ends_at_the_end_of_the_input() {
        for len in 0..40 {
            let mut data = b"x".repeat(len);
            assert_eq!(plain_run(&data, 0, b'"'), (len, true));
            data.extend_from_slice("é".as_bytes());
            assert_eq!(plain_run(&data, 0, b'"'), (len + 2, false));
        }
    }
}
