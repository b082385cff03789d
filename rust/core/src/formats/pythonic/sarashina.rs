//! `sarashina` (SB Intuitions Sarashina): a Python-literal list of call dicts,
//! `[{'name': 'f', 'arguments': {'a': 1, 'b': True}}]`, after the `<|tool_calls|>` token. The
//! token is a special one, which detokenizers usually drop, so a message that *starts* with such
//! a list (`[{'`) is read too, when its first item is a dict with a `name`. Nothing is evaluated:
//! the list is a literal (`literal`), as the pythonic grammar reads argument values.
//!
//! `<|tool_calls|>` is also Solar Open's section token (`solar_open`): what follows it decides.
//! A list there (or a single dict, a list of one) is Sarashina's, read here for that group
//! (`sectioned::Tokens::list`). Each item is a call object as every format reads one (`name`,
//! `arguments` or `parameters`, the arguments a dict or a JSON string); an item that is not is an
//! `InvalidToolCall`, and an empty list is no call. Where the list stops being a literal (cut
//! off, or an expression in it), the items before are read and the rest is one failed call whose
//! markup runs to the end of the region.

use super::super::cx::{Cx, Failure};
use super::super::literal::{LitErr, LitResult, Literals};
use crate::calls::push_calls_of_value;
use crate::json::{JsonBuilder, JsonView};
use crate::protocol::Format;

/// Whether `text` starts with `[`, a `{` and a single-quoted key (white space between): a
/// bare list of Python dicts. A JSON list (`[{"`) is raw JSON's to read.
pub(crate) fn starts_dict_list(text: &str) -> bool {
    let mut reader = Literals::new(text, 0, text.len());
    reader.eat(b'[') && reader.eat(b'{') && reader.eat(b'\'')
}

/// The list (or single dict) of calls at `start`, whose markup began at `at` (its marker, or
/// the list itself); returns where the markup ends. A `bare` list whose first item is no dict
/// with a `name` is no call: nothing is read (returns `start`).
pub(crate) fn dict_list<B>(
    cx: &mut Cx<'_, '_, B>,
    at: usize,
    start: usize,
    end: usize,
    bare: bool,
) -> Result<usize, B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let mut reader = Literals::new(cx.text, start, end);
    let (mut items, mut failed) = (Vec::new(), at);
    let read = match read_items(cx.builder, &mut reader, &mut items, &mut failed) {
        Err(LitErr::Build(e)) => return Err(e),
        Err(LitErr::Syntax(error)) => Err(error),
        Ok(()) => Ok(reader.pos),
    };
    let names_call = match items.first() {
        Some((_, item)) => item.get("name").is_some(),
        None => read.is_err() && names_first_item(cx.text, start, end),
    };
    if bare && !names_call {
        return Ok(start);
    }
    let list_end = *read.as_ref().unwrap_or(&end);
    let options = cx.options.json;
    for (item_start, item) in items {
        let context = cx.context(Format::Sarashina, at..list_end);
        let json_at = item_start - at;
        push_calls_of_value(cx.builder, item, &context, json_at, options, &mut cx.outcomes)?;
    }
    if let Err(error) = read {
        // The items read before the one that broke are calls; the rest is one failure.
        let failure = Failure::parse(error.detail, error.offset, None);
        cx.fail(Format::Sarashina, failed..end, failure);
    }
    Ok(list_end)
}

/// Reads the items of the list at the reader (a dict alone is a list of one) into `items`, each
/// with where it starts; on an error, `items` holds those read before it, and `failed` where
/// the item that broke starts (it is left alone when the first one does).
fn read_items<B: JsonBuilder>(
    builder: &mut B,
    reader: &mut Literals<'_>,
    items: &mut Vec<(usize, B::Value)>,
    failed: &mut usize,
) -> LitResult<(), B::Error> {
    reader.skip_ws();
    if !reader.eat(b'[') {
        let start = reader.pos;
        items.push((start, reader.value(builder)?));
        return Ok(());
    }
    loop {
        if reader.eat(b']') {
            return Ok(());
        }
        if !items.is_empty() {
            reader.skip_ws();
            *failed = reader.pos;
            if !reader.eat(b',') {
                return Err(reader.error("expected ',' or ']' between calls").into());
            }
            // A comma before the `]` is allowed, as Python allows it.
            if reader.eat(b']') {
                return Ok(());
            }
            reader.skip_ws();
            *failed = reader.pos;
        }
        reader.skip_ws();
        let start = reader.pos;
        items.push((start, reader.value(builder)?));
    }
}

/// Whether a list that is not a literal was still meant as calls: its first item opens with a
/// `'name'` key.
fn names_first_item(text: &str, start: usize, end: usize) -> bool {
    let mut reader = Literals::new(text, start, end);
    reader.eat(b'[') && reader.eat(b'{') && {
        reader.skip_ws();
        text[reader.pos..end].starts_with("'name'")
    }
}
