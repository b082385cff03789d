use super::*;
use crate::extract::{parse_raw_json, parse_text_tagged};
use crate::json::{parse, Value, ValueBuilder};

type Ev = Event<Value>;

fn options() -> StreamOptions {
    StreamOptions::default()
}

pub(super) fn stream_chunks(chunks: &[&str], options: StreamOptions) -> Vec<Ev> {
    let mut parser = StreamParser::new(options);
    let mut events = Vec::new();
    for chunk in chunks {
        parser.feed(chunk, &mut ValueBuilder, &mut events).unwrap();
    }
    parser.finish(&mut ValueBuilder, &mut events).unwrap();
    events
}

/// Coalesced events with generated ids replaced by their order of appearance.
pub(super) fn normalized(events: Vec<Ev>) -> Vec<Ev> {
    renamed(coalesce(events))
}

/// Events with generated ids replaced by their order of appearance.
pub(super) fn renamed(events: Vec<Ev>) -> Vec<Ev> {
    let mut ids: Vec<String> = Vec::new();
    let mut rename = |id: &str| -> String {
        if !id.starts_with("call_") || id.len() != 17 {
            return id.to_owned();
        }
        let k = ids.iter().position(|x| x == id).unwrap_or_else(|| {
            ids.push(id.to_owned());
            ids.len() - 1
        });
        format!("generated{k}")
    };
    events
        .into_iter()
        .map(|event| match event {
            Event::CallStart { index, id, name } => Event::CallStart {
                index,
                id: rename(&id),
                name,
            },
            Event::CallEnd { index, mut call } => {
                call.id = call.id.map(|id| rename(&id));
                Event::CallEnd { index, call }
            }
            other => other,
        })
        .collect()
}

pub(super) fn chars_split(text: &str, size: usize) -> Vec<&str> {
    let mut chunks = Vec::new();
    let mut start = 0;
    let mut count = 0;
    for (i, _) in text.char_indices() {
        if count == size {
            chunks.push(&text[start..i]);
            start = i;
            count = 0;
        }
        count += 1;
    }
    chunks.push(&text[start..]);
    chunks
}

/// Invariant 1 for every two-chunk split and 1-character chunks.
pub(super) fn assert_chunk_invariant(text: &str, options: StreamOptions) -> Vec<Ev> {
    let whole = normalized(stream_chunks(&[text], options));
    for (i, _) in text.char_indices().skip(1) {
        let split = normalized(stream_chunks(&[&text[..i], &text[i..]], options));
        assert_eq!(split, whole, "split at {i} of {text:?}");
    }
    let ones = normalized(stream_chunks(&chars_split(text, 1), options));
    assert_eq!(ones, whole, "1-char chunks of {text:?}");
    whole
}

pub(super) fn starts(events: &[Ev]) -> Vec<(usize, String)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::CallStart { index, name, .. } => Some((*index, name.clone())),
            _ => None,
        })
        .collect()
}

pub(super) fn args_text(events: &[Ev], index: usize) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            Event::CallDelta {
                index: i,
                arguments,
            } if *i == index => Some(arguments.as_str()),
            _ => None,
        })
        .collect()
}

fn parsed(text: &str) -> ParsedText<Value> {
    parse_text(&mut ValueBuilder, text, options()).unwrap()
}

fn calls(p: &ParsedText<Value>) -> Vec<(String, Value)> {
    good_calls(&p.calls)
}

fn good_calls(outcomes: &[Outcome<Value>]) -> Vec<(String, Value)> {
    outcomes
        .iter()
        .filter_map(|o| match o {
            Outcome::Call(c) => Some((c.name.clone(), c.arguments.clone())),
            Outcome::Invalid(_) => None,
        })
        .collect()
}

#[test]
fn fence_block_events() {
    let text =
        "Hi.\n~~~tool_call\n{\"name\": \"f\", \"arguments\": {\"a\": \"x\\n~~~\"}}\n~~~\nBye.";
    let events = assert_chunk_invariant(text, options());
    assert_eq!(events[0], Event::Text("Hi.\n".to_owned()));
    assert_eq!(starts(&events), vec![(0, "f".to_owned())]);
    assert_eq!(args_text(&events, 0), "{\"a\": \"x\\n~~~\"}");
    let Event::CallEnd { call, .. } = &events[3] else {
        panic!("{events:?}")
    };
    assert_eq!(call.arguments, Value::object([("a", Value::str("x\n~~~"))]));
    assert_eq!(events[4], Event::Text("Bye.".to_owned()));
}

