//! Every open-weight format and variant, and the rules shared by all of them.

use super::*;
use crate::json::{parse, to_compact_json, Value, ValueBuilder};
use crate::protocol::Protocol;

/// `parse_text(text, format=NAME)`, content and reasoning trimmed.
fn run_format(format: Format, text: &str, options: FormatOptions<'_>) -> Parsed<Value> {
    let stream_options = crate::stream::StreamOptions {
        calls_in_reasoning: options.calls_in_reasoning,
        json: options.json,
        ..crate::stream::StreamOptions::only(format)
    };
    let parsed = crate::stream::parse_text_with_tools(
        &mut ValueBuilder,
        text,
        stream_options,
        options.tools,
    );
    let Ok(parsed) = parsed;
    Parsed {
        content: parsed.content.trim().to_owned(),
        reasoning: parsed.reasoning.map(|r| r.trim().to_owned()),
        outcomes: parsed.calls,
    }
}

fn parsed(format: Format, text: &str) -> Parsed<Value> {
    run_format(format, text, FormatOptions::default())
}

/// `name args-json` for a call, `!protocol: message` for a failure.
fn shown(outcomes: &[Outcome<Value>]) -> Vec<String> {
    outcomes
        .iter()
        .map(|o| match o {
            Outcome::Call(c) => format!("{} {}", c.name, to_compact_json(&c.arguments)),
            Outcome::Invalid(i) => format!("!{}: {}", i.protocol.as_str(), i.message()),
        })
        .collect()
}

fn calls(format: Format, text: &str) -> Vec<String> {
    shown(&parsed(format, text).outcomes)
}

/// The ids `extract` reads (a stream fixes a call's id when it starts, so an id written after
/// the arguments is `extract`'s only).
fn ids(format: Format, text: &str) -> Vec<Option<String>> {
    let options = crate::extract::TextOptions {
        text_tagged: false,
        formats: FormatSet::only(format),
        raw_json: None,
        json: ParseOptions::model_text(false),
        tools: None,
        starts_in_reasoning: false,
    };
    let Ok(outcomes) = crate::extract::extract_text(&mut ValueBuilder, text, &options);
    outcomes
        .into_iter()
        .map(|o| match o {
            Outcome::Call(c) => c.id,
            Outcome::Invalid(_) => None,
        })
        .collect()
}

/// `extract`'s open-weight tier over every format.
fn auto(text: &str) -> Vec<String> {
    extracted(text, FormatSet::ALL)
}

fn extracted(text: &str, formats: FormatSet) -> Vec<String> {
    let options = crate::extract::TextOptions {
        text_tagged: false,
        formats,
        raw_json: None,
        json: ParseOptions::model_text(false),
        tools: None,
        starts_in_reasoning: false,
    };
    let Ok(outcomes) = crate::extract::extract_text(&mut ValueBuilder, text, &options);
    shown(&outcomes)
}

const F_A1: &str = r#"f {"a":1}"#;

// --- hermes -------------------------------------------------------------------------------

