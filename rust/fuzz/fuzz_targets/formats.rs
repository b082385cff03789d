//! §6 open-weight formats. The first byte picks the format (low nibble: one of the ten, or
//! 10–15 for the sniffing tier of `extract` over all of them), repair (0x80), calls in
//! reasoning (0x40) and typing by a tool schema (0x20).
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolwire_core::formats::{
    extract_formats, parse_format, Format, FormatOptions, FormatSet, ParamTypes, ToolSchemas,
};
use toolwire_core::json::{parse, JsonView, ParseOptions, ValueBuilder};
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
    let options = FormatOptions {
        json: json_options(control),
        tools: schemas.as_ref().map(|s| s as &dyn ParamTypes),
        calls_in_reasoning: control & 0x40 != 0,
    };
    match Format::ALL.get(usize::from(control & 0x0F)) {
        Some(&format) => {
            let Ok(mut parsed) = parse_format(&mut ValueBuilder, &text, format, options);
            check_outcomes(&text, &mut parsed.outcomes);
        }
        None => {
            let Ok(mut outcomes) =
                extract_formats(&mut ValueBuilder, &text, FormatSet::ALL, options);
            check_outcomes(&text, &mut outcomes);
        }
    }
});
