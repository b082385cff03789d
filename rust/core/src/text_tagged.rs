//! The `~~~tool_call` protocol: every fenced block of a text, decoded.

use smallvec::SmallVec;

use crate::calls::{
    call_fields_from_text, call_from_fields, push_call, push_calls_of_text_parsed,
    push_calls_of_value, CallFields, FailureKind, Invalid, Outcome, Protocol, TextCallContext,
    TextPlace,
};
use crate::json::{parse_prefix, JsonBuilder, JsonView, ParseOptions};
use crate::scan::call_scan::{CallRecord, CallScanner, Stop};
use crate::scan::fence::{closing_fence_after, find_blocks_with};

type Outcomes<B> = Vec<Outcome<<B as JsonBuilder>::Value>>;

/// A block body decoded while the blocks were found.
enum Decoded<V> {
    /// One call object, read field by field.
    Fields(CallFields<V>),
    /// Any other JSON value (a list of calls, …).
    Value(V),
}

/// Every `~~~tool_call` block of `text`.
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
    let blocks = find_blocks_with(text, |body_start, fence| {
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
        let close = closing_fence_after(text, body_start + end, fence)?;
        decoded.push((body_start, value));
        Some(close)
    });
    let mut decoded = decoded.into_iter().peekable();
    let mut outcomes = Vec::with_capacity(blocks.len());
    for (block_index, block) in blocks.into_iter().enumerate() {
        let what = TextPlace::FenceBlock(block_index);
        let body = &text[block.body.clone()];
        if !block.terminated {
            let index = outcomes.len();
            let invalid =
                unterminated_block(&what, index, &text[block.span.clone()], block.span.start);
            push_failures(invalid, &begun_calls(body, options), true, &mut outcomes);
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
            None => {
                let before = outcomes.len();
                let parsed = push_calls_of_text_parsed(builder, &context, options, &mut outcomes)?;
                if !parsed {
                    let Some(Outcome::Invalid(invalid)) = outcomes.pop() else {
                        unreachable!("text that is not JSON gives one failure")
                    };
                    debug_assert_eq!(outcomes.len(), before);
                    push_failures(*invalid, &begun_calls(body, options), false, &mut outcomes);
                }
            }
        }
    }
    Ok(outcomes)
}

/// The calls a block had begun, as a stream sees them.
pub(crate) struct Begun {
    /// The name of its first call object, begun or not.
    first_name: Option<String>,
    /// A slot per call begun (a call object whose name is known and whose arguments began, or
    /// that closed) and per item before one that had no number yet (`[1] [{…}]`: the `[1]`),
    /// holding the name of its call object, if any: a stream announces the calls begun and
    /// numbers those items, so a block that fails as a whole fails once per slot.
    names: Vec<Option<String>>,
}

impl Begun {
    /// What `records`, a call scanner's over a block's body, had begun, numbered as a stream
    /// numbers them: each call begun, after the items before it that have no number yet.
    pub(crate) fn of(records: &[CallRecord]) -> Self {
        let name_of = |item: usize| records.iter().find(|r| r.item == item)?.name.clone();
        let mut names = Vec::new();
        let mut numbered_items = 0;
        for record in records.iter().filter(|r| r.ready.is_some()) {
            names.extend((numbered_items..record.item).map(name_of));
            numbered_items = numbered_items.max(record.item + 1);
            names.push(record.name.clone());
        }
        Begun {
            first_name: records.first().and_then(|r| r.name.clone()),
            names,
        }
    }
}

fn begun_calls(body: &str, options: ParseOptions) -> Begun {
    let mut scanner = CallScanner::new(options, false);
    while scanner.scan(body) != Stop::End {}
    Begun::of(&scanner.records)
}

/// Adds the failure of a block that failed as a whole (`invalid`), once per call it had begun,
/// each named after its call (an unterminated block's failure is named after its first call
/// even when none had begun).
fn push_failures<V>(
    mut invalid: Invalid,
    begun: &Begun,
    unterminated: bool,
    outcomes: &mut Vec<Outcome<V>>,
) {
    if unterminated {
        invalid.name.clone_from(&begun.first_name);
    }
    let Some((first, rest)) = begun.names.split_first() else {
        outcomes.push(Outcome::invalid(invalid));
        return;
    };
    if invalid.name.is_none() || unterminated {
        invalid.name.clone_from(first);
    }
    for name in rest {
        let mut next = invalid.clone();
        next.name.clone_from(name);
        next.index = outcomes.len() + 1;
        outcomes.push(Outcome::invalid(std::mem::replace(&mut invalid, next)));
    }
    outcomes.push(Outcome::invalid(invalid));
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
        detail: "no closing fence line before the next block or the end of the text".to_owned(),
        byte_offset: Some(byte_offset),
        line_column: None,
        offset: None,
    }
}