#[test]
fn hermes_variants() {
    use Format::Hermes;
    let plain = "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1}}\n</tool_call>";
    assert_eq!(calls(Hermes, plain), [F_A1]);
    let compact = r#"<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call><tool_call>{"name": "g", "parameters": {"b": "x"}}</tool_call>"#;
    assert_eq!(calls(Hermes, compact), [F_A1, r#"g {"b":"x"}"#]);
    let unclosed = "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1}}\n</tool_call>\n<tool_call>\n{\"name\": \"g\", \"arguments\": {}}\n";
    assert_eq!(calls(Hermes, unclosed), [F_A1, "g {}"]);
    let double = r#"<tool_call>{"name": "f", "arguments": "{\"a\": 1}"}</tool_call>"#;
    assert_eq!(calls(Hermes, double), [F_A1]);
    let array = r#"<tool_call>[{"name": "f", "arguments": {"a": 1}}, {"name": "g"}]</tool_call>"#;
    assert_eq!(calls(Hermes, array), [F_A1, "g {}"]);
    let in_string = r#"<tool_call>{"name": "f", "arguments": {"s": "</tool_call>"}}</tool_call>"#;
    assert_eq!(calls(Hermes, in_string), [r#"f {"s":"</tool_call>"}"#]);
}

#[test]
fn hermes_content_and_reasoning() {
    let text = "<think>\nI should call f.\n</think>\n\nSure.\n<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1}}\n</tool_call>\nDone.";
    let p = parsed(Format::Hermes, text);
    assert_eq!(shown(&p.outcomes), [F_A1]);
    assert_eq!(p.content, "Sure.\n\nDone.");
    assert_eq!(p.reasoning.as_deref(), Some("I should call f."));
    let none = parsed(Format::Hermes, "just prose");
    assert_eq!(
        (none.content.as_str(), none.reasoning, none.outcomes.len()),
        ("just prose", None, 0)
    );
}

#[test]
fn calls_inside_think_are_found_unless_disabled() {
    let text = "<think>let me <tool_call>{\"name\": \"f\", \"arguments\": {\"a\": 1}}</tool_call></think>ok";
    let p = parsed(Format::Hermes, text);
    assert_eq!(shown(&p.outcomes), [F_A1]);
    assert_eq!(p.reasoning.as_deref(), Some("let me"));
    let options = FormatOptions {
        calls_in_reasoning: false,
        ..FormatOptions::default()
    };
    let p = run_format(Format::Hermes, text, options);
    assert!(p.outcomes.is_empty());
    assert!(p.reasoning.unwrap().contains("<tool_call>"));
    assert_eq!(p.content, "ok");
}

#[test]
fn hermes_errors_have_offsets_and_do_not_stop_the_parse() {
    let text = "ab<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": }}</tool_call><tool_call>{\"name\": \"g\", \"arguments\": [1]}</tool_call><tool_call>{\"name\": \"h\", \"arguments\": {}}</tool_call>";
    let p = parsed(Format::Hermes, text);
    assert_eq!(p.outcomes.len(), 3);
    let Outcome::Invalid(first) = &p.outcomes[0] else {
        panic!()
    };
    assert_eq!(first.byte_offset, Some(text.find(" }}").unwrap() + 1));
    assert_eq!(first.raw, &text[2..text.find("</tool_call>").unwrap() + 12]);
    assert_eq!(first.protocol.as_str(), "hermes");
    let Outcome::Invalid(second) = &p.outcomes[1] else {
        panic!()
    };
    assert_eq!(second.kind, crate::calls::FailureKind::Arguments);
    assert_eq!(second.name.as_deref(), Some("g"));
    assert!(matches!(&p.outcomes[2], Outcome::Call(c) if c.name == "h"));
}

#[test]
fn call_objects_read_field_by_field_agree_with_the_general_path() {
    use Format::{Hermes, Llama3Json, Mistral};
    // A repeated name: invalid on both paths (a stream announced the first).
    let dup = r#"<tool_call>{"name": "x", "name": "f", "arguments": {"a": 1}}</tool_call>"#;
    let [Outcome::Invalid(invalid)] = &parsed(Hermes, dup).outcomes[..] else {
        panic!("a repeated name is an invalid call")
    };
    assert!(invalid.detail.contains("\"name\" twice") && invalid.name.as_deref() == Some("x"));
    // A list with a failing element: the general path reports it at the element.
    let list = r#"<tool_call>[{"name": "f", "arguments": {"a": 1}}, {"name": 5, "arguments": {}}]</tool_call>"#;
    let p = parsed(Hermes, list);
    assert_eq!(shown(&p.outcomes)[0], F_A1);
    let Outcome::Invalid(bad) = &p.outcomes[1] else {
        panic!("{:?}", shown(&p.outcomes))
    };
    assert_eq!(bad.byte_offset, Some(list.find(r#"{"name": 5"#).unwrap()));
    // Text after the object, and an object without a name.
    let junk = r#"<tool_call>{"name": "f", "arguments": {}} x</tool_call>"#;
    assert!(calls(Hermes, junk)[0].contains("expected </tool_call> after the JSON"));
    let nameless = r#"<tool_call>{"arguments": {}}</tool_call>"#;
    assert!(calls(Hermes, nameless)[0].contains("missing tool name"));
    let tagged = r#"<|python_tag|>{"name": "f", "parameters": {"a": 1}}; {"nome": "g"}"#;
    let shown_tagged = calls(Llama3Json, tagged);
    assert_eq!(shown_tagged[0], F_A1);
    assert!(
        shown_tagged[1].contains("expected a call object"),
        "{shown_tagged:?}"
    );
    let bad_args =
        r#"[TOOL_CALLS][{"name": "f", "arguments": {"a": 1}}, {"name": "g", "arguments": "{bad"}]"#;
    let p = parsed(Mistral, bad_args);
    assert_eq!(shown(&p.outcomes)[0], F_A1);
    let Outcome::Invalid(bad) = &p.outcomes[1] else {
        panic!("{:?}", shown(&p.outcomes))
    };
    assert_eq!(bad.name.as_deref(), Some("g"));
    assert_eq!(
        bad.byte_offset,
        Some(bad_args.find(r#"{"name": "g""#).unwrap())
    );
}

// --- code-span rule -----------------------------------------------------------------------

#[test]
fn markers_in_code_spans_create_no_call() {
    let text = "Wrap calls in `<tool_call>` tags, or write `[TOOL_CALLS]` and ``<|python_tag|>``.";
    assert!(auto(text).is_empty());
    for &format in Format::ALL {
        assert!(parsed(format, text).outcomes.is_empty(), "{format:?}");
        assert_eq!(parsed(format, text).content, text);
    }
    let mixed =
        "Use `<tool_call>`:\n<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": 1}}</tool_call>";
    assert_eq!(auto(mixed), [F_A1]);
}

// --- qwen3_coder and glm45 ----------------------------------------------------------------

const QWEN: &str = "<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n<parameter=zip>\n03106\n</parameter>\n<parameter=s>\nhello world\n</parameter>\n</function>\n</tool_call>";

fn schemas(tools: &str) -> ToolSchemas {
    let tools: Value = parse(tools, &mut ValueBuilder, ParseOptions::default()).unwrap();
    let Value::Array(items) = tools else { panic!() };
    ToolSchemas::from_tools(&items)
}

#[test]
fn qwen3_coder_values() {
    // "03106" is not valid JSON (leading zero), so it stays a string even without a schema.
    assert_eq!(
        calls(Format::Qwen3Coder, QWEN),
        [r#"f {"a":1,"zip":"03106","s":"hello world"}"#]
    );
    let tools = schemas(
        r#"[{"type": "function", "function": {"name": "f", "parameters": {"type": "object",
            "properties": {"a": {"type": "string"}, "zip": {"type": "string"}, "s": {"type": "integer"}}}}}]"#,
    );
    let options = FormatOptions {
        tools: Some(&tools),
        ..FormatOptions::default()
    };
    let p = run_format(Format::Qwen3Coder, QWEN, options);
    // Typed: "1" stays a string; a failed integer coercion keeps the text and the call.
    assert_eq!(
        shown(&p.outcomes),
        [r#"f {"a":"1","zip":"03106","s":"hello world"}"#]
    );
}

#[test]
fn qwen3_coder_variants() {
    use Format::Qwen3Coder;
    let compact = "<tool_call><function=f><parameter=a>1</parameter></function></tool_call>";
    assert_eq!(calls(Qwen3Coder, compact), [F_A1]);
    let bare = "text <function=f><parameter=a>1</parameter></function> more";
    let p = parsed(Qwen3Coder, bare);
    assert_eq!(shown(&p.outcomes), [F_A1]);
    assert_eq!(p.content, "text  more");
    let truncated = "<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n";
    assert_eq!(calls(Qwen3Coder, truncated), [F_A1]);
    let object = "<tool_call><function=f><parameter=o>\n{\"k\": [1, 2]}\n</parameter></function></tool_call>";
    assert_eq!(calls(Qwen3Coder, object), [r#"f {"o":{"k":[1,2]}}"#]);
    let multiline = "<tool_call><function=f><parameter=code>\nline 1\n  line 2\n</parameter></function></tool_call>";
    assert_eq!(
        calls(Qwen3Coder, multiline),
        [r#"f {"code":"line 1\n  line 2"}"#]
    );
    // A value whose </parameter> was left out ends before the next tag.
    let unclosed = "<tool_call><function=f><parameter=b>x\n<parameter=a>1</function></tool_call>";
    assert_eq!(calls(Qwen3Coder, unclosed), [r#"f {"b":"x","a":1}"#]);
    let broken = "<tool_call><function=f><parameter=a\n1</parameter></function></tool_call><tool_call><function=g></function></tool_call>";
    let shown = calls(Qwen3Coder, broken);
    assert!(
        shown[0].starts_with("!qwen3_coder: invalid tool call in qwen3_coder call 0"),
        "{shown:?}"
    );
    assert_eq!(shown[1], "g {}", "the failed call ends at its </tool_call>");
    let no_params = "<tool_call><function=g></function></tool_call>";
    assert_eq!(calls(Qwen3Coder, no_params), ["g {}"]);
    // Two blocks in one wrapper: two calls (a hermes block among them too).
    let two = "<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n</function>\n<function=g>{\"b\": 2}</function>\n</tool_call> done";
    assert_eq!(calls(Qwen3Coder, two), [F_A1, r#"g {"b":2}"#]);
    assert_eq!(parsed(Qwen3Coder, two).content, "done");
    assert_eq!(auto(two), [F_A1, r#"g {"b":2}"#]);
    let then_junk = "<tool_call><function=f><parameter=a>1</parameter></function><function=g></function>x</tool_call>";
    let read = calls(Qwen3Coder, then_junk);
    assert_eq!(read[0], F_A1);
    assert!(read[1].contains("expected </tool_call>"), "{read:?}");
}

#[test]
fn glm45_variants() {
    use Format::Glm45;
    let newlines = "<tool_call>f\n<arg_key>a</arg_key>\n<arg_value>1</arg_value>\n<arg_key>s</arg_key>\n<arg_value>x y</arg_value>\n</tool_call>";
    assert_eq!(calls(Glm45, newlines), [r#"f {"a":1,"s":"x y"}"#]);
    let glm47 = "<tool_call>f<arg_key>a</arg_key><arg_value>1</arg_value></tool_call><tool_call>g</tool_call>";
    assert_eq!(calls(Glm45, glm47), [F_A1, "g {}"]);
    let tools =
        schemas(r#"[{"name": "f", "parameters": {"properties": {"a": {"type": "string"}}}}]"#);
    let options = FormatOptions {
        tools: Some(&tools),
        ..FormatOptions::default()
    };
    assert_eq!(
        shown(&run_format(Glm45, glm47, options).outcomes),
        [r#"f {"a":"1"}"#, "g {}"]
    );
}

#[test]
fn glm53_json_arguments_after_the_name() {
    use Format::Glm45;
    // GLM-5.3 Flash: JSON after the name's `>`, its `</tool_call>` left out or written.
    let open = r#"<tool_call>f>{"a": 1}<tool_call>g>{}</tool_call>"#;
    assert_eq!(calls(Glm45, open), [F_A1, "g {}"]);
    let p = parsed(Glm45, r#"Sure.<tool_call>f>{"a": 1} Done."#);
    assert_eq!(shown(&p.outcomes), [F_A1]);
    assert_eq!(p.content, "Sure. Done.");
    // Anything but a JSON object after the `>` is no call, and says so.
    let prose = calls(Glm45, r#"<tool_call>f>see {"a": 1}"#);
    assert!(prose[0].contains("expected JSON arguments"), "{prose:?}");
}

#[test]
fn hyperclovax_values_are_json_encoded() {
    use Format::HyperclovaxSeedThink;
    let tools = schemas(
        r#"[{"name": "f", "parameters": {"properties": {"s": {"type": "string"}, "n": {"type": "integer"}}}}]"#,
    );
    let options = FormatOptions {
        tools: Some(&tools),
        ..FormatOptions::default()
    };
    // A JSON string literal is that string, even for a string parameter (glm45 keeps quotes).
    let text = "<tool_call>f\n<arg_key>s</arg_key>\n<arg_value> \"x\\ny\" </arg_value>\n<arg_key>n</arg_key>\n<arg_value>3</arg_value>\n</tool_call>";
    let read = run_format(HyperclovaxSeedThink, text, options);
    assert_eq!(shown(&read.outcomes), [r#"f {"s":"x\ny","n":3}"#]);
    let options = FormatOptions {
        tools: Some(&tools),
        ..FormatOptions::default()
    };
    let glm = run_format(Format::Glm45, text, options);
    assert_eq!(shown(&glm.outcomes), [r#"f {"s":" \"x\\ny\" ","n":3}"#]);
    // Anything else is typed as glm45's: unquoted text stays text.
    let raw = "<tool_call>f<arg_key>s</arg_key><arg_value>\"x</arg_value></tool_call>";
    assert_eq!(calls(HyperclovaxSeedThink, raw), [r#"f {"s":"\"x"}"#]);
}

#[test]
fn hyperclovax_14b_tool_role_opens_a_list() {
    use Format::HyperclovaxSeedThink14b;
    let list = r#" -> tool/function_call
[{"name": "f", "arguments": {"a": 1}}, {"name": "g", "parameters": {}}]<|im_end|>"#;
    assert_eq!(calls(HyperclovaxSeedThink14b, list), [F_A1, "g {}"]);
    // The tool role opens a message only: in prose it is text.
    let prose = format!("Sure.{list}");
    assert!(calls(HyperclovaxSeedThink14b, &prose).is_empty());
    // After an answer, the model ends its message and opens the tool role itself.
    let after = format!("Let me check.\n<|im_end|>\n<|im_start|>assistant{list}");
    let p = parsed(HyperclovaxSeedThink14b, &after);
    assert_eq!(shown(&p.outcomes), [F_A1, "g {}"]);
    assert_eq!(p.content.trim(), "Let me check.");
}

#[test]
fn hyperclovax_14b_reasoning_turn_ends_at_the_next_turn() {
    use Format::HyperclovaxSeedThink14b;
    let list = r#" -> tool/function_call
[{"name": "f", "arguments": {"a": 1}}]<|im_end|>"#;
    // The reasoning turn, its header written: the next turn header ends it; an answer follows.
    let p = parsed(
        HyperclovaxSeedThink14b,
        "/think\nplan<|im_end|>\n<|im_start|>assistant\nThe answer.<|im_end|>",
    );
    assert_eq!(
        (p.reasoning.as_deref(), &p.content[..]),
        (Some("plan"), "The answer.")
    );
    // Or the tool role, its calls read.
    let p = parsed(
        HyperclovaxSeedThink14b,
        &format!("/think\nplan<|im_end|>\n<|im_start|>assistant{list}"),
    );
    assert_eq!(shown(&p.outcomes), [F_A1]);
    assert_eq!((p.reasoning.as_deref(), &p.content[..]), (Some("plan"), ""));
    // A turn header after an answer is markup too, and a header cut short is read as one.
    let p = parsed(
        HyperclovaxSeedThink14b,
        "Hi<|im_end|>\n<|im_start|>assistant\nMore<|im_end|>\n<|im_start|>assistant -> tool/fu",
    );
    assert!(p.outcomes.is_empty());
    assert_eq!(p.content, "Hi\n\nMore\n -> tool/fu");
    // `/think` in prose, and the turn tokens under another format, are text.
    assert_eq!(
        parsed(HyperclovaxSeedThink14b, "Try /think\nnow").content,
        "Try /think\nnow"
    );
    let chatml = "Hi<|im_end|>\n<|im_start|>assistant\nMore";
    assert_eq!(
        parsed(Format::Hermes, chatml).content,
        "Hi\n<|im_start|>assistant\nMore"
    );
}

#[test]
fn rwkv_labels_open_fenced_calls_at_line_starts() {
    use Format::Rwkv;
    let one = "**Tool Call:**\n```json\n{\"name\": \"f\", \"arguments\": {\"a\": 1}}\n```";
    let two = format!(
        "Checking.\n{one}\n  **Tool Call:** ```json\n{{\"name\": \"g\", \"arguments\": {{}}}}\n```"
    );
    let p = parsed(Rwkv, &two);
    assert_eq!(shown(&p.outcomes), [F_A1, "g {}"]);
    assert_eq!(p.content.trim(), "Checking.");
    // In the middle of a line the label is prose.
    assert!(calls(Rwkv, &format!("See {one}")).is_empty());
    // A fence that is not a call object is a failed call, not prose.
    let broken = parsed(
        Rwkv,
        "**Tool Call:**\n```json\n{\"name\": \"f\", \"arguments\": {\"a\": 1}\n```",
    );
    assert!(matches!(broken.outcomes[..], [Outcome::Invalid(_)]));
}

#[test]
fn cwm_labels_name_tools_of_free_text_input() {
    use Format::Cwm;
    let text =
        "Let me look.\n<tool: bash>\nls -la\n</tool>\n<tool: create>\n/tmp/a.py\nprint(1)\n</tool>";
    let p = parsed(Cwm, text);
    assert_eq!(
        shown(&p.outcomes),
        [
            r#"bash {"command":"ls -la"}"#,
            r#"create {"command":"/tmp/a.py\nprint(1)"}"#
        ]
    );
    assert_eq!(p.content.trim(), "Let me look.");
    // A JSON object is the arguments; the `>` may be left out; `</tool>` may be missing at the end.
    assert_eq!(calls(Cwm, "<tool: f>\n{\"a\": 1}\n</tool>"), [F_A1]);
    assert_eq!(
        calls(Cwm, "<tool: python print(1) </tool>"),
        [r#"python {"command":"print(1)"}"#]
    );
    assert_eq!(
        calls(Cwm, "<tool: bash>\npwd"),
        [r#"bash {"command":"pwd"}"#]
    );
    // No name: a failed call.
    assert!(matches!(
        parsed(Cwm, "<tool: </tool>").outcomes[..],
        [Outcome::Invalid(_)]
    ));
}

#[test]
fn iquest_wrappers_hold_glm45_bodies() {
    let v2 = "Sure.\n<iquestcoder_tool_call>f\n<arg_key>a</arg_key>\n<arg_value>1</arg_value>\n</iquestcoder_tool_call><iquestcoder_tool_call>g</iquestcoder_tool_call>";
    let p = parsed(Format::IquestCoderV2, v2);
    assert_eq!(shown(&p.outcomes), [F_A1, "g {}"]);
    assert_eq!(p.content, "Sure.");
    // A value whose `</arg_value>` was left out ends at the wrapper's own closing tag.
    let q1 = "<iquest_tool_call>f<arg_key>a</arg_key><arg_value>1</iquest_tool_call><|iquest_end|>";
    assert_eq!(calls(Format::IquestQ1, q1), [F_A1]);
    assert_eq!(auto(q1), [F_A1]);
    let cut = calls(Format::IquestQ1, "<iquest_tool_call>f<arg_key>a</arg_key>");
    assert!(cut[0].contains("expected <arg_value>"), "{cut:?}");
}

#[test]
fn glm45_reads_laguna_json_spellings() {
    // A JSON call object in the tag, and a name followed by JSON arguments (Laguna writes both).
    use Format::Glm45;
    let object = r#"<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>"#;
    let named = "<tool_call>f\n{\"a\": 1}\n</tool_call>";
    assert_eq!(calls(Glm45, &format!("{object}{named}")), [F_A1, F_A1]);
}

#[test]
fn tool_call_tag_bodies_are_told_apart() {
    let text = "<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": 1}}</tool_call>\n<tool_call>\n<function=g>\n</function>\n</tool_call>\n<tool_call>h\n<arg_key>b</arg_key><arg_value>2</arg_value></tool_call>";
    assert_eq!(auto(text), [F_A1, "g {}", r#"h {"b":2}"#]);
}

// --- minimax_m2 and deepseek_dsml (the invoke shape) ----------------------------------------

#[test]
fn minimax_m2_variants() {
    use Format::MinimaxM2;
    let one = r#"<minimax:tool_call><invoke name="f"><parameter name="a">1</parameter></invoke></minimax:tool_call>"#;
    assert_eq!(calls(MinimaxM2, one), [F_A1]);
    let two = "Sure.\n<minimax:tool_call>\n<invoke name=\"f\">\n<parameter name=\"a\">1</parameter>\n</invoke>\n<invoke name=\"g\">\n<parameter name=\"s\">x y</parameter>\n<parameter name=\"o\">{\"k\": [1]}</parameter>\n</invoke>\n</minimax:tool_call>\nDone.";
    let p = parsed(MinimaxM2, two);
    assert_eq!(shown(&p.outcomes), [F_A1, r#"g {"s":"x y","o":{"k":[1]}}"#]);
    assert_eq!(p.content, "Sure.\n\nDone.");
    // Typed by the schema: "10" stays text for a string parameter.
    let tools =
        schemas(r#"[{"name": "f", "parameters": {"properties": {"a": {"type": "string"}}}}]"#);
    let options = FormatOptions {
        tools: Some(&tools),
        ..FormatOptions::default()
    };
    let typed = run_format(MinimaxM2, one, options);
    assert_eq!(shown(&typed.outcomes), [r#"f {"a":"1"}"#]);
    // No wrapper close at the end of the text; a broken invoke does not stop the next one.
    let cut = r#"<minimax:tool_call><invoke name="f"><parameter name="a">1</parameter></invoke>"#;
    assert_eq!(calls(MinimaxM2, cut), [F_A1]);
    let broken = r#"<minimax:tool_call><invoke nam="f"></invoke><invoke name="g"></invoke></minimax:tool_call>"#;
    let shown = calls(MinimaxM2, broken);
    assert!(
        shown[0].starts_with("!minimax_m2: invalid tool call in minimax_m2 call 0"),
        "{shown:?}"
    );
    assert_eq!(shown[1], "g {}");
    assert!(calls(MinimaxM2, "Write `<minimax:tool_call>` tags.").is_empty());
    // A value may hold its own closing tag: the value ends at the one markup follows.
    let inner = r#"<minimax:tool_call><invoke name="f"><parameter name="a">x </parameter> y</parameter>
<parameter name="b">2</parameter></invoke></minimax:tool_call>"#;
    assert_eq!(
        calls(MinimaxM2, inner),
        [r#"f {"a":"x </parameter> y","b":2}"#]
    );
    // With no later closing tag, what follows the first is not markup: the invoke is broken.
    let stray = r#"<minimax:tool_call><invoke name="f"><parameter name="a">x</parameter> y</invoke></minimax:tool_call>"#;
    assert!(calls(MinimaxM2, stray)[0].starts_with("!minimax_m2"));
}

// --- the XML and token-section formats of issue 23 ----------------------------------------

#[test]
fn seed_oss_is_qwen3_coder_in_its_own_tag() {
    use Format::SeedOss;
    let text = "<seed:think>Call f.</seed:think>\n<seed:tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n</function>\n</seed:tool_call>";
    let p = parsed(SeedOss, text);
    assert_eq!(shown(&p.outcomes), [F_A1]);
    // `<seed:think>` is a think span: its text is reasoning, not content.
    assert_eq!(p.content, "");
    assert_eq!(p.reasoning.as_deref(), Some("Call f."));
    assert_eq!(auto(text), [F_A1]);
    // A JSON body is not Seed-OSS's: a failure that ends at its closing tag.
    let json = "<seed:tool_call>{\"name\": \"f\"}</seed:tool_call><seed:tool_call><function=g></function></seed:tool_call>";
    let shown = calls(SeedOss, json);
    assert!(shown[0].starts_with("!seed_oss: "), "{shown:?}");
    assert_eq!(shown[1], "g {}");
    // The same body in `<tool_call>` stays qwen3_coder's.
    assert!(calls(SeedOss, "<tool_call><function=f></function></tool_call>").is_empty());
}

#[test]
fn gigachat3_messages() {
    use Format::Gigachat3;
    let three = "Sure.<|message_sep|>\n\nfunction call<|role_sep|>\n{\"name\": \"f\", \"arguments\": {\"a\": 1}}</s>";
    let p = parsed(Gigachat3, three);
    assert_eq!(shown(&p.outcomes), [F_A1]);
    assert_eq!(p.content, "Sure.");
    let one = "<|function_call|>{\"name\": \"f\", \"arguments\": {\"a\": 1}}\nThanks.";
    let p = parsed(Gigachat3, one);
    assert_eq!(
        (shown(&p.outcomes), p.content.as_str()),
        (vec![F_A1.to_owned()], "Thanks.")
    );
    // Another role: the separator is prose.
    let other = "Hi<|message_sep|>\n\nassistant<|role_sep|>\nplain";
    let p = parsed(Gigachat3, other);
    assert!(p.outcomes.is_empty());
    assert_eq!(p.content, other);
    let broken = calls(
        Gigachat3,
        "<|function_call|>{\"name\": \"f\", \"arguments\": {x}}",
    );
    assert!(broken[0].starts_with("!gigachat3: "), "{broken:?}");
    // A reply that is the call message itself begins with its role (SGLang's tests); only
    // there: after prose the role is text, as is the role without its separator.
    let role = "function call<|role_sep|>\n{\"name\": \"f\", \"arguments\": {\"a\": 1}}</s>";
    let p = parsed(Gigachat3, role);
    assert_eq!(
        (shown(&p.outcomes), p.content.as_str()),
        (vec![F_A1.to_owned()], "")
    );
    let later = format!("Sure. {role}");
    assert!(calls(Gigachat3, &later).is_empty());
    let prose = "function call semantics differ.";
    let p = parsed(Gigachat3, prose);
    assert!(p.outcomes.is_empty());
    assert_eq!(p.content, prose);
}

#[test]
fn invoke_shapes_in_other_tags() {
    let gcml = "<｜GCML｜tool_calls><｜GCML｜invoke name=\"f\"><｜GCML｜parameter name=\"a\" string=\"false\">1</｜GCML｜parameter><｜GCML｜parameter name=\"s\" string=\"true\">1</｜GCML｜parameter></｜GCML｜invoke></｜GCML｜tool_calls>";
    assert_eq!(calls(Format::Gigachat35, gcml), [r#"f {"a":1,"s":"1"}"#]);
    let dots = "<dots_function_call><invoke name=\"f\"><parameter name=\"a\">1</parameter></invoke></dots_function_call>";
    assert_eq!(calls(Format::Dots, dots), [F_A1]);
    let atem = "to=functions.f<|message|><atem:function_calls><atem:invoke name=\"f\"><atem:parameter name=\"a\">1</atem:parameter></atem:invoke></atem:function_calls><|eom|>";
    let p = parsed(Format::MuseGlimmer, atem);
    assert_eq!(shown(&p.outcomes), [F_A1]);
    assert_eq!(p.content, "");
    let step3 = "Let me help.\n<｜tool_calls_begin｜>\n<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"f\"><steptml:parameter name=\"a\">1</steptml:parameter></steptml:invoke><｜tool_call_end｜>\n<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"g\"></steptml:invoke><｜tool_call_end｜>\n<｜tool_calls_end｜>\nDone.";
    let p = parsed(Format::Step3, step3);
    assert_eq!(shown(&p.outcomes), [F_A1, "g {}"]);
    assert_eq!(p.content, "Let me help.\n\nDone.");
    for (format, text) in [
        (Format::Gigachat35, gcml),
        (Format::Dots, dots),
        (Format::MuseGlimmer, atem),
        (Format::Step3, step3),
    ] {
        assert_eq!(auto(text), calls(format, text), "{text}");
    }
}

#[test]
fn longcat_is_hermes_in_its_own_tag() {
    use Format::Longcat;
    let text =
        "<longcat_tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1}}\n</longcat_tool_call>";
    assert_eq!(calls(Longcat, text), [F_A1]);
    assert_eq!(auto(text), [F_A1]);
    let list = "<longcat_tool_call>[{\"name\": \"f\", \"arguments\": {\"a\": 1}}, {\"name\": \"g\", \"parameters\": {}}]</longcat_tool_call>";
    assert_eq!(calls(Longcat, list), [F_A1, "g {}"]);
}

#[test]
fn deepseek_dsml_variants() {
    use Format::DeepseekDsml;
    let v32 = "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"f\">\n<｜DSML｜parameter name=\"a\" string=\"false\">1</｜DSML｜parameter>\n<｜DSML｜parameter name=\"s\" string=\"true\">10</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>";
    assert_eq!(calls(DeepseekDsml, v32), [r#"f {"a":1,"s":"10"}"#]);
    let v4 = v32.replace("function_calls", "tool_calls");
    assert_eq!(calls(DeepseekDsml, &v4), [r#"f {"a":1,"s":"10"}"#]);
    let json_body = "<｜DSML｜function_calls><｜DSML｜invoke name=\"f\">\n{\"a\": 1}\n</｜DSML｜invoke></｜DSML｜function_calls>";
    assert_eq!(calls(DeepseekDsml, json_body), [F_A1]);
    let no_parameters = "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"get_date\">\n</｜DSML｜invoke>\n</｜DSML｜function_calls>";
    assert_eq!(calls(DeepseekDsml, no_parameters), ["get_date {}"]);
    // The V3.2 wrapper ends at its own closing tag, not the V4 one.
    let mixed = "<｜DSML｜function_calls><｜DSML｜invoke name=\"f\"></｜DSML｜invoke></｜DSML｜tool_calls> after";
    let p = parsed(DeepseekDsml, mixed);
    assert_eq!(shown(&p.outcomes)[0], "f {}");
    // V4 often writes its invokes with no wrapper: a run of them, ended by anything else.
    let invoke = "<｜DSML｜invoke name=\"f\"><｜DSML｜parameter name=\"a\" string=\"false\">1</｜DSML｜parameter></｜DSML｜invoke>";
    let bare = format!("Sure.\n{invoke}\n{invoke}\nDone.");
    let p = parsed(DeepseekDsml, &bare);
    assert_eq!(shown(&p.outcomes), [F_A1, F_A1]);
    assert_eq!(p.content, "Sure.\n\nDone.");
    // V4.1 writes a space after the DSML token in every tag; a block keeps its spelling.
    let v41 = v32
        .replace("｜DSML｜", "｜DSML｜ ")
        .replace(" function_calls", " calls");
    assert_eq!(calls(DeepseekDsml, &v41), [r#"f {"a":1,"s":"10"}"#]);
    assert_eq!(auto(&v41), [r#"f {"a":1,"s":"10"}"#]);
    let unspaced_inside =
        "<｜DSML｜ calls><｜DSML｜invoke name=\"f\"></｜DSML｜invoke></｜DSML｜ calls>";
    let shown = calls(DeepseekDsml, unspaced_inside);
    assert!(shown[0].contains("expected <｜DSML｜ invoke"), "{shown:?}");
}

// --- mistral ------------------------------------------------------------------------------

#[test]
fn mistral_variants() {
    use Format::Mistral;
    let pre = r#"[TOOL_CALLS][{"name": "f", "arguments": {"a": 1}, "id": "abc123XYZ"}, {"name": "g", "arguments": {}}]"#;
    assert_eq!(calls(Mistral, pre), [F_A1, "g {}"]);
    assert_eq!(ids(Mistral, pre), [Some("abc123XYZ".to_owned()), None]);
    let spaced = r#"Sure. [TOOL_CALLS] [{"name": "f", "arguments": {"a": 1}}]"#;
    let p = parsed(Mistral, spaced);
    assert_eq!(
        (shown(&p.outcomes), p.content.as_str()),
        (vec![F_A1.to_owned()], "Sure.")
    );
    let v11 = r#"[TOOL_CALLS]f[ARGS]{"a": 1}[TOOL_CALLS]g[CALL_ID]abc123XYZ[ARGS]{}"#;
    assert_eq!(calls(Mistral, v11), [F_A1, "g {}"]);
    assert_eq!(ids(Mistral, v11), [None, Some("abc123XYZ".to_owned())]);
    // The [ARGS] token dropped in decoding, as vLLM's tests write it.
    let no_args = r#"[TOOL_CALLS]f{"a": 1}[TOOL_CALLS]g {}"#;
    assert_eq!(calls(Mistral, no_args), [F_A1, "g {}"]);
    let broken = r#"[TOOL_CALLS]f"a"[TOOL_CALLS]g[ARGS]{}"#;
    let shown = calls(Mistral, broken);
    assert!(shown[0].contains("expected NAME[ARGS]"), "{shown:?}");
    assert_eq!(shown[1], "g {}");
}

// --- llama3_json --------------------------------------------------------------------------

#[test]
fn llama3_json_variants() {
    use Format::Llama3Json;
    let tagged =
        r#"<|python_tag|>{"name": "f", "parameters": {"a": 1}}; {"name": "g", "parameters": {}}"#;
    assert_eq!(calls(Llama3Json, tagged), [F_A1, "g {}"]);
    let plain = r#"{"name": "f", "parameters": {"a": 1}}; {"name": "g", "parameters": {}}"#;
    assert_eq!(calls(Llama3Json, plain), [F_A1, "g {}"]);
    assert_eq!(auto(plain), [F_A1, "g {}"]);
    let not_a_call = r#"{"answer": 42}"#;
    assert!(calls(Llama3Json, not_a_call).is_empty());
    assert!(auto(not_a_call).is_empty());
    let mid_prose = r#"For example {"name": "f", "parameters": {}} is a call."#;
    assert!(calls(Llama3Json, mid_prose).is_empty());
    // Llama 3 also writes `"arguments"` (vLLM's tests); a tag in a string is no marker.
    let arguments = r#"{"name": "f", "arguments": {"s": "<|python_tag|>"}}"#;
    assert_eq!(
        calls(Llama3Json, arguments),
        [r#"f {"s":"<|python_tag|>"}"#]
    );
    assert_eq!(auto(arguments), [r#"f {"s":"<|python_tag|>"}"#]);
    // Without an arguments key it is no call, and other JSON is left to raw JSON.
    assert!(calls(Llama3Json, r#"{"name": "f"}"#).is_empty());
    let broken_after_tag = r#"<|python_tag|>{"name": "f", "parameters": {"a": }"#;
    assert!(calls(Llama3Json, broken_after_tag)[0].starts_with("!llama3_json"));
}

// --- pythonic -----------------------------------------------------------------------------

#[test]
fn pythonic_variants() {
    use Format::Pythonic;
    let text = "[f(a=1), g(b='x', c=True, d=None, e=[1, {'k': 2}])]";
    assert_eq!(
        calls(Pythonic, text),
        [F_A1, r#"g {"b":"x","c":true,"d":null,"e":[1,{"k":2}]}"#]
    );
    let wrapped = "<|python_start|>[math.factorial(number=5, t=(1, 2), s=\"it's\")]<|python_end|>";
    assert_eq!(
        calls(Pythonic, wrapped),
        [r#"math.factorial {"number":5,"t":[1,2],"s":"it's"}"#]
    );
    assert_eq!(auto(wrapped).len(), 1);
    let empty = "[f(), g(a=-1.5e3,)]";
    assert_eq!(calls(Pythonic, empty), ["f {}", r#"g {"a":-1500.0}"#]);
    let bad = "[f(a=x), g(b=1), h(1), k(c=__import__('os').system('rm'))]";
    let shown = calls(Pythonic, bad);
    assert_eq!(shown.len(), 4, "{shown:?}");
    assert!(shown[0].contains("'x' is not a literal"));
    assert_eq!(shown[1], r#"g {"b":1}"#);
    assert!(shown[2].contains("positional"));
    assert!(shown[3].starts_with("!pythonic"));
    assert!(calls(Pythonic, "see [the docs](https://x) (f(a=1))").is_empty());
    assert!(auto("[link](x)").is_empty());
    // `**{…}` binds keyword arguments; a later binding wins.
    let unpacked = "[f(a=0, **{'a': 1}), g(**[1])]";
    let shown = calls(Pythonic, unpacked);
    assert_eq!(shown[0], F_A1);
    assert!(
        shown[1].contains("expected a dict literal after '**'"),
        "{shown:?}"
    );
    // A string's own quotes left unescaped: read where exactly one reading fits.
    assert_eq!(
        calls(Pythonic, "[f(a='it's'), g()]"),
        [r#"f {"a":"it's"}"#, "g {}"]
    );
    let two_readings = calls(Pythonic, "[g(b='x 'y', c='z')]");
    assert!(two_readings[0].starts_with("!pythonic"), "{two_readings:?}");
    // Lists written one after another are all calls; prose ends the run.
    let adjacent = "[f(a=1)] [f(a=1), g()]\n[link](x) [g()]";
    assert_eq!(calls(Pythonic, adjacent), [F_A1, F_A1, "g {}"]);
    assert_eq!(parsed(Pythonic, adjacent).content, "[link](x) [g()]");
}

// --- deepseek -----------------------------------------------------------------------------

#[test]
fn deepseek_variants() {
    let v31 = "Let me check.\n\n<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{\"a\": 1}<｜tool▁call▁end｜><｜tool▁call▁begin｜>g<｜tool▁sep｜>{}<｜tool▁call▁end｜><｜tool▁calls▁end｜>";
    let p = parsed(Format::DeepseekV31, v31);
    assert_eq!(
        (shown(&p.outcomes), p.content.as_str()),
        (vec![F_A1.to_owned(), "g {}".to_owned()], "Let me check.")
    );
    assert_eq!(auto(v31), [F_A1, "g {}"]);
    let v3 = "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json\n{\"a\": 1}\n```<｜tool▁call▁end｜>\n<｜tool▁call▁begin｜>function<｜tool▁sep｜>g\n```json\n{}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>";
    assert_eq!(calls(Format::DeepseekV3, v3), [F_A1, "g {}"]);
    assert_eq!(auto(v3), [F_A1, "g {}"]);
    let missing_end = "<｜tool▁call▁begin｜>f<｜tool▁sep｜>{\"a\": 1}";
    assert_eq!(calls(Format::DeepseekV31, missing_end), [F_A1]);
    // DeepSeek R1: `<｜tool▁calls｜>` begins the section and its first call at once.
    let r1 = "<｜tool▁calls｜>function<｜tool▁sep｜>f\n```json\n{\"a\": 1}\n```<｜tool▁call▁end｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>g\n```json\n{}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜> after";
    let p = parsed(Format::DeepseekV3, r1);
    assert_eq!(
        (shown(&p.outcomes), p.content.as_str()),
        (vec![F_A1.to_owned(), "g {}".to_owned()], "after")
    );
    let no_sep = "<｜tool▁call▁begin｜>f{\"a\": 1}<｜tool▁call▁end｜><｜tool▁call▁begin｜>g<｜tool▁sep｜>{}<｜tool▁call▁end｜>";
    let shown = calls(Format::DeepseekV31, no_sep);
    assert!(shown[0].contains("missing <｜tool▁sep｜>"), "{shown:?}");
    assert_eq!(shown[1], "g {}");
}

// --- kimi_k2 ------------------------------------------------------------------------------

#[test]
fn kimi_k2_variants() {
    let plain = "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{\"a\": 1}<|tool_call_end|><|tool_call_begin|>functions.g:1<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>";
    assert_eq!(calls(Format::KimiK2, plain), [F_A1, "g {}"]);
    assert_eq!(
        ids(Format::KimiK2, plain),
        [
            Some("functions.f:0".to_owned()),
            Some("functions.g:1".to_owned())
        ]
    );
    let spaced = "Let me look. <|tool_calls_section_begin|> <|tool_call_begin|> functions.math.gcd:0 <|tool_call_argument_begin|> {\"a\": 1} <|tool_call_end|> <|tool_calls_section_end|>";
    let p = parsed(Format::KimiK2, spaced);
    assert_eq!(shown(&p.outcomes), [r#"math.gcd {"a":1}"#]);
    assert_eq!(p.content, "Let me look.");
    assert_eq!(auto(spaced).len(), 1);
    // The section tokens in the singular, as some outputs spell them.
    let singular = "Hi.<|tool_call_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{\"a\": 1}<|tool_call_end|><|tool_call_section_end|> Bye.";
    let p = parsed(Format::KimiK2, singular);
    assert_eq!(shown(&p.outcomes), [F_A1]);
    assert_eq!(p.content, "Hi. Bye.");
    assert_eq!(auto(singular), [F_A1]);
}

#[test]
fn kimi_k2_nothing_between_argument_begin_and_call_end_is_no_arguments() {
    // A complete call written with no arguments (LMDeploy's test_kimi_k2_parser.py).
    for body in ["", "  ", "\n"] {
        let text = format!("<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{body}<|tool_call_end|><|tool_call_begin|>functions.g:1<|tool_call_argument_begin|>{{\"a\": 1}}<|tool_call_end|><|tool_calls_section_end|>");
        assert_eq!(
            calls(Format::KimiK2, &text),
            ["f {}", r#"g {"a":1}"#],
            "{body:?}"
        );
    }
    // The end token left out before the section's end: the call is complete all the same.
    let left_out = "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|><|tool_calls_section_end|>";
    assert_eq!(calls(Format::KimiK2, left_out), ["f {}"]);
    // Cut right after the argument token: the arguments were never written, so no call runs.
    let cut =
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>";
    assert!(calls(Format::KimiK2, cut)[0].starts_with('!'));
}

// --- harmony ------------------------------------------------------------------------------

#[test]
fn harmony_variants() {
    use Format::Harmony;
    let standard = "<|start|>assistant<|channel|>analysis<|message|>Need f.<|end|><|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json<|message|>{\"a\": 1}<|call|>";
    let p = parsed(Harmony, standard);
    assert_eq!(shown(&p.outcomes), [F_A1]);
    assert_eq!(p.reasoning.as_deref(), Some("Need f."));
    let in_role = "<|start|>assistant to=functions.calculus.derivative<|channel|>commentary <|constrain|>json<|message|>{\"a\": 1}<|call|>";
    assert_eq!(calls(Harmony, in_role), [r#"calculus.derivative {"a":1}"#]);
    let no_constrain = "<|channel|>commentary to=functions.f<|message|>{\"a\": 1}<|call|>";
    assert_eq!(calls(Harmony, no_constrain), [F_A1]);
    let bare_name = "<|start|>assistant<|channel|>analysis to=f<|message|>{\"a\": 1}<|call|>";
    assert_eq!(calls(Harmony, bare_name), [F_A1]);
    let prose = "<|channel|>analysis<|message|>Think.<|end|><|start|>assistant<|channel|>final<|message|>The answer is 4.<|return|>";
    let p = parsed(Harmony, prose);
    assert!(p.outcomes.is_empty());
    assert_eq!(
        (p.content.as_str(), p.reasoning.as_deref()),
        ("The answer is 4.", Some("Think."))
    );
    let broken =
        "<|start|>assistant<|channel|>commentary to=functions.f<|message|>{\"a\": <|call|>";
    assert!(calls(Harmony, broken)[0].starts_with("!harmony: invalid arguments"));
    assert_eq!(auto(standard), [F_A1]);
    // The prompt ended with `<|start|>assistant`: the completion starts at the recipient.
    for channel in ["commentary", "analysis"] {
        let at_recipient = format!(
            " to=functions.f<|channel|>{channel} <|constrain|>json<|message|>{{\"a\": 1}}<|call|>"
        );
        let p = parsed(Harmony, &at_recipient);
        assert_eq!(
            (shown(&p.outcomes), p.content.as_str()),
            (vec![F_A1.to_owned()], "")
        );
        assert_eq!(auto(&at_recipient), [F_A1]);
    }
    // Only at the start of a message, and only as a header: elsewhere `to=` is prose.
    for prose in [
        "to=be or not to be",
        "to=functions.f",
        "to=\n<|channel|>commentary<|message|>{}",
        "Hi to=functions.f<|channel|>commentary<|message|>{}",
        &format!("to={}<|channel|>commentary<|message|>{{}}", "f".repeat(300)),
    ] {
        let p = parsed(Harmony, prose);
        assert!(p.outcomes.is_empty(), "{prose:?}");
        assert!(p
            .content
            .starts_with(&prose[..prose.find('<').unwrap_or(prose.len())]));
    }
}

// --- muse glimmer: harmony's framing around ATEM blocks -----------------------------------

const ATEM_F: &str = "<atem:function_calls>\n<atem:invoke name=\"f\">\n<atem:parameter name=\"a\">1</atem:parameter>\n</atem:invoke>\n</atem:function_calls>";

#[test]
fn muse_glimmer_messages() {
    use Format::MuseGlimmer;
    // The prompt ended with `<|start|>assistant`: the completion starts at the recipient.
    let answer = " to=user<|message|>Hello, world!\nWhat's up?<|eot|>";
    let p = parsed(MuseGlimmer, answer);
    assert!(p.outcomes.is_empty());
    assert_eq!(p.content, "Hello, world!\nWhat's up?");
    let call = format!(" to=f<|message|>{ATEM_F}");
    let p = parsed(MuseGlimmer, &call);
    assert_eq!(
        (shown(&p.outcomes), p.content.as_str()),
        (vec![F_A1.to_owned()], "")
    );
    // Reasoning, an answer, then a call: the names are the invokes', not the recipient's.
    let turn = format!(
        " to=self<|message|>Use f.<|eom|><|start|>assistant to=user<|message|>Sure.<|eom|>\
         <|start|>assistant to=weather.get<|message|>\n{ATEM_F}<|eom|>"
    );
    let p = parsed(MuseGlimmer, &turn);
    assert_eq!(shown(&p.outcomes), [F_A1]);
    assert_eq!(
        (p.content.as_str(), p.reasoning.as_deref()),
        ("Sure.", Some("Use f."))
    );
    // A tool registered without a namespace is invoked by its name twice: the tool's name.
    let doubled = ATEM_F.replace("name=\"f\"", "name=\"f.f\"");
    assert_eq!(
        calls(MuseGlimmer, &format!(" to=f.f<|message|>{doubled}")),
        [F_A1]
    );
    let namespaced = ATEM_F.replace("name=\"f\"", "name=\"weather.f\"");
    assert_eq!(
        calls(MuseGlimmer, &namespaced),
        [F_A1.replacen('f', "weather.f", 1)]
    );
    // An answer with no recipient: ` to=user` is optional.
    let p = parsed(MuseGlimmer, "<|message|>Hello<|eot|>");
    assert!(p.outcomes.is_empty());
    assert_eq!(p.content, "Hello");
    assert_eq!(
        parsed(Format::Harmony, "<|message|>Hello").content,
        "<|message|>Hello"
    );
    // A block quoted in an answer or in reasoning is text, its closing tag too.
    for (quoted, is_reasoning) in [
        (
            format!(" to=user<|message|>Like this: {ATEM_F}<|eot|>"),
            false,
        ),
        (
            format!(" to=self<|message|>Maybe {ATEM_F} here<|eom|>"),
            true,
        ),
    ] {
        let p = parsed(MuseGlimmer, &quoted);
        assert!(p.outcomes.is_empty(), "{quoted}");
        let text = if is_reasoning {
            p.reasoning.unwrap_or_default()
        } else {
            p.content
        };
        assert!(text.contains(ATEM_F), "{quoted}: {text}");
        assert_eq!(auto(&quoted), Vec::<String>::new());
    }
    // A block with no framing is read as before; a body addressed to a tool that is no block
    // is read as JSON arguments (an invalid call when it is not).
    let p = parsed(MuseGlimmer, &format!("Sure. {ATEM_F} Done."));
    assert_eq!(
        (shown(&p.outcomes), p.content.as_str()),
        (vec![F_A1.to_owned()], "Sure.  Done.")
    );
    assert_eq!(
        calls(MuseGlimmer, " to=f<|message|>{\"a\": 1}<|eom|>"),
        [F_A1]
    );
    assert!(calls(MuseGlimmer, " to=f<|message|>oops<|eom|>")[0].starts_with("!muse_glimmer"));
    assert_eq!(auto(&turn), [F_A1]);
    assert_eq!(auto(&call), [F_A1]);
    // Harmony alone reads no Muse Glimmer header; Muse Glimmer alone no harmony channel.
    assert_eq!(parsed(Format::Harmony, answer).content, answer.trim());
    let harmony =
        " to=functions.f<|channel|>commentary <|constrain|>json<|message|>{\"a\": 1}<|call|>";
    assert!(calls(MuseGlimmer, harmony).is_empty());
}

// --- granite's answer wrapper, a hermes wrapper too --------------------------------------

#[test]
fn response_wraps_a_granite_answer_or_a_hermes_call() {
    let answer = "<think>Hm</think><response>Hello,\nworld!</response> Bye.";
    let p = parsed(Format::Granite, answer);
    assert!(p.outcomes.is_empty());
    assert_eq!(p.content, "Hello,\nworld! Bye.");
    // With hermes alone, the tag around something that is no call is prose.
    let p = parsed(Format::Hermes, answer);
    assert_eq!(p.content, "<response>Hello,\nworld!</response> Bye.");
    // A call object in it is a hermes call when hermes is read, content for granite alone.
    let call = "<response>{\"name\": \"f\", \"arguments\": {\"a\": 1}}</response>";
    assert_eq!(calls(Format::Hermes, call), [F_A1]);
    assert_eq!(auto(call), [F_A1]);
    let p = parsed(Format::Granite, call);
    assert!(p.outcomes.is_empty());
    assert_eq!(p.content, "{\"name\": \"f\", \"arguments\": {\"a\": 1}}");
    // The answer ends at its closing tag: calls after it are read.
    let then_call = "<response>Sure</response><tool_call>{\"name\": \"f\", \"arguments\": {\"a\": 1}}</tool_call>";
    assert_eq!(auto(then_call), [F_A1]);
}

#[test]
fn answer_wraps_a_hunyuan_answer_where_jamba_is_read() {
    let text = "<think>Hm</think><answer>Sure.<tool_calls>[{\"name\": \"f\", \"arguments\": {\"a\": 1}}]</tool_calls></answer>";
    let p = parsed(Format::Jamba, text);
    assert_eq!(p.content, "Sure.");
    assert_eq!(calls(Format::Jamba, text), [F_A1]);
    assert_eq!(auto(text), [F_A1]);
    let p = parsed(Format::Hermes, "<answer>Paris</answer>");
    assert_eq!(p.content, "<answer>Paris</answer>");
}

// --- the whole tier -----------------------------------------------------------------------

#[test]
fn extract_restricts_to_the_allowed_formats() {
    let text = "<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": 1}}</tool_call>";
    assert!(extracted(text, FormatSet::only(Format::Mistral)).is_empty());
    assert!(extracted(text, FormatSet::NONE).is_empty());
    assert_eq!(extracted(text, FormatSet::only(Format::Hermes)), [F_A1]);
    assert_eq!(auto("no markers at all"), Vec::<String>::new());
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let deep = format!(
        "<tool_call>{{\"name\": \"f\", \"arguments\": {}1{}}}</tool_call>",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    assert!(calls(Format::Hermes, &deep)[0].contains("nesting deeper than 256"));
    let deep_py = format!("[f(a={}1{})]", "[".repeat(100_000), "]".repeat(100_000));
    assert!(calls(Format::Pythonic, &deep_py)[0].contains("nesting deeper than 256"));
}

#[test]
fn many_broken_calls_stay_linear() {
    // Each of these would rescan the rest of the text if searches were not cached.
    let n = 20_000;
    for (format, unit) in [
        (Format::Hermes, "<tool_call>{"),
        (Format::Qwen3Coder, "<tool_call><function=f><parameter=a>"),
        (Format::Glm45, "<tool_call>f<arg_key>a"),
        (Format::Mistral, "[TOOL_CALLS]f"),
        (Format::KimiK2, "<|tool_call_begin|>x"),
        (Format::Harmony, "<|start|>assistant"),
        (Format::Pythonic, "<|python_start|>[f(a=x"),
    ] {
        let text = unit.repeat(n);
        let started = std::time::Instant::now();
        let p = parsed(format, &text);
        // A hang guard, not a speed check (benches/ measure speed): a rescan per call would
        // take minutes here, even in a release build; a debug build on a loaded machine
        // takes a few seconds.
        assert!(
            started.elapsed().as_secs() < 30,
            "{format:?} took {:?}",
            started.elapsed()
        );
        assert!(
            !p.outcomes.is_empty() || format == Format::Harmony,
            "{format:?}"
        );
    }
}

#[test]
fn format_names_round_trip() {
    for &format in Format::ALL {
        assert_eq!(Format::parse(format.as_str()), Some(format));
        assert!(FormatSet::ALL.contains(format));
    }
    assert_eq!(Format::parse("nope"), None);
    // An alias of several names stands for canonical names only, and is no other name.
    for (alias, names) in Protocol::alias_sets() {
        assert!(Format::parse(alias).is_none() && Protocol::parse_text(alias).is_none());
        for name in *names {
            let protocol = Protocol::parse_text(name).map(Protocol::as_str);
            let format = Format::parse(name).map(Format::as_str);
            assert_eq!(protocol.or(format), Some(*name));
        }
    }
}

#[test]
fn an_lfm2_echo_of_its_list_is_neither_content_nor_a_second_call() {
    let (start, end) = ("<|tool_call_start|>", "<|tool_call_end|>");
    let echoed = format!("{start}[f(a=1)]{end}\n[f(a=1)]{end} ok");
    let read = parsed(Format::Lfm2, &echoed);
    assert_eq!(shown(&read.outcomes), [r#"f {"a":1}"#]);
    assert_eq!(read.content, "ok");
    // Another list after the end token is text, and the end token that closes nothing dropped.
    let other = parsed(Format::Lfm2, &format!("{start}[f(a=1)]{end}[g()]{end}"));
    assert_eq!(shown(&other.outcomes), [r#"f {"a":1}"#]);
    assert_eq!(other.content, "[g()]");
}
