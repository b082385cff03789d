//! Markers with a lead: bytes before their first `<` (MiniMax-M3's namespace token
//! `]<]minimax[>[<tool_call>`). Text mode and sniffing stop at the `<`, as for any marker, and
//! look back over the lead, so such a marker is found anywhere in prose at no cost to text
//! without `<`; a chunk that ends inside a lead is held for the next.

use super::markers::{build, entries_where, Mask, COUNT, TABLE};

/// The most bytes a marker may have before its first `<` ([`lead_len`]).
const LEAD_MAX: usize = 4;

/// The bytes before a marker's first `<`, when it begins with another byte, no stop byte among
/// them (MiniMax-M3's namespace token: `]<]minimax[>[<tool_call>` has a lead of one byte, `]`).
/// Text mode and sniffing stop at the `<`, as for any marker, and look back over the lead: such
/// a marker is found anywhere in prose at no cost to text without `<`. 0 for the others.
pub(crate) const fn lead_len(text: &str) -> usize {
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() && i <= LEAD_MAX {
        match b[i] {
            b'<' => return i,
            b'[' | b'\n' | b'`' => return 0,
            _ => i += 1,
        }
    }
    0
}

/// The entries of the markers with a lead ([`lead_len`]).
pub(crate) const LEADS: Mask = entries_where!(|entry| lead_len(entry.text) > 0);

/// For each byte value, whether some lead ends with it (the byte before a `<` worth a look back).
static LEAD_LAST: [bool; 256] = {
    let table = build();
    let mut last = [false; 256];
    let mut i = 0;
    while i < COUNT {
        let lead = lead_len(table[i].text);
        if lead > 0 {
            last[table[i].text.as_bytes()[lead - 1] as usize] = true;
        }
        i += 1;
    }
    last
};

/// Where a marker that may hold the `<` at `at` would begin: before it, the lead of a marker
/// with one, when `bytes[floor..at]` ends with it; else `at`. Whatever the formats asked for
/// (one table look per `<`); [`match_from`] then decides.
#[inline]
pub(crate) fn lead_start(bytes: &[u8], at: usize, floor: usize) -> usize {
    if at == floor || bytes[at] != b'<' || !LEAD_LAST[bytes[at - 1] as usize] {
        return at;
    }
    for i in LEADS.entries() {
        let lead = &TABLE[i].text.as_bytes()[..lead_len(TABLE[i].text)];
        if at - floor >= lead.len() && bytes[..at].ends_with(lead) {
            return at - lead.len();
        }
    }
    at
}

/// For each byte value, whether it occurs in some lead (a chunk ending with it may end inside
/// one).
static IN_LEAD: [bool; 256] = {
    let table = build();
    let mut in_lead = [false; 256];
    let mut i = 0;
    while i < COUNT {
        let mut k = 0;
        while k < lead_len(table[i].text) {
            in_lead[table[i].text.as_bytes()[k] as usize] = true;
            k += 1;
        }
        i += 1;
    }
    in_lead
};

/// How many bytes at the end of `bytes` may begin a marker of `mask` with a lead (a chunk that
/// ends with `]` may be followed by `<]minimax[>[`): text mode holds them for the next chunk.
/// One table look for a chunk that does not end with a lead's byte.
#[inline]
pub(crate) fn lead_tail(bytes: &[u8], mask: Mask) -> usize {
    match bytes.last() {
        Some(&last) if IN_LEAD[last as usize] && !(mask & LEADS).is_empty() => {
            held_lead(bytes, mask)
        }
        _ => 0,
    }
}

#[inline(never)]
fn held_lead(bytes: &[u8], mask: Mask) -> usize {
    for i in (LEADS & mask).entries() {
        let lead = &TABLE[i].text.as_bytes()[..lead_len(TABLE[i].text)];
        if let Some(held) = (1..=lead.len().min(bytes.len()))
            .rev()
            .find(|&n| bytes.ends_with(&lead[..n]))
        {
            return held;
        }
    }
    0
}
