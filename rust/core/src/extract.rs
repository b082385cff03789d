//! The text tiers of `extract` (§4.2, §4.3, §4.4): locate, decode, and shape-check calls.

use memchr::memmem;
use smallvec::SmallVec;

use crate::calls::{
    call_fields_from_text, call_fields_list_from_text, call_from_fields, call_from_object,
    json_failure_subject, push_call, push_calls_of_text, push_calls_of_value, CallFields,
    FailureKind, Invalid, Outcome, Protocol, ShapeFailure, TextCallContext, TextPlace,
};
use crate::formats::{extract_formats, FormatOptions, FormatSet, ParamTypes};
use crate::json::{parse, parse_prefix, JsonBuilder, JsonKind, JsonView, ParseError, ParseOptions};
use crate::position::line_column;
use crate::scan::fence::{closing_fence_after, find_blocks_with};
use crate::scan::raw::{balanced_spans, fenced_regions, whole_region};

/// Where `parse_raw_json` looks for candidates (§4.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RawJsonMode {
    Whole,
    Fenced,
    Anywhere,
}

impl RawJsonMode {
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "whole" => Some(Self::Whole),
            "fenced" => Some(Self::Fenced),
            "anywhere" => Some(Self::Anywhere),
            _ => None,
        }
    }
}

/// Which text tiers run, and how JSON is decoded.
#[derive(Clone, Copy, Debug)]
pub struct TextOptions<'a> {
    pub text_tagged: bool,
    /// The §6 formats tier 2 may run (`FormatSet::ALL` for `"auto"`).
    pub formats: FormatSet,
    pub raw_json: Option<RawJsonMode>,
    pub json: ParseOptions,
    /// Tool definitions, to type qwen3_coder and glm45 values.
    pub tools: Option<&'a dyn ParamTypes>,
}

type Outcomes<B> = Vec<Outcome<<B as JsonBuilder>::Value>>;

/// A block body decoded while the blocks were found.
enum Decoded<V> {
    /// One call object, read field by field.
    Fields(CallFields<V>),
    /// Any other JSON value (a list of calls, …).
    Value(V),
}

/// §4.2: every `~~~tool_call` block of `text`.
pub fn parse_text_tagged<B>(
    builder: &mut B,
    text: &str,
    options: ParseOptions,
) -> Result<Outcomes<B>, B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    // Well-formed blocks are decoded while they are found: the parse tells where the JSON
    // ends, so the closing fence is found without a second, string-aware pass. A single call
    // object is read field by field, without building the object itself. (Strict JSON only:
    // lenient JSON may hide a fence line in a single-quoted string.)
    let mut decoded: SmallVec<[(usize, Decoded<B::Value>); 2]> = SmallVec::new();
    let blocks = find_blocks_with(text, |body_start| {
        if options.lenient {
            return None;
        }
        let body = &text[body_start..];
        let (value, end) = match call_fields_from_text(builder, body, options).ok()? {
            Some((fields, end)) => (Decoded::Fields(fields), end),
            None => {
                let (value, end) = parse_prefix(body, builder, options).ok()?;
                (Decoded::Value(value), end)
            }
        };
        let close = closing_fence_after(text, body_start + end)?;
        decoded.push((body_start, value));
        Some(close)
    });
    let mut decoded = decoded.into_iter().peekable();
    let mut outcomes = Vec::with_capacity(blocks.len());
    for (block_index, block) in blocks.into_iter().enumerate() {
        let what = TextPlace::FenceBlock(block_index);
        if !block.terminated {
            let index = outcomes.len();
            outcomes.push(Outcome::invalid(unterminated_block(
                &what,
                index,
                &text[block.span.clone()],
                block.span.start,
            )));
            continue;
        }
        let context = TextCallContext {
            protocol: Protocol::TextTagged,
            what,
            text: &text[block.body.clone()],
            base: block.body.start,
        };
        match decoded.next_if(|(start, _)| *start == block.body.start) {
            Some((_, Decoded::Fields(fields))) => {
                let call = call_from_fields(builder, fields, options);
                push_call(call, &context, &mut outcomes)?
            }
            Some((_, Decoded::Value(value))) => {
                push_calls_of_value(builder, value, &context, 0, options, &mut outcomes)?
            }
            None => push_calls_of_text(builder, &context, options, &mut outcomes)?,
        }
    }
    Ok(outcomes)
}

