//! The stream machine of a Solar Open 2 call: its name (announced when its line ends), then
//! where the call ends; the values are typed when it does.

use super::super::cursor::Seek;
use super::super::grammar::{Machine, Verdict};
use super::super::machine::{close_last, named};
use super::CALL_ENDS;
use crate::scan::call_scan::CallRecord;
use crate::scan::find::find_either;

#[derive(Clone, Copy, Debug)]
enum State {
    /// The name, from here to the line's end (or the first token).
    Name(usize),
    /// The call's end is looked for from here.
    Body(usize),
}

pub(crate) struct SolarCall {
    state: State,
    ends: Seek,
    records: Vec<CallRecord>,
}

impl SolarCall {
    pub fn new(at: usize) -> Self {
        Self {
            state: State::Name(at),
            ends: Seek::new(&CALL_ENDS),
            records: Vec::new(),
        }
    }
}

impl Machine for SolarCall {
    fn advance(&mut self, buf: &str) -> Verdict {
        let b = buf.as_bytes();
        loop {
            match self.state {
                State::Name(start) => {
                    let Some(len) = find_either(b'\n', b'<', &b[start..]) else {
                        return Verdict::More;
                    };
                    // The name is its line: one a token cuts short is no name.
                    let name = buf[start..start + len].trim();
                    let whole = b[start + len] == b'\n' && !name.contains(char::is_whitespace);
                    let name = if whole { name } else { "" };
                    self.records.push(named(name, None, true, 0));
                    self.state = State::Body(start + len);
                }
                State::Body(from) => {
                    let Some(found) = self.ends.find(b, from) else {
                        return Verdict::More;
                    };
                    close_last(&mut self.records);
                    // The next call's start is not this call's markup.
                    let end = if found.pattern == 0 { found.end } else { found.start };
                    return Verdict::End(end);
                }
            }
        }
    }

    fn records(&self) -> &[CallRecord] {
        &self.records
    }
}
