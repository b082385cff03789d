//! Decoding a MiniMax-M3 block. An invoke's body is elements, each behind the namespace token:
//! `<key>text</key>` is a value (typed by the tool schema at the top level, as qwen3_coder's,
//! and as JSON when it is valid below it), `<key>` holding elements is an object, and one whose
//! elements are all `<item>` a list (as is any parameter the schema types as a list and not an
//! object, whatever its elements are called, but for elements each named once, two or more: they
//! are one record, a list of one object). A key written twice in one element is a list of its
//! values (the model's, none dropped). A closing tag closes the element it names, or, naming
//! none that is open, the innermost one; elements left open close with the invoke. An empty
//! element is `[]` or `{}` where the schema types the parameter only as a list or only as an
//! object (the chat template writes them so), and text beside elements is kept under `$text`
//! (`$$text` where an element has that name).

use std::ops::Range;

use super::super::cursor::TextSeek;
use super::super::cx::{Cx, Failure};
use super::super::invoke::decode::blocks;
use super::super::invoke::{tag_rest, Tags};
use super::super::schema::Types;
use super::NS;
use crate::json::{JsonBuilder, JsonStr, JsonView};

/// The deepest nesting read (a value is built recursively).
const DEPTH_MAX: usize = 64;

/// An element of an invoke's body: its name, its text, and its elements.
struct Element<'t> {
    name: &'t str,
    text: String,
    children: Vec<Element<'t>>,
}

impl<'t> Element<'t> {
    fn new(name: &'t str, text: &str) -> Self {
        Self {
            name,
            text: text.to_owned(),
            children: Vec::new(),
        }
    }
}

pub(super) fn parse_region<B>(
    cx: &mut Cx<'_, '_, B>,
    range: Range<usize>,
    tags: &'static Tags,
) -> Result<(), B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let mut closes = TextSeek::new(cx.text, range.end, &tags.recover[0]);
    blocks(cx, range, tags, |cx, at, end, _| {
        invoke(cx, tags, at, end, &mut closes)
    })
}

/// One invoke at `at`; returns where its markup ends (before the block's closing tag when that
/// comes first, so the block reads it).
fn invoke<B>(
    cx: &mut Cx<'_, '_, B>,
    tags: &'static Tags,
    at: usize,
    end: usize,
    closes: &mut TextSeek<'_>,
) -> Result<usize, B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let text = cx.text;
    let (body_end, markup_end) = match closes.next(at) {
        Some(close) if close.pattern == 0 => (close.start, close.end),
        Some(close) => (close.start, close.start),
        None => (end, end),
    };
    let named = tag_rest(text, at + tags.invoke.len(), body_end)
        .and_then(|(attrs, body)| Some((tags.attrs.tool_name(attrs)?, body)))
        .filter(|(name, _)| !name.is_empty());
    let Some((name, body)) = named else {
        let failure = Failure::parse(format!("expected {} name=\"…\">", tags.invoke), at, None);
        cx.fail(tags.format, at..markup_end, failure);
        return Ok(markup_end);
    };
    let name = &*name;
    let root = match elements(&text[body..body_end]) {
        Ok(root) => root,
        Err(detail) => {
            let failure = Failure::parse(detail, body, Some(name.into()));
            cx.fail(tags.format, at..markup_end, failure);
            return Ok(markup_end);
        }
    };
    let arguments = object(cx, &root.children, Some(name), None)?;
    cx.call(tags.format, at..markup_end, name.to_owned(), None, arguments)?;
    Ok(markup_end)
}

/// The elements of `body` (the text after the invoke tag), under a root element.
fn elements(body: &str) -> Result<Element<'_>, String> {
    let mut stack = vec![Element::new("", "")];
    let mut pieces = body.split(NS);
    if let Some(first) = pieces.next() {
        stack[0].text.push_str(first);
    }
    for piece in pieces {
        let (closing, tag) = match piece.strip_prefix("</") {
            Some(tag) => (true, tag),
            None => match piece.strip_prefix('<') {
                Some(tag) => (false, tag),
                None => {
                    top(&mut stack).text.push_str(piece);
                    continue;
                }
            },
        };
        let Some(gt) = tag.find('>') else {
            return Err(format!("unterminated tag <{tag}"));
        };
        let name = tag[..gt].split_ascii_whitespace().next().unwrap_or_default();
        let after = &tag[gt + 1..];
        if !closing {
            if stack.len() > DEPTH_MAX {
                return Err(format!("elements nested deeper than {DEPTH_MAX}"));
            }
            stack.push(Element::new(name, after));
            continue;
        }
        // The element it names, else the innermost one; a closer with nothing open is stray.
        let depth = stack
            .iter()
            .rposition(|e| e.name == name)
            .filter(|&d| d > 0)
            .unwrap_or(stack.len() - 1);
        while stack.len() > depth.max(1) {
            close(&mut stack);
        }
        top(&mut stack).text.push_str(after);
    }
    while stack.len() > 1 {
        close(&mut stack);
    }
    Ok(stack.pop().expect("the root stays"))
}