#[test]
fn fence_inside_string_and_arrays_and_ids() {
    let text = "~~~tool_call\n[{\"id\": \"c1\", \"name\": \"f\", \"arguments\": {\"s\": \"a\n~~~\nb\"}}, {\"name\": \"g\", \"arguments\": null}]\n~~~\n";
    let events = assert_chunk_invariant(text, options());
    assert_eq!(
        starts(&events),
        vec![(0, "f".to_owned()), (1, "g".to_owned())]
    );
    assert!(events.contains(&Event::CallStart {
        index: 0,
        id: "c1".to_owned(),
        name: "f".to_owned()
    }));
    assert_eq!(args_text(&events, 1), "null");
    // A raw newline in a JSON string is the character itself: the fence line inside the
    // string does not end the block, both calls are read, and the deltas of the first join
    // to strict JSON (the newlines escaped).
    assert_eq!(args_text(&events, 0), r#"{"s": "a\n~~~\nb"}"#);
    let p = parsed(text);
    let f_arguments = Value::object([("s", Value::Str("a\n~~~\nb".into()))]);
    assert!(
        matches!(&p.calls[..], [Outcome::Call(f), Outcome::Call(g)] if f.arguments == f_arguments && g.name == "g")
    );
    let p = parsed(&text.replace("a\n~~~\nb", "a\\n~~~"));
    assert!(matches!(&p.calls[1], Outcome::Call(c) if c.arguments == Value::object([])));
}

#[test]
fn marker_prefix_is_released_as_text() {
    let events = stream_chunks(&["~~~tool_ca", "ke\n"], options());
    assert_eq!(
        normalized(events),
        vec![Event::Text("~~~tool_cake\n".to_owned())]
    );
    let events = stream_chunks(&["a <thi", "nk about"], options());
    assert_eq!(
        normalized(events),
        vec![Event::Text("a <think about".to_owned())]
    );
}

#[test]
fn unterminated_block_is_invalid_after_its_start() {
    let text = "~~~tool_call\n{\"name\": \"f\", \"arguments\": {\"a\": 1}}\n";
    let events = assert_chunk_invariant(text, options());
    assert!(matches!(&events[0], Event::CallStart { index: 0, name, .. } if name == "f"));
    let Event::Invalid(invalid) = events.last().unwrap() else {
        panic!("{events:?}")
    };
    assert_eq!(invalid.index, 0);
    assert_eq!(invalid.raw, text);
    assert!(invalid
        .message()
        .starts_with("unterminated ~~~tool_call block 0"));
    // The next opening fence ends it too, and the next block is still parsed.
    let text = "~~~tool_call\n{\"name\": \"f\"\n~~~tool_call\n{\"name\": \"g\"}\n~~~\n";
    let p = parsed(text);
    assert!(matches!(&p.calls[0], Outcome::Invalid(i) if i.offset == Some(0)));
    assert!(matches!(&p.calls[1], Outcome::Call(c) if c.name == "g"));
    assert_chunk_invariant(text, options());
}

#[test]
fn think_spans_are_reasoning_and_may_hold_calls() {
    let text = "<think>plan ~~~\n~~~tool_call\n{\"name\": \"f\"}\n~~~\n</think>done";
    let events = assert_chunk_invariant(text, options());
    assert_eq!(events[0], Event::Reasoning("plan ~~~\n".to_owned()));
    let p = parsed(text);
    assert_eq!(p.reasoning.as_deref(), Some("plan ~~~\n"));
    assert_eq!(p.content, "done");
    assert_eq!(p.calls.len(), 1);
    let no_calls = StreamOptions {
        calls_in_reasoning: false,
        ..options()
    };
    let p = parse_text(&mut ValueBuilder, text, no_calls).unwrap();
    assert!(p.calls.is_empty());
    assert!(p.reasoning.unwrap().contains("~~~tool_call"));
}

#[test]
fn code_blocks_hide_fences() {
    let text = "```\n~~~tool_call\n{\"name\": \"f\"}\n~~~\n```\nafter";
    let events = assert_chunk_invariant(text, options());
    assert_eq!(events, vec![Event::Text(text.to_owned())]);
    let text = "```python\nx = 1\n```\n~~~tool_call\n{\"name\": \"f\"}\n~~~\n";
    assert_eq!(parsed(text).calls.len(), 1);
    assert_chunk_invariant(text, options());
}

#[test]
fn raw_json_whole_and_fenced() {
    let text = "  {\"name\": \"f\", \"arguments\": {\"a\": [1, 2]}}\n";
    let events = assert_chunk_invariant(text, options());
    assert_eq!(starts(&events), vec![(0, "f".to_owned())]);
    assert_eq!(args_text(&events, 0), "{\"a\": [1, 2]}");
    let text = "Sure:\n```json\n{\"name\": \"f\", \"arguments\": {}}\n```\nDone.";
    let events = assert_chunk_invariant(text, options());
    assert_eq!(starts(&events), vec![(0, "f".to_owned())]);
    assert_eq!(parsed(text).content, "Sure:\nDone.");
    // Not calls: released as text, whole.
    for text in [
        "{\"answer\": 42} is the JSON",
        "[1] Introduction {x}",
        "Here:\n```json\n{\"a\": 1}\n```\n",
        "```python\nprint({})\n```\n",
        "```json\nnot json ~~~tool_call\n```\n",
        "{\"unclosed\": [1, 2",
    ] {
        let events = assert_chunk_invariant(text, options());
        assert_eq!(events, vec![Event::Text(text.to_owned())], "{text:?}");
    }
    // A broken call-like candidate is an error, not text.
    let p = parsed("{\"name\": \"f\", \"arguments\": {\"a\": }");
    assert!(matches!(&p.calls[..], [Outcome::Invalid(_)]));
    // Wrappers are decoded and their arguments sent as compact JSON.
    let text = "{\"tool_calls\": [{\"id\": \"x\", \"function\": {\"name\": \"f\", \"arguments\": \"{\\\"a\\\": 1}\"}}]}";
    let events = assert_chunk_invariant(text, options());
    assert_eq!(args_text(&events, 0), "{\"a\":1}");
    assert!(events.contains(&Event::CallStart {
        index: 0,
        id: "x".to_owned(),
        name: "f".to_owned()
    }));
}

#[test]
fn bytes_split_inside_characters() {
    let text = "é😀 ~~~\n~~~tool_call\n{\"name\": \"ü\", \"arguments\": {\"k\": \"中😀\"}}\n~~~\n";
    let whole = normalized(stream_chunks(&[text], options()));
    let bytes = text.as_bytes();
    for cut in 1..bytes.len() {
        let mut parser = StreamParser::new(options());
        let mut events = Vec::new();
        parser
            .feed_bytes(&bytes[..cut], &mut ValueBuilder, &mut events)
            .unwrap();
        parser
            .feed_bytes(&bytes[cut..], &mut ValueBuilder, &mut events)
            .unwrap();
        parser.finish(&mut ValueBuilder, &mut events).unwrap();
        assert_eq!(normalized(events), whole, "cut at byte {cut}");
    }
    let mut parser = StreamParser::new(options());
    let mut events = Vec::new();
    for b in bytes {
        parser
            .feed_bytes(&[*b], &mut ValueBuilder, &mut events)
            .unwrap();
    }
    parser.finish(&mut ValueBuilder, &mut events).unwrap();
    assert_eq!(normalized(events), whole);
    let mut parser = StreamParser::new(options());
    assert_eq!(
        parser.feed_bytes(b"ab\xffc", &mut ValueBuilder, &mut Vec::new()),
        Err(StreamError::Utf8 { offset: 2 })
    );
    let mut parser = StreamParser::new(options());
    parser
        .feed_bytes(b"ab\xc3", &mut ValueBuilder, &mut Vec::new())
        .unwrap();
    assert_eq!(
        parser.finish(&mut ValueBuilder, &mut Vec::new()),
        Err(StreamError::Utf8 { offset: 2 })
    );
}

/// Text emitted so far is never more than one marker behind the input (outside calls).
#[test]
fn held_back_text_is_bounded() {
    let text = "Some prose with <b>tags</b>, ~~~ tildes ~~~tool_calls\n```py\n<thin\n``\n~~~tool_ca\n<think>r</think> end `x`";
    let mut parser = StreamParser::new(options());
    let mut events = Vec::new();
    let mut fed = 0;
    let longest = "~~~tool_call".len();
    for chunk in chars_split(text, 1) {
        parser.feed(chunk, &mut ValueBuilder, &mut events).unwrap();
        fed += chunk.len();
        let released: usize = events
            .iter()
            .map(|e| match e {
                Event::Text(t) | Event::Reasoning(t) => t.len(),
                _ => 0,
            })
            .sum();
        let markers = "<think></think>".len() * usize::from(fed > text.find("</think>").unwrap());
        assert!(
            fed - released - markers.min(fed - released) <= longest,
            "at {fed}"
        );
    }
}

#[test]
fn long_arguments_in_tiny_chunks_are_linear() {
    let code = "fn main() { println!(\\\"{}\\\", \\\"~~~\\\"); }\\n".repeat(20_000);
    let text = format!(
        "~~~tool_call\n{{\"name\": \"write\", \"arguments\": {{\"code\": \"{code}\"}}}}\n~~~\n"
    );
    let mut parser = StreamParser::new(options());
    let mut events = Vec::new();
    for chunk in text.as_bytes().chunks(3) {
        parser
            .feed_bytes(chunk, &mut ValueBuilder, &mut events)
            .unwrap();
    }
    parser.finish(&mut ValueBuilder, &mut events).unwrap();
    let args = args_text(&events, 0);
    assert_eq!(args, format!("{{\"code\": \"{code}\"}}"));
    assert!(matches!(events.last(), Some(Event::CallEnd { .. })));
}

#[test]
fn whitespace_floods_stay_linear() {
    let text = format!(
        "~~~tool_call{}x\n{}",
        " ".repeat(200_000),
        "\n ".repeat(100_000)
    );
    let events = stream_chunks(&chars_split(&text, 1), options());
    assert_eq!(normalized(events), vec![Event::Text(text.clone())]);
}

pub(super) fn corpus() -> Vec<Value> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/data/streams.jsonl"
    );
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|line| {
            parse(
                line,
                &mut crate::json::ValueBuilder,
                ParseOptions::default(),
            )
            .unwrap()
        })
        .collect()
}

