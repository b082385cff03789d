//! The marker table, derived from the registry at compile time: every group's start markers,
//! prose ends and control tokens, and the think tags. Sniffing and the stream's text mode both read it, so a
//! format's markers are written once, in its folder.

use super::grammar::Start;
use crate::protocol::{Format, FormatSet, Group};
pub(crate) use crate::scan::find::same;
use crate::scan::think;

pub(crate) use super::lead::{lead_len, lead_start, lead_tail, LEADS};
pub(crate) use super::mask::Mask;

/// What a marker does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    ThinkOpen,
    ThinkClose,
    /// `Group::starts(group)[index]`: opens a call region.
    Start {
        group: Group,
        index: usize,
    },
    /// Ends a prose message of the groups that list it ([`Group::prose_ends`]: harmony's and
    /// Solar Open's `<|end|>`).
    ProseEnd,
    /// A control token ([`crate::formats::grammar::Grammar::CONTROL`]): dropped.
    Control,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Entry {
    pub text: &'static str,
    pub role: Role,
    /// The formats whose parse looks for it (none for the think tags).
    pub formats: FormatSet,
    /// A start marker that also ends a prose message of its group (harmony's `<|start|>`).
    pub ends_prose: bool,
}

/// Whether `text` is one of `group`'s start markers.
const fn is_start_of(group: Group, text: &str) -> bool {
    lists(group.starts(), text)
}

/// Whether `text` is one of `group`'s prose ends.
const fn is_prose_end_of(group: Group, text: &str) -> bool {
    lists(group.prose_ends(), text)
}

/// Whether `text` is one of `markers`.
const fn lists(markers: &[Start], text: &str) -> bool {
    let mut i = 0;
    while i < markers.len() {
        if same(markers[i].text, text) {
            return true;
        }
        i += 1;
    }
    false
}

/// Whether `text` is one of `texts`.
const fn is_one_of(text: &str, texts: &[&str]) -> bool {
    let mut i = 0;
    while i < texts.len() {
        if same(texts[i], text) {
            return true;
        }
        i += 1;
    }
    false
}

/// More entries than the table will ever hold (the [`Mask`] bits).
const ROOM: usize = Mask::BITS;

const BLANK: Entry = Entry {
    text: "",
    role: Role::ThinkOpen,
    formats: FormatSet::NONE,
    ends_prose: false,
};

/// The table, in `ROOM` slots, and how many are used. A control token several groups share
/// (`<|im_end|>`) is one entry for all their formats.
const fn build_all() -> ([Entry; ROOM], usize) {
    let mut table = [BLANK; ROOM];
    // The think tags first: `THINK_OPEN` and `THINK_CLOSE` are their bits.
    let mut n = 0;
    while n < think::OPENS.len() {
        table[2 * n].text = think::OPENS[n];
        table[2 * n + 1] = Entry {
            text: think::CLOSES[n],
            role: Role::ThinkClose,
            ..BLANK
        };
        n += 1;
    }
    // Then the tokens of channel-named opening tags: stray control tokens outside a span.
    let mut n = 2 * think::OPENS.len();
    let mut t = 0;
    while t < think::OPEN_TOKENS.len() {
        table[n] = Entry {
            text: think::OPEN_TOKENS[t],
            role: Role::Control,
            ..BLANK
        };
        n += 1;
        t += 1;
    }
    let mut g = 0;
    while g < Group::ALL.len() {
        let group = Group::ALL[g];
        let starts = group.starts();
        let ends = group.prose_ends();
        let mut i = 0;
        while i < starts.len() {
            table[n] = Entry {
                text: starts[i].text,
                role: Role::Start { group, index: i },
                formats: starts[i].formats,
                ends_prose: is_prose_end_of(group, starts[i].text),
            };
            n += 1;
            i += 1;
        }
        let mut e = 0;
        while e < ends.len() {
            if !is_start_of(group, ends[e].text) {
                let mut k = 0;
                while k < n && !same(table[k].text, ends[e].text) {
                    k += 1;
                }
                // Another group's control token (Llama 4's `<|eot|>`) or prose end (harmony's
                // `<|end|>`) ends this group's messages too: one entry, dropped for them all.
                let formats = match k < n {
                    true => table[k].formats.union(ends[e].formats),
                    false => ends[e].formats,
                };
                assert!(
                    k == n || matches!(table[k].role, Role::Control | Role::ProseEnd),
                    "a prose end is another marker"
                );
                table[k] = Entry {
                    text: ends[e].text,
                    role: Role::ProseEnd,
                    formats,
                    ends_prose: true,
                };
                if k == n {
                    n += 1;
                }
            }
            e += 1;
        }
        let control = group.control();
        let mut c = 0;
        while c < control.len() {
            let mut k = 0;
            while k < n && !same(table[k].text, control[c]) {
                k += 1;
            }
            if k == n {
                table[n] = Entry {
                    text: control[c],
                    role: Role::Control,
                    formats: group.formats(),
                    ends_prose: false,
                };
                n += 1;
            } else {
                assert!(
                    matches!(table[k].role, Role::Control | Role::ProseEnd),
                    "a control token is another marker"
                );
                table[k].formats = table[k].formats.union(group.formats());
            }
            c += 1;
        }
        g += 1;
    }
    (table, n)
}

