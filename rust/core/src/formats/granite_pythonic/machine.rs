//! The stream machine of `granite_pythonic`: follows each line's call through its strings and
//! brackets, and keeps it once the rest of its line is blank. A call is announced only then:
//! until its line ends, `name(…)` may still be prose (`show(x=1) shows x`).

use super::super::grammar::{Machine, Verdict};
use super::super::machine::named;
use crate::scan::call_scan::CallRecord;

/// The longest name read (a longer run of name bytes is prose): a message start is held at
/// most this long while it may be a call.
const NAME_MAX: usize = 128;

#[derive(Clone, Copy, Debug)]
enum State {
    /// Before a line's call: blank space, then its name.
    Line,
    /// In a name that began here.
    Name(usize),
    /// Where a keyword argument may begin (after the call's `(` or a `,` between arguments):
    /// blank space, then its name, `**` or the call's `)`.
    Key,
    /// In an argument's name: then `=`.
    KeyName,
    /// After an argument's name and blank space: `=` must follow.
    Equals,
    /// In an argument's value.
    Args,
    /// After the call's `)`, which ends here: only blank space may follow on its line.
    After(usize),
}

pub(crate) struct GraniteCalls {
    state: State,
    pos: usize,
    /// Brackets open in the arguments (the call's `(` included).
    depth: usize,
    quote: Option<u8>,
    escaped: bool,
    /// Where the last call line's `)` ends (0: no call line yet).
    end: usize,
    records: Vec<CallRecord>,
}

/// Where the call lines that `text` starts with end (0: it starts with none), the end of the
/// text ending the last line.
pub(crate) fn calls_end(text: &str) -> usize {
    let mut machine = GraniteCalls::new(0);
    machine.scan(text, true).unwrap_or(0)
}

/// A byte that may begin a name (a non-ASCII letter's bytes too: the decoder reads Python's
/// identifiers).
fn is_name_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c >= 0x80
}

fn is_name_byte(c: u8) -> bool {
    is_name_start(c) || c.is_ascii_digit()
}

impl GraniteCalls {
    pub fn new(at: usize) -> Self {
        Self {
            state: State::Line,
            pos: at,
            depth: 0,
            quote: None,
            escaped: false,
            end: 0,
            records: Vec::new(),
        }
    }

    /// Reads on in `buf` (`complete`: the text ends with it). `Some`: the call lines end there.
    fn scan(&mut self, buf: &str, complete: bool) -> Option<usize> {
        let b = buf.as_bytes();
        while self.pos < b.len() {
            let i = self.pos;
            let c = b[i];
            self.pos += 1;
            match self.state {
                State::Line => match c {
                    b' ' | b'\t' | b'\n' | b'\r' => {}
                    _ if is_name_start(c) => self.state = State::Name(i),
                    _ => return Some(self.end),
                },
                State::Name(start) => match c {
                    b'(' => {
                        let mut record = named(&buf[start..i], None, true, self.records.len());
                        // Announced once its line is whole.
                        record.ready = None;
                        self.records.push(record);
                        self.depth = 1;
                        self.state = State::Key;
                    }
                    _ if is_name_byte(c) && i - start < NAME_MAX => {}
                    _ => return Some(self.end),
                },
                // Granite writes keyword arguments only: `len(x)` or `print("hi")` on a line
                // of its own is prose, never a call.
                State::Key => match c {
                    b' ' | b'\t' | b'\n' | b'\r' => {}
                    b')' => self.state = State::After(i + 1),
                    b'*' if b.get(i + 1) == Some(&b'*') => {
                        self.pos += 1;
                        self.state = State::Args;
                    }
                    b'*' if i + 1 == b.len() => {
                        self.pos = i;
                        break;
                    }
                    _ if is_name_start(c) => self.state = State::KeyName,
                    _ => return Some(self.not_a_call()),
                },
                State::KeyName | State::Equals => match c {
                    b'=' if b.get(i + 1) != Some(&b'=') => {
                        if i + 1 == b.len() {
                            // `==` is no keyword: the next byte tells.
                            self.pos = i;
                            break;
                        }
                        self.state = State::Args;
                    }
                    b' ' | b'\t' => self.state = State::Equals,
                    _ if matches!(self.state, State::KeyName) && is_name_byte(c) => {}
                    _ => return Some(self.not_a_call()),
                },
                State::Args => self.args(b, i),
                State::After(close) => match c {
                    b' ' | b'\t' => {}
                    // A control token or another format's marker ends the calls too.
                    b'<' => {
                        self.keep(close);
                        return Some(close);
                    }
                    b'\n' | b'\r' => {
                        self.keep(close);
                        self.state = State::Line;
                    }
                    _ => return Some(self.not_a_call()),
                },
            }
        }
        if !complete {
            return None;
        }
        match self.state {
            State::After(close) => self.keep(close),
            State::Line | State::Name(_) => {}
            _ => {
                self.records.pop();
            }
        }
        Some(self.end)
    }