/// The failure for a `~~~tool_call` block with no closing fence; `raw` is the block's text and
/// `byte_offset` where it starts.
pub(crate) fn unterminated_block(
    what: &TextPlace,
    index: usize,
    raw: &str,
    byte_offset: usize,
) -> Invalid {
    Invalid {
        kind: FailureKind::Parse,
        protocol: Protocol::TextTagged,
        index,
        raw: raw.to_owned(),
        name: None,
        subject: format!("unterminated {what}"),
        detail: "no closing ~~~ line before the next block or the end of the text".to_owned(),
        byte_offset: Some(byte_offset),
        line_column: None,
        offset: None,
    }
}

/// §4.3: bare JSON calls, looked for as `mode` says.
pub fn parse_raw_json<B>(
    builder: &mut B,
    text: &str,
    mode: RawJsonMode,
    options: ParseOptions,
) -> Result<Outcomes<B>, B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let mut outcomes = Vec::new();
    if let Some(region) = whole_region(text) {
        if mode != RawJsonMode::Anywhere {
            raw_candidate(
                builder,
                text,
                region,
                TextPlace::RawJson,
                options,
                &mut outcomes,
            )?;
        }
    }
    match mode {
        RawJsonMode::Whole => {}
        RawJsonMode::Fenced => {
            if outcomes.is_empty() {
                for (k, region) in fenced_regions(text).into_iter().enumerate() {
                    let what = TextPlace::RawJsonFence(k);
                    raw_candidate(builder, text, region, what, options, &mut outcomes)?;
                }
            }
        }
        RawJsonMode::Anywhere => {
            let scan = balanced_spans(text);
            let mut covered_until = 0;
            for span in scan.spans {
                if span.range.start < covered_until {
                    continue;
                }
                let before = outcomes.len();
                raw_candidate(
                    builder,
                    text,
                    span.range.clone(),
                    TextPlace::RawJson,
                    options,
                    &mut outcomes,
                )?;
                if outcomes.len() > before {
                    covered_until = span.range.end;
                }
            }
            if let Some(start) = scan.unterminated.filter(|&s| s >= covered_until) {
                let index = outcomes.len();
                outcomes.push(Outcome::invalid(Invalid {
                    kind: FailureKind::Parse,
                    protocol: Protocol::RawJson,
                    index,
                    raw: text[start..].to_owned(),
                    name: None,
                    subject: "unterminated raw JSON call".to_owned(),
                    detail: "the object is never closed".to_owned(),
                    byte_offset: Some(start),
                    line_column: None,
                    offset: None,
                }));
            }
        }
    }
    Ok(outcomes)
}

