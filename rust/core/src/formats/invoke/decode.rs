//! Decoding a block of invokes.

use std::ops::Range;

use super::super::cursor::{failed_end, find_short, TextSeek};
use super::super::cx::{skip_ws, Cx, Failure, ReadCallsAndEnd};
use super::super::schema::layout::without_line_break;
use super::super::schema::Types;
use super::super::wrapped::unwrapped;
use super::quoted::{Depth, InValue, Quoted};
use super::{attribute, is_self_closing, tag_rest, Tags};
use crate::json::{JsonBuilder, JsonView};

pub(crate) fn parse_region<B>(
    cx: &mut Cx<'_, '_, B>,
    range: Range<usize>,
    tags: &'static Tags,
) -> Result<(), B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let (text, end) = (cx.text, range.end);
    let mut seeks = Seeks {
        invoke_closes: TextSeek::new(text, end, &tags.invoke_close),
        parameter_closes: TextSeek::new(text, end, &tags.parameter_close),
        quoted: tags.quoted.map(|quoted| QuotedValues {
            markers: TextSeek::dense(text, end, (&quoted.markers, &quoted.searcher)),
            quoted,
            closed: true,
        }),
    };
    blocks(cx, range, tags, |cx, at, end, close| {
        invoke(cx, tags, (at, end, close), &mut seeks)
    })
}

/// The blocks of invokes in `range` (between `tags`' wrappers), each invoke read by `read`
/// (from its tag at `at`, given the block's closing tag; it returns where its markup ends).
pub(crate) fn blocks<B>(
    cx: &mut Cx<'_, '_, B>,
    range: Range<usize>,
    tags: &'static Tags,
    mut read: impl FnMut(&mut Cx<'_, '_, B>, usize, usize, &str) -> Result<usize, B::Error>,
) -> Result<(), B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let (text, end) = (cx.text, range.end);
    cx.markup_in_prose(range, &tags.open_markers, |cx, marker| {
        let Some(close) = tags.close(marker.pattern) else {
            return bare_invokes(cx, tags, marker.start, end, &mut read);
        };
        let mut p = marker.end;
        let mut read_one = false;
        let block_end = loop {
            p = skip_ws(text, p, end);
            let rest = &text[p..end];
            if rest.starts_with(tags.invoke) {
                p = read(cx, p, end, close)?;
                read_one = true;
            } else if rest.starts_with(close) {
                break p + close.len();
            } else if rest.is_empty() || tags.ends_left_open(rest) {
                // A token that stands only outside a block ends one left open.
                break p;
            } else if read_one && tags.left_open.is_some() && !rest.starts_with('<') {
                // Prose after a call ends a block left open.
                break p;
            } else if let Some((calls, json_end)) = json_calls(cx, rest, p, end)? {
                // A JSON call object (or list) in place of invokes: dots writes both.
                cx.push_read(tags.format, p..json_end, calls)?;
                p = json_end;
            } else if let Some(token) = tags.between.iter().find(|t| rest.starts_with(**t)) {
                let after = p + token.len();
                p = tags
                    .after_between(token, &text.as_bytes()[..end], after, true)
                    .unwrap_or(end);
            } else {
                // Not an invoke: the markup fails alone, up to the next invoke (which is read)
                // or past the block's closing tag; where the shape's closes may be left out, as
                // a broken call's does.
                let at = p;
                let (markup_end, block_ends) = match tags.left_open {
                    Some(left_open) => (
                        failed_end(left_open.broken_ends.find(text, p + 1, end), end),
                        false,
                    ),
                    None => junk_end(&text[..end], p, tags.invoke, close),
                };
                let detail = format!("expected {} or {close}", tags.invoke);
                cx.fail(
                    tags.format,
                    at..markup_end,
                    Failure::parse(detail, at, None),
                );
                if block_ends {
                    break markup_end;
                }
                p = markup_end;
                read_one = true;
            }
        };
        Ok(block_end)
    })
}