pub(super) fn field<'a>(value: &'a Value, key: &str) -> &'a Value {
    match value {
        Value::Object(members) => &members.iter().find(|(k, _)| k == key).unwrap().1,
        _ => panic!("not an object"),
    }
}

#[test]
fn corpus_streams_give_their_calls() {
    let mut checked = 0;
    for case in corpus() {
        let Value::Str(protocol) = field(&case, "protocol") else {
            panic!()
        };
        if &**protocol != "text_tagged" && &**protocol != "raw_json" {
            continue;
        }
        let Value::Str(text) = field(&case, "text") else {
            panic!()
        };
        let Value::Array(expected) = field(&case, "calls") else {
            panic!()
        };
        let expected: Vec<(String, Value)> = expected
            .iter()
            .map(|c| match (field(c, "name"), field(c, "arguments")) {
                (Value::Str(n), a) => (n.to_string(), a.clone()),
                _ => panic!(),
            })
            .collect();
        let p = parsed(text);
        assert_eq!(calls(&p), expected, "{}", text);
        // Stream ≡ batch: the batch parsers find the same calls.
        let batch = if &**protocol == "text_tagged" {
            parse_text_tagged(&mut ValueBuilder, text, ParseOptions::model_text(false)).unwrap()
        } else {
            parse_raw_json(
                &mut ValueBuilder,
                text,
                RawJsonMode::Fenced,
                ParseOptions::model_text(false),
            )
            .unwrap()
        };
        assert_eq!(batch.len(), p.calls.len());
        // Raw argument bytes, in 7-character chunks.
        let events = stream_chunks(&chars_split(text, 7), options());
        assert_eq!(
            normalized(events.clone()),
            normalized(stream_chunks(&[text], options()))
        );
        for event in &events {
            if let Event::CallEnd { index, call } = event {
                let raw = args_text(&events, *index);
                if &**protocol == "text_tagged" {
                    assert!(text.contains(&raw));
                }
                let decoded = parse(
                    &raw,
                    &mut crate::json::ValueBuilder,
                    ParseOptions::default(),
                )
                .unwrap();
                assert_eq!(decoded, call.arguments);
            }
        }
        checked += 1;
    }
    assert_eq!(checked, 55);
}