fn top<'s, 't>(stack: &'s mut [Element<'t>]) -> &'s mut Element<'t> {
    stack.last_mut().expect("the root stays")
}

/// Closes the innermost element into its parent.
fn close(stack: &mut Vec<Element<'_>>) {
    let element = stack.pop().expect("not the root");
    top(stack).children.push(element);
}

/// An object of `children` (and `text`, under `"$text"`), a key written twice a list of its
/// values. `tool`: the children are the tool's parameters, typed by its schema.
fn object<B>(
    cx: &mut Cx<'_, '_, B>,
    children: &[Element<'_>],
    tool: Option<&str>,
    text: Option<&str>,
) -> Result<B::Value, B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let mut object = cx.builder.new_object()?;
    let mut done: Vec<&str> = Vec::new();
    for (i, child) in children.iter().enumerate() {
        if done.contains(&child.name) {
            continue;
        }
        done.push(child.name);
        let types = tool.map_or(Types::default(), |tool| cx.param_types(tool, child.name));
        let same = || children[i..].iter().filter(|c| c.name == child.name);
        let value = if same().count() == 1 {
            value(cx, child, types)?
        } else {
            let mut list = cx.builder.new_array()?;
            for element in same() {
                let item = value(cx, element, types)?;
                cx.builder.array_push(&mut list, item)?;
            }
            cx.builder.finish_array(list)?
        };
        cx.builder
            .object_insert(&mut object, JsonStr::from_utf8(child.name), value)?;
    }
    if let Some(text) = text {
        // Under `$text`, or `$$text` (and so on) where an element has that name, as vLLM's
        // reader keeps it: the element's value is not overwritten.
        let mut key = String::from("$text");
        while children.iter().any(|c| c.name == key) {
            key.insert(0, '$');
        }
        let text = cx.builder.string(JsonStr::from_utf8(text))?;
        cx.builder
            .object_insert(&mut object, JsonStr::from_utf8(&key), text)?;
    }
    cx.builder.finish_object(object)
}

/// Whether a list parameter's elements are the fields of one record: two or more, each named
/// once, none an item wrapper (`<item>`, `<entry>`).
fn one_record(children: &[Element<'_>]) -> bool {
    children.len() > 1
        && children.iter().enumerate().all(|(i, c)| {
            !matches!(c.name, "item" | "entry") && children[..i].iter().all(|p| p.name != c.name)
        })
}

/// The value of an element: its text typed by `types` when it holds no elements, a list when
/// they are all `<item>` or `types` allow a list and not an object (`<entry>` in a list is an
/// item too; elements that are each named once, two or more, are one object in the list), else
/// an object (text beside elements under `"$text"`).
fn value<B>(cx: &mut Cx<'_, '_, B>, element: &Element<'_>, types: Types) -> Result<B::Value, B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let children = &element.children;
    if children.is_empty() {
        // The chat template writes `[]` and `{}` as an empty element: one the schema types
        // only as a list (or only as an object) is that empty value.
        if element.text.is_empty() && types.excludes_string() {
            if types.list_not_object() {
                let list = cx.builder.new_array()?;
                return cx.builder.finish_array(list);
            }
            if types.object_not_list() {
                let object = cx.builder.new_object()?;
                return cx.builder.finish_object(object);
            }
        }
        return cx.typed(&element.text, types);
    }
    if children.iter().all(|c| c.name == "item") || types.list_not_object() && !one_record(children) {
        let mut list = cx.builder.new_array()?;
        for child in children {
            let item = value(cx, child, Types::default())?;
            cx.builder.array_push(&mut list, item)?;
        }
        return cx.builder.finish_array(list);
    }
    if types.list_not_object() {
        // A list parameter whose elements all have names of their own (`<items><sku>…</sku>
        // <qty>…</qty></items>`, the `<item>` wrapper left out) is one record, a list of one
        // object: read as items, the names would be lost.
        let text = element.text.trim();
        let mut list = cx.builder.new_array()?;
        let item = object(cx, children, None, (!text.is_empty()).then_some(text))?;
        cx.builder.array_push(&mut list, item)?;
        return cx.builder.finish_array(list);
    }
    // Text beside elements is kept under `$text`, as vLLM's reader keeps it.
    let text = element.text.trim();
    object(cx, children, None, (!text.is_empty()).then_some(text))
}