pub(crate) const COUNT: usize = build_all().1;

pub(super) const fn build() -> [Entry; COUNT] {
    let (all, _) = build_all();
    let mut table = [BLANK; COUNT];
    let mut i = 0;
    while i < COUNT {
        table[i] = all[i];
        i += 1;
    }
    table
}

pub(crate) static TABLE: [Entry; COUNT] = build();

/// The entries of the table (at compile time) whose [`Entry`] meets a condition, as a [`Mask`]:
/// `entries_where!(|entry| is_anchored(entry.text))`. (A macro, as a `const fn` cannot take a
/// closure.)
macro_rules! entries_where {
    (|$entry:ident| $condition:expr) => {{
        let table = $crate::formats::markers::build();
        let mut mask = $crate::formats::markers::Mask::NONE;
        let mut i = 0;
        while i < $crate::formats::markers::COUNT {
            let $entry = &table[i];
            if $condition {
                mask = mask.with(i);
            }
            i += 1;
        }
        mask
    }};
}
pub(crate) use entries_where;

/// Whether a start marker is only looked for at the start of a message (after think spans and
/// whitespace): one that does not begin with a stop byte (`<`, `[`) and holds no `<` after a
/// lead ([`lead_len`]), such as `functools[`. Text mode never stops inside prose for it, so
/// marker-free text is not slowed down.
pub(crate) const fn is_anchored(text: &str) -> bool {
    !matches!(text.as_bytes()[0], b'<' | b'[') && lead_len(text) == 0
}

/// The entries of the message-start markers ([`is_anchored`]).
pub(crate) const ANCHORED: Mask = entries_where!(|entry| is_anchored(entry.text));

/// The marker of `mask` that starts at `from` (a [`lead_start`] of the stop at `at`), or at
/// `at`: where it starts, and what was found there. A marker with a lead is tried first; when
/// none completes there, the markers at the stop itself are.
pub(crate) fn match_from(bytes: &[u8], from: usize, at: usize, mask: Mask) -> (usize, Match) {
    if from < at {
        match match_at(&bytes[from..], mask & LEADS) {
            Match::None => {}
            found => return (from, found),
        }
    }
    (at, match_at(&bytes[at..], mask))
}

/// The control tokens that end a think span they stand in ([`think::ENDS`]).
pub(crate) const THINK_ENDS: Mask = entries_where!(|entry| {
    matches!(entry.role, Role::Control) && is_one_of(entry.text, &think::ENDS)
});

/// The entries of the message-start markers that also open at any line start
/// ([`crate::formats::grammar::Grammar::AT_LINES`]: Functionary's `>>>`).
pub(crate) const LINE_ANCHORED: Mask = entries_where!(|entry| match entry.role {
    Role::Start { group, .. } => group.at_lines() && is_anchored(entry.text),
    _ => false,
});

