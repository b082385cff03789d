//! The stream machine of an invoke block.

use super::super::cursor::{Marker, Seek};
use super::super::grammar::{Machine, Open, Verdict};
use super::super::machine::{close_last, named, starts, starts_any, ws, JsonValue, Scanned};
use super::quoted::{Depth, InValue, Quoted};
use super::{is_self_closing, Tags};
use crate::scan::call_scan::{CallRecord, CallScanner};
use crate::scan::find::{find_byte, find_short};

#[derive(Clone, Copy, Debug)]
enum State {
    /// Between invokes.
    Between(usize),
    /// An invoke tag whose attributes start at `.0`, read up to `.1`.
    InvokeTag(usize, usize),
    Body(usize),
    /// The tag of the element that wraps a JSON body ([`Tags::json_body`]), read up to here.
    JsonTag(usize),
    Json,
    AfterJson(usize),
    Params(usize),
    /// After a parameter value's closing tag: markup must follow, or the tag was the value's
    /// own text and the value goes on.
    AfterValue(usize),
    /// A parameter tag whose attributes start at `.0`, read up to `.1`.
    ParamTag(usize, usize),
    /// A parameter value that starts here.
    Value(usize),
    /// A closing tag in a value, of a shape whose closes may be left out ([`Tags::left_open`]):
    /// it ends the value where markup follows it.
    ValueTag(Marker),
    /// A broken invoke: its markup runs to its closing tag (or the wrapper's), from here.
    SeekInvokeEnd(usize),
    /// Not an invoke: its markup runs to the next invoke or past the block's closing tag,
    /// from `.0`; no invoke starts before `.1`.
    SeekBlockEnd(usize, usize),
}

pub(crate) struct InvokeBlock {
    tags: &'static Tags,
    open: Open,
    state: State,
    /// The wrapper this block opened with.
    block: usize,
    /// The wrapper's closing tag; `None` for a run of bare invokes.
    block_close: Option<Seek>,
    invoke_end: Seek,
    parameter_close: Seek,
    /// The search for [`Tags::quoted`]'s markers, and how deep in quoted markup the value
    /// being read is.
    quoted: Option<(&'static Quoted, Seek, Depth)>,
    json: Option<JsonValue>,
    records: Vec<CallRecord>,
    /// Invokes begun so far (a broken one is a failed call too).
    invokes: usize,
}

/// The first `>` at or after `scanned`: `Err` with the new resume point while none has come.
fn tag_end(b: &[u8], scanned: usize) -> Result<usize, usize> {
    find_byte(b'>', &b[scanned..])
        .map(|i| scanned + i)
        .ok_or(b.len())
}

impl InvokeBlock {
    /// A block opened by `tags.opens[block]`, whose text so far ends at `at`.
    pub fn new(tags: &'static Tags, block: usize, at: usize, open: Open) -> Self {
        // A run of bare invokes opened with its first invoke's tag, which is read as such.
        let start = match tags.close(block) {
            Some(_) => at,
            None => at - tags.invoke.len(),
        };
        Self {
            tags,
            open,
            state: State::Between(start),
            block,
            block_close: tags.closes.get(block).map(|close| Seek::new(close)),
            invoke_end: match tags.left_open {
                Some(left_open) => Seek::new(&left_open.broken_ends),
                None => Seek::new(&tags.recover[block]),
            },
            parameter_close: match tags.left_open {
                Some(left_open) => Seek::new(&left_open.value_ends),
                None => Seek::new(&tags.parameter_close),
            },
            quoted: tags.quoted.map(|quoted| {
                (
                    quoted,
                    Seek::dense(&quoted.markers, &quoted.searcher),
                    Depth::default(),
                )
            }),
            json: None,
            records: Vec::new(),
            invokes: 0,
        }
    }

