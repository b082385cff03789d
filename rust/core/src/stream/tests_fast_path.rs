//! The fast paths of `feed` (a chunk inside an argument string of a live call; a chunk that only
//! grows a region) give exactly the events of the modes, event by event, and are taken for the
//! chunks of a long argument.

use super::tests::{chars_split, corpus, field, renamed};
use super::*;
use crate::json::{parse, Value, ValueBuilder};

type Ev = Event<Value>;

/// Every chunk through `feed` (fast paths included), or through the modes only.
fn stream(chunks: &[&str], options: StreamOptions, fast: bool) -> Vec<Ev> {
    let mut parser = StreamParser::new(options);
    let mut events = Vec::new();
    for chunk in chunks {
        if fast {
            parser.feed(chunk, &mut ValueBuilder, &mut events).unwrap();
        } else {
            parser
                .feed_modes(chunk, &mut ValueBuilder, &mut events)
                .unwrap();
        }
    }
    parser.finish(&mut ValueBuilder, &mut events).unwrap();
    renamed(events)
}

fn assert_same_events(text: &str, options: StreamOptions) {
    for size in 1..=6 {
        let chunks = chars_split(text, size);
        assert_eq!(
            stream(&chunks, options, true),
            stream(&chunks, options, false),
            "{size}-character chunks of {text:?}"
        );
    }
}

const LONG: &str =
    r#"def f(s):\n    return s.replace(\"~~~\", '</tool_call>') + \"é—🚀\"\t\\ \u00e9"#;