/// Where markup at `p` in a block that is not an invoke ends: before the next `invoke` tag, or
/// past the block's `close` (then `true`: the block ends there), or at the end of `text`.
fn junk_end(text: &str, p: usize, invoke: &str, close: &str) -> (usize, bool) {
    // Past the character at `p`, which may be any (`▁` in a block that is no invoke).
    let after = p + text[p..].chars().next().map_or(1, char::len_utf8);
    let next_invoke = find_short(&text[after..], invoke).map_or(text.len(), |i| after + i);
    // Only up to the next invoke: a run of such markup stays linear.
    match find_short(&text[p..next_invoke], close) {
        Some(i) => (p + i + close.len(), true),
        None => (next_invoke, next_invoke == text.len()),
    }
}

/// A run of invokes written with no wrapper, from the first at `p`: it ends where anything
/// else begins (before the whitespace that leads to it), which is prose.
fn bare_invokes<B>(
    cx: &mut Cx<'_, '_, B>,
    tags: &'static Tags,
    mut p: usize,
    end: usize,
    read: &mut impl FnMut(&mut Cx<'_, '_, B>, usize, usize, &str) -> Result<usize, B::Error>,
) -> Result<usize, B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    loop {
        let at = skip_ws(cx.text, p, end);
        if !cx.text[at..end].starts_with(tags.invoke) {
            return Ok(p);
        }
        // The next invoke ends one whose closing tag was left out, as a wrapper's close would.
        p = read(cx, at, end, tags.invoke)?;
    }
}

/// The searches one region's invokes share, each over the whole region (so that the text is
/// searched once).
struct Seeks<'t> {
    invoke_closes: TextSeek<'t>,
    parameter_closes: TextSeek<'t>,
    quoted: Option<QuotedValues<'t>>,
}

/// Values read by [`quoted`](super::quoted)'s rule.
struct QuotedValues<'t> {
    markers: TextSeek<'t>,
    quoted: &'static Quoted,
    /// Every value so far closed its quoted markup. Once one did not (the search ran to the
    /// end of the text), the values after it are read by the flat rule too.
    closed: bool,
}

impl QuotedValues<'_> {
    /// Where the value at `value_start` ends: at the first parameter closing tag outside its
    /// quoted markup that markup follows, or at a parameter tag there where the shape's
    /// parameter tag begins the next parameter. `None` when none does.
    fn value_end(
        &mut self,
        text: &str,
        tags: &Tags,
        (value_start, end, block_close): (usize, usize, &str),
    ) -> Option<usize> {
        let mut depth = Depth::default();
        let mut from = value_start;
        while self.closed {
            let Some(found) = self.markers.next(from) else {
                self.closed = false;
                break;
            };
            match depth.read(self.quoted, found.pattern) {
                InValue::Close if markup_follows(text, tags, (found.end, end, block_close)) => {
                    return Some(found.start);
                }
                InValue::Parameter if tags.parameter_ends_value => return Some(found.start),
                _ => from = found.end,
            }
        }
        None
    }
}

/// Whether markup follows a parameter's closing tag that ends at `after`, past whitespace:
/// another parameter, the invoke's close, another invoke or the block's close (the invoke's
/// close left out), or the end of the text.
fn markup_follows(
    text: &str,
    tags: &Tags,
    (after, end, block_close): (usize, usize, &str),
) -> bool {
    let rest = &text[skip_ws(text, after, end)..end];
    let markup = [
        tags.parameter,
        tags.invoke_close.text,
        tags.invoke,
        block_close,
    ];
    rest.is_empty() || markup.iter().any(|tag| rest.starts_with(tag))
}

/// Where a parameter's value ends, from its first closing tag at `first`: at the first closing
/// tag that markup follows ([`markup_follows`]); a closing tag followed by anything else is the
/// value's own text (a file that holds this markup). When none is, the first (what follows it
/// is then reported).
fn value_close(
    text: &str,
    tags: &Tags,
    (first, end, block_close): (usize, usize, &str),
    closes: &mut TextSeek<'_>,
) -> usize {
    let mut close = first;
    loop {
        let after = close + tags.parameter_close.text.len();
        if markup_follows(text, tags, (after, end, block_close)) {
            return close;
        }
        match closes.find(close + 1) {
            Some(next) => close = next,
            None => return first,
        }
    }
}

