//! The MiniCPM 5 states of [`TagCall`]: after `<function name="NAME">`, JSON arguments or
//! `<param>` elements, whose function ends at the first of its markers outside a CDATA section
//! (a value's CDATA may quote `</function>` or a whole call, as the decoder reads it:
//! `params::call`). Each search resumes where a cut `<![CDATA[` or `]]>` may start.

use super::super::super::cursor::failed_end;
use super::super::super::grammar::Verdict;
use super::super::super::machine::ws;
use super::super::params::{BODY_OPENS, CDATA};
use super::super::state::{ArgsClose, State};
use super::TagCall;
use crate::scan::find::find_short;

impl TagCall {
    /// Reads on in `State::FBody` or `State::PBody`: `Some` when the read stops with that
    /// verdict, `None` when it goes on in the new state.
    pub(super) fn read_params(&mut self, b: &[u8]) -> Option<Verdict> {
        match self.state {
            State::FBody(p) => {
                let q = ws(b, p);
                let rest = &b[q..];
                let cut = |tag: &&str| rest.len() < tag.len() && tag.as_bytes().starts_with(rest);
                if rest.is_empty() || BODY_OPENS.iter().any(cut) {
                    self.state = State::FBody(q);
                    return Some(Verdict::More);
                }
                self.state = match BODY_OPENS.iter().any(|tag| rest.starts_with(tag.as_bytes())) {
                    true => State::PBody {
                        from: q,
                        cdata_from: q,
                        cdata: false,
                    },
                    false => State::ArgsOpen(q, ArgsClose::Function),
                };
            }
            State::PBody {
                from,
                cdata_from,
                cdata: true,
            } => match find_short(&b[cdata_from..], CDATA.1.as_bytes()) {
                Some(i) => {
                    let after = cdata_from + i + CDATA.1.len();
                    self.state = State::PBody {
                        from: after,
                        cdata_from: after,
                        cdata: false,
                    };
                }
                None => {
                    let cdata_from = cdata_from.max((b.len() + 1).saturating_sub(CDATA.1.len()));
                    self.state = State::PBody { from, cdata_from, cdata: true };
                    return Some(Verdict::More);
                }
            },
            State::PBody { from, cdata_from, .. } => {
                let close = self.close.find(b, from);
                let open = find_short(&b[cdata_from..], CDATA.0.as_bytes()).map(|i| cdata_from + i);
                match (open, close) {
                    (Some(open), close) if close.is_none_or(|marker| open < marker.start) => {
                        let inner = open + CDATA.0.len();
                        self.state = State::PBody {
                            from: inner,
                            cdata_from: inner,
                            cdata: true,
                        };
                    }
                    (_, found @ Some(_)) => return Some(Verdict::End(failed_end(found, 0))),
                    (_, None) => {
                        let cdata_from = cdata_from.max((b.len() + 1).saturating_sub(CDATA.0.len()));
                        self.state = State::PBody { from, cdata_from, cdata: false };
                        return Some(Verdict::More);
                    }
                }
            }
            _ => unreachable!("called in a MiniCPM 5 state"),
        }
        None
    }
}