#[test]
fn small_corpus_texts_are_chunk_invariant() {
    for case in corpus() {
        let Value::Str(text) = field(&case, "text") else {
            panic!()
        };
        if text.len() < 400 {
            assert_chunk_invariant(text, options());
        }
    }
}

/// Generated texts from fragments that stress the boundaries: chunk invariance everywhere, and
/// with only `~~~tool_call` enabled the calls equal the batch parser's.
#[test]
fn generated_texts_match_batch_and_any_chunking() {
    let fragments = [
        "plain ",
        "\n",
        "~~~tool_call\n",
        "{\"name\": \"f\", \"arguments\": {\"a\": \"~~~\\n}\"}}\n",
        "~~~\n",
        "```\n",
        // Code fences of other kinds and lengths (CommonMark's rules, in both parsers).
        "~~~xml\n",
        "````\n",
        "``` x\n",
        "~~~~\n",
        "<think>",
        "</think>",
        "\"",
        "[{\"name\": \"g\", \"parameters\": {}}]\n",
        "  ~~~tool_call \r\n",
        "~~~tool_ca",
        "{\"id\": 5, \"name\": \"h\", \"arguments\": \"{\\\"x\\\": 1}\"}",
        "é😀",
    ];
    // No raw JSON, not even a format's whole-message JSON (`Grammar::WHOLE_JSON`: hermes's,
    // HyperCLOVA X's) or a bare Llama 3 call object (which may spell its arguments
    // `"arguments"`).
    let whole_json = Group::ALL
        .iter()
        .fold(FormatSet::NONE, |set, group| set.union(group.whole_json()));
    let tagged_only = StreamOptions {
        raw_json: None,
        formats: FormatSet::ALL
            .iter()
            .filter(|&f| !whole_json.contains(f) && f != Format::Llama3Json)
            .fold(FormatSet::NONE, FormatSet::with),
        ..options()
    };
    let mut seed: u64 = 0x9e3779b97f4a7c15;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for _ in 0..250 {
        let count = 1 + (next() % 6) as usize;
        let text: String = (0..count)
            .map(|_| fragments[(next() % fragments.len() as u64) as usize])
            .collect();
        assert_chunk_invariant(&text, options());
        let events = assert_chunk_invariant(&text, tagged_only);
        if text.contains("<think>") || text.contains("</think>") {
            continue;
        }
        let batch =
            parse_text_tagged(&mut ValueBuilder, &text, ParseOptions::model_text(false)).unwrap();
        let stream = collect(events, false).calls;
        // Documented difference: the indentation before an opening fence is text. A failed
        // block fails once per call it had begun, in both.
        let shape = |o: &Outcome<Value>| match o {
            Outcome::Call(c) => Ok((c.name.clone(), c.arguments.clone())),
            Outcome::Invalid(i) => Err((i.raw.trim_start().to_owned(), i.name.clone())),
        };
        let stream: Vec<_> = stream.iter().map(shape).collect();
        assert_eq!(
            stream,
            batch.iter().map(shape).collect::<Vec<_>>(),
            "{text:?}"
        );
    }
}