/// The end of a value whose closing tag was left out, which the invoke's or the block's
/// closing tag at `close` ends: before the line break that puts that tag on a line of its own,
/// the template's layout (the close left out stood before it), as for a GLM value
/// (`tool_call::glm45`).
fn before_layout_break(text: &str, start: usize, close: usize) -> usize {
    start + without_line_break(&text[start..close]).len()
}

/// Where a parameter tag inside the value at `value` begins, where the shape's parameter tag
/// is a special token ([`Tags::parameter_ends_value`]): that begins the next parameter.
fn parameter_in_value(text: &str, tags: &Tags, value: Range<usize>) -> Option<usize> {
    if !tags.parameter_ends_value {
        return None;
    }
    let start = value.start;
    text[value].find(tags.parameter).map(|at| start + at)
}

/// The calls of a JSON call object or list at `p` (`rest` is the text from there), and
/// where the JSON ends; `None` for anything else, which the caller reports.
fn json_calls<B>(
    cx: &mut Cx<'_, '_, B>,
    rest: &str,
    p: usize,
    end: usize,
) -> Result<Option<ReadCallsAndEnd<B::Value>>, B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    if rest.starts_with(['{', '[']) {
        cx.read_calls(p, end)
    } else {
        Ok(None)
    }
}

/// One invoke at `at`, in a block that `block_close` ends; returns where its markup ends. A
/// closing tag the model left out is read where what follows shows it: a value whose
/// `</parameter>` never comes ends at the invoke's (or the block's) closing tag, and an invoke
/// whose `</invoke>` never comes ends at the block's.
fn invoke<B>(
    cx: &mut Cx<'_, '_, B>,
    tags: &'static Tags,
    (at, end, block_close): (usize, usize, &str),
    seeks: &mut Seeks<'_>,
) -> Result<usize, B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let text = cx.text;
    let mut fail = |cx: &mut Cx<'_, '_, B>, from: usize, failure: Failure| {
        let markup_end = match tags.left_open {
            Some(left_open) => {
                let from = from.max(at + tags.invoke.len());
                failed_end(left_open.broken_ends.find(text, from, end), end)
            }
            None => seeks.invoke_closes.end_of_next(from, end),
        };
        cx.fail(tags.format, at..markup_end, failure);
        markup_end
    };
    let attrs_at = at + tags.invoke.len();
    let named = tag_rest(text, attrs_at, end)
        .and_then(|(attrs, body)| Some((tags.attrs.tool_name(attrs)?, body)))
        .filter(|(name, _)| !name.is_empty());
    let Some((name, body)) = named else {
        let detail = format!("expected {} {}=\"…\">", tags.invoke, tags.attrs.tool);
        let failure = Failure::parse(detail, at, None);
        return Ok(fail(cx, at, failure));
    };
    let name = &*name;
    if is_self_closing(&text[attrs_at..body - 1]) {
        // `<invoke name="f"/>`: a call without arguments (DeepSeek V4 writes them so).
        let arguments = cx.builder.new_object()?;
        let arguments = cx.builder.finish_object(arguments)?;
        cx.call(tags.format, at..body, name.to_owned(), None, arguments)?;
        return Ok(body);
    }
    let mut pos = skip_ws(text, body, end);
    // A JSON object for a body, bare or in the format's JSON element.
    let json_close = match tags.json_body {
        Some((open, close)) if text[pos..end].starts_with(open) => {
            let json_at = tag_rest(text, pos + open.len(), end).map_or(end, |(_, at)| at);
            pos = skip_ws(text, json_at, end);
            Some(close)
        }
        _ => None,
    };
    if text[pos..end].starts_with('{') {
        let arguments = match cx.json_at(pos, end)? {
            Ok((arguments, json_end)) => {
                pos = json_end;
                arguments
            }
            Err(error) => return Ok(fail(cx, pos, Failure::json(error, Some(name.into())))),
        };
        let mut after = skip_ws(text, pos, end);
        if let Some(close) = json_close.filter(|close| text[after..end].starts_with(close)) {
            after = skip_ws(text, after + close.len(), end);
        }
        let markup_end = if text[after..end].starts_with(tags.invoke_close.text) {
            after + tags.invoke_close.text.len()
        } else if after == end {
            end
        } else {
            let detail = format!("expected {} after the arguments", tags.invoke_close.text);
            let failure = Failure::parse(detail, after, Some(name.into()));
            return Ok(fail(cx, after, failure));
        };
        cx.call(
            tags.format,
            at..markup_end,
            name.to_owned(),
            None,
            arguments,
        )?;
        return Ok(markup_end);
    }
    let mut arguments = cx.builder.new_object()?;
    let markup_end = loop {
        pos = skip_ws(text, pos, end);
        let rest = &text[pos..end];
        if rest.starts_with(tags.parameter) {
            let key = tag_rest(text, pos + tags.parameter.len(), end).and_then(|(attrs, v)| {
                let key = tags.attrs.value(attrs, tags.attrs.key)?;
                let string = attribute(attrs, tags.attrs.text.0).map(str::trim);
                (!key.is_empty()).then_some((key, string, v))
            });
            let Some((key, string, value_start)) = key else {
                let detail = format!("expected {} {}=\"…\">", tags.parameter, tags.attrs.key);
                return Ok(fail(
                    cx,
                    pos,
                    Failure::parse(detail, pos, Some(name.into())),
                ));
            };
            let key = &*key;
            let quoted = seeks
                .quoted
                .as_mut()
                .and_then(|quoted| quoted.value_end(text, tags, (value_start, end, block_close)));
            let close = match (tags.left_open, quoted) {
                (_, Some(close)) => Some(close),
                (Some(left_open), None) => left_open.value_end(text, value_start, end),
                (None, None) => match seeks.parameter_closes.find(value_start) {
                    Some(first) => {
                        let closes = &mut seeks.parameter_closes;
                        let close = value_close(text, tags, (first, end, block_close), closes);
                        Some(parameter_in_value(text, tags, value_start..close).unwrap_or(close))
                    }
                    None => {
                        let value = &text[value_start..end];
                        let at = |tag: &str| value.find(tag).map(|i| value_start + i);
                        let close = match (at(tags.invoke_close.text), at(block_close)) {
                            (Some(a), Some(b)) => Some(a.min(b)),
                            (a, b) => a.or(b),
                        };
                        close.map(|close| before_layout_break(text, value_start, close))
                    }
                },
            };
            let Some(close) = close else {
                let detail = format!(
                    "unterminated parameter {key:?}: no {}",
                    tags.parameter_close.text
                );
                return Ok(fail(
                    cx,
                    pos,
                    Failure::parse(detail, pos, Some(name.into())),
                ));
            };
            let types = (string == Some(tags.attrs.text.1)).then_some(Types::TEXT);
            cx.insert_value(&mut arguments, name, key, &text[value_start..close], types)?;
            pos = close;
            if text[pos..end].starts_with(tags.parameter_close.text) {
                pos += tags.parameter_close.text.len();
            }
        } else if rest.starts_with(tags.invoke_close.text) {
            break pos + tags.invoke_close.text.len();
        } else if rest.is_empty() {
            break end;
        } else if rest.starts_with(block_close)
            || rest.starts_with(tags.invoke)
            || tags.ends_left_open(rest)
        {
            // The invoke's close was left out: the block's close, the next invoke or a token
            // that stands only outside a block ends it.
            break pos;
        } else {
            let detail = format!("expected {} or {}", tags.parameter, tags.invoke_close.text);
            return Ok(fail(
                cx,
                pos,
                Failure::parse(detail, pos, Some(name.into())),
            ));
        }
    };
    let arguments = cx.builder.finish_object(arguments)?;
    let (tools, json) = (cx.options.tools, cx.options.json);
    let arguments = unwrapped(cx.builder, tools, name, arguments, json)?;
    cx.call(
        tags.format,
        at..markup_end,
        name.to_owned(),
        None,
        arguments,
    )?;
    Ok(markup_end)
}