    /// The line being read holds no call: the calls end with the last line.
    fn not_a_call(&mut self) -> usize {
        self.records.pop();
        self.end
    }

    /// The byte at `i` of the arguments (`pos` is past it).
    fn args(&mut self, b: &[u8], i: usize) {
        let c = b[i];
        if let Some(quote) = self.quote {
            if self.escaped {
                self.escaped = false;
                return;
            }
            match c {
                b'\\' => self.escaped = true,
                _ if c == quote => self.quote = None,
                _ => {
                    // The rest of the string at once.
                    let skip = memchr::memchr2(quote, b'\\', &b[i..]).unwrap_or(b.len() - i);
                    self.pos = i + skip;
                }
            }
            return;
        }
        match c {
            b'\'' | b'"' => self.quote = Some(c),
            b'(' | b'[' | b'{' => self.depth += 1,
            b')' | b']' | b'}' => {
                self.depth -= 1;
                if self.depth == 0 {
                    self.state = State::After(i + 1);
                }
            }
            b',' if self.depth == 1 => self.state = State::Key,
            _ => {}
        }
    }

    /// The call whose `)` ends at `close` holds its line: it is kept and announced.
    fn keep(&mut self, close: usize) {
        if let Some(record) = self.records.last_mut() {
            record.ready = Some(None);
            record.closed = true;
        }
        self.end = close;
    }
}

impl Machine for GraniteCalls {
    fn advance(&mut self, buf: &str) -> Verdict {
        match self.scan(buf, false) {
            None => Verdict::More,
            Some(end) => Verdict::End(end),
        }
    }

    fn records(&self) -> &[CallRecord] {
        &self.records
    }

    fn undecided(&self) -> bool {
        self.end == 0 && !matches!(self.state, State::After(_))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn call_lines_end_where_a_line_is_not_a_call() {
        for (text, end) in [
            ("f(a=1)", 6),
            ("f(a=1)  \n", 6),
            ("f(a=1)\ng()\nDone.", 10),
            ("f(a=1)\n\n  g()", 13),
            ("f(s='x)\ny', t=[1, (2)])\nok", 23),
            ("f(a=1)<|end_of_text|>", 6),
            // Plain names, as vLLM reads them: `again.` at a message start is prose at once.
            ("mod.f()", 0),
            ("again.", 0),
            // Not call lines: prose after the `)`, no `(`, a cut call.
            ("print(x) prints x", 0),
            ("f(a=1)\ng() and more", 6),
            ("Hello world", 0),
            ("f(a=1", 0),
            ("f(a=1)\ng(b=", 6),
            ("(a=1)", 0),
            ("1f()", 0),
            // Keyword arguments only.
            ("len(obj)\nIt counts.", 0),
            ("print(\"hi\")", 0),
            ("f(a=1, x)", 0),
            ("f(a == 1)", 0),
            ("f(a =1, **{'b': 2}, )", 21),
            ("año(año_x=1)", 14),
            ("f(\n  a=1,\n  b=2\n)\ng()", 21),
        ] {
            assert_eq!(calls_end(text), end, "{text:?}");
        }
        let long = format!("{}()", "n".repeat(NAME_MAX + 1));
        assert_eq!(calls_end(&long), 0);
    }

    #[test]
    fn a_call_is_announced_when_its_line_is_whole() {
        let mut machine = GraniteCalls::new(0);
        assert_eq!(machine.advance("f(a=1)"), Verdict::More);
        assert!(machine.records()[0].ready.is_none());
        assert!(!machine.undecided());
        assert_eq!(machine.advance("f(a=1)\n"), Verdict::More);
        assert_eq!(machine.records()[0].ready, Some(None));
        assert_eq!(machine.advance("f(a=1)\nNo"), Verdict::More);
        assert_eq!(machine.advance("f(a=1)\nNo more."), Verdict::End(6));
        let mut prose = GraniteCalls::new(0);
        assert_eq!(prose.advance("show(x=1) "), Verdict::More);
        assert!(prose.records()[0].ready.is_none());
        assert_eq!(prose.advance("show(x=1) is"), Verdict::End(0));
        assert!(prose.records().is_empty());
    }
}
