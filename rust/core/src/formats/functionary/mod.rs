//! `functionary_v3_2` (MeetKai Functionary v3.2): the turn is a run of messages, each
//! `>>>RECIPIENT\n` and its body. `>>>f\n{…}` is a call of `f` with JSON arguments,
//! `>>>all\n…` content (to the next `>>>`), and `>>>python\n…` raw code for the `python` tool
//! (`{"code": …}`, to the end of the text). The template writes the messages back to back:
//! `Hi.>>>f\n{"a": 1}>>>g\n{}`.
//!
//! `>>>` opens a message at the start of the text or of a line ([`Grammar::AT_LINES`]), inside
//! an `all` message anywhere (it ends that message), and right after a call's arguments; in
//! other prose it is text (`>>> print(x)`, a quote, is not a header either). The chat template
//! writes the first `>>>` itself, at the end of the generation prompt, so the model's text
//! starts after it: a message that starts with a header (`f\n{`, `all\n`, `python\n`) is read
//! as if `>>>` preceded it ([`Grammar::IMPLIED_START`]), where the caller names the format
//! ([`Grammar::IMPLIED_ONLY_NAMED`]): under `"auto"`, `json\n{…}` or `python\n…` at a
//! message's start is prose, and only a written `>>>` opens a message.

mod decode;
mod machine;

use std::ops::Range;

use super::cx::Cx;
use super::grammar::{Grammar, Open, Start};
use crate::json::{JsonBuilder, JsonView};
use crate::protocol::{Format, FormatSet};
use crate::scan::find::Needle;

const MARKER: &str = ">>>";
static MARKER_NEEDLE: Needle = Needle::new(MARKER);
/// The recipient of a content message.
const ALL: &str = "all";
/// The code interpreter's name: its body may be raw code instead of JSON.
const PYTHON: &str = super::cx::CODE_TOOL;
/// The longest recipient read as a name (a longer run of name bytes is prose): a message start
/// is held at most this long while it may be a header.
const NAME_MAX: usize = 64;

/// `>>>`: it opens a message, and ends an `all` message.
const HEADER: Start = Start {
    text: MARKER,
    formats: FormatSet::only(Format::FunctionaryV32),
};

pub(crate) struct Spec;

impl Grammar for Spec {
    const STARTS: &'static [Start] = &[HEADER];
    const AT_LINES: bool = true;
    const IMPLIED_START: bool = true;
    const IMPLIED_ONLY_NAMED: bool = true;
    const PROSE_ENDS: &'static [Start] = &[HEADER];
    const CONTROL: &'static [&'static str] = &["<|eot_id|>", "<|eom_id|>"];

    type Machine = machine::FunctionaryCall;

    fn claims_message(message: &str) -> bool {
        !matches!(header(message.as_bytes(), 0, true), Header::Prose)
    }

    fn open(_start: Option<usize>, at: usize, open: Open) -> Self::Machine {
        machine::FunctionaryCall::new(at, open)
    }

    fn decode<B>(cx: &mut Cx<'_, '_, B>, range: Range<usize>) -> Result<(), B::Error>
    where
        B: JsonBuilder,
        B::Value: JsonView,
    {
        decode::parse_region(cx, range)
    }
}

/// What follows a `>>>`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Header {
    /// More bytes may tell.
    Undecided,
    /// Not a message header: the `>>>` is prose.
    Prose,
    /// `all\n`: content starts here.
    Content(usize),
    /// `python\n` and code that is not JSON, starting here.
    Code(usize),
    /// `NAME\n` (the name's range) and JSON arguments starting at `args`.
    Call { name: Range<usize>, args: usize },
}

/// The header after a `>>>` that ends at `at` in `b`; `complete`: `b` is the whole text (else
/// [`Header::Undecided`] while more bytes may tell).
pub(crate) fn header(b: &[u8], at: usize, complete: bool) -> Header {
    let more = if complete {
        Header::Prose
    } else {
        Header::Undecided
    };
    let name_len = b[at..]
        .iter()
        .take(NAME_MAX + 1)
        .take_while(|&&c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-'))
        .count();
    let name = at..at + name_len;
    // The name line ends at `\n`, `\r\n` or a lone `\r`; a `\r` that ends the bytes so far
    // may be the first of `\r\n`.
    let body = match (b.get(name.end), b.get(name.end + 1)) {
        (None, _) => return more,
        (Some(b'\r'), None) if !complete => return more,
        (Some(b'\r'), Some(b'\n')) => name.end + 2,
        (Some(b'\n' | b'\r'), _) => name.end + 1,
        _ => return Header::Prose,
    };
    if name_len == 0 || name_len > NAME_MAX {
        return Header::Prose;
    }
    if &b[name.clone()] == ALL.as_bytes() {
        return Header::Content(body);
    }
    // The arguments start right after the newline, as the template writes them.
    match b.get(body) {
        None => more,
        Some(b'{') => Header::Call { name, args: body },
        Some(_) if &b[name] == PYTHON.as_bytes() => Header::Code(body),
        Some(_) => Header::Prose,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers() {
        let read = |text: &str, complete| header(text.as_bytes(), 0, complete);
        assert_eq!(read("f\n{\"a\": 1}", false), Header::Call { name: 0..1, args: 2 });
        assert_eq!(read("get_x-y\r\n{}", false), Header::Call { name: 0..7, args: 9 });
        assert_eq!(read("f\r{}", false), Header::Call { name: 0..1, args: 2 });
        assert_eq!(read("f\r", false), Header::Undecided);
        assert_eq!(read("all\nHi", false), Header::Content(4));
        assert_eq!(read("python\nprint(1)", false), Header::Code(7));
        // `python` with JSON arguments is an ordinary call.
        assert_eq!(read("python\n{}", false), Header::Call { name: 0..6, args: 7 });
        for prose in [" print(1)", "f.x\n{}", "f x\n{}", "\n{}", "f\nnot json", "f(\n{}", "f\n {}"] {
            assert_eq!(read(prose, false), Header::Prose, "{prose:?}");
        }
        // Cut short: undecided in a stream, prose when the text has ended.
        for cut in ["", "fun", "f\n", "python\n"] {
            assert_eq!(read(cut, false), Header::Undecided, "{cut:?}");
            assert_eq!(read(cut, true), Header::Prose, "{cut:?}");
        }
        let long = format!("{}\n{{}}", "n".repeat(NAME_MAX + 1));
        assert_eq!(read(&long, false), Header::Prose);
    }
}