/// Found by the `stream` fuzz target: after a character cut between two chunks, the offset
/// of a later bad byte counted the held bytes twice.
#[test]
fn utf8_error_offsets_after_a_split_character() {
    let feed_all = |chunks: &[&[u8]]| {
        let mut parser = StreamParser::new(options());
        let mut events = Vec::new();
        for chunk in chunks {
            parser.feed_bytes(chunk, &mut ValueBuilder, &mut events)?;
        }
        parser.finish(&mut ValueBuilder, &mut events)
    };
    // "é" cut in two, then a bad byte at offset 3.
    assert_eq!(
        feed_all(&[b"a\xc3", b"\xa9\xff"]),
        Err(StreamError::Utf8 { offset: 3 })
    );
    // A held lead byte that the next chunk does not continue: the error is at the lead byte.
    assert_eq!(
        feed_all(&[b"ab\xe2", b"\x96x!"]),
        Err(StreamError::Utf8 { offset: 2 })
    );
    // Cut twice, then cut again at the end of the text.
    assert_eq!(
        feed_all(&[b"\xf0\x9f", b"\x98", b"\x80z\xe2\x96"]),
        Err(StreamError::Utf8 { offset: 5 })
    );
}

/// Found by the `stream` fuzz target in repair mode: a `'` in one block opened a string for the
/// stream (the lenient call scanner) but not for the batch scanner, so the two ended the block
/// at different lines. Fence lines now follow the batch rule (`"` strings only) in both modes.
#[test]
fn repair_mode_fence_lines_agree_with_batch() {
    let repair = StreamOptions {
        raw_json: None,
        formats: FormatSet::NONE,
        json: ParseOptions::json(true),
        ..options()
    };
    let texts = [
        "~~~tool_call\n'\n~~~\n```'\"\"\n~~~tool_call\n{\"name\":\"f\"\n~~~\n",
        "~~~tool_call\n{'name': 'f', 'arguments': {'a': 'x\n~~~\n'}}\n~~~\n",
        "~~~tool_call\n{'name': 'f\\\n~~~\n~~~tool_call\n{'name': 'g'}\n~~~\n",
        "~~~tool_call\n{'name': 'f', 'arguments': {'a': \"it's\"}}\n~~~\n",
    ];
    for text in texts {
        let events = assert_chunk_invariant(text, repair);
        let stream = collect(events, false).calls;
        let batch = parse_text_tagged(&mut ValueBuilder, text, repair.json).unwrap();
        assert_eq!(good_calls(&stream), good_calls(&batch), "{text:?}");
    }
}

