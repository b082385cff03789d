//! The stream machine of a CWM call: its name (announced once the label ends), then where the
//! call ends (`</tool>`); the input is read when it does.

use super::super::cursor::Seek;
use super::super::grammar::{Machine, Verdict};
use super::super::machine::{close_last, named};
use super::{label, CLOSES};
use crate::scan::call_scan::CallRecord;

#[derive(Clone, Copy, Debug)]
enum State {
    /// The label, from just after `<tool:`.
    Label(usize),
    /// The call's end is looked for from here.
    Input(usize),
}

pub(crate) struct CwmCall {
    state: State,
    close: Seek,
    records: Vec<CallRecord>,
}

impl CwmCall {
    pub fn new(at: usize) -> Self {
        Self {
            state: State::Label(at),
            close: Seek::new(&CLOSES),
            records: Vec::new(),
        }
    }
}

impl Machine for CwmCall {
    fn advance(&mut self, buf: &str) -> Verdict {
        let b = buf.as_bytes();
        loop {
            match self.state {
                State::Label(at) => {
                    // A `</tool>` before the label is whole closes a call with no input.
                    let Some(read) = label(b, at) else {
                        return match self.close.find(b, at) {
                            Some(found) => Verdict::End(found.end),
                            None => Verdict::More,
                        };
                    };
                    self.records.push(named(&buf[read.name], None, true, 0));
                    self.state = State::Input(read.input.min(b.len()));
                }
                State::Input(from) => {
                    let Some(found) = self.close.find(b, from) else {
                        return Verdict::More;
                    };
                    close_last(&mut self.records);
                    return Verdict::End(found.end);
                }
            }
        }
    }

    fn records(&self) -> &[CallRecord] {
        &self.records
    }
}
