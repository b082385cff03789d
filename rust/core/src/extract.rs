//! The text tiers of `extract`: `~~~tool_call` blocks, then the open-weight formats, then raw
//! JSON (also read, `whole`, for a format whose message may be a bare or fenced JSON call:
//! `formats::whole_json_mode`); the first tier that finds a call or an error wins.

use std::ops::Range;

use crate::calls::Outcome;
use crate::formats::sniff::{self, Sniffed};
use crate::formats::{whole_json_mode, FormatSet, ParamTypes};
use crate::json::{JsonBuilder, JsonView, ParseOptions};
use crate::raw_json::{parse_raw_json_anywhere, raw_json_anywhere_at};
use crate::scan::fence::LEADING_BOM;
use crate::scan::find::Needle;
use crate::scan::think::{message_start, think_spans};
use crate::stream::{read_calls, CallsFound, StreamOptions};

pub use crate::raw_json::RawJsonMode;
pub use crate::text_tagged::parse_text_tagged;

type Outcomes<B> = Vec<Outcome<<B as JsonBuilder>::Value>>;

/// Which text tiers run, and how JSON is decoded.
#[derive(Clone, Copy, Debug)]
pub struct TextOptions<'a> {
    pub text_tagged: bool,
    /// The open-weight formats tier 2 may run (`FormatSet::ALL` for `"auto"`).
    pub formats: FormatSet,
    pub raw_json: Option<RawJsonMode>,
    pub json: ParseOptions,
    /// Tool definitions, to type the values of XML-style formats.
    pub tools: Option<&'a dyn ParamTypes>,
    /// The text starts inside a think span the prompt opened ([`StreamOptions`]).
    pub starts_in_reasoning: bool,
}

/// The text tiers in order; the first that finds a call or an error wins. The open-weight
/// formats are read by the stream engine (told to report calls only), so that `extract`,
/// `parse_text` and a stream read them by the same rules.
///
/// Calls written inside think spans count only when the message has none outside them
/// ([`crate::stream`]'s rule): a tier whose calls are all inside reasoning gives way to a later
/// tier that finds one outside, and wins otherwise.
pub fn extract_text<B>(
    builder: &mut B,
    text: &str,
    options: &TextOptions<'_>,
) -> Result<Outcomes<B>, B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let mut tiers = Tiers { in_reasoning: None };
    if options.text_tagged {
        let outcomes = parse_text_tagged(builder, text, options.json)?;
        if !outcomes.is_empty() {
            let found = if think_spans(text).is_empty() && !options.starts_in_reasoning {
                CallsFound::outside_reasoning(outcomes)
            } else {
                // Some blocks may be inside think spans: read as the stream reads them.
                let tagged = StreamOptions {
                    text_tagged: true,
                    raw_json: None,
                    formats: FormatSet::NONE,
                    calls_in_reasoning: true,
                    starts_in_reasoning: options.starts_in_reasoning,
                    json: options.json,
                    json_answers: false,
                };
                read_calls(builder, text, tagged, None)?
            };
            if let Some(outcomes) = tiers.offer(found) {
                return Ok(outcomes);
            }
        }
    }
    let raw_json = whole_json_mode(options.raw_json, options.formats);
    let message_start = match sniff::sniff_calls(text, options.formats) {
        Sniffed::MayHoldCalls => {
            // Raw JSON is read here too (the engine treats `Anywhere` as `Fenced`), so a marker
            // inside a JSON string of a ```` ```json ```` fence is the string's text, as the
            // stream and `parse_text` read it, not a call.
            let formats_tier = StreamOptions {
                text_tagged: false,
                raw_json,
                formats: options.formats,
                calls_in_reasoning: true,
                starts_in_reasoning: options.starts_in_reasoning,
                json: options.json,
                json_answers: false,
            };
            let found = read_calls(builder, text, formats_tier, options.tools)?;
            if !found.outcomes.is_empty() {
                return Ok(tiers.last(found));
            }
            message_start(text)
        }
        Sniffed::NoCalls { message_start } => message_start,
    };
    let found = match raw_json {
        Some(mode) => raw_json_from(
            builder,
            text,
            message_start,
            mode,
            options.json,
            options.starts_in_reasoning,
        )?,
        None => CallsFound::outside_reasoning(Vec::new()),
    };
    Ok(tiers.last(found))
}

