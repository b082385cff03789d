//! The glm45 states of [`TagCall`]: a name, then `<arg_key>`/`<arg_value>` pairs (or JSON
//! arguments), a value's own closing tag and the calls a value quotes whole.

use super::super::super::grammar::Verdict;
use super::super::super::machine::{arguments_at, starts, starts_any, ws};
use super::super::state::{ArgsClose, State};
use super::super::tags::{closes_value, CLOSE, TOOL_SEP};
use super::TagCall;

impl TagCall {
    /// Reads on in a glm45 state (`State::GFirst` to `State::GQuotedCall`): `Some` when the
    /// read stops with that verdict, `None` when it goes on in the new state.
    pub(super) fn read_pairs(&mut self, b: &[u8]) -> Option<Verdict> {
        match self.state {
            State::GFirst(p) => {
                let q = ws(b, p);
                match b.get(q) {
                    None => {
                        self.state = State::GFirst(q);
                        return Some(Verdict::More);
                    }
                    Some(b'{') => {
                        self.args = Some(arguments_at(&mut self.records, q, self.open.json));
                        self.state = State::Args(ArgsClose::ToolCall);
                    }
                    Some(_) => self.state = State::GBetween(q),
                }
            }
            State::GBetween(p) => {
                let q = ws(b, p);
                let close = self.wrap.map_or(CLOSE, |wrap| wrap.close());
                let key = self.pairs().key;
                match starts_any(b, q, &[key, close, TOOL_SEP]) {
                    Err(()) => {
                        self.state = State::GBetween(q);
                        return Some(Verdict::More);
                    }
                    Ok(Some(0)) => self.state = State::GKey(q + key.len()),
                    Ok(Some(1)) => return Some(self.end(q + close.len())),
                    // HY v3's separator after the name: either form of arguments follows.
                    Ok(Some(_)) => self.state = State::GFirst(q + TOOL_SEP.len()),
                    Ok(None) => {
                        if let Some(verdict) = self.reopened(b, q, self.ends(), State::GBetween) {
                            return Some(verdict);
                        }
                    }
                }
            }
            State::GKey(from) => match self.key_close.find(b, from) {
                Some(found) => self.state = State::GValueTag(found.end),
                None => return Some(Verdict::More),
            },
            State::GValueTag(p) => {
                let q = ws(b, p);
                let value = self.pairs().value;
                match starts(b, q, value) {
                    None => {
                        self.state = State::GValueTag(q);
                        return Some(Verdict::More);
                    }
                    Some(true) => {
                        self.state = State::GValue {
                            from: q + value.len(),
                            quoted: None,
                            opens_call: true,
                        }
                    }
                    Some(false) => self.state = State::SeekClose(q),
                }
            }
            State::GValue {
                from,
                quoted,
                opens_call,
            } => {
                let found = self.value_close.find(b, from);
                // A wrapper's opening tag before the value's first close quotes a call
                // (`glm45::after_quoted_calls`); its closing tag there rules that out.
                if opens_call {
                    let end = self.quoted_calls.find(b, from);
                    match end.filter(|e| found.is_none_or(|f| e.start < f.start)) {
                        Some(end) => {
                            self.state = match end.pattern {
                                0 => State::GValue {
                                    from,
                                    quoted,
                                    opens_call: false,
                                },
                                _ => State::GQuotedCall {
                                    from: end.end,
                                    depth: 1,
                                },
                            };
                            return None;
                        }
                        None if found.is_none() => return Some(Verdict::More),
                        None => {}
                    }
                }
                // After a quoted tag, the call's end first: the first tag closed the value.
                if let Some(first) = quoted {
                    let call_end = self.close.find(b, from);
                    if call_end.is_some_and(|e| found.is_none_or(|f| e.start < f.start)) {
                        self.state = State::GBetween(first + self.pairs().value_close.len());
                        return None;
                    }
                }
                let Some(found) = found else {
                    return Some(Verdict::More);
                };
                match closes_value(b, found.end, self.ends(), self.pairs().key) {
                    None => return Some(Verdict::More),
                    Some(true) => self.state = State::GBetween(found.end),
                    Some(false) => {
                        self.state = State::GValue {
                            from: found.end,
                            quoted: quoted.or(Some(found.start)),
                            opens_call: false,
                        }
                    }
                }
            }
            State::GQuotedCall { from, depth } => {
                let Some(end) = self.quoted_calls.find(b, from) else {
                    return Some(Verdict::More);
                };
                let depth = if end.pattern == 0 { depth - 1 } else { depth + 1 };
                self.state = match depth {
                    0 => State::GValue {
                        from: end.end,
                        quoted: None,
                        opens_call: true,
                    },
                    depth => State::GQuotedCall {
                        from: end.end,
                        depth,
                    },
                };
            }
            _ => unreachable!("called in a glm45 state"),
        }
        None
    }
}
