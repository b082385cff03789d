//! The stream machine of an HY v4 block: its suffix, then each call's name (announced when
//! written) and the call's closing tag; the values are typed when the call ends.

use super::super::grammar::{Machine, Verdict};
use super::super::machine::{close_last, named, starts_any, ws};
use super::{find_tag, Tags};
use crate::scan::call_scan::CallRecord;
use crate::scan::find::find_byte;

#[derive(Clone, Copy, Debug)]
enum State {
    /// The suffix of the opening tag, from here.
    Suffix(usize),
    /// Between calls.
    Between(usize),
    /// A call's name, from here.
    Name(usize),
    /// Inside a call: its closing tag is looked for from here.
    Call(usize),
    /// Not a call: the block runs to its closing tag, looked for from here.
    Broken(usize),
}

pub(crate) struct Block {
    state: State,
    tags: Option<Tags>,
    /// Calls with no block around them (K2 Horizon's bare `<ifm|tool_call>`): the region ends
    /// after the last call.
    lone: bool,
    records: Vec<CallRecord>,
}

impl Block {
    /// An HY v4 block whose `<tool_calls:` (or, `lone`, a Hy3 call whose `<tool_call:`) ends
    /// at `at`: its suffix is read first.
    pub fn new(at: usize, lone: bool) -> Self {
        Self {
            state: State::Suffix(at),
            tags: None,
            lone,
            records: Vec::new(),
        }
    }

    /// A block of `tags` whose opening tag ends at `at`, or (`lone`) a call's.
    pub fn with_tags(tags: Tags, at: usize, lone: bool) -> Self {
        Self {
            state: if lone { State::Name(at) } else { State::Between(at) },
            tags: Some(tags),
            lone,
            records: Vec::new(),
        }
    }
}

/// Where a search for `tag` that found nothing in `b` resumes.
fn resume(b: &[u8], tag: &str, from: usize) -> usize {
    from.max((b.len() + 1).saturating_sub(tag.len()))
}

impl Machine for Block {
    fn advance(&mut self, buf: &str) -> Verdict {
        let b = buf.as_bytes();
        loop {
            let Some(t) = &self.tags else {
                let State::Suffix(at) = self.state else {
                    unreachable!("the tags are read first")
                };
                match Tags::read(b, at, self.lone) {
                    // Not a suffix: the marker alone is the region (prose).
                    Err(()) => return Verdict::End(at),
                    Ok(None) => return Verdict::More,
                    Ok(Some((tags, body))) => {
                        self.tags = Some(tags);
                        self.state = match self.lone {
                            true => State::Name(body),
                            false => State::Between(body),
                        };
                    }
                }
                continue;
            };
            self.state = match self.state {
                State::Suffix(_) => unreachable!("the suffix is read once"),
                State::Between(p) => {
                    let q = ws(b, p);
                    match starts_any(b, q, &[&t.close_all, &t.call]) {
                        Ok(Some(1)) => State::Name(q + t.call.len()),
                        // Lone calls end with the last one.
                        Ok(_) if self.lone && q < b.len() => return Verdict::End(p),
                        Ok(Some(_)) => return Verdict::End(q + t.close_all.len()),
                        Ok(None) if q < b.len() => State::Broken(q),
                        Err(()) | Ok(None) => {
                            self.state = State::Between(q);
                            return Verdict::More;
                        }
                    }
                }
                State::Name(start) => {
                    let q = ws(b, start);
                    if t.json_bodies && matches!(b.get(q), Some(b'{' | b'[')) {
                        // A JSON call object: its name is known when the call ends.
                        let item = self.records.len();
                        self.records.push(named("", None, true, item));
                        self.state = State::Call(q);
                        continue;
                    }
                    let Some(len) = find_byte(b'<', &b[start..]) else {
                        return Verdict::More;
                    };
                    let name = buf[start..start + len].trim();
                    let name = if name.contains(char::is_whitespace) { "" } else { name };
                    let item = self.records.len();
                    self.records.push(named(name, None, true, item));
                    State::Call(start + len)
                }
                State::Call(from) => match find_tag(b, &t.call_close, from) {
                    Some(at) => {
                        close_last(&mut self.records);
                        State::Between(at + t.call_close.len())
                    }
                    None => {
                        self.state = State::Call(resume(b, &t.call_close, from));
                        return Verdict::More;
                    }
                },
                State::Broken(from) => match find_tag(b, &t.close_all, from) {
                    Some(at) => return Verdict::End(at + t.close_all.len()),
                    None => {
                        self.state = State::Broken(resume(b, &t.close_all, from));
                        return Verdict::More;
                    }
                },
            };
        }
    }

    fn records(&self) -> &[CallRecord] {
        &self.records
    }
}
