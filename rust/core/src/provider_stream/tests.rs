use super::*;
use crate::calls::{Call, Outcome};
use crate::json::{to_compact_json, Value};
use crate::stream::{collect, Event, ParsedText, StreamOptions};

const PROVIDERS: [Shape; 5] = [
    Shape::OpenAIChat,
    Shape::Anthropic,
    Shape::OpenAIResponses,
    Shape::Gemini,
    Shape::Ollama,
];

fn parse_json(text: &str) -> Value {
    parse(text, &mut ValueBuilder, ParseOptions::default()).expect("test JSON")
}

fn accumulate(provider: Shape, items: &[Value], engine: Option<StreamParser>) -> Vec<Event<Value>> {
    let mut accumulator = Accumulator::new(provider, engine).expect("a provider");
    let mut out = Vec::new();
    for item in items {
        accumulator
            .feed(item, &mut ValueBuilder, &mut out)
            .expect("infallible");
    }
    accumulator
        .finish(&mut ValueBuilder, &mut out)
        .expect("infallible");
    out
}

fn encode(provider: Shape, events: Vec<Event<Value>>, usage: Usage) -> Vec<Value> {
    let mut encoder = Encoder::new(provider, Some("m".into()), None).expect("a provider");
    let mut out = Vec::new();
    for event in events {
        encoder
            .encode(event, &mut ValueBuilder, &mut out)
            .expect("infallible");
    }
    encoder
        .finish(None, usage, &mut ValueBuilder, &mut out)
        .expect("infallible");
    out
}

fn call(index: usize, id: &str, name: &str, pieces: &[&str]) -> Vec<Event<Value>> {
    let mut events = vec![Event::CallStart {
        index,
        id: id.into(),
        name: name.into(),
    }];
    for piece in pieces {
        events.push(Event::CallDelta {
            index,
            arguments: (*piece).into(),
        });
    }
    events.push(Event::CallEnd {
        index,
        call: Call {
            id: Some(id.into()),
            name: name.into(),
            arguments: parse_json(&pieces.concat()),
        },
    });
    events
}

/// Text, reasoning and two calls, one of them with its arguments in pieces.
fn sample() -> Vec<Event<Value>> {
    let mut events = vec![
        Event::Reasoning("Weather? ".into()),
        Event::Reasoning("Two cities.".into()),
        Event::Text("Let me ".into()),
        Event::Text("check.".into()),
    ];
    events.extend(call(
        0,
        "call_a",
        "get_weather",
        &["{\"city\": ", "\"Oslo\"}"],
    ));
    events.extend(call(
        1,
        "call_b",
        "get_weather",
        &["{\"city\": \"Kraków\", \"days\": 2}"],
    ));
    events
}

fn parsed(events: Vec<Event<Value>>) -> ParsedText<Value> {
    let saw_reasoning = events.iter().any(|e| matches!(e, Event::Reasoning(_)));
    collect(events, saw_reasoning)
}

fn calls(parsed: &ParsedText<Value>) -> Vec<(Option<String>, String, String)> {
    parsed
        .calls
        .iter()
        .map(|outcome| match outcome {
            Outcome::Call(call) => (
                call.id.clone(),
                call.name.clone(),
                to_compact_json(&call.arguments),
            ),
            Outcome::Invalid(invalid) => (None, "invalid".into(), invalid.raw.clone()),
        })
        .collect()
}

#[test]
fn every_encoder_round_trips_through_its_accumulator() {
    let expected = parsed(sample());
    for provider in PROVIDERS {
        let usage = Usage {
            input_tokens: Some(12),
            output_tokens: Some(7),
            ..Usage::default()
        };
        let chunks = encode(provider, sample(), usage);
        let mut accumulator = Accumulator::new(provider, None).expect("a provider");
        let mut out = Vec::new();
        for chunk in &chunks {
            accumulator
                .feed(chunk, &mut ValueBuilder, &mut out)
                .expect("infallible");
        }
        accumulator
            .finish(&mut ValueBuilder, &mut out)
            .expect("infallible");
        let meta = accumulator.meta().clone();
        let got = parsed(out);
        assert_eq!(got.content, expected.content, "{provider:?}");
        assert_eq!(got.reasoning, expected.reasoning, "{provider:?}");
        assert_eq!(calls(&got), calls(&expected), "{provider:?}");
        assert_eq!(meta.model.as_deref(), Some("m"), "{provider:?}");
        assert_eq!(
            (meta.usage.input_tokens, meta.usage.output_tokens),
            (Some(12), Some(7))
        );
        // Gemini, Ollama and Responses say "stop" on the wire: read as "tool calls".
        assert_eq!(
            meta.finish_reason,
            Some(FinishReason::ToolCalls),
            "{provider:?}"
        );
    }
}

