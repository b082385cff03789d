//! The open-weight formats through the stream engine: every corpus stream and every case rendering
//! gives the one-shot parser's calls, content and reasoning, under any chunking; held-back text
//! stays bounded; long arguments and marker floods stay linear.

use std::sync::Arc;

use super::tests::{
    args_text, assert_chunk_invariant, chars_split, corpus, field, normalized, starts,
    stream_chunks,
};
use super::*;
use crate::formats::{Format, ParamTypes, ToolSchemas};
use crate::json::{parse, to_compact_json, Value, ValueBuilder};
use crate::scan::think::OPEN_TOKENS;

type Ev = Event<Value>;

fn run(chunks: &[&str], options: StreamOptions, tools: Option<Arc<ToolSchemas>>) -> Vec<Ev> {
    let mut parser = StreamParser::with_tools(options, tools);
    let mut events = Vec::new();
    for chunk in chunks {
        parser.feed(chunk, &mut ValueBuilder, &mut events).unwrap();
    }
    parser.finish(&mut ValueBuilder, &mut events).unwrap();
    events
}

/// A call as `name args-json`, a failure as `!raw`. (Ids are checked apart: a
/// model id written after the arguments cannot be the id of a call announced before it.)
fn shape(outcome: &Outcome<Value>) -> String {
    match outcome {
        Outcome::Call(c) => format!("{} {}", c.name, to_compact_json(&c.arguments)),
        // The raw text only: a one-shot parser that looked past a broken call's markup may
        // word its reason differently from the decode of the streamed region.
        Outcome::Invalid(i) => format!("!{}", i.raw),
    }
}

/// Random cut points from a small xorshift generator (reproducible).
struct Cuts(u64);

impl Cuts {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn split<'t>(&mut self, text: &'t str, pieces: usize) -> Vec<&'t str> {
        let mut cuts: Vec<usize> = (0..pieces)
            .map(|_| {
                let mut at = (self.next() % (text.len() as u64 + 1)) as usize;
                while !text.is_char_boundary(at) {
                    at -= 1;
                }
                at
            })
            .collect();
        cuts.sort_unstable();
        let mut out = Vec::new();
        let mut start = 0;
        for cut in cuts {
            out.push(&text[start..cut]);
            start = cut;
        }
        out.push(&text[start..]);
        out
    }
}

/// Stream ≡ batch for one format, and chunk invariance (1-character chunks, random cuts).
/// Returns the calls' shapes.
fn check(
    format: Format,
    text: &str,
    tools: Option<Arc<ToolSchemas>>,
    cuts: &mut Cuts,
) -> Vec<String> {
    let options = StreamOptions::only(format);
    let events = run(&[text], options, tools.clone());
    let streamed = collect(events.clone(), false);
    // The calls-only parse `extract` runs (no announcements, ids or text) finds the same calls.
    let tools_ref = tools.as_deref().map(|t| t as &dyn ParamTypes);
    let quiet = read_calls(&mut ValueBuilder, text, options, tools_ref)
        .unwrap()
        .outcomes;
    let shapes: Vec<String> = streamed.calls.iter().map(shape).collect();
    assert_eq!(
        shapes,
        quiet.iter().map(shape).collect::<Vec<_>>(),
        "{format:?} calls of {text:?}"
    );
    // Raw bytes: JSON arguments are the model's own text; the others, compact JSON.
    for event in &events {
        if let Event::CallEnd { index, call } = event {
            let raw = args_text(&events, *index);
            let mut decoded = parse(&raw, &mut ValueBuilder, ParseOptions::default()).unwrap();
            if let Value::Str(inner) = &decoded {
                // Double-encoded arguments: the model's bytes are a JSON string.
                decoded = parse(inner, &mut ValueBuilder, ParseOptions::default()).unwrap();
            }
            assert_eq!(
                decoded, call.arguments,
                "{format:?} deltas {raw:?} of {text:?}"
            );
            if !matches!(
                format,
                Format::Qwen3Coder | Format::Glm45 | Format::Pythonic
            ) {
                // (A call without arguments text gets the compact JSON of `{}`.)
                let own_bytes = text.contains(&raw) || raw == to_compact_json(&call.arguments);
                assert!(own_bytes, "{format:?} deltas {raw:?} of {text:?}");
            }
        }
    }
    let whole = normalized(events);
    let ones = normalized(run(&chars_split(text, 1), options, tools.clone()));
    assert_eq!(ones, whole, "{format:?} 1-character chunks of {text:?}");
    for pieces in [1, 3, 12] {
        let chunks = cuts.split(text, pieces);
        let split = normalized(run(&chunks, options, tools.clone()));
        assert_eq!(split, whole, "{format:?} chunks {chunks:?}");
    }
    shapes
}

fn text_of(value: &Value) -> &str {
    match value {
        Value::Str(s) => s,
        _ => panic!("not a string"),
    }
}

fn tools_of(case: &Value) -> Option<Arc<ToolSchemas>> {
    match field(case, "tools") {
        Value::Array(items) => Some(Arc::new(ToolSchemas::from_tools(items))),
        _ => None,
    }
}

fn expected_names(case: &Value) -> Vec<String> {
    let Value::Array(calls) = field(case, "calls") else {
        panic!()
    };
    calls
        .iter()
        .map(|c| text_of(field(c, "name")).to_owned())
        .collect()
}

fn names(shapes: &[String]) -> Vec<String> {
    shapes
        .iter()
        .map(|s| s.split(' ').next().unwrap_or_default().to_owned())
        .collect()
}

#[test]
fn corpus_streams_of_every_format() {
    let mut cuts = Cuts(0x2545_f491_4f6c_dd1d);
    let mut checked = 0;
    for case in corpus() {
        let protocol = text_of(field(&case, "protocol"));
        let Some(format) = Format::parse(protocol) else {
            continue;
        };
        let text = text_of(field(&case, "text"));
        let shapes = check(format, text, tools_of(&case), &mut cuts);
        assert_eq!(names(&shapes), expected_names(&case), "{text:?}");
        // `formats="auto"` with the other tiers on finds them too.
        let auto = run(&[text], StreamOptions::default(), tools_of(&case));
        let auto: Vec<String> = collect(auto, false).calls.iter().map(shape).collect();
        assert_eq!(auto, shapes, "auto on {text:?}");
        checked += 1;
    }
    assert_eq!(checked, 245);
}

#[test]
fn case_renderings_of_every_format() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/cases.jsonl");
    let mut cuts = Cuts(0x9e37_79b9_7f4a_7c15);
    let mut checked = 0;
    for line in std::fs::read_to_string(path).unwrap().lines() {
        let case = parse(line, &mut ValueBuilder, ParseOptions::default()).unwrap();
        let expected = expected_names(&case);
        let wire = field(&case, "wire");
        for &format in Format::ALL {
            let Value::Object(members) = wire else {
                panic!()
            };
            let Some((_, Value::Str(text))) = members.iter().find(|(k, _)| k == format.as_str())
            else {
                continue;
            };
            let shapes = check(format, text, tools_of(&case), &mut cuts);
            assert_eq!(names(&shapes), expected, "{text:?}");
            checked += 1;
        }
    }
    // A few cases have no rendering in some formats.
    assert!(checked > 18_500, "{checked}");
}