/// The first bytes of the line-start markers ([`LINE_ANCHORED`]), one repeated when they
/// share it: sniffing searches for them beside `<` and `[`, so text without them costs one
/// pass. (A third would need another search: the assertion says so at compile time.)
pub(crate) const LINE_FIRST: [u8; 2] = line_first();

const fn line_first() -> [u8; 2] {
    let table = build();
    let mut first = [0u8; 2];
    let mut n = 0;
    let mut i = 0;
    while i < COUNT {
        let b = table[i].text.as_bytes()[0];
        if LINE_ANCHORED.has(i) && !(n > 0 && first[0] == b) && !(n > 1 && first[1] == b) {
            assert!(n < 2, "more than two first bytes of line-start markers");
            first[n] = b;
            n += 1;
        }
        i += 1;
    }
    if n == 1 {
        first[1] = first[0];
    }
    first
}

/// Whether a line-start marker ([`LINE_ANCHORED`]) among `mask` begins with `b`.
pub(crate) fn opens_lines(b: u8, mask: Mask) -> bool {
    !(BY_FIRST[b as usize] & LINE_ANCHORED & mask).is_empty()
}

/// The byte a prose message of `group` may end at that text mode does not stop at anyway (the
/// first byte of an end marker that does not begin with `<` or `[`: Functionary's `>>>`).
pub(crate) fn prose_stop(group: Group) -> Option<u8> {
    group
        .prose_ends()
        .iter()
        .map(|end| end.text.as_bytes()[0])
        .find(|&b| b != b'<' && b != b'[')
}

/// The think tags' entries (`think::OPENS` at even entries, their closing tags after each).
pub(crate) const THINK_OPEN: Mask = think_entries(0);
pub(crate) const THINK_CLOSE: Mask = think_entries(1);
/// What text mode looks for outside a think span beside the opening tags: the closing tags and
/// the opening tags' bare tokens (`think::OPEN_TOKENS`, after the tags), stray tokens there.
pub(crate) const THINK_STRAY: Mask = THINK_CLOSE.union(THINK_TOKENS);
const THINK_TOKENS: Mask = open_tokens();

const fn open_tokens() -> Mask {
    let first = 2 * think::OPENS.len();
    let mut mask = Mask::NONE;
    let mut t = 0;
    while t < think::OPEN_TOKENS.len() {
        mask = mask.with(first + t);
        t += 1;
    }
    mask
}

const fn think_entries(parity: usize) -> Mask {
    let mut mask = Mask::NONE;
    let mut n = 0;
    while n < think::OPENS.len() {
        mask = mask.with(2 * n + parity);
        n += 1;
    }
    mask
}

/// For each byte value, the entries whose byte at `at` it is (the think tags included).
const fn by_byte(at: usize) -> [Mask; 256] {
    let table = build();
    let mut masks = [Mask::NONE; 256];
    let mut i = 0;
    while i < COUNT {
        let text = table[i].text.as_bytes();
        if at < text.len() {
            masks[text[at] as usize] = masks[text[at] as usize].with(i);
        }
        i += 1;
    }
    masks
}

static BY_FIRST: [Mask; 256] = by_byte(0);
static BY_SECOND: [Mask; 256] = by_byte(1);
static BY_THIRD: [Mask; 256] = by_byte(2);

/// The start markers of `formats`.
pub(crate) fn starts_of(formats: FormatSet) -> Mask {
    if formats == FormatSet::ALL {
        return ALL_FORMATS.starts;
    }
    formats
        .indices()
        .fold(Mask::NONE, |mask, f| mask | BY_FORMAT[f].starts)
}