/// The calls of the tiers read so far that were all inside reasoning (the first such tier's).
struct Tiers<V> {
    in_reasoning: Option<Vec<Outcome<V>>>,
}

impl<V> Tiers<V> {
    /// The calls a tier found, when they win: any call outside reasoning does; calls inside it
    /// wait for the later tiers.
    fn offer(&mut self, found: CallsFound<V>) -> Option<Vec<Outcome<V>>> {
        if found.outcomes.is_empty() {
            return None;
        }
        if !found.in_reasoning {
            return Some(found.outcomes);
        }
        self.in_reasoning.get_or_insert(found.outcomes);
        None
    }

    /// The result, once the last tier has found `found`.
    fn last(mut self, found: CallsFound<V>) -> Vec<Outcome<V>> {
        self.offer(found).or(self.in_reasoning).unwrap_or_default()
    }
}

/// Bare JSON calls, looked for as `mode` says: the whole message, or also ```` ```json ````
/// fences (read by the stream engine, as a stream reads them), or anywhere.
pub fn parse_raw_json<B>(
    builder: &mut B,
    text: &str,
    mode: RawJsonMode,
    json: ParseOptions,
) -> Result<Outcomes<B>, B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    match mode {
        RawJsonMode::Anywhere => parse_raw_json_anywhere(builder, text, json),
        _ => Ok(raw_json_from(builder, text, message_start(text), mode, json, false)?.outcomes),
    }
}

/// [`parse_raw_json`] for a text whose message starts at `message_start` (past a span the prompt
/// opened, when `starts_in_reasoning`).
fn raw_json_from<B>(
    builder: &mut B,
    text: &str,
    message_start: usize,
    mode: RawJsonMode,
    json: ParseOptions,
    starts_in_reasoning: bool,
) -> Result<CallsFound<B::Value>, B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    if mode == RawJsonMode::Anywhere {
        // JSON anywhere (`extract` only) is read wherever it stands, think spans included.
        let (outcomes, starts) = raw_json_anywhere_at(builder, text, json)?;
        let reasoning = reasoning_spans(text, starts_in_reasoning);
        return Ok(by_reasoning(outcomes, &starts, &reasoning));
    }
    if !may_hold_raw_json(text, message_start, mode) {
        return Ok(CallsFound::outside_reasoning(Vec::new()));
    }
    let raw_only = StreamOptions {
        text_tagged: false,
        raw_json: Some(mode),
        formats: FormatSet::NONE,
        calls_in_reasoning: true,
        starts_in_reasoning,
        json,
        json_answers: false,
    };
    read_calls(builder, text, raw_only, None)
}

/// The think spans of `text`, and the span the prompt opened when `starts_in_reasoning`.
fn reasoning_spans(text: &str, starts_in_reasoning: bool) -> Vec<Range<usize>> {
    let mut spans = think_spans(text);
    if starts_in_reasoning {
        let first = spans.first().map_or(text.len(), |span| span.start);
        spans.insert(0, 0..first);
    }
    spans
}

/// Calls found anywhere (each starting at `starts[i]`), under the rule for calls in reasoning:
/// those inside a `reasoning` span count only when none is outside them.
fn by_reasoning<V>(
    outcomes: Vec<Outcome<V>>,
    starts: &[usize],
    reasoning: &[Range<usize>],
) -> CallsFound<V> {
    let inside: Vec<bool> = starts
        .iter()
        .map(|at| reasoning.iter().any(|span| span.contains(at)))
        .collect();
    let in_reasoning = !outcomes.is_empty() && inside.iter().all(|&i| i);
    let kept = outcomes
        .into_iter()
        .zip(&inside)
        .filter(|&(_, &inside)| in_reasoning || !inside)
        .enumerate()
        .map(|(index, (mut outcome, _))| {
            if let Outcome::Invalid(invalid) = &mut outcome {
                invalid.index = index;
            }
            outcome
        })
        .collect();
    CallsFound {
        outcomes: kept,
        in_reasoning,
    }
}