/// The variants of the open-weight formats (and broken calls) of the one-shot tests: stream ≡
/// batch, any chunking.
#[test]
fn variants_match_the_one_shot_parsers() {
    use Format::*;
    let cases: &[(Format, &str)] = &[
        (Hermes, "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1}}\n</tool_call>"),
        (Hermes, r#"<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call><tool_call>{"name": "g", "parameters": {"b": "x"}}</tool_call>"#),
        (Hermes, "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1}}\n</tool_call>\n<tool_call>\n{\"name\": \"g\", \"arguments\": {}}\n"),
        (Hermes, r#"<tool_call>{"name": "f", "arguments": "{\"a\": 1}"}</tool_call>"#),
        (Hermes, r#"<tool_call>[{"name": "f", "arguments": {"a": 1}}, {"name": "g"}]</tool_call>"#),
        (Hermes, r#"<tool_call>{"name": "f", "arguments": {"s": "</tool_call>"}}</tool_call>"#),
        (Hermes, "<think>\nI should call f.\n</think>\n\nSure.\n<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1}}\n</tool_call>\nDone."),
        (Hermes, "<think>let me <tool_call>{\"name\": \"f\", \"arguments\": {\"a\": 1}}</tool_call></think>ok"),
        (Hermes, "ab<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": }}</tool_call><tool_call>{\"name\": \"g\", \"arguments\": [1]}</tool_call><tool_call>{\"name\": \"h\", \"arguments\": {}}</tool_call>"),
        (Hermes, "<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": 1}</tool_call> then <tool_call>{\"name\": \"g\"} x</tool_call>."),
        (Hermes, "Wrap calls in `<tool_call>` tags.\nUse `<tool_call>`:\n<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": 1}}</tool_call>"),
        (Qwen3Coder, "<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n<parameter=zip>\n03106\n</parameter>\n<parameter=s>\nhello world\n</parameter>\n</function>\n</tool_call>"),
        (Qwen3Coder, "<tool_call><function=f><parameter=a>1</parameter></function></tool_call>"),
        (Qwen3Coder, "text <function=f><parameter=a>1</parameter></function> more"),
        (Qwen3Coder, "<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n"),
        (Qwen3Coder, "<tool_call><function=f><parameter=o>\n{\"k\": [1, 2]}\n</parameter></function></tool_call>"),
        (Qwen3Coder, "<tool_call><function=f><parameter=a>1</function></tool_call><tool_call><function=g></function></tool_call>"),
        (Glm45, "<tool_call>f\n<arg_key>a</arg_key>\n<arg_value>1</arg_value>\n<arg_key>s</arg_key>\n<arg_value>x y</arg_value>\n</tool_call>"),
        (Glm45, "<tool_call>f<arg_key>a</arg_key><arg_value>1</arg_value></tool_call><tool_call>g</tool_call>"),
        (Glm45, "<tool_call>f g<arg_key>a</arg_key></tool_call> after"),
        (Glm45, "<tool_call>f<arg_key>x</arg_key><arg_value>hi  \n</tool_call>"),
        (Glm45, "<tool_call>f\n<arg_key>x</arg_key>\n<arg_value>a\r\n<arg_key>y</arg_key>\n<arg_value>b</arg_value>\n</tool_call>"),
        (Qwen3Coder, "<tool_call><function=g/></tool_call><tool_call><function=f><parameter=a/></function></tool_call>"),
        (Mistral, r#"[TOOL_CALLS][{"name": "f", "arguments": {"a": 1}, "id": "abc123XYZ"}, {"name": "g", "arguments": {}}]"#),
        (Mistral, r#"Sure. [TOOL_CALLS] [{"name": "f", "arguments": {"a": 1}}]"#),
        (Mistral, r#"[TOOL_CALLS]f[ARGS]{"a": 1}[TOOL_CALLS]g[CALL_ID]abc123XYZ[ARGS]{}"#),
        (Mistral, r#"[TOOL_CALLS]f{"a": 1}[TOOL_CALLS]g[ARGS]{}"#),
        (Llama3Json, r#"<|python_tag|>{"name": "f", "parameters": {"a": 1}}; {"name": "g", "parameters": {}}"#),
        (Llama3Json, r#"{"name": "f", "parameters": {"a": 1}}; {"name": "g", "parameters": {}}"#),
        (Llama3Json, r#"{"answer": 42}"#),
        (Llama3Json, r#"For example {"name": "f", "parameters": {}} is a call."#),
        (Llama3Json, r#"<|python_tag|>{"name": "f", "parameters": {"a": }"#),
        (Pythonic, "[f(a=1), g(b='x', c=True, d=None, e=[1, {'k': 2}])]"),
        (Pythonic, "<|python_start|>[math.factorial(number=5, t=(1, 2), s=\"it's\")]<|python_end|>"),
        (Pythonic, "[f(), g(a=-1.5e3,)]"),
        (Pythonic, "[f(a=x), g(b=1), h(1), k(c=__import__('os').system('rm'))]"),
        (Pythonic, "see [the docs](https://x) (f(a=1))"),
        (Pythonic, "[link](x)"),
        (DeepseekV31, "Let me check.\n\n<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{\"a\": 1}<｜tool▁call▁end｜><｜tool▁call▁begin｜>g<｜tool▁sep｜>{}<｜tool▁call▁end｜><｜tool▁calls▁end｜>"),
        (DeepseekV3, "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json\n{\"a\": 1}\n```<｜tool▁call▁end｜>\n<｜tool▁call▁begin｜>function<｜tool▁sep｜>g\n```json\n{}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>"),
        (DeepseekV31, "<｜tool▁call▁begin｜>f<｜tool▁sep｜>{\"a\": 1}"),
        (DeepseekV31, "<｜tool▁call▁begin｜>f{\"a\": 1}<｜tool▁call▁end｜><｜tool▁call▁begin｜>g<｜tool▁sep｜>{}<｜tool▁call▁end｜>"),
        (KimiK2, "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{\"a\": 1}<|tool_call_end|><|tool_call_begin|>functions.g:1<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>"),
        (KimiK2, "Let me look. <|tool_calls_section_begin|> <|tool_call_begin|> functions.math.gcd:0 <|tool_call_argument_begin|> {\"a\": 1} <|tool_call_end|> <|tool_calls_section_end|>"),
        (Harmony, "<|start|>assistant<|channel|>analysis<|message|>Need f.<|end|><|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json<|message|>{\"a\": 1}<|call|>"),
        (Harmony, "<|start|>assistant to=functions.calculus.derivative<|channel|>commentary <|constrain|>json<|message|>{\"a\": 1}<|call|>"),
        (Harmony, "<|channel|>commentary to=functions.f<|message|>{\"a\": 1}<|call|>"),
        (Harmony, "<|start|>assistant<|channel|>analysis to=f<|message|>{\"a\": 1}<|call|>"),
        (Harmony, "<|channel|>analysis<|message|>Think.<|end|><|start|>assistant<|channel|>final<|message|>The answer is 4.<|return|>"),
        (Harmony, "<|start|>assistant<|channel|>commentary to=functions.f<|message|>{\"a\": <|call|>"),
        (Harmony, "<|start|>assistant<|channel|>commentary to=functions.f<|message|><|call|>"),
        (Harmony, " to=functions.f<|channel|>commentary <|constrain|>json<|message|>{\"a\": 1}<|call|>"),
        (Harmony, " to=functions.f<|channel|>analysis <|constrain|>json<|message|>{\"a\": 1}"),
        (Harmony, "to=be or not to=be <|channel|>final<|message|>x"),
        (Qwen3Coder, "<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n</function>\n<function=g>{\"b\": 2}</function>\n</tool_call> done"),
        (Qwen3Coder, "<tool_call><function=f><parameter=a>1</parameter></function><function=g></function>x</tool_call>"),
        (KimiK2, "Hi.<|tool_call_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{\"a\": 1}<|tool_call_end|><|tool_call_section_end|> Bye."),
        (DeepseekV3, "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\r```json\r{\"a\": 1}\r```<｜tool▁call▁end｜>\r<｜tool▁call▁begin｜>function<｜tool▁sep｜>g\r\n```json\r\n{}\r\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>"),
        (Jamba, "<think>\nHm\n</think>\n<answer>\nSure.<tool_calls>[{\"name\": \"f\", \"arguments\": {\"a\": 1}}]</tool_calls>\n</answer>"),
        (Granite, "<think>Hm</think><response>Hello,\nworld!</response><|tool_call|>[{\"name\": \"f\", \"arguments\": {\"a\": 1}}]"),
        (SeedOss, "<seed:tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n</function>\n</seed:tool_call><seed:tool_call><function=g></function></seed:tool_call>"),
        (SeedOss, "<seed:think>Use <seed:tool_call><function=f></function></seed:tool_call>.</seed:think><seed:tool_call><function=f><parameter=a>1</parameter>"),
        (SeedOss, "<seed:tool_call>{\"name\": \"f\"}</seed:tool_call> then <seed:tool_call><function=g><parameter=a>1</function></seed:tool_call>"),
        (Gigachat3, "Sure.<|message_sep|>\n\nfunction call<|role_sep|>\n{\"name\": \"f\", \"arguments\": {\"a\": 1}}</s>"),
        (Gigachat3, "<|function_call|>{\"name\": \"f\", \"arguments\": {}}<|function_call|>{\"name\": \"g\", \"arguments\": {\"b\": [1]}} done"),
        (Gigachat3, "Hi<|message_sep|>\n\nassistant<|role_sep|>\nplain<|message_sep|>function call<|role_sep|>{\"name\": \"f\", \"arguments\": {invalid}}</s>x"),
        (Gigachat3, "<|function_call|>{\"name\": \"f\", \"arguments\": {\"a\": "),
        (Gigachat35, "<｜GCML｜tool_calls><｜GCML｜invoke name=\"f\"><｜GCML｜parameter name=\"a\" string=\"false\">1</｜GCML｜parameter></｜GCML｜invoke><｜GCML｜invoke name=\"g\">{\"b\": 2}</｜GCML｜invoke></｜GCML｜tool_calls>"),
        (Longcat, "<longcat_tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1}}\n</longcat_tool_call><longcat_tool_call>[{\"name\": \"g\", \"arguments\": {}}]</longcat_tool_call>"),
        (Longcat, "<longcat_tool_call>{\"name\": \"f\", \"arguments\": {\"a\": }}</longcat_tool_call><longcat_tool_call><function=g></function></longcat_tool_call>"),
        (Dots, "<dots_function_call>\n<invoke name=\"f\">\n<parameter name=\"a\">1</parameter>\n</invoke>\n<invoke name=\"g\"></invoke>\n</dots_function_call>"),
        (MuseGlimmer, "to=functions.f<|message|><atem:function_calls><atem:invoke name=\"f\"><atem:parameter name=\"a\">x y</atem:parameter></atem:invoke></atem:function_calls><|eom|>"),
        (MuseGlimmer, " to=self<|message|>Maybe <atem:function_calls><atem:invoke name=\"f\"></atem:invoke></atem:function_calls> here<|eom|><|start|>assistant to=user<|message|>Hi <atem:function_calls>x</atem:function_calls><|eom|><|start|>assistant to=f<|message|>\n<atem:function_calls><atem:invoke name=\"f\"><atem:parameter name=\"a\">1</atem:parameter></atem:invoke><atem:invoke name=\"g\"></atem:invoke></atem:function_calls><|eom|><|start|>assistant to=g<|message|>{\"b\": 2}<|eot|>"),
        (MuseGlimmer, "<|message|>Hi <atem:function_calls>x</atem:function_calls><|eot|>"),
        (MuseGlimmer, " to=f<|message|><atem:function_calls><atem:invoke name=\"f\"><atem:parameter name=\"a\">1"),
        (MuseGlimmer, "Sure. <atem:function_calls><atem:invoke name=\"f\"><atem:parameter name=\"a\">1</atem:parameter></atem:invoke></atem:function_calls> done"),
        (MuseGlimmer, " to=self<|message|>Hm<|eom|> to=f<|message|><atem:function_calls><atem:invoke name=\"f\"></atem:invoke></atem:function_calls><|eom|>\n to=g<|message|><atem:function_calls><atem:invoke name=\"g\"><atem:parameter name=\"a\">1</atem:parameter></atem:invoke></atem:function_calls><|eom|> to be<|end_of_text|>"),
        (MuseGlimmer, " to=user<|message|>Hi<|eom|>  to=f<|message|>{\"a\": 1}<|eot|> to=g<|message|>x"),
        (Step3, "Let me help.\n<｜tool_calls_begin｜>\n<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"f\">\n<steptml:parameter name=\"a\">1</steptml:parameter>\n</steptml:invoke><｜tool_call_end｜>\n<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"g\"></steptml:invoke><｜tool_call_end｜>\n<｜tool_calls_end｜>\nDone."),
        (Step3, "<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"f\"><steptml:parameter name=\"a\">1"),
        (HyperclovaxSeedThink14b, "/think\nHm <tool_calls><|im_end|>\n<|im_start|>assistant\nSure.<|im_end|>\n<|im_start|>assistant -> tool/function_call\n[{\"name\": \"f\", \"arguments\": {\"a\": 1}}]<|im_end|>"),
        (HyperclovaxSeedThink14b, "/think\nHm<|im_end|>\n<|im_start|>assistant -> tool/fun"),
    ];
    let mut cuts = Cuts(7);
    for &(format, text) in cases {
        check(format, text, None, &mut cuts);
    }
}

/// Step-3.5's garbled qwen3_coder tags are read, on every path and under any chunking, only
/// when they name an offered tool and one of its parameters exactly; any other garbled tag
/// stays a failure keeping the text, as without `tools=`.
#[test]
fn garbled_tags_naming_an_offered_tool_are_read() {
    let tools = parse(
        r#"[{"name": "bash", "parameters": {"properties": {"command": {}, "timeout": {"type": "integer"}}}}]"#,
        &mut ValueBuilder,
        ParseOptions::default(),
    )
    .unwrap();
    let Value::Array(tools) = tools else { panic!() };
    let tools = Some(Arc::new(ToolSchemas::from_tools(&tools)));
    // The value holds `</tool_call>`: a machine that lost the call's structure ends it there.
    let text = |function: &str, parameter: &str| {
        format!("Run:<tool_call>{function}{parameter}echo '</tool_call>'</parameter><parameter=timeout>5</parameter></function></tool_call> ok")
    };
    let mut cuts = Cuts(11);
    for (function, parameter) in [
        ("<function bash>", "<parameter=command>"),
        ("<functionbash>", "<parameter=command>"),
        ("<function=bash\n", "<parameter=command\n"),
        ("<function=bash\r\n", "<parameter=command\r\n"),
        ("<function=bash>", "<parameter=parameter=command\n"),
        ("<function=bash>", "<parameter=parameter=command>"),
    ] {
        let text = text(function, parameter);
        assert_eq!(
            check(Format::Qwen3Coder, &text, tools.clone(), &mut cuts),
            [r#"bash {"command":"echo '</tool_call>'","timeout":5}"#],
            "{text:?}"
        );
        if function != "<function=bash>" || parameter.ends_with('\n') {
            let failed = check(Format::Qwen3Coder, &text, None, &mut cuts);
            assert!(
                failed[0].starts_with('!'),
                "{text:?} without tools: {failed:?}"
            );
        }
    }
    for (function, parameter) in [
        ("<function sh>", "<parameter=command>"),
        ("<function bash\n", "<parameter=command>"),
        ("<function=sh\n", "<parameter=command\n"),
        ("<function=bash\n", "<parameter=cmd\n"),
        ("<function=bash>", "<parameter=parameter=cmd\n"),
    ] {
        let text = text(function, parameter);
        let failed = check(Format::Qwen3Coder, &text, tools.clone(), &mut cuts);
        assert!(failed[0].starts_with('!'), "{text:?}: {failed:?}");
    }
    // A space before the `=` (mlx-openai-server's tests): the `=` still says a name follows,
    // offered or not.
    let spaced = text("<function = bash>", "<parameter=command>");
    for tools in [tools.clone(), None] {
        assert_eq!(
            check(Format::Qwen3Coder, &spaced, tools, &mut cuts),
            [r#"bash {"command":"echo '</tool_call>'","timeout":5}"#]
        );
    }
    // A self-closing function tag (the AI SDK tool-call middleware's tests) names the tool
    // without its `/`: a call with no parameters.
    let closing = "before <tool_call><function=get_weather/></tool_call> after";
    for tools in [tools.clone(), None] {
        assert_eq!(
            check(Format::Qwen3Coder, closing, tools, &mut cuts),
            ["get_weather {}"]
        );
    }
    // After another value, a repeated prefix is a parameter's tag, not text in that value.
    let after = "<tool_call><function=bash><parameter=timeout>5</parameter>\n<parameter=parameter=command>pwd</parameter></function></tool_call>";
    assert_eq!(
        check(Format::Qwen3Coder, after, tools.clone(), &mut cuts),
        [r#"bash {"timeout":5,"command":"pwd"}"#]
    );
    // A garbled function tag naming an offered tool is read in every body that reads
    // `<function=…>`: Seed-OSS's wrapper, and hermes's JSON arguments after the name.
    let seed = "<seed:tool_call><function bash><parameter=command>pwd</parameter></function></seed:tool_call>";
    assert_eq!(
        check(Format::SeedOss, seed, tools.clone(), &mut cuts),
        [r#"bash {"command":"pwd"}"#]
    );
    let json = r#"<tool_call><function bash>{"command": "pwd"}</function></tool_call>"#;
    assert_eq!(
        check(Format::Hermes, json, tools.clone(), &mut cuts),
        [r#"bash {"command":"pwd"}"#]
    );
    // A tag that never ends is read once, in 1-byte chunks as whole.
    let long = format!("<tool_call><function {}", "bash ".repeat(1 << 18));
    let mut parser = StreamParser::with_tools(StreamOptions::only(Format::Qwen3Coder), tools);
    let mut events = Vec::new();
    let started = std::time::Instant::now();
    for piece in long.as_bytes().chunks(1) {
        parser
            .feed_bytes(piece, &mut ValueBuilder, &mut events)
            .unwrap();
    }
    parser.finish(&mut ValueBuilder, &mut events).unwrap();
    // Generous: a rescan of the tag per byte takes minutes.
    assert!(started.elapsed().as_secs() < 20, "{:?}", started.elapsed());
    assert!(
        matches!(events.last(), Some(Event::Invalid(_))),
        "{:?}",
        events.last()
    );
}

#[test]
fn model_ids_and_tool_typing() {
    let kimi = "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{\"a\": 1}<|tool_call_end|><|tool_calls_section_end|>";
    let mistral = r#"[TOOL_CALLS]g[CALL_ID]abc123XYZ[ARGS]{}"#;
    for (format, text, id) in [
        (Format::KimiK2, kimi, "functions.f:0"),
        (Format::Mistral, mistral, "abc123XYZ"),
    ] {
        let events = run(&chars_split(text, 1), StreamOptions::only(format), None);
        assert!(
            matches!(&events[0], Event::CallStart { id: i, .. } if i == id),
            "{events:?}"
        );
    }
    let tools = parse(
        r#"[{"name": "f", "parameters": {"properties": {"a": {"type": "string"}, "n": {"type": "integer"}}}}]"#,
        &mut ValueBuilder,
        ParseOptions::default(),
    )
    .unwrap();
    let Value::Array(tools) = tools else { panic!() };
    let tools = Some(Arc::new(ToolSchemas::from_tools(&tools)));
    let text = "<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n<parameter=n>\n2\n</parameter>\n</function>\n</tool_call>";
    let events = run(
        &chars_split(text, 1),
        StreamOptions::default(),
        tools.clone(),
    );
    assert_eq!(args_text(&events, 0), r#"{"a":"1","n":2}"#);
    let glm = "<tool_call>f<arg_key>a</arg_key><arg_value>1</arg_value></tool_call>";
    let events = run(&chars_split(glm, 1), StreamOptions::default(), tools);
    assert_eq!(args_text(&events, 0), r#"{"a":"1"}"#);
}

#[test]
fn glm45_left_open_value_ends_before_the_layout_line_break() {
    // exo's GLM tests: the line break that puts the next tag on a line of its own is layout.
    let mut cuts = Cuts(5);
    let text = "<tool_call>f\n<arg_key>x</arg_key>\n<arg_value>hi  \n<arg_key>y</arg_key>\n<arg_value>b\n</tool_call>";
    assert_eq!(
        check(Format::Glm45, text, None, &mut cuts),
        [r#"f {"x":"hi  ","y":"b"}"#]
    );
}

#[test]
fn calls_start_as_soon_as_the_name_is_known() {
    for (text, before_name_end) in [
        (
            "<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": 1",
            "<tool_call>{\"name\": \"f\", \"arguments\": {",
        ),
        (
            "<tool_call>\n<function=f>\n<parameter=a>\n1",
            "<tool_call>\n<function=f>",
        ),
        ("<tool_call>f\n<arg_key>a", "<tool_call>f\n"),
        ("[TOOL_CALLS]f[ARGS]{\"a\"", "[TOOL_CALLS]f[ARGS]"),
        (
            "<|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{",
            "<|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{",
        ),
        ("<|python_start|>[f(a=1), g(", "<|python_start|>[f("),
        (
            "<seed:tool_call><function=f><parameter=a>1",
            "<seed:tool_call><function=f>",
        ),
        (
            "<|function_call|>{\"name\": \"f\", \"arguments\": {\"a\": 1",
            "<|function_call|>{\"name\": \"f\", \"arguments\": {",
        ),
        (
            "<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"f\"><steptml:parameter",
            "<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"f\">",
        ),
        (
            "<|start|>assistant<|channel|>commentary to=functions.f<|message|>{\"a\"",
            "<|start|>assistant<|channel|>commentary to=functions.f<|message|>{",
        ),
    ] {
        let mut parser = StreamParser::new(StreamOptions::default());
        let mut events = Vec::new();
        parser
            .feed(before_name_end, &mut ValueBuilder, &mut events)
            .unwrap();
        assert!(
            matches!(&events[..], [Event::CallStart { name, .. }, ..] if name == "f"),
            "{before_name_end:?}: {events:?}"
        );
        parser
            .feed(
                &text[before_name_end.len()..],
                &mut ValueBuilder,
                &mut events,
            )
            .unwrap();
        parser.finish(&mut ValueBuilder, &mut events).unwrap();
        // Cut off: the call ends invalid, after its start, with its raw text.
        let last = events.last().unwrap();
        assert!(
            matches!(last, Event::Invalid(i) if text.ends_with(i.raw.as_str()))
                || text.contains("[f("),
            "{text:?}: {events:?}"
        );
    }
}

#[test]
fn code_spans_think_and_reasoning_rules() {
    let text = "Write `<tool_call>` or `[TOOL_CALLS]`, then ``<|python_tag|>``.";
    let events = run(&chars_split(text, 1), StreamOptions::default(), None);
    assert_eq!(normalized(events), vec![Event::Text(text.to_owned())]);
    let text = "<think>let me <tool_call>{\"name\": \"f\", \"arguments\": {\"a\": 1}}</tool_call></think>ok";
    let no_calls = StreamOptions {
        calls_in_reasoning: false,
        ..StreamOptions::default()
    };
    let p = parse_text(&mut ValueBuilder, text, no_calls).unwrap();
    assert!(p.calls.is_empty());
    assert!(p.reasoning.unwrap().contains("<tool_call>"));
    let p = parse_text(&mut ValueBuilder, text, StreamOptions::default()).unwrap();
    assert_eq!((p.calls.len(), p.content.as_str()), (1, "ok"));
    // Markers inside a ```json fence sit in JSON strings.
    let text = "```json\n{\"s\": \"<tool_call>{}</tool_call>\"}\n```\n";
    let events = run(&chars_split(text, 1), StreamOptions::default(), None);
    assert_eq!(normalized(events), vec![Event::Text(text.to_owned())]);
}

/// Text is held back only while it may still begin a marker: never more than the longest one.
#[test]
fn held_back_text_is_bounded_for_every_marker() {
    let partial: String = crate::formats::markers::TABLE
        .iter()
        .map(|e| e.text)
        .map(|m| {
            let cut = m.char_indices().last().map_or(0, |(i, _)| i);
            format!("x {} y\n", &m[..cut])
        })
        .collect();
    let mut parser = StreamParser::new(StreamOptions::default());
    let mut events = Vec::new();
    let mut fed = 0;
    for chunk in chars_split(&partial, 1) {
        parser.feed(chunk, &mut ValueBuilder, &mut events).unwrap();
        fed += chunk.len();
        let released: usize = events
            .iter()
            .map(|e| match e {
                Event::Text(t) | Event::Reasoning(t) => t.len(),
                _ => 0,
            })
            .sum();
        // A think tag cut short may hold its whole token (`<|channel>` of `<|channel>thought`),
        // a stray token outside a span: dropped, never released.
        let dropped: usize = OPEN_TOKENS
            .iter()
            .map(|token| partial[..fed].matches(token).count() * token.len())
            .sum();
        assert!(
            fed - released - dropped <= crate::formats::markers::LONGEST,
            "at {fed}"
        );
    }
    parser.finish(&mut ValueBuilder, &mut events).unwrap();
    let text = OPEN_TOKENS
        .iter()
        .fold(partial.clone(), |text, token| text.replace(token, ""));
    assert_eq!(normalized(events), vec![Event::Text(text)]);
}

fn timed(what: &str, text: &str, chunk: usize, options: StreamOptions) -> Vec<Ev> {
    let started = std::time::Instant::now();
    let mut parser = StreamParser::new(options);
    let mut events = Vec::new();
    for piece in text.as_bytes().chunks(chunk) {
        parser
            .feed_bytes(piece, &mut ValueBuilder, &mut events)
            .unwrap();
    }
    parser.finish(&mut ValueBuilder, &mut events).unwrap();
    // Generous: a quadratic scan of these inputs takes minutes.
    assert!(
        started.elapsed().as_secs() < 20,
        "{what}: {:?}",
        started.elapsed()
    );
    events
}

#[test]
fn megabyte_arguments_in_4_byte_chunks_are_linear() {
    let code = "fn f() { x.replace(\\\"</tool_call>\\\", \\\"é\\\") }\\n".repeat(1 << 20 >> 6);
    let hermes = format!("<tool_call>\n{{\"name\": \"write\", \"arguments\": {{\"code\": \"{code}\"}}}}\n</tool_call>");
    let events = timed("hermes", &hermes, 4, StreamOptions::default());
    assert_eq!(args_text(&events, 0), format!("{{\"code\": \"{code}\"}}"));
    assert!(matches!(events.last(), Some(Event::CallEnd { .. })));
    let body = "def f():\n    return '</param>' < 3\n".repeat(1 << 20 >> 5);
    let qwen = format!("<tool_call>\n<function=write>\n<parameter=code>\n{body}</parameter>\n</function>\n</tool_call>");
    let events = timed("qwen3_coder", &qwen, 4, StreamOptions::default());
    let Some(Event::CallEnd { call, .. }) = events.last() else {
        panic!("{:?}", events.last())
    };
    assert_eq!(
        call.arguments,
        Value::object([("code", Value::str(&body[..body.len() - 1]))])
    );
}

#[test]
fn floods_of_partial_and_broken_markers_are_linear() {
    let n = 20_000;
    for unit in [
        "<tool_call",
        "[TOOL_CALLS",
        "<|tool_calls_section_begi",
        "<｜tool▁call▁begi",
        "<|star",
        "<tool_call>{",
        "<tool_call><function=f><parameter=a>",
        "<tool_call>f<arg_key>a",
        "[TOOL_CALLS]f",
        "<|tool_call_begin|>x",
        "<|start|>assistant",
        "<|python_start|>[f(a=x",
        "`<tool_call>",
        "<think><tool_call>",
        // Each value quotes a block it never closes: one search runs to the end, then the
        // values are read by the flat rule.
        "<｜DSML｜ invoke name=\"f\"><｜DSML｜ parameter name=\"a\"><｜DSML｜ calls></｜DSML｜ parameter>",
        // So are glm45 values that open a call they never close.
        "<tool_call>f<arg_key>a</arg_key><arg_value><tool_call>x</arg_value>",
        "<tool_call>f<arg_key>a</arg_key><arg_value>x<tool_call>",
    ] {
        let text = unit.repeat(n);
        let events = timed(unit, &text, 1, StreamOptions::default());
        assert!(!events.is_empty());
    }
}

/// An invoke-shaped value that quotes whole blocks or invokes (a file documenting the call
/// syntax) keeps them as its text, closes and all, in either of DSML's spellings; a value whose
/// quoted markup never closes is read by the flat rule. Every path agrees, in any chunking.
#[test]
fn values_keep_quoted_invoke_markup_whole() {
    let call = |body: &str| {
        format!(
            "<｜DSML｜ calls>\n<｜DSML｜ invoke name=\"write\">\n\
             <｜DSML｜ parameter name=\"path\" string=\"true\">a.md</｜DSML｜ parameter>\n\
             <｜DSML｜ parameter name=\"content\" string=\"true\">{body}</｜DSML｜ parameter>\n\
             </｜DSML｜ invoke>\n</｜DSML｜ calls>"
        )
    };
    let quoted_call = "<｜DSML｜ invoke name=\"read\">\n\
        <｜DSML｜ parameter name=\"path\" string=\"true\">b.py</｜DSML｜ parameter>\n\
        </｜DSML｜ invoke>";
    let cases = [
        // A whole block, in the V4.1 spelling and (opened) in V4's.
        format!("Doc:\n<｜DSML｜ calls>\n{quoted_call}\n</｜DSML｜ calls>\nend"),
        format!("<｜DSML｜tool_calls>\n{quoted_call}\n</｜DSML｜ calls>\n</invoke>"),
        // An invoke alone; a close that closes nothing.
        format!("{quoted_call} and </｜DSML｜ calls> too"),
    ];
    let mut cuts = Cuts(11);
    for body in &cases {
        let shapes = check(Format::DeepseekDsml, &call(body), None, &mut cuts);
        let content = to_compact_json(&Value::Str(body.as_str().into()));
        let expected = format!("write {{\"path\":\"a.md\",\"content\":{content}}}");
        assert_eq!(shapes, [expected], "{body:?}");
    }
    // A lone quoted opener never closes: the value ends at its first close that markup follows.
    let lone = "use <｜DSML｜ invoke name=\"x\"> to call";
    let shapes = check(Format::DeepseekDsml, &call(lone), None, &mut cuts);
    assert_eq!(
        shapes,
        [format!(
            "write {{\"path\":\"a.md\",\"content\":{}}}",
            to_compact_json(&Value::Str(lone.into()))
        )]
    );
    // A parameter tag outside quoted markup still begins the next parameter.
    let text = call("x <｜DSML｜ parameter name=\"n\" string=\"true\">y");
    let shapes = check(Format::DeepseekDsml, &text, None, &mut cuts);
    assert_eq!(shapes, [r#"write {"path":"a.md","content":"x ","n":"y"}"#]);
    // The plain XML shapes read so too (an invoke tag opens quoted markup with its space).
    let body = "<minimax:tool_call>\n<invoke name=\"read\">\n\
        <parameter name=\"path\">b.py</parameter>\n</invoke>\n</minimax:tool_call>\n<invoked>";
    let text = format!(
        "<minimax:tool_call><invoke name=\"write\"><parameter name=\"content\">{body}\
         </parameter>\n</invoke></minimax:tool_call>"
    );
    let shapes = check(Format::MinimaxM2, &text, None, &mut cuts);
    let content = to_compact_json(&Value::Str(body.into()));
    assert_eq!(shapes, [format!("write {{\"content\":{content}}}")]);
    // And the invoke shapes of Step-3 and Muse Glimmer's ATEM blocks.
    for (format, open, close, ns) in [
        (
            Format::Step3,
            "<｜tool_calls_begin｜>",
            "<｜tool_calls_end｜>",
            "steptml",
        ),
        (
            Format::MuseGlimmer,
            "<atem:function_calls>",
            "</atem:function_calls>",
            "atem",
        ),
    ] {
        let invoke = |name: &str, body: &str| {
            format!(
                "<{ns}:invoke name=\"{name}\"><{ns}:parameter name=\"c\">{body}\
                 </{ns}:parameter>\n</{ns}:invoke>"
            )
        };
        let body = format!("{open}\n{}\n{close}", invoke("read", "b.py"));
        let text = format!("{open}\n{}\n{close}", invoke("write", &body));
        let shapes = check(format, &text, None, &mut cuts);
        let content = to_compact_json(&Value::Str(body.as_str().into()));
        assert_eq!(shapes, [format!("write {{\"c\":{content}}}")], "{format:?}");
    }
}

/// A block whose markup is no invoke, its first character more than a byte, fails alone on
/// every path (it panicked once; found by the hypothesis suite).
#[test]
fn junk_in_an_invoke_block_may_start_with_any_character() {
    let mut cuts = Cuts(17);
    for (format, text) in [
        (Format::DeepseekDsml, "<｜DSML｜ calls>▁x"),
        (
            Format::MinimaxM2,
            "<minimax:tool_call>é<invoke name=\"f\"></invoke>",
        ),
    ] {
        let shapes = check(format, text, None, &mut cuts);
        assert!(
            shapes.iter().any(|shape| shape.starts_with('!')),
            "{shapes:?}"
        );
    }
}

/// A glm45 value that quotes whole calls (a file about the call syntax) keeps them as its text;
/// a value that only mentions the opening tag is read as before, and the call after it too.
#[test]
fn glm_values_keep_quoted_calls_whole() {
    let quoted =
        "# Format\n<tool_call>read\n<arg_key>path</arg_key>\n<arg_value>b.py</arg_value>\n\
        </tool_call>\nend";
    let write = |content: &str| {
        format!(
            "<tool_call>write\n<arg_key>path</arg_key>\n<arg_value>a.md</arg_value>\n\
             <arg_key>content</arg_key>\n<arg_value>{content}</arg_value>\n</tool_call>"
        )
    };
    let shape = |content: &str| {
        let content = to_compact_json(&Value::Str(content.into()));
        format!("write {{\"path\":\"a.md\",\"content\":{content}}}")
    };
    let mut cuts = Cuts(13);
    let shapes = check(Format::Glm45, &write(quoted), None, &mut cuts);
    assert_eq!(shapes, [shape(quoted)]);
    // Nested, and followed by a second call.
    let nested = format!(
        "<tool_call>doc<arg_key>x</arg_key><arg_value>{}</arg_value></tool_call>",
        write("y")
    );
    let text = format!("{}\n<tool_call>done</tool_call>", write(&nested));
    let shapes = check(Format::Glm45, &text, None, &mut cuts);
    assert_eq!(shapes, [shape(&nested), "done {}".to_owned()]);
    // A mention of the opening tag is no quoted call: the values and the next call as before.
    let mention = "Wrap calls in <tool_call> tags.";
    let text = format!("{}\n<tool_call>done</tool_call> after", write(mention));
    let shapes = check(Format::Glm45, &text, None, &mut cuts);
    assert_eq!(shapes, [shape(mention), "done {}".to_owned()]);
}

/// Found by tests/test_adversarial.py: one chunk holding many short regions was copied into
/// each region's buffer in full, quadratic in the number of regions (this test would run for
/// hours); now regions take bounded pieces.
#[test]
fn many_regions_in_one_chunk_are_linear() {
    for marker in [
        "<|tool_calls_section_begin|>",
        "<｜tool▁calls▁begin｜>",
        "[TOOL_CALLS]",
    ] {
        let text = marker.repeat(50_000);
        let Ok(parsed) = parse_text(&mut ValueBuilder, &text, StreamOptions::default());
        assert!(parsed.calls.len() <= 50_000);
    }
}

/// Found by benches/linearity.py: each outcome of a region looked its record up by a linear
/// search, and each failure counted characters from the region's start (quadratic in the calls
/// of one message; this test would run for minutes).
#[test]
fn many_calls_in_one_region_are_linear() {
    let n = 50_000;
    let items: Vec<String> = (0..n).map(|k| format!("f(i={k})")).collect();
    let text = format!("[{}]", items.join(", "));
    let Ok(parsed) = parse_text(&mut ValueBuilder, &text, StreamOptions::default());
    assert_eq!(parsed.calls.len(), n);
}

#[test]
fn failures_in_one_region_count_characters_from_the_text_start() {
    let call = |k: usize, args: &str| {
        format!(
            "<|tool_call_begin|>functions.f:{k}<|tool_call_argument_begin|>{args}<|tool_call_end|>"
        )
    };
    let text = format!(
        "é: <|tool_calls_section_begin|>{}{}{}{}<|tool_calls_section_end|>",
        call(0, "{\"a\": \"é\"}"),
        call(1, "[1]"),
        call(2, "{\"b\": \"ü\"}"),
        call(3, "{bad"),
    );
    let text = text.as_str();
    let Ok(parsed) = parse_text(&mut ValueBuilder, text, StreamOptions::default());
    let offsets: Vec<(usize, usize)> = parsed
        .calls
        .iter()
        .filter_map(|o| match o {
            Outcome::Invalid(i) => Some((i.byte_offset.unwrap(), i.offset.unwrap())),
            Outcome::Call(_) => None,
        })
        .collect();
    assert_eq!(offsets.len(), 2);
    for (byte, offset) in offsets {
        assert_eq!(offset, text[..byte].chars().count());
    }
}

/// Found by the `stream` fuzz target: a marker that differs from the text inside a multi-byte
/// character (`▁` U+2581 against `▊` U+258A share two bytes) cut the text mid-character.
#[test]
fn a_marker_diverging_inside_a_character_is_text() {
    let text = "a <｜tool▁calls▊end｜> <｜tool▁call▏begin｜>x";
    let Ok(parsed) = parse_text(&mut ValueBuilder, text, StreamOptions::default());
    assert_eq!(parsed.content, text);
    assert!(parsed.calls.is_empty());
    assert_chunk_invariant(text, StreamOptions::default());
}

/// Found by the `stream` fuzz target: the live argument delta of a call whose arguments run
/// into a DeepSeek token ended inside a character (1-byte chunks panicked).
#[test]
fn live_argument_deltas_end_on_character_boundaries() {
    let text = "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>math.gcd<｜tool▁sep｜>\
                {\"num1\": 12, \"num2\":lls▁begin｜><｜tool▁call▁begin｜>math.gcd<｜tool▁sep｜>\
                {\"num1\": 12, \"num2\": 18}<｜tool▁call▁end｜><｜ 18}<｜tool▁call▁end｜>\
                <｜tool▁calls▁end｜>";
    let options = StreamOptions {
        raw_json: Some(RawJsonMode::Whole),
        calls_in_reasoning: false,
        ..StreamOptions::default()
    };
    let whole = normalized(stream_chunks(&[text], options));
    for size in 1..=8 {
        let mut parser = StreamParser::new(options);
        let mut events = Vec::new();
        for chunk in text.as_bytes().chunks(size) {
            parser
                .feed_bytes(chunk, &mut ValueBuilder, &mut events)
                .unwrap();
        }
        parser.finish(&mut ValueBuilder, &mut events).unwrap();
        assert_eq!(normalized(events), whole, "{size}-byte chunks");
    }
}

/// Found by the `stream` fuzz target: a broken GLM call ends at the next call's start marker,
/// so a chunk cut inside that marker must not send its first bytes as arguments.
#[test]
fn a_marker_cut_by_a_chunk_is_not_sent_as_arguments() {
    let text = "<tool_call>f\n{\"a\": \"x\n\n<tool_call>\n{\"b\": \"m\", \"c\n\n\
                <tool_call>\n\u{0}y\": 5}}\n</tool_call>";
    let options = StreamOptions {
        formats: FormatSet::only(Format::Glm45),
        ..StreamOptions::default()
    };
    let whole = assert_chunk_invariant(text, options);
    assert!(!args_text(&whole, 0).ends_with('<'));
}

/// Found by the `stream` fuzz target: a broken call's argument bytes end where its JSON breaks,
/// not where the next call's arguments have been read to (one feed sent the next call's markup
/// as the broken call's arguments; chunks did not).
#[test]
fn a_broken_call_sends_no_bytes_of_the_next_call() {
    let text = "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0\
                <|tool_call_argument_begin|>{a|> \"x\": 1}<|tool_call_end|>\
                <|tool_call_begin|>functions.g:1<|tool_call_argument_begin|>{\"b\": 2}\
                <|tool_call_end|><|tool_calls_section_end|>";
    let whole = assert_chunk_invariant(text, StreamOptions::default());
    assert_eq!(args_text(&whole, 0), "{a");
    assert_eq!(args_text(&whole, 1), "{\"b\": 2}");
}

/// Found by cutting vLLM's Step-3 texts at every byte: a chunk that ended right after
/// `function<｜tool_sep｜>` read the tool's name that followed as a broken invoke (a phantom
/// second call, cut off at the end).
#[test]
fn a_step3_name_after_a_chunk_cut_is_the_name() {
    let text = "<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜>edit_file\n\
                <steptml:invoke name=\"edit_file\"><steptml:parameter name=\"a\">1\
                </steptml:parameter></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>";
    let options = StreamOptions {
        formats: FormatSet::only(Format::Step3),
        ..StreamOptions::default()
    };
    let whole = assert_chunk_invariant(text, options);
    assert_eq!(starts(&whole), vec![(0, "edit_file".to_owned())]);
    assert!(!whole.iter().any(|e| matches!(e, Event::Invalid(_))));
}

/// A hermes message that is only a call object or list, bare or in a ```` ``` ```` /
/// ```` ```json ```` fence, is a call; JSON after prose and other fences are not.
#[test]
fn hermes_reads_a_whole_message_call_object() {
    let options = StreamOptions::only(Format::Hermes);
    let call = r#"{"name": "f", "arguments": {"a": 1}}"#;
    for text in [
        call.to_owned(),
        format!("  \n{call}"),
        format!("<think>hm</think>\n{call}"),
        format!("[{call}]"),
        format!("```\n{call}\n```"),
        format!("```json\n  {call}\n```\n"),
    ] {
        let events = assert_chunk_invariant(&text, options);
        let parsed = collect(events, false);
        let shapes: Vec<String> = parsed.calls.iter().map(shape).collect();
        assert_eq!(shapes, [r#"f {"a":1}"#], "{text:?}");
        assert_eq!(parsed.content.trim(), "", "{text:?}");
    }
    for text in [
        format!("Not a call:\n{call}"),
        format!("Here:\n```json\n{call}\n```"),
        format!("```xml\n{call}\n```"),
        r#"{"answer": 42}"#.to_owned(),
    ] {
        let parsed = collect(assert_chunk_invariant(&text, options), false);
        assert!(parsed.calls.is_empty(), "{text:?}");
        assert_eq!(parsed.content, text);
    }
}

/// A ```` ``` ```` block that holds only call markup is part of the calls: its fence lines are
/// not content. A block with other text keeps them, in any chunking.
#[test]
fn code_fence_around_call_markup_is_not_content() {
    let call = r#"<tool_call>{"name": "f", "arguments": {}}</tool_call>"#;
    for (text, content) in [
        (
            format!("```xml\n  {call}\n```\nDone"),
            "\n\nDone".to_owned(),
        ),
        (
            format!("{call}\n```json\n{call}\n{call}\n``` \n"),
            "\n\n\n\n".to_owned(),
        ),
        (format!("```\n{call}\nthen\n```"), "\nthen\n".to_owned()),
        (
            format!("```\nsee:\n{call}\n```"),
            "```\nsee:\n\n```".to_owned(),
        ),
        (
            format!("```json\n{{\"a\": 1}}\n```\n{call}"),
            "```json\n{\"a\": 1}\n```\n".to_owned(),
        ),
        ("```\n\n```".to_owned(), "```\n\n```".to_owned()),
        ("```py\nx = 1".to_owned(), "```py\nx = 1".to_owned()),
    ] {
        for options in [
            StreamOptions::only(Format::Hermes),
            StreamOptions::default(),
        ] {
            let parsed = collect(assert_chunk_invariant(&text, options), false);
            assert_eq!(parsed.content, content, "{text:?}");
        }
    }
}

/// A code block opened after content is an example: the call markup in it is quoted, content,
/// never a call (in any chunking), and a call after its closing fence is read. Content is what
/// counts: a block after a call, or after reasoning, still wraps calls.
#[test]
fn code_block_after_content_quotes_call_markup() {
    let call = r#"<tool_call>{"name": "f", "arguments": {}}</tool_call>"#;
    let example = format!("Here is what a call looks like:\n\n```xml\n{call}\n```\n");
    let options = StreamOptions::only(Format::Hermes);
    for (text, calls) in [
        (example.clone(), 0),
        (format!("{example}That is the format."), 0),
        (format!("{example}Now for real:\n{call}"), 1),
        (format!("Hi `x`\n```\n{call}"), 0),
        (format!("{call}\n```xml\n{call}\n```"), 2),
        (format!("<think>Plan.</think>\n```xml\n{call}\n```"), 1),
        (format!("```xml\n{call}\n```\n```xml\n{call}\n```"), 2),
        // Tilde blocks of another kind than `~~~tool_call` are code blocks too, and a block
        // closes only at a bare run at least as long as its opening one (CommonMark).
        (format!("Example:\n~~~xml\n{call}\n~~~\ndone"), 0),
        (format!("Say:\n~~~xml\n{call}"), 0),
        (format!("before\n````xml\n```\n{call}\n````\n{call}"), 1),
        (format!("before\n~~~~xml\n~~~\n{call}\n~~~~~\n{call}"), 1),
        (
            format!("See:\n```\n{call}\n``` not a close\n{call}\n```\n{call}"),
            1,
        ),
        (format!("See:\n```\n{call}\n~~~\n{call}\n```\n{call}"), 1),
        // A fence the reasoning left open ends with it.
        (
            format!("<think>Try:\n~~~py\n</think>\nSee:\n```\n{call}\n```"),
            0,
        ),
        (
            format!("<think>Try:\n```\n</think>\nSee:\n```xml\n{call}\n```"),
            0,
        ),
        // A bare `~~~` is the protocol's closing fence, not a code block's opening one.
        (format!("Say:\n~~~\n{call}"), 1),
    ] {
        let parsed = collect(assert_chunk_invariant(&text, options), false);
        assert_eq!(parsed.calls.len(), calls, "{text:?}");
    }
    let parsed = collect(assert_chunk_invariant(&example, options), false);
    assert_eq!(parsed.content, example);
}