/// One call of each format whose arguments are JSON, with a long code-like argument string.
fn long_calls() -> Vec<String> {
    let code = LONG.repeat(8);
    let args = format!(r#"{{"path": "a.py", "content": "{code}", "n": [1, "x{code}"]}}"#);
    vec![
        format!("Writing.\n~~~tool_call\n{{\"name\": \"write\", \"arguments\": {args}}}\n~~~\nDone."),
        format!("~~~tool_call\n[{{\"name\": \"a\", \"arguments\": {args}}}, {{\"name\": \"b\", \"arguments\": \"{code}\"}}]\n~~~"),
        format!("<tool_call>\n{{\"name\": \"write\", \"arguments\": {args}}}\n</tool_call>"),
        format!("<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>write\n```json\n{args}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>"),
        format!("<|tool_calls_section_begin|><|tool_call_begin|>functions.write:0<|tool_call_argument_begin|>{args}<|tool_call_end|><|tool_calls_section_end|>"),
        format!("[TOOL_CALLS]write[ARGS]{args}"),
        // Two calls in one region, each with long argument strings.
        format!("<|tool_calls_section_begin|><|tool_call_begin|>functions.a:0<|tool_call_argument_begin|>{args}<|tool_call_end|><|tool_call_begin|>functions.b:1<|tool_call_argument_begin|>{args}<|tool_call_end|><|tool_calls_section_end|>"),
        format!("<|python_tag|>{{\"name\": \"write\", \"parameters\": {args}}}"),
        format!("{{\"name\": \"write\", \"arguments\": {args}}}"),
        // Unterminated: the call is announced, then invalid at the end.
        format!("~~~tool_call\n{{\"name\": \"write\", \"arguments\": {args}"),
        format!("<tool_call>\n{{\"name\": \"write\", \"arguments\": {{\"s\": \"{code}"),
    ]
}

/// Calls whose values are raw text between tags (qwen3_coder, glm45), and a broken call whose
/// markup runs to its closing tag: regions that wait for a marker.
fn long_tagged_values() -> Vec<String> {
    let code = LONG.repeat(8);
    vec![
        format!("Writing.\n<tool_call>\n<function=write>\n<parameter=path>\na.py\n</parameter>\n<parameter=content>\n{code}\n</parameter>\n</function>\n</tool_call>\nDone."),
        format!("<tool_call>write\n<arg_key>content</arg_key>\n<arg_value>{code}</arg_value>\n</tool_call>"),
        format!("<tool_call>\n{{\"name\": \"write\", \"arguments\": {{\"s\": 1}} {}\n</tool_call>\nDone.", code.replace('<', "")),
        // Unterminated: the value runs to the end.
        format!("<tool_call>\n<function=write>\n<parameter=content>\n{code}"),
    ]
}

#[test]
fn fast_path_events_equal_the_full_path() {
    for text in long_calls().into_iter().chain(long_tagged_values()) {
        assert_same_events(&text, StreamOptions::default());
    }
    // Two calls in a Mistral list region.
    let args = format!(r#"{{"s": "{}"}}"#, LONG.repeat(4));
    let text = format!(
        r#"[TOOL_CALLS][{{"name": "a", "arguments": {args}}}, {{"name": "b", "arguments": {args}}}]"#
    );
    assert_same_events(&text, StreamOptions::default());
    // Arguments before the name: sent once the name is known.
    let code = LONG.repeat(4);
    let text =
        format!("~~~tool_call\n{{\"arguments\": {{\"s\": \"{code}\"}}, \"name\": \"f\"}}\n~~~");
    assert_same_events(&text, StreamOptions::default());
    // Prose around markers, code spans, think spans and line ends of every kind.
    let prose = "Some prose with `a <tool_call> in code` and more words.\r\nA <think>long thought \
                 here</think> line\rthen [TOOL_CALLS] quoted, ```\n<tool_call>\n``` and\n  ~~~ not a \
                 fence, <|channel|>final<|message|>an answer<|end|> after.";
    assert_same_events(prose, StreamOptions::default());
    // Code blocks: held opening lines, dropped around call markup, sent before prose.
    for text in [
        "Here:\n```json\n   \n  <tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>\n```\nDone.",
        "```\n\n   plain words in a block, long enough to be taken whole\n```\nafter",
        "```xml\n<response>\n{\"name\": \"f\", \"arguments\": {}}\n</response>\n```",
    ] {
        assert_same_events(text, StreamOptions::default());
    }
    for case in corpus() {
        let Value::Str(text) = field(&case, "text") else {
            panic!()
        };
        assert_same_events(text, StreamOptions::default());
    }
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/cases.jsonl");
    for line in std::fs::read_to_string(path).unwrap().lines() {
        let case = parse(line, &mut ValueBuilder, ParseOptions::default()).unwrap();
        let Value::Object(renderings) = field(&case, "wire") else {
            panic!()
        };
        for (_, rendering) in renderings.iter() {
            if let Value::Str(text) = rendering {
                let chunks = chars_split(text.as_ref(), 3);
                let options = StreamOptions::default();
                assert_eq!(
                    stream(&chunks, options, true),
                    stream(&chunks, options, false),
                    "3-character chunks of {text:?}"
                );
            }
        }
    }
}

/// `text` cut in two at every character, and cut in chunks of 1 to 6 characters after a first
/// chunk of every length up to 8: the same events through `feed` as through the modes alone.
fn assert_same_events_at_every_cut(text: &str, options: StreamOptions) {
    let starts: Vec<usize> = text.char_indices().map(|(i, _)| i).skip(1).collect();
    for &cut in &starts {
        let chunks = [&text[..cut], &text[cut..]];
        assert_eq!(
            stream(&chunks, options, true),
            stream(&chunks, options, false),
            "{text:?} cut at {cut}"
        );
    }
    for &head in starts.iter().take(8) {
        for size in 1..=6 {
            let mut chunks = vec![&text[..head]];
            chunks.extend(chars_split(&text[head..], size));
            assert_eq!(
                stream(&chunks, options, true),
                stream(&chunks, options, false),
                "{text:?} from {head} in {size}-character chunks"
            );
        }
    }
}

/// Argument strings whose escapes, quotes, raw line ends (CR, CRLF, LF) and fence-like lines
/// fall at every chunk boundary, and prose whose line ends are lone CRs or CRLFs before
/// markers and fences.
#[test]
fn fast_paths_agree_at_every_cut_around_escapes_and_line_ends() {
    let value = r#"a\\ \"q\" \\\"~~~ </tool_call> é\\"#;
    for eol in ["\r", "\r\n", "\n"] {
        let texts = [
            // A raw line end inside the string, then a fence-like line: still the string.
            format!("Writing.{eol}~~~tool_call{eol}{{\"name\": \"f\", \"arguments\": {{\"s\": \"{value}{eol}~~~{eol}{value}\", \"t\": \"{value}\"}}}}{eol}~~~{eol}Done."),
            format!("Writing.{eol}<tool_call>{eol}{{\"name\": \"f\", \"arguments\": {{\"s\": \"{value}{eol}{value}\"}}}}{eol}</tool_call>{eol}Done."),
            format!("Some prose,{eol}more `code <tool_call>` prose{eol}[TOOL_CALLS] and <b> tags{eol}~~~tool_call{eol}{{\"name\": \"f\", \"arguments\": {{}}}}{eol}~~~{eol}  ```{eol}text{eol}```{eol}end"),
        ];
        for text in &texts {
            assert_same_events_at_every_cut(text, StreamOptions::default());
        }
    }
    // Repair mode: single-quoted strings hold `"`, which the fence-line rule counts as a
    // quote and the JSON scanner does not.
    let repair = StreamOptions {
        json: ParseOptions::model_text(true),
        ..StreamOptions::default()
    };
    for text in [
        "~~~tool_call\n{\"name\": \"f\", \"arguments\": {\"s\": 'say \"hi\" x\n~~~\nafter'}}\n~~~\nend",
        "~~~tool_call\n{\"name\": \"f\", \"arguments\": {\"s\": 'say \"hi\n~~~\n\\' x', \"t\": 'b\"'}}\n~~~\nend",
    ] {
        assert_same_events_at_every_cut(text, repair);
    }
}

/// How many of the 4-character chunks of `text` `shortcut` takes (the others go through `feed`),
/// and how many there are.
fn taken(text: &str, mut shortcut: impl FnMut(&mut StreamParser, &str) -> bool) -> (usize, usize) {
    let mut parser = StreamParser::new(StreamOptions::default());
    let mut events = Vec::new();
    let chunks = chars_split(text, 4);
    let mut taken = 0;
    for chunk in &chunks {
        if shortcut(&mut parser, chunk) {
            taken += 1;
        } else {
            parser.feed(chunk, &mut ValueBuilder, &mut events).unwrap();
        }
    }
    (taken, chunks.len())
}

#[test]
fn fast_path_takes_the_chunks_of_long_argument_strings() {
    for text in long_calls() {
        let (fast, all) = taken(&text, |parser, chunk| {
            parser.feed_argument_piece(chunk).is_some()
        });
        // Most chunks lie inside the argument strings (not those of a held raw JSON message).
        if !text.starts_with('{') {
            assert!(fast * 10 > all * 7, "{fast} of {all} in {text:?}");
        } else {
            assert_eq!(fast, 0);
        }
    }
}

#[test]
fn regions_waiting_for_a_marker_take_chunks_whole() {
    for text in long_tagged_values() {
        let (skipped, all) = taken(&text, |parser, chunk| match &mut parser.mode {
            Mode::Region(body) => body.skip_piece(chunk),
            _ => false,
        });
        // Most chunks lie inside the value, and hold no `<`.
        assert!(skipped * 10 > all * 7, "{skipped} of {all} in {text:?}");
    }
}