#[test]
fn argument_pieces_are_the_models_own_bytes() {
    // Spaces and key order as the model wrote them, not re-serialised.
    let events = call(0, "call_a", "f", &["{ \"b\" :1,", " \"a\": [ ] }"]);
    for provider in [Shape::OpenAIChat, Shape::Anthropic, Shape::OpenAIResponses] {
        let out = accumulate(
            provider,
            &encode(provider, events.clone(), Usage::default()),
            None,
        );
        let text: String = out
            .iter()
            .filter_map(|e| match e {
                Event::CallDelta { arguments, .. } => Some(arguments.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(text, "{ \"b\" :1, \"a\": [ ] }", "{provider:?}");
    }
}

#[test]
fn interleaved_calls_are_written_one_block_at_a_time() {
    let mut events = vec![
        Event::CallStart {
            index: 0,
            id: "a".into(),
            name: "f".into(),
        },
        Event::CallStart {
            index: 1,
            id: "b".into(),
            name: "g".into(),
        },
        Event::CallDelta {
            index: 1,
            arguments: "{\"y\": 2}".into(),
        },
        Event::Text("between".into()),
        Event::CallDelta {
            index: 0,
            arguments: "{\"x\": 1}".into(),
        },
    ];
    let ends = [
        call(0, "a", "f", &["{\"x\": 1}"]),
        call(1, "b", "g", &["{\"y\": 2}"]),
    ];
    events.push(ends[0].last().cloned().expect("an end"));
    events.push(ends[1].last().cloned().expect("an end"));
    for provider in [Shape::Anthropic, Shape::OpenAIResponses] {
        let chunks = encode(provider, events.clone(), Usage::default());
        let got = parsed(accumulate(provider, &chunks, None));
        let names: Vec<_> = calls(&got).into_iter().map(|(_, n, a)| (n, a)).collect();
        assert_eq!(
            names,
            [
                ("f".into(), "{\"x\":1}".into()),
                ("g".into(), "{\"y\":2}".into())
            ]
        );
        assert_eq!(got.content, "between");
    }
}

#[test]
fn a_call_that_fails_before_its_block_opens_is_never_announced() {
    let events = vec![
        Event::CallStart {
            index: 0,
            id: "a".into(),
            name: "f".into(),
        },
        Event::CallStart {
            index: 1,
            id: "b".into(),
            name: "g".into(),
        },
        Event::CallDelta {
            index: 1,
            arguments: "{\"broken".into(),
        },
        Event::Invalid(crate::calls::Invalid {
            kind: crate::calls::FailureKind::Arguments,
            protocol: crate::calls::Protocol::Native,
            index: 1,
            raw: "{\"broken".into(),
            name: Some("g".into()),
            subject: "s".into(),
            detail: "d".into(),
            byte_offset: None,
            line_column: None,
            offset: None,
        }),
    ];
    let mut events = events;
    events.extend(call(0, "a", "f", &["{}"]).into_iter().skip(1));
    let chunks = encode(Shape::Anthropic, events, Usage::default());
    let text: Vec<String> = chunks.iter().map(to_compact_json).collect();
    assert!(!text.iter().any(|t| t.contains("\"g\"")), "{text:?}");
}

#[test]
fn sse_text_items_for_every_provider() {
    for provider in PROVIDERS {
        let chunks = encode(provider, sample(), Usage::default());
        let mut accumulator = Accumulator::new(provider, None).expect("a provider");
        let mut out = Vec::new();
        for chunk in &chunks {
            let kind = chunk.get("type");
            let text = frame(
                provider,
                kind.as_ref().and_then(|k| k.as_str()),
                &to_compact_json(chunk),
            );
            accumulator
                .feed_text(&text, &mut ValueBuilder, &mut out)
                .expect("readable");
        }
        accumulator
            .finish(&mut ValueBuilder, &mut out)
            .expect("infallible");
        assert_eq!(
            calls(&parsed(out)),
            calls(&parsed(sample())),
            "{provider:?}"
        );
    }
    let mut accumulator = Accumulator::new(Shape::OpenAIChat, None).expect("a provider");
    let error = accumulator.feed_text("data: {not json", &mut ValueBuilder, &mut Vec::new());
    assert!(matches!(error, Err(FeedError::NotJson(_))));
}

#[test]
fn text_written_calls_become_call_events() {
    let text = "Sure.<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": 1}}</tool_call>";
    let chunks: Vec<Value> = text
        .as_bytes()
        .chunks(7)
        .map(|piece| {
            let piece = std::str::from_utf8(piece).expect("ASCII");
            Value::object([(
                "choices",
                Value::array(vec![Value::object([(
                    "delta",
                    Value::object([("content", Value::str(piece))]),
                )])]),
            )])
        })
        .collect();
    let engine = StreamParser::new(StreamOptions::default());
    let got = parsed(accumulate(Shape::OpenAIChat, &chunks, Some(engine)));
    assert_eq!(got.content, "Sure.");
    assert_eq!(calls(&got)[0].1, "f");
    // Without the engine, the markup is content.
    let plain = parsed(accumulate(Shape::OpenAIChat, &chunks, None));
    assert_eq!(plain.content, text);
}

#[test]
fn servers_that_send_responses_arguments_only_when_done() {
    let events = [
        r#"{"type": "response.output_item.added", "output_index": 0, "item": {"type": "function_call", "id": "fc_1", "call_id": "c1", "name": "f", "arguments": ""}}"#,
        r#"{"type": "response.function_call_arguments.done", "item_id": "fc_1", "output_index": 0, "arguments": "{\"a\": 1}"}"#,
        r#"{"type": "response.output_item.done", "output_index": 0, "item": {"type": "function_call", "id": "fc_1", "call_id": "c1", "name": "f", "arguments": "{\"a\": 1}"}}"#,
        r#"{"type": "response.output_item.done", "output_index": 1, "item": {"type": "function_call", "id": "fc_2", "call_id": "c2", "name": "g", "arguments": "{}"}}"#,
    ];
    let items: Vec<Value> = events.iter().map(|e| parse_json(e)).collect();
    let got = parsed(accumulate(Shape::OpenAIResponses, &items, None));
    assert_eq!(
        calls(&got),
        [
            (Some("c1".into()), "f".into(), "{\"a\":1}".into()),
            (Some("c2".into()), "g".into(), "{}".into())
        ]
    );
}

#[test]
fn usage_and_stop_reasons_cross_providers() {
    let usage = Usage {
        input_tokens: Some(100),
        output_tokens: Some(20),
        cached_input_tokens: Some(40),
        reasoning_tokens: Some(5),
    };
    for provider in PROVIDERS {
        let mut encoder = Encoder::new(provider, None, None).expect("a provider");
        let mut out = Vec::new();
        encoder
            .encode(Event::Text("x".into()), &mut ValueBuilder, &mut out)
            .expect("ok");
        let reason = Some(FinishReason::Length);
        encoder
            .finish(reason, usage, &mut ValueBuilder, &mut out)
            .expect("ok");
        let mut accumulator = Accumulator::new(provider, None).expect("a provider");
        for chunk in &out {
            accumulator
                .feed(chunk, &mut ValueBuilder, &mut Vec::new())
                .expect("ok");
        }
        let meta = accumulator.meta();
        assert_eq!(
            meta.finish_reason,
            Some(FinishReason::Length),
            "{provider:?}"
        );
        assert_eq!(meta.usage.input_tokens, Some(100), "{provider:?}");
        assert_eq!(meta.usage.output_tokens, Some(20), "{provider:?}");
        if provider != Shape::Ollama {
            assert_eq!(meta.usage.cached_input_tokens, Some(40), "{provider:?}");
        }
    }
}
