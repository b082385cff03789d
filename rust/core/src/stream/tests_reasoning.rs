//! Calls read inside think spans count only when the message has none outside them
//! ([`super::held`]), on the three paths: the stream (any chunking), `parse_text` and `extract`.

use super::tests::{assert_chunk_invariant, chars_split, normalized, stream_chunks};
use super::*;
use crate::extract::{extract_text, RawJsonMode, TextOptions};
use crate::json::{Value, ValueBuilder};

type Ev = Event<Value>;

const EXTRACT: TextOptions<'static> = TextOptions {
    text_tagged: true,
    formats: FormatSet::ALL,
    raw_json: Some(RawJsonMode::Fenced),
    json: ParseOptions::model_text(false),
    tools: None,
    starts_in_reasoning: false,
};

fn call(name: &str, a: i64) -> String {
    format!("<tool_call>{{\"name\": \"{name}\", \"arguments\": {{\"a\": {a}}}}}</tool_call>")
}

/// A call's name, arguments and index, or an invalid call's index and name.
#[derive(Clone, Debug, PartialEq)]
enum Got {
    Call(usize, String, Value),
    Invalid(usize, Option<String>),
}

fn got_of(events: &[Ev]) -> Vec<Got> {
    events
        .iter()
        .filter_map(|event| match event {
            Event::CallEnd { index, call } => {
                Some(Got::Call(*index, call.name.clone(), call.arguments.clone()))
            }
            Event::Invalid(invalid) => Some(Got::Invalid(invalid.index, invalid.name.clone())),
            _ => None,
        })
        .collect()
}

fn got_of_outcomes(outcomes: &[Outcome<Value>]) -> Vec<Got> {
    outcomes
        .iter()
        .enumerate()
        .map(|(k, outcome)| match outcome {
            Outcome::Call(call) => Got::Call(k, call.name.clone(), call.arguments.clone()),
            Outcome::Invalid(invalid) => Got::Invalid(invalid.index, invalid.name.clone()),
        })
        .collect()
}

/// The calls of `text` on every path (they must agree), and the stream's events.
fn read(text: &str, options: StreamOptions) -> (Vec<Got>, Vec<Ev>) {
    let events = assert_chunk_invariant(text, options);
    let streamed = got_of(&events);
    // Each call's events: a start (when it has one) and argument pieces under its own index.
    for event in &events {
        if let Event::CallDelta { index, .. } = event {
            assert!(
                events
                    .iter()
                    .any(|e| matches!(e, Event::CallStart { index: i, .. } if i == index)),
                "a delta of an unannounced call {index} in {text:?}"
            );
        }
    }
    let parsed = parse_text(&mut ValueBuilder, text, options).unwrap();
    assert_eq!(
        got_of_outcomes(&parsed.calls),
        streamed,
        "parse_text of {text:?}"
    );
    if options.calls_in_reasoning {
        let extracted = extract_text(&mut ValueBuilder, text, &EXTRACT).unwrap();
        assert_eq!(got_of_outcomes(&extracted), streamed, "extract of {text:?}");
    }
    (streamed, events)
}

fn a(n: i64) -> Value {
    Value::object([("a", Value::Int(n))])
}

/// The reasoning (or, with `reasoning` false, the content) the events send.
fn sent(events: &[Ev], reasoning: bool) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Reasoning(text) if reasoning => Some(text.as_str()),
            Event::Text(text) if !reasoning => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

fn reasoning(events: &[Ev]) -> String {
    sent(events, true)
}

#[test]
fn a_draft_in_reasoning_then_the_call_gives_the_call_once() {
    let text = format!(
        "<think>I will write {} and check it.</think>Calling.\n{}",
        call("f", 1),
        call("f", 2)
    );
    let (got, events) = read(&text, StreamOptions::default());
    assert_eq!(got, vec![Got::Call(0, "f".into(), a(2))]);
    // The draft's markup is neither reasoning nor content; the prose around it is reasoning.
    assert_eq!(reasoning(&events), "I will write  and check it.");
    let starts: Vec<_> = events
        .iter()
        .filter(|e| matches!(e, Event::CallStart { .. }))
        .collect();
    assert_eq!(starts.len(), 1);
    // Several drafts, in two spans, in other protocols: the outside calls are numbered from 0.
    let text = format!(
        "<think>{}\n~~~tool_call\n{{\"name\": \"g\", \"arguments\": {{}}}}\n~~~\n</think>\
         <think>```json\n{{\"name\": \"h\", \"arguments\": {{}}}}\n```\n</think>{}{}",
        call("f", 1),
        call("f", 2),
        call("g", 3)
    );
    let (got, _) = read(&text, StreamOptions::default());
    assert_eq!(
        got,
        vec![
            Got::Call(0, "f".into(), a(2)),
            Got::Call(1, "g".into(), a(3))
        ]
    );
}