    /// Whether the text at `q` is a token that stands only outside a block, which ends a block,
    /// call or value left open ([`Tags::left_open`]). `Err(())` while too short to tell.
    fn outside_token(&self, b: &[u8], q: usize) -> Result<bool, ()> {
        let Some(left_open) = self.tags.left_open else {
            return Ok(false);
        };
        starts_any(b, q, left_open.ends).map(|token| token.is_some())
    }

    /// [`LeftOpen::markup_follows`](super::LeftOpen::markup_follows) in the text so far.
    fn markup_follows(&self, b: &[u8], at: usize) -> Result<bool, ()> {
        let Some(left_open) = self.tags.left_open else {
            return Ok(true);
        };
        let at = match starts(b, at, left_open.sep) {
            None => return Err(()),
            Some(true) => at + left_open.sep.len(),
            Some(false) => at,
        };
        let q = ws(b, at);
        if q == b.len() {
            return Err(());
        }
        starts(b, q, left_open.tag).ok_or(())
    }

    /// Whether the text at `q` ends a block left open: such a token, or prose after a call.
    fn ends_block(&self, b: &[u8], q: usize) -> Result<bool, ()> {
        let prose = self.tags.left_open.is_some() && self.invokes > 0 && b[q] != b'<';
        Ok(prose || self.outside_token(b, q)?)
    }
}

impl Machine for InvokeBlock {
    fn advance(&mut self, buf: &str) -> Verdict {
        let b = buf.as_bytes();
        let t = self.tags;
        let close = t.close(self.block);
        loop {
            match self.state {
                State::Between(p) => {
                    let q = ws(b, p);
                    let Some(close) = close else {
                        // A run of bare invokes ends where anything else begins.
                        match starts(b, q, t.invoke) {
                            None => return Verdict::More,
                            Some(true) => {
                                self.invokes += 1;
                                let attrs = q + t.invoke.len();
                                self.state = State::InvokeTag(attrs, attrs);
                            }
                            Some(false) => return Verdict::End(p),
                        }
                        continue;
                    };
                    match starts_any(b, q, &[t.invoke, close]) {
                        Err(()) => {
                            self.state = State::Between(q);
                            return Verdict::More;
                        }
                        Ok(Some(0)) => {
                            self.invokes += 1;
                            let attrs = q + t.invoke.len();
                            self.state = State::InvokeTag(attrs, attrs);
                        }
                        Ok(Some(_)) => return Verdict::End(q + close.len()),
                        Ok(None) if q == b.len() => {
                            self.state = State::Between(q);
                            return Verdict::More;
                        }
                        Ok(None) => match starts_any(b, q, t.between) {
                            Err(()) => {
                                self.state = State::Between(q);
                                return Verdict::More;
                            }
                            Ok(Some(k)) => {
                                let token = t.between[k];
                                match t.after_between(token, b, q + token.len(), false) {
                                    Ok(p) => self.state = State::Between(p),
                                    Err(()) => {
                                        self.state = State::Between(q);
                                        return Verdict::More;
                                    }
                                }
                            }
                            Ok(None) => match self.ends_block(b, q) {
                                Err(()) => {
                                    self.state = State::Between(q);
                                    return Verdict::More;
                                }
                                Ok(true) => return Verdict::End(q),
                                Ok(false) => {
                                    self.invokes += 1;
                                    self.state = match t.left_open {
                                        // It ends as a broken invoke does.
                                        Some(_) => State::SeekInvokeEnd(q + 1),
                                        None => State::SeekBlockEnd(q, q + 1),
                                    };
                                }
                            },
                        },
                    }
                }
                State::InvokeTag(attrs, scanned) => {
                    let gt = match tag_end(b, scanned) {
                        Ok(gt) => gt,
                        Err(scanned) => {
                            self.state = State::InvokeTag(attrs, scanned);
                            return Verdict::More;
                        }
                    };
                    match t.attrs.tool_name(&buf[attrs..gt]) {
                        Some(name) if !name.is_empty() => {
                            let item = self.invokes - 1;
                            self.records.push(named(&name, None, true, item));
                            if is_self_closing(&buf[attrs..gt]) {
                                close_last(&mut self.records);
                                self.state = State::Between(gt + 1);
                            } else {
                                self.state = State::Body(gt + 1);
                            }
                        }
                        _ => self.state = State::SeekInvokeEnd(attrs),
                    }
                }
                State::Body(p) => {
                    let q = ws(b, p);
                    if q == b.len() {
                        self.state = State::Body(q);
                        return Verdict::More;
                    }
                    if let Some((open, _)) = t.json_body {
                        match starts(b, q, open) {
                            None => {
                                self.state = State::Body(q);
                                return Verdict::More;
                            }
                            Some(true) => {
                                self.state = State::JsonTag(q + open.len());
                                continue;
                            }
                            Some(false) => {}
                        }
                    }
                    if b[q] == b'{' {
                        if let Some(record) = self.records.last_mut() {
                            record.derived = false;
                            record.args_start = Some(q);
                        }
                        self.json = Some(JsonValue::new(q, self.open.json, false));
                        self.state = State::Json;
                    } else if t.parameter.is_empty() {
                        // A body of the shape's own elements (MiniMax-M3): read when it ends.
                        self.state = State::SeekInvokeEnd(q);
                    } else {
                        self.state = State::Params(q);
                    }
                }
                State::JsonTag(scanned) => match tag_end(b, scanned) {
                    Ok(gt) => self.state = State::Body(gt + 1),
                    Err(scanned) => {
                        self.state = State::JsonTag(scanned);
                        return Verdict::More;
                    }
                },
                State::Json => {
                    let json = self.json.as_mut().expect("set with the state");
                    match json.scan(buf) {
                        Scanned::More => return Verdict::More,
                        Scanned::Closed(end) => {
                            if let Some(record) = self.records.last_mut() {
                                record.args_end = Some(end);
                            }
                            self.state = State::AfterJson(end);
                        }
                        Scanned::Broken(at) => self.state = State::SeekInvokeEnd(at),
                    }
                }
                State::AfterJson(p) => {
                    let q = ws(b, p);
                    if let Some((_, json_close)) = t.json_body {
                        match starts(b, q, json_close) {
                            None => {
                                self.state = State::AfterJson(q);
                                return Verdict::More;
                            }
                            Some(true) => {
                                self.state = State::AfterJson(q + json_close.len());
                                continue;
                            }
                            Some(false) => {}
                        }
                    }
                    match starts(b, q, t.invoke_close.text) {
                        None => {
                            self.state = State::AfterJson(q);
                            return Verdict::More;
                        }
                        Some(true) => {
                            close_last(&mut self.records);
                            self.state = State::Between(q + t.invoke_close.text.len());
                        }
                        Some(false) => self.state = State::SeekInvokeEnd(q),
                    }
                }
                State::Params(p) | State::AfterValue(p) => {
                    let q = ws(b, p);
                    match starts_any(b, q, &[t.parameter, t.invoke_close.text]) {
                        Err(()) => return Verdict::More,
                        Ok(Some(0)) => {
                            let attrs = q + t.parameter.len();
                            self.state = State::ParamTag(attrs, attrs);
                        }
                        Ok(Some(_)) => {
                            close_last(&mut self.records);
                            self.state = State::Between(q + t.invoke_close.text.len());
                        }
                        Ok(None) if q == b.len() => return Verdict::More,
                        Ok(None) => {
                            // Another invoke, the block's close or a token that stands only
                            // outside a block: the invoke's close was left out, and it ended
                            // here.
                            let ends = [t.invoke, close.unwrap_or(t.invoke)];
                            let left_open = match starts_any(b, q, &ends) {
                                Ok(Some(_)) => Ok(true),
                                Ok(None) => self.outside_token(b, q),
                                Err(()) => Err(()),
                            };
                            match left_open {
                                Err(()) => return Verdict::More,
                                Ok(true) if self.tags.left_open.is_some() => {
                                    close_last(&mut self.records);
                                    self.state = State::Between(q);
                                }
                                Ok(true) => self.state = State::SeekInvokeEnd(q),
                                Ok(false) if matches!(self.state, State::AfterValue(_)) => {
                                    self.state = State::Value(p);
                                }
                                Ok(false) => self.state = State::SeekInvokeEnd(q),
                            }
                        }
                    }
                }
                State::ParamTag(attrs, scanned) => match tag_end(b, scanned) {
                    Ok(gt) => {
                        if let Some((_, _, depth)) = self.quoted.as_mut() {
                            *depth = Depth::default();
                        }
                        self.state = State::Value(gt + 1);
                    }
                    Err(scanned) => {
                        self.state = State::ParamTag(attrs, scanned);
                        return Verdict::More;
                    }
                },
                State::Value(from) => {
                    if let Some((quoted, seek, depth)) = self.quoted.as_mut() {
                        let Some(found) = seek.find(b, from) else {
                            return Verdict::More;
                        };
                        self.state = match depth.read(quoted, found.pattern) {
                            InValue::Close => State::AfterValue(found.end),
                            InValue::Parameter | InValue::Text => State::Value(found.end),
                        };
                        continue;
                    }
                    match self.parameter_close.find(b, from) {
                        Some(found) if t.left_open.is_some() => self.state = State::ValueTag(found),
                        Some(found) => self.state = State::AfterValue(found.end),
                        None => return Verdict::More,
                    }
                }
                State::ValueTag(tag) => match self.markup_follows(b, tag.end) {
                    Err(()) => return Verdict::More,
                    Ok(true) if tag.pattern == 0 => self.state = State::AfterValue(tag.end),
                    // A token that stands only outside a block: the value, its call and the
                    // block end there; the region holds it, so the decoder sees the value end.
                    Ok(true) if self.outside_token(b, tag.start) == Ok(true) => {
                        close_last(&mut self.records);
                        return Verdict::End(tag.end);
                    }
                    // Another closing tag: the value's own close was left out.
                    Ok(true) => self.state = State::Params(tag.start),
                    Ok(false) => self.state = State::Value(tag.start + 1),
                },
                State::SeekInvokeEnd(from) => match self.invoke_end.find(b, from) {
                    Some(found) => {
                        close_last(&mut self.records);
                        if found.pattern == 0 {
                            self.state = State::Between(found.end);
                        } else if t.left_open.is_some() {
                            // The next call, the block's close or a token outside it.
                            self.state = State::Between(found.start);
                        } else {
                            return Verdict::End(found.end);
                        }
                    }
                    None => return Verdict::More,
                },
                State::SeekBlockEnd(from, scanned) => {
                    let Some(block_close) = self.block_close.as_mut() else {
                        return Verdict::End(from);
                    };
                    let next_invoke = find_short(&b[scanned..], t.invoke.as_bytes());
                    let close = block_close.find(b, from);
                    match (next_invoke.map(|i| scanned + i), close) {
                        (Some(invoke_at), found) if found.is_none_or(|f| invoke_at < f.start) => {
                            self.state = State::Between(invoke_at);
                        }
                        (_, Some(found)) => return Verdict::End(found.end),
                        (_, None) => {
                            // An invoke tag cut by the end of the text so far may still come.
                            let rest = b.len().saturating_sub(t.invoke.len() - 1);
                            self.state = State::SeekBlockEnd(from, rest.max(scanned));
                            return Verdict::More;
                        }
                    }
                }
            }
        }
    }

    fn records(&self) -> &[CallRecord] {
        &self.records
    }

    fn reading_json(&mut self) -> Option<&mut CallScanner> {
        match self.state {
            State::Json => self.json.as_mut().map(|json| &mut json.scanner),
            _ => None,
        }
    }

    fn safe(&self) -> usize {
        self.json.as_ref().map_or(0, |j| j.scanner.pos)
    }
}