/// In repair mode the lenient scanner reads `[TOOL_CALLS]` as a JSON list (`TOOL_CALLS` an
/// unquoted word): a marker at a message-start `[`, whole or cut by a chunk, is read as a
/// marker, as in strict mode, not as a raw-JSON candidate that reads it as JSON.
#[test]
fn repair_mode_message_start_marker_is_a_marker() {
    let think = "[THINK]hmm[/THINK]Answer";
    for json in [
        ParseOptions::model_text(false),
        ParseOptions::model_text(true),
    ] {
        let options = StreamOptions { json, ..options() };
        let events = assert_chunk_invariant(think, options);
        let parsed = collect(events, false);
        assert_eq!(parsed.reasoning.as_deref(), Some("hmm"));
        assert_eq!(parsed.content, "Answer");
    }
    for formats in [FormatSet::ALL, FormatSet::only(Format::Mistral)] {
        let repair = StreamOptions {
            formats,
            json: ParseOptions::model_text(true),
            ..options()
        };
        for text in [
            "[TOOL_CALLS][{\"name\": \"f\", \"arguments\": {\"a\": 1}}]",
            "[TOOL_CALLS]f{\"a\": 1}",
            "[TOOL_CALLS]f[ARGS]{\"a\": 1}",
            "[TOOL",
            "[{\"name\": \"f\", \"arguments\": {}}]",
        ] {
            let events = assert_chunk_invariant(text, repair);
            let calls = collect(events, false).calls;
            assert_eq!(
                good_calls(&calls).len(),
                usize::from(text.len() > 5),
                "{text:?}"
            );
        }
    }
}