#[test]
fn calls_only_in_reasoning_are_returned_at_the_end() {
    let text = format!("<think>Let me call {} now.</think>Done.", call("f", 1));
    let (got, events) = read(&text, StreamOptions::default());
    assert_eq!(got, vec![Got::Call(0, "f".into(), a(1))]);
    // The stream sends the call when the text ends, after the text.
    assert!(matches!(
        events.last(),
        Some(Event::CallEnd { index: 0, .. })
    ));
    let position = |f: fn(&Ev) -> bool| events.iter().position(f).unwrap();
    assert!(
        position(|e| matches!(e, Event::Text(_)))
            < position(|e| matches!(e, Event::CallStart { .. }))
    );
    // Nothing of it goes out before `finish`, however the text is cut.
    let mut parser = StreamParser::new(StreamOptions::default());
    let mut fed = Vec::new();
    for chunk in chars_split(&text, 3) {
        parser.feed(chunk, &mut ValueBuilder, &mut fed).unwrap();
    }
    assert!(got_of(&fed).is_empty());
    assert!(!fed
        .iter()
        .any(|e| matches!(e, Event::CallStart { .. } | Event::CallDelta { .. })));
    parser.finish(&mut ValueBuilder, &mut fed).unwrap();
    assert_eq!(normalized(fed), events);
    // An unclosed span: its calls are still the message's only ones.
    let text = format!("<think>{}{}", call("f", 1), call("g", 2));
    let (got, _) = read(&text, StreamOptions::default());
    assert_eq!(
        got,
        vec![
            Got::Call(0, "f".into(), a(1)),
            Got::Call(1, "g".into(), a(2))
        ]
    );
}

#[test]
fn calls_in_reasoning_after_a_call_outside_are_dropped() {
    let text = format!(
        "{}<think>again? {}</think>{}",
        call("f", 1),
        call("f", 9),
        call("g", 2)
    );
    let (got, events) = read(&text, StreamOptions::default());
    assert_eq!(
        got,
        vec![
            Got::Call(0, "f".into(), a(1)),
            Got::Call(1, "g".into(), a(2))
        ]
    );
    assert_eq!(reasoning(&events), "again? ");
}

#[test]
fn an_invalid_call_either_side_counts_as_a_call() {
    // A broken draft, then the call: the call alone.
    let broken = "<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": </tool_call>";
    let text = format!("<think>{broken}</think>{}", call("f", 2));
    let (got, _) = read(&text, StreamOptions::default());
    assert_eq!(got, vec![Got::Call(0, "f".into(), a(2))]);
    // A broken call outside: the draft goes, the broken call is the message's.
    let text = format!("<think>{}</think>{broken}", call("f", 1));
    let (got, _) = read(&text, StreamOptions::default());
    assert_eq!(got, vec![Got::Invalid(0, Some("f".into()))]);
    // Its message numbers it as the message's first call, on every path.
    let parsed = parse_text(&mut ValueBuilder, &text, StreamOptions::default()).unwrap();
    let extracted = extract_text(&mut ValueBuilder, &text, &EXTRACT).unwrap();
    for outcomes in [parsed.calls, extracted] {
        let [Outcome::Invalid(invalid)] = &outcomes[..] else {
            panic!("one invalid call expected: {outcomes:?}")
        };
        assert!(
            invalid.subject.contains("hermes call 0"),
            "{}",
            invalid.subject
        );
    }
    // A broken call only in reasoning is kept, as an invalid call.
    let text = format!("<think>{broken}</think>Done.");
    let (got, _) = read(&text, StreamOptions::default());
    assert_eq!(got, vec![Got::Invalid(0, Some("f".into()))]);
}

#[test]
fn a_dropped_calls_id_is_free_for_a_later_call() {
    let block = |id: &str, a: i64| {
        format!("~~~tool_call\n{{\"id\": \"{id}\", \"name\": \"f\", \"arguments\": {{\"a\": {a}}}}}\n~~~\n")
    };
    let ids = |text: &str| -> Vec<String> {
        stream_chunks(&[text], StreamOptions::default())
            .into_iter()
            .filter_map(|e| match e {
                Event::CallStart { id, .. } => Some(id),
                _ => None,
            })
            .collect()
    };
    // A draft, then the call.
    let text = format!(
        "<think>\n{}</think>\n{}",
        block("call_1", 1),
        block("call_1", 2)
    );
    assert_eq!(ids(&text), ["call_1"]);
    let (got, _) = read(&text, StreamOptions::default());
    assert_eq!(got, vec![Got::Call(0, "f".into(), a(2))]);
    // A call in reasoning after a call outside it.
    let text = format!(
        "{}<think>\n{}</think>\n{}",
        block("call_0", 0),
        block("call_1", 1),
        block("call_1", 2)
    );
    assert_eq!(ids(&text), ["call_0", "call_1"]);
}

