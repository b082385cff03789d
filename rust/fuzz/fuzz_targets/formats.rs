//! The open-weight formats. The first byte picks the format (low nibble: an index into
//! `Format::ALL`, or past it `extract`'s tier over all of them), repair (0x80), calls in
//! reasoning (0x40) and typing by a tool schema (0x20).
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolwire_core::extract::{extract_text, TextOptions};
use toolwire_core::formats::{Format, FormatSet, ParamTypes, ToolSchemas};
use toolwire_core::json::{parse, JsonView, ParseOptions, ValueBuilder};
use toolwire_core::stream::{parse_text_with_tools, StreamOptions};
use toolwire_fuzz::{check_outcomes, json_options, text_of};

const TOOLS: &str = r#"[{"name": "f", "parameters": {"properties": {
    "s": {"type": "string"}, "i": {"type": "integer"}, "n": {"type": "number"},
    "b": {"type": "boolean"}, "o": {"type": "object"}, "a": {"type": "array", "items": {"type": "integer"}},
    "u": {"type": ["integer", "null"]}, "e": {"enum": ["x", "y"]}}}}]"#;

fuzz_target!(|data: &[u8]| {
    let Some((&control, rest)) = data.split_first() else {
        return;
    };
    let text = text_of(rest);
    let schemas = (control & 0x20 != 0).then(|| {
        let Ok(tools) = parse(TOOLS, &mut ValueBuilder, ParseOptions::default()) else {
            unreachable!("the tool list is valid JSON")
        };
        ToolSchemas::from_tools(&tools.items())
    });
    let tools = schemas.as_ref().map(|s| s as &dyn ParamTypes);
    match Format::ALL.get(usize::from(control & 0x0F)) {
        Some(&format) => {
            let options = StreamOptions {
                calls_in_reasoning: control & 0x40 != 0,
                json: json_options(control),
                ..StreamOptions::only(format)
            };
            let Ok(mut parsed) = parse_text_with_tools(&mut ValueBuilder, &text, options, tools);
            check_outcomes(&text, &mut parsed.calls);
        }
        None => {
            let options = TextOptions {
                text_tagged: false,
                formats: FormatSet::ALL,
                raw_json: None,
                json: json_options(control),
                tools,
                starts_in_reasoning: false,
            };
            let Ok(mut outcomes) = extract_text(&mut ValueBuilder, &text, &options);
            check_outcomes(&text, &mut outcomes);
        }
    }
});