/// A block that fails as a whole after the stream numbered an item before a call it announced
/// (`[1] [{…}]`: the `[1]` took index 0, the call 1) fails once per number, in order, on the
/// stream and in the batch, closed or not: the indices are the calls' positions.
#[test]
fn a_block_failing_whole_fails_once_per_number_in_order() {
    let tagged = StreamOptions {
        raw_json: None,
        formats: FormatSet::NONE,
        ..options()
    };
    let call = "{\"name\": \"s\", \"arguments\": {}}";
    for (text, names) in [
        (format!("~~~tool_call\n[1] [{call}]"), vec![None, Some("s")]),
        (
            format!("~~~tool_call\n[1] [{call}]\n~~~\n"),
            vec![None, Some("s")],
        ),
        (
            format!("~~~tool_call\n[{call}, 3, {call}]"),
            vec![Some("s"), None, Some("s")],
        ),
        (
            format!("~~~tool_call\n{call}\n{call}\n"),
            vec![Some("s"), Some("s")],
        ),
    ] {
        let events = assert_chunk_invariant(&text, tagged);
        let batch = parse_text_tagged(&mut ValueBuilder, &text, tagged.json).unwrap();
        for outcomes in [collect(events, false).calls, batch] {
            let got: Vec<_> = outcomes
                .iter()
                .map(|o| match o {
                    Outcome::Invalid(i) => (i.index, i.name.clone()),
                    Outcome::Call(c) => panic!("{text:?}: {c:?} is not invalid"),
                })
                .collect();
            let want: Vec<_> = names
                .iter()
                .enumerate()
                .map(|(k, n)| (k, n.map(str::to_owned)))
                .collect();
            assert_eq!(got, want, "{text:?}");
        }
    }
}

/// Found by the `stream` fuzz target: a block left unterminated inside a string, then the next
/// block's opening line. A chunk that ended inside that line sent its bytes (`~~~tool_cal`) as
/// arguments before the line was known to open a block and end this one; one feed did not.
#[test]
fn an_opening_line_inside_an_open_string_is_not_sent_as_arguments() {
    let text = "Call.\n\n~~~tool_call\n{\n  \"name\": \"f\",\n  \"arguments\": {\n    \"a\": \"x\n\n~~~tool_call\n{\n  \"s soon.";
    let events = assert_chunk_invariant(text, options());
    assert!(!args_text(&events, 0).contains('~'), "{events:?}");
}

/// A broken body that repeats the `"name"` key: the announced name is the one known when the
/// call was announced, however the text is chunked.
#[test]
fn repeated_name_keys_announce_one_name() {
    for text in [
        "~~~tool_call\n{\"name\": \"a\", \"arguments\": {}, \"name\": \"b\", oops}\n~~~\n",
        "~~~tool_call\n{\"name\": \"a\", \"arguments\": {\n}, \"name\": \"b\"\n~~~\n",
        "<tool_call>{\"name\": \"a\", \"arguments\": {}, \"name\": \"b\" x</tool_call>",
    ] {
        let events = assert_chunk_invariant(text, options());
        assert_eq!(starts(&events), vec![(0, "a".to_owned())], "{text:?}");
    }
}

/// A byte order mark (like the other invisible indentation characters) pads a line before a
/// fence; in the middle of a line it is an ordinary character. The stream and the batch
/// scanner agree, however the text is chunked.
#[test]
fn byte_order_mark_before_a_fence() {
    let block = "~~~tool_call\n{\"name\": \"f\", \"arguments\": {}}\n~~~\n";
    let cases = [
        (format!("\u{feff}{block}"), 1),
        (format!("\u{feff} \t{block}"), 1),
        (format!("\u{feff}```\n{block}```\n"), 0),
        (format!("hi\n\u{feff}{block}"), 1),
        (format!("\u{feff}\u{feff}{block}"), 1),
        (format!("x{block}\u{feff}{block}"), 1),
        (format!("hi \u{feff}{block}"), 0),
        (format!("\u{200c}{block}"), 0),
    ];
    let tagged_only = StreamOptions {
        raw_json: None,
        formats: FormatSet::NONE,
        ..options()
    };
    for (text, expected) in cases {
        let events = assert_chunk_invariant(&text, tagged_only);
        let stream = collect(events, false).calls;
        let batch =
            parse_text_tagged(&mut ValueBuilder, &text, ParseOptions::model_text(false)).unwrap();
        assert_eq!(good_calls(&stream).len(), expected, "{text:?}");
        assert_eq!(good_calls(&stream), good_calls(&batch), "{text:?}");
    }
}