/// Decodes one candidate region; adds its calls, or an error if it looks like a call but is
/// broken. Regions that are not calls add nothing.
pub(crate) fn raw_candidate<B>(
    builder: &mut B,
    text: &str,
    region: std::ops::Range<usize>,
    what: TextPlace,
    options: ParseOptions,
    outcomes: &mut Outcomes<B>,
) -> Result<(), B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let body = &text[region.clone()];
    if !body.starts_with(['{', '[']) {
        return Ok(());
    }
    let context = TextCallContext {
        protocol: Protocol::RawJson,
        what,
        text: body,
        base: region.start,
    };
    // The common case, one call object, is read field by field; anything else (lists,
    // wrappers, errors) takes the general path below.
    if let Ok(Some((fields, end))) = call_fields_from_text(builder, body, options) {
        if end == body.len() && fields.is_call_like() {
            let call = call_from_fields(builder, fields, options);
            return push_call(call, &context, outcomes);
        }
    } else if let Ok(Some((list, end))) = call_fields_list_from_text(builder, body, options) {
        // A list of well-formed calls; one that fails is reported by the general path.
        if end == body.len() {
            let calls: Result<Vec<_>, _> = list
                .into_iter()
                .map(|fields| call_from_fields(builder, fields, options))
                .collect();
            if let Ok(calls) = calls {
                outcomes.extend(calls.into_iter().map(Outcome::Call));
                return Ok(());
            }
        }
    }
    let value = match parse(body, builder, options) {
        Ok(value) => value,
        Err(ParseError::Build(e)) => return Err(e),
        Err(ParseError::Syntax(error)) => {
            if looks_like_call(body) {
                let index = outcomes.len();
                let (kind, subject) = json_failure_subject(error.kind, &what);
                outcomes.push(Outcome::invalid(context.invalid(
                    kind,
                    index,
                    subject,
                    error.kind.message().into_owned(),
                    Some(error.offset),
                    None,
                )));
            }
            return Ok(());
        }
    };
    let Some(calls) = candidate_calls(&value) else {
        return Ok(());
    };
    for (call_object, wrapper_id) in calls {
        let index = outcomes.len();
        match call_from_object(builder, &call_object, options) {
            Ok(mut call) => {
                if let Some(id) = crate::calls::id_of(wrapper_id) {
                    call.id = Some(id);
                }
                outcomes.push(Outcome::Call(call));
            }
            Err(ShapeFailure { build: Some(e), .. }) => return Err(e),
            Err(failure) => {
                let subject = match failure.kind {
                    FailureKind::Arguments => format!("invalid arguments in {what}"),
                    FailureKind::Parse => format!("invalid tool call in {what}"),
                };
                let mut invalid = context.invalid(
                    failure.kind,
                    index,
                    subject,
                    failure.detail,
                    None,
                    failure.name,
                );
                invalid.line_column = Some(line_column(body, 0));
                outcomes.push(Outcome::invalid(invalid));
            }
        }
    }
    Ok(())
}

/// Whether broken JSON was meant as a call: it mentions a name and arguments (quoted or not,
/// since unquoted keys are a common way to break it).
fn looks_like_call(body: &str) -> bool {
    let bytes = body.as_bytes();
    memmem::find(bytes, b"name").is_some()
        && (memmem::find(bytes, b"arguments").is_some()
            || memmem::find(bytes, b"parameters").is_some())
}

/// The call objects of a decoded candidate (with the id of an OpenAI-style wrapper), or `None`
/// when the value is not a call, a list of calls, or a wrapper of them.
fn candidate_calls<V: JsonView>(value: &V) -> Option<Vec<(V, Option<V>)>> {
    match value.kind() {
        JsonKind::Object => {
            if value.get("name").is_some()
                && (value.get("arguments").is_some() || value.get("parameters").is_some())
            {
                return Some(vec![(value.clone(), None)]);
            }
            if let Some(inner) = value
                .get("function")
                .filter(|f| f.kind() == JsonKind::Object)
            {
                let mut calls = candidate_calls(&inner)?;
                if let Some(first) = calls.first_mut() {
                    first.1 = value.get("id");
                }
                return Some(calls);
            }
            if let Some(inner) = value.get("tool_call") {
                return candidate_calls(&inner);
            }
            if let Some(list) = value
                .get("tool_calls")
                .filter(|l| l.kind() == JsonKind::Array)
            {
                return list_calls(&list);
            }
            None
        }
        JsonKind::Array => list_calls(value),
        _ => None,
    }
}

fn list_calls<V: JsonView>(list: &V) -> Option<Vec<(V, Option<V>)>> {
    let items = list.items();
    if items.is_empty() {
        return None;
    }
    let mut calls = Vec::with_capacity(items.len());
    for item in &items {
        calls.extend(candidate_calls(item)?);
    }
    Some(calls)
}