/// The tokens of `formats` that text mode drops wherever they stand outside a call: their
/// control tokens, and the ends of prose messages (harmony's `<|end|>`, `<|return|>`), which
/// are no text outside a message either.
pub(crate) fn control_of(formats: FormatSet) -> Mask {
    if formats == FormatSet::ALL {
        return ALL_FORMATS.control;
    }
    formats
        .indices()
        .fold(Mask::NONE, |mask, f| mask | BY_FORMAT[f].control)
}

/// One format's entries, by role: every parse asks for the union over its formats, so the
/// table is not walked per parse.
#[derive(Clone, Copy)]
struct FormatEntries {
    starts: Mask,
    control: Mask,
}

static BY_FORMAT: [FormatEntries; Format::ALL.len()] = by_format();

/// The union for `formats="auto"`.
static ALL_FORMATS: FormatEntries = {
    let mut all = FormatEntries {
        starts: Mask::NONE,
        control: Mask::NONE,
    };
    let mut f = 0;
    while f < Format::ALL.len() {
        all.starts = all.starts.union(BY_FORMAT[f].starts);
        all.control = all.control.union(BY_FORMAT[f].control);
        f += 1;
    }
    all
};

const fn by_format() -> [FormatEntries; Format::ALL.len()] {
    let table = build();
    let none = FormatEntries {
        starts: Mask::NONE,
        control: Mask::NONE,
    };
    let mut by_format = [none; Format::ALL.len()];
    let mut f = 0;
    while f < Format::ALL.len() {
        let mut i = 0;
        while i < COUNT {
            if table[i].formats.contains(Format::ALL[f]) {
                match table[i].role {
                    Role::Start { .. } => by_format[f].starts = by_format[f].starts.with(i),
                    Role::Control | Role::ProseEnd => {
                        by_format[f].control = by_format[f].control.with(i)
                    }
                    Role::ThinkOpen | Role::ThinkClose => {}
                }
            }
            i += 1;
        }
        f += 1;
    }
    by_format
}

/// Inside a prose message of `group`: its ends are markup, its other starts are not, nor the
/// closing tags of those starts among its control tokens (an ATEM block quoted in a Muse
/// Glimmer answer is text, its `</atem:function_calls>` too).
pub(crate) fn in_prose_of(group: Group, mask: Mask) -> Mask {
    let prose = &IN_PROSE[group as usize];
    mask & !prose.not_markup | prose.markup | prose.dropped
}

/// Whether `TABLE[entry]`, inside a prose message of `group`, is a stray token to drop
/// ([`Grammar::DROPPED_IN_PROSE`](super::grammar::Grammar::DROPPED_IN_PROSE)).
pub(crate) fn dropped_in_prose_of(group: Group, entry: usize) -> bool {
    IN_PROSE[group as usize].dropped.has(entry)
}

/// What a prose message of a group changes in the markers looked for.
struct InProse {
    /// Its start markers that do not end a prose message, and their closing tags.
    not_markup: Mask,
    /// Its prose ends.
    markup: Mask,
    /// Its start markers that are dropped there.
    dropped: Mask,
}