/// Whether raw JSON may hold a call of `text`: the message starts with JSON or a code fence
/// (past whitespace and think spans), or (`fenced`) a code fence occurs anywhere. A superset of
/// what the engine reads.
///
/// The text's own start counts too ([`sniff::text_start`]): a later `</think>` puts what
/// precedes it in reasoning, but a stream has read a call there before that tag arrives
/// (`{…}</think>`), and so does the engine; so does a call after leading control tokens.
fn may_hold_raw_json(text: &str, message_start: usize, mode: RawJsonMode) -> bool {
    // A vector search: `str::contains` compares byte by byte, 4x the cost of the whole sniff.
    static BACKTICKS: Needle = Needle::new("```");
    let starts_json = |at: usize| {
        text[at..]
            .trim_start_matches(LEADING_BOM)
            .starts_with(['{', '[', '`'])
    };
    starts_json(message_start)
        || starts_json(sniff::text_start(text))
        || (mode != RawJsonMode::Whole && BACKTICKS.find(text.as_bytes()).is_some())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calls::FailureKind;
    use crate::json::{Value, ValueBuilder};

    const OPTIONS: TextOptions<'static> = TextOptions {
        text_tagged: true,
        formats: FormatSet::ALL,
        raw_json: Some(RawJsonMode::Fenced),
        json: ParseOptions::model_text(false),
        tools: None,
        starts_in_reasoning: false,
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
    fn markers_inside_json_strings_of_a_fence_are_text() {
        // Found by hypothesis (tests/test_properties.py::test_raw_json_round_trip).
        for marker in ["[TOOL_CALLS]", "<tool_call>"] {
            let text = format!(
                "Sure.\n```json\n[{{\"name\": \"a\", \"arguments\": {{\"x\": \"{marker}\"}}}}]\n```\n"
            );
            assert_eq!(
                calls(&text),
                vec![(
                    "a".into(),
                    Value::object([("x", Value::Str(marker.into()))])
                )]
            );
        }
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
        // A list that holds calls keeps them; an item that is no call is a broken call.
        let mixed = r#"[{"name": "a", "arguments": {}}, {"other": 1}]"#;
        let outcomes = extract_text(&mut ValueBuilder, mixed, &OPTIONS).unwrap();
        assert!(matches!(&outcomes[0], Outcome::Call(c) if c.name == "a"));
        assert!(matches!(&outcomes[1], Outcome::Invalid(i) if i.byte_offset == Some(33)));
        assert!(calls(r#"[{"other": 1}, 5]"#).is_empty());
        let broken = r#"[{"name": "a", "arguments": {}}, {"name": "b", "arguments": "[1]"}]"#;
        let outcomes = extract_text(&mut ValueBuilder, broken, &OPTIONS).unwrap();
        assert!(matches!(&outcomes[0], Outcome::Call(c) if c.name == "a"));
        let Outcome::Invalid(invalid) = &outcomes[1] else {
            panic!("expected the second element to fail")
        };
        assert_eq!((invalid.kind, invalid.index), (FailureKind::Arguments, 1));
    }

    #[test]
    fn a_call_before_a_stray_closing_think_tag_is_read_as_the_stream_reads_it() {
        // Found by hypothesis (tests/test_agreement.py): the stream reads the call before the tag
        // arrives, so `extract` must too, in every raw-JSON mode.
        let text = "{\"name\": \"a\", \"arguments\": {\"x\": 1}}\n</think>";
        assert_eq!(
            calls(text),
            vec![("a".into(), Value::object([("x", Value::Int(1))]))]
        );
        for mode in [RawJsonMode::Whole, RawJsonMode::Fenced] {
            let found = parse_raw_json(&mut ValueBuilder, text, mode, OPTIONS.json).unwrap();
            assert_eq!(found.len(), 1, "{mode:?}");
        }
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