/// §4.4 step 2: the text tiers in order; the first that finds a call or an error wins.
pub fn extract_text<B>(
    builder: &mut B,
    text: &str,
    options: &TextOptions<'_>,
) -> Result<Outcomes<B>, B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    if options.text_tagged {
        let outcomes = parse_text_tagged(builder, text, options.json)?;
        if !outcomes.is_empty() {
            return Ok(outcomes);
        }
    }
    let format_options = FormatOptions {
        json: options.json,
        tools: options.tools,
        calls_in_reasoning: true,
    };
    let outcomes = extract_formats(builder, text, options.formats, format_options)?;
    if !outcomes.is_empty() {
        return Ok(outcomes);
    }
    match options.raw_json {
        Some(mode) => parse_raw_json(builder, text, mode, options.json),
        None => Ok(Vec::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::{Value, ValueBuilder};

    const OPTIONS: TextOptions<'static> = TextOptions {
        text_tagged: true,
        formats: FormatSet::ALL,
        raw_json: Some(RawJsonMode::Fenced),
        json: ParseOptions { lenient: false },
        tools: None,
    };

    fn calls(text: &str) -> Vec<(String, Value)> {
        extract_text(&mut ValueBuilder, text, &OPTIONS)
            .unwrap()
            .into_iter()
            .map(|o| match o {
                Outcome::Call(c) => (c.name, c.arguments),
                Outcome::Invalid(i) => panic!("{}", i.message()),
            })
            .collect()
    }

    #[test]
    fn tiers_in_order() {
        let tagged = "~~~tool_call\n{\"name\": \"a\", \"arguments\": \"{\\\"x\\\": 1}\"}\n~~~\n";
        assert_eq!(
            calls(tagged),
            vec![("a".into(), Value::object([("x", Value::Int(1))]))]
        );
        let raw = "```json\n[{\"name\": \"b\", \"parameters\": {}}]\n```";
        assert_eq!(calls(raw), vec![("b".into(), Value::object([]))]);
        assert!(calls("plain prose").is_empty());
    }

    #[test]
    fn raw_json_lists_of_calls_wrappers_and_broken_elements() {
        let list = r#"[{"name": "a", "arguments": {"x": 1}}, {"name": "b", "parameters": "{}"}]"#;
        assert_eq!(
            calls(list),
            vec![
                ("a".into(), Value::object([("x", Value::Int(1))])),
                ("b".into(), Value::object([]))
            ]
        );
        let wrapped =
            r#"[{"name": "a", "arguments": {}}, {"function": {"name": "b", "arguments": {}}}]"#;
        assert_eq!(calls(wrapped).len(), 2);
        assert!(calls(r#"[{"name": "a", "arguments": {}}, {"other": 1}]"#).is_empty());
        let broken = r#"[{"name": "a", "arguments": {}}, {"name": "b", "arguments": "[1]"}]"#;
        let outcomes = extract_text(&mut ValueBuilder, broken, &OPTIONS).unwrap();
        assert!(matches!(&outcomes[0], Outcome::Call(c) if c.name == "a"));
        let Outcome::Invalid(invalid) = &outcomes[1] else {
            panic!("expected the second element to fail")
        };
        assert_eq!((invalid.kind, invalid.index), (FailureKind::Arguments, 1));
    }

    #[test]
    fn failures_carry_place_and_offset() {
        let text = "x\n~~~tool_call\n{\"name\": \"a\", \"arguments\": [1]}\n~~~\n";
        let outcomes = extract_text(&mut ValueBuilder, text, &OPTIONS).unwrap();
        let Outcome::Invalid(invalid) = &outcomes[0] else {
            panic!("expected a failure")
        };
        assert_eq!(invalid.kind, FailureKind::Arguments);
        assert_eq!(invalid.name.as_deref(), Some("a"));
        assert_eq!(invalid.byte_offset, Some(15));
        assert!(invalid
            .message()
            .starts_with("invalid arguments in ~~~tool_call block 0"));
    }
}