static IN_PROSE: [InProse; Group::ALL.len()] = {
    let table = build();
    let mut in_prose = [const {
        InProse {
            not_markup: Mask::NONE,
            markup: Mask::NONE,
            dropped: Mask::NONE,
        }
    }; Group::ALL.len()];
    let mut i = 0;
    while i < COUNT {
        match table[i].role {
            Role::Start { group, .. } if !table[i].ends_prose => {
                let prose = &mut in_prose[group as usize];
                prose.not_markup = prose.not_markup.with(i);
                if is_one_of(table[i].text, group.dropped_in_prose()) {
                    prose.dropped = prose.dropped.with(i);
                }
            }
            Role::ProseEnd => {
                let mut g = 0;
                while g < Group::ALL.len() {
                    if is_prose_end_of(Group::ALL[g], table[i].text) {
                        in_prose[g].markup = in_prose[g].markup.with(i);
                    }
                    g += 1;
                }
            }
            Role::Control => {
                let mut g = 0;
                while g < Group::ALL.len() {
                    if closes_start_of(Group::ALL[g], table[i].text) {
                        in_prose[g].not_markup = in_prose[g].not_markup.with(i);
                    }
                    g += 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    in_prose
};

/// Whether `token` is `</X>` where `<X>` is one of `group`'s start markers that does not end
/// its prose messages.
const fn closes_start_of(group: Group, token: &str) -> bool {
    let token = token.as_bytes();
    if token.len() < 3 || token[0] != b'<' || token[1] != b'/' {
        return false;
    }
    let starts = group.starts();
    let mut s = 0;
    while s < starts.len() {
        let start = starts[s].text.as_bytes();
        let ends_prose = is_prose_end_of(group, starts[s].text);
        if !ends_prose && start.len() + 1 == token.len() && start[0] == b'<' {
            let mut k = 1;
            while k < start.len() && start[k] == token[k + 1] {
                k += 1;
            }
            if k == start.len() {
                return true;
            }
        }
        s += 1;
    }
    false
}

/// What [`match_at`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Match {
    /// `TABLE[i]` starts here.
    Found(usize),
    /// The bytes end inside a marker of the mask: more may complete it.
    Partial,
    None,
}

/// The marker of `mask` that starts `rest`. The byte tables leave only the markers whose first
/// three bytes fit (most `<` and `[` of a text begin none), and those are compared whole. No
/// marker is a prefix of another but a think tag's token (`<|channel>` of `<|channel>thought`):
/// where both may match, the longer wins, and `rest` ending inside it is `Partial`. A think tag
/// that takes a suffix (`<think:`) is found with it ([`found_len`]).
pub(crate) fn match_at(rest: &[u8], mask: Mask) -> Match {
    let mut found = None;
    let mut partial = false;
    for i in candidates(rest, mask).entries() {
        match len_at(rest, i) {
            // Only a think tag's token may be the prefix of another marker.
            Ok(Some(_)) if !THINK_TOKENS.has(i) => return Match::Found(i),
            Ok(Some(_)) => found = longer(found, i),
            Ok(None) => partial = true,
            Err(()) => partial |= TABLE[i].text.as_bytes().starts_with(rest),
        }
    }
    match (partial, found) {
        (true, _) => Match::Partial,
        (false, Some(i)) => Match::Found(i),
        (false, None) => Match::None,
    }
}

/// The marker of `mask` that starts `rest` where no more bytes will come (the end of the
/// text): the longest complete one.
pub(crate) fn match_at_end(rest: &[u8], mask: Mask) -> Option<usize> {
    let mut found = None;
    for i in candidates(rest, mask).entries() {
        if let Ok(Some(_)) = len_at(rest, i) {
            found = longer(found, i);
        }
    }
    found
}

/// The length of `TABLE[entry]` found at the start of `rest`, its suffix included.
pub(crate) fn found_len(rest: &[u8], entry: usize) -> usize {
    match len_at(rest, entry) {
        Ok(Some(len)) => len,
        _ => unreachable!("the marker was found here"),
    }
}

/// The length of `TABLE[i]` at the start of `rest` ([`think::tag_len`]).
#[inline(always)]
fn len_at(rest: &[u8], i: usize) -> Result<Option<usize>, ()> {
    let text = TABLE[i].text;
    if SUFFIXED.has(i) {
        think::tag_len(rest, text)
    } else if rest.starts_with(text.as_bytes()) {
        Ok(Some(text.len()))
    } else {
        Err(())
    }
}

/// The think tags that take a suffix (`<think:`).
const SUFFIXED: Mask = {
    let table = build();
    let mut mask = Mask::NONE;
    let mut i = 0;
    while i < COUNT {
        if think::takes_suffix(table[i].text) {
            mask = mask.with(i);
        }
        i += 1;
    }
    mask
};

/// `TABLE[i]`, or the entry found before when that one is longer.
fn longer(found: Option<usize>, i: usize) -> Option<usize> {
    match found {
        Some(f) if TABLE[f].text.len() > TABLE[i].text.len() => Some(f),
        _ => Some(i),
    }
}

/// The entries of `mask` whose first bytes (up to three) `rest` begins with.
#[inline(always)]
fn candidates(rest: &[u8], mask: Mask) -> Mask {
    let Some(&first) = rest.first() else {
        return Mask::NONE;
    };
    let mut candidates = BY_FIRST[first as usize] & mask;
    if let Some(&second) = rest.get(1) {
        candidates &= BY_SECOND[second as usize];
    }
    if let Some(&third) = rest.get(2) {
        candidates &= BY_THIRD[third as usize];
    }
    candidates
}

/// Whether a marker of `mask` may start `rest` (at least two bytes long), by its first two
/// bytes: the check a scan makes in line, before [`match_at`], at each `<` and `[` of prose.
#[inline(always)]
pub(crate) fn may_start(rest: &[u8], mask: Mask) -> bool {
    !(BY_FIRST[rest[0] as usize] & BY_SECOND[rest[1] as usize] & mask).is_empty()
}

/// The longest marker, in bytes: the most text mode ever holds back.
pub(crate) const LONGEST: usize = longest();

const fn longest() -> usize {
    let table = build();
    let mut longest = 0;
    let mut i = 0;
    while i < COUNT {
        let mut len = table[i].text.len();
        if think::takes_suffix(table[i].text) {
            len += think::SUFFIX_MAX + 1;
        }
        if len > longest {
            longest = len;
        }
        i += 1;
    }
    longest
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Format;

    #[test]
    fn every_group_marker_is_in_the_table() {
        for &group in Group::ALL {
            for (index, start) in group.starts().iter().enumerate() {
                let found = TABLE.iter().position(|e| e.text == start.text);
                let entry = found.map(|i| TABLE[i]).expect(start.text);
                assert_eq!(entry.role, Role::Start { group, index });
                assert!(starts_of(start.formats).has(found.unwrap()));
            }
            for end in group.prose_ends() {
                assert!(TABLE.iter().any(|e| e.text == end.text), "{}", end.text);
            }
        }
        // Every format is opened by some marker or may start a message bare or after a marker
        // the prompt wrote.
        for &format in Format::ALL {
            let group = format.group();
            let marked = group.starts().iter().any(|s| s.formats.contains(format));
            let bare = group.bare().is_some_and(|b| b.formats.contains(format));
            let implied = group.implied_start();
            assert!(marked || bare || implied, "{format:?} can never be read");
        }
    }

    #[test]
    fn markers_are_prefix_free_and_start_with_a_stop_byte() {
        for (i, a) in TABLE.iter().enumerate() {
            // Nothing past the first byte can begin a marker: a stop inside a marker never
            // hides one. (A message-start marker is matched at the message's first byte only.)
            let anchored = ANCHORED.has(i);
            assert!(anchored || !LINE_ANCHORED.has(i), "{}", a.text);
            // A marker with a lead is found at its first `<`, looking back over the lead, and
            // matched whole from there before the markers that may begin inside it.
            let lead = lead_len(a.text);
            assert_eq!(
                anchored,
                !a.text.starts_with(['<', '[']) && lead == 0,
                "{}",
                a.text
            );
            assert!(
                anchored || lead > 0 || !a.text[1..].contains(['<', '[']),
                "{}",
                a.text
            );
            assert!(
                !a.text[..lead].contains(['<', '[', '`', '\n']),
                "{}",
                a.text
            );
            for (j, b) in TABLE.iter().enumerate() {
                // The one exception: a think tag's token (`<|channel>` of `<|channel>thought`).
                let token_of_tag = THINK_TOKENS.has(i) && THINK_OPEN.has(j);
                assert!(
                    i == j || !b.text.starts_with(a.text) || token_of_tag,
                    "{} prefixes {}",
                    a.text,
                    b.text
                );
            }
        }
    }

    #[test]
    fn match_at_tells_markers_apart() {
        let all = Mask::ALL;
        let found = |text: &str| match match_at(text.as_bytes(), all) {
            Match::Found(i) => Some(TABLE[i].text),
            _ => None,
        };
        for entry in &TABLE {
            let suffix = if think::takes_suffix(entry.text) {
                "ab>"
            } else {
                ""
            };
            assert_eq!(
                found(&format!("{}{suffix}xyz", entry.text)),
                Some(entry.text)
            );
            let cut = &entry.text[..entry.text.len() - 1];
            assert_eq!(match_at(cut.as_bytes(), all), Match::Partial, "{cut}");
        }
        assert_eq!(match_at(b"<tool_cake>", all), Match::None);
        // A think tag's token, and the tag it begins: the longer wins; cut short, more may come.
        let at = |text: &str| match match_at(text.as_bytes(), THINK_OPEN | THINK_STRAY) {
            Match::Found(i) => Some(TABLE[i].text),
            Match::Partial => Some("partial"),
            Match::None => None,
        };
        assert_eq!(at("<|channel>thought\n"), Some("<|channel>thought"));
        assert_eq!(at("<|channel><|channel>"), Some("<|channel>"));
        assert_eq!(at("<|channel>x"), Some("<|channel>"));
        assert_eq!(at("<|channel>tho"), Some("partial"));
        assert_eq!(at("<channel|>"), Some("<channel|>"));
        // A suffixed tag is whole at its `>`; a bad suffix is no tag.
        assert_eq!(at("<think:6124c78e>a"), Some("<think:"));
        assert_eq!(at("</think:6124c78e"), Some("partial"));
        assert_eq!(at("<think:6124 "), None);
        assert_eq!(at("<think:>"), None);
        let long = format!("<think:{}>", "a".repeat(think::SUFFIX_MAX + 1));
        assert_eq!(at(&long), None);
        assert_eq!(found_len(b"</think:ab>x", 3), "</think:ab>".len());
        assert_eq!(TABLE[3].text, "</think:");
        let end = |text: &str| match_at_end(text.as_bytes(), THINK_STRAY).map(|i| TABLE[i].text);
        assert_eq!(end("<|channel>tho"), Some("<|channel>"));
        assert_eq!(end("<|chan"), None);
        assert_eq!(match_at(b"<tool_call>", THINK_OPEN), Match::None);
        assert!(LONGEST >= "<|tool_calls_section_begin|>".len());
    }

    #[test]
    fn a_marker_with_a_lead_is_found_at_its_first_angle_bracket() {
        let m3 = "]<]minimax[>[<tool_call>";
        assert_eq!(lead_len(m3), 1);
        assert!(!is_anchored(m3) && is_anchored("functools[") && lead_len("<tool_call>") == 0);
        let text = format!("a ]]{m3}x");
        let bytes = text.as_bytes();
        let stop = text.find("<]").unwrap();
        // The lead is looked back over only within the text not yet released (`floor`).
        assert_eq!(lead_start(bytes, stop, 0), stop - 1);
        assert_eq!(lead_start(bytes, stop, stop), stop);
        let (at, found) = match_from(bytes, stop - 1, stop, Mask::ALL);
        assert_eq!(at, stop - 1);
        assert!(matches!(found, Match::Found(i) if TABLE[i].text == m3));
        // Without its format, the markers at the stop itself are tried (none here).
        let (at, found) = match_from(bytes, stop - 1, stop, Mask::ALL & !LEADS);
        assert_eq!((at, found), (stop, Match::None));
        // `]<tool_call>`: the `]` leads nothing, the `<tool_call>` is found.
        let (at, found) = match_from(b"]<tool_call>", 0, 1, Mask::ALL);
        assert!(at == 1 && matches!(found, Match::Found(i) if TABLE[i].text == "<tool_call>"));
        // A chunk ending with the lead holds it; one ending otherwise holds nothing.
        assert_eq!(lead_tail(b"text ]", Mask::ALL), 1);
        assert_eq!(lead_tail(b"text ]", Mask::ALL & !LEADS), 0);
        assert_eq!(lead_tail(b"text", Mask::ALL), 0);
    }
}