#[test]
fn without_calls_in_reasoning_markup_there_is_reasoning() {
    let options = StreamOptions {
        calls_in_reasoning: false,
        ..StreamOptions::default()
    };
    let draft = call("f", 1);
    let text = format!("<think>{draft}</think>{}", call("f", 2));
    let (got, events) = read(&text, options);
    assert_eq!(got, vec![Got::Call(0, "f".into(), a(2))]);
    assert_eq!(reasoning(&events), draft);
    let text = format!("<think>{draft}</think>Done.");
    let (got, events) = read(&text, options);
    assert!(got.is_empty());
    assert_eq!(reasoning(&events), draft);
}

/// A call drafted in a think span ends where the span does: the close is a special token no
/// call holds, so a call the model broke off there fails alone and the answer after it is
/// content, on every path and in any chunking.
#[test]
fn a_call_cut_short_in_a_think_span_ends_with_the_span() {
    for (draft, got) in [
        (
            r#"<tool_call>{"name": "f", "arguments": {"a": "#,
            Got::Invalid(0, Some("f".into())),
        ),
        (
            "<tool_call>\n<function=f>\n<parameter=a>\n1\n",
            Got::Invalid(0, Some("f".into())),
        ),
        (call("f", 1).as_str(), Got::Call(0, "f".into(), a(1))),
    ] {
        for close in ["</think>", "[/THINK]", "<|think:end|>"] {
            let text = format!("<think>Plan {draft}{close}The answer.");
            let (calls, events) = read(&text, StreamOptions::default());
            assert_eq!(calls, vec![got.clone()], "{text:?}");
            assert_eq!(sent(&events, false), "The answer.", "{text:?}");
            assert_eq!(reasoning(&events), "Plan ", "{text:?}");
        }
    }
}

/// HyperCLOVA X 14B's reasoning turn, opened by the prompt, ends at the model's next turn header
/// (`<|im_end|>\n<|im_start|>assistant`), on every path and under any chunking; the answer or
/// the tool role follows. Under other formats the turn tokens change nothing.
#[test]
fn a_reasoning_turn_ends_at_the_next_turn_header() {
    let options = StreamOptions {
        starts_in_reasoning: true,
        ..StreamOptions::only(Format::HyperclovaxSeedThink14b)
    };
    let text = "plan<|im_end|>\n<|im_start|>assistant\nThe answer.<|im_end|>";
    let (got, events) = read(text, options);
    assert!(got.is_empty());
    assert_eq!(reasoning(&events).trim(), "plan");
    assert_eq!(sent(&events, false).trim(), "The answer.");
    let text = "plan<|im_end|>\n<|im_start|>assistant -> tool/function_call\n[{\"name\": \"f\", \"arguments\": {\"a\": 1}}]<|im_end|>";
    let (got, events) = read(text, options);
    assert_eq!(got, [Got::Call(0, "f".into(), a(1))]);
    assert_eq!(reasoning(&events).trim(), "plan");
    assert_eq!(sent(&events, false).trim(), "");
    let hermes = StreamOptions {
        starts_in_reasoning: true,
        ..StreamOptions::only(Format::Hermes)
    };
    let events = assert_chunk_invariant("plan<|im_end|>\n<|im_start|>assistant\nmore", hermes);
    assert_eq!(reasoning(&events), "plan\n<|im_start|>assistant\nmore");
}

/// Kimi K3's reply channel written straight after thinking the prompt opened ends the
/// reasoning, as its closing tag would: the model skipped the thought. Outside a span the token
/// is a control token, dropped; a format that is not read leaves it in the reasoning.
#[test]
fn a_reply_channel_ends_the_thinking_the_prompt_opened() {
    let reply = "<|open|>response<|sep|>plain reply<|close|>response<|sep|><|close|>message<|sep|>";
    for calls_in_reasoning in [true, false] {
        let options = StreamOptions {
            starts_in_reasoning: true,
            calls_in_reasoning,
            ..StreamOptions::only(Format::KimiK3)
        };
        for text in [reply.to_owned(), format!("Hmm.{reply}")] {
            let (got, events) = read(&text, options);
            assert!(got.is_empty());
            assert_eq!(sent(&events, false), "plain reply", "{text:?}");
            assert_eq!(
                reasoning(&events),
                text.strip_suffix(reply).unwrap(),
                "{text:?}"
            );
        }
        let not_started = StreamOptions {
            starts_in_reasoning: false,
            ..options
        };
        let (_, events) = read(reply, not_started);
        assert_eq!(sent(&events, false), "plain reply");
    }
    let hermes = StreamOptions {
        starts_in_reasoning: true,
        ..StreamOptions::only(Format::Hermes)
    };
    let events = assert_chunk_invariant("plan<|open|>response<|sep|>more", hermes);
    assert_eq!(reasoning(&events), "plan<|open|>response<|sep|>more");
}
