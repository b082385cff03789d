use toolwire_core::extract::{extract_text, RawJsonMode, TextOptions};
use toolwire_core::formats::{Format, FormatSet};
use toolwire_core::json::{ParseOptions, ValueBuilder};
use toolwire_core::stream::{parse_text, read_calls, StreamOptions};
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (wire, variant, iters) = (&args[1], &args[2], args[3].parse::<usize>().unwrap());
    let data = std::fs::read_to_string("../../tests/data/cases.jsonl").unwrap();
    let texts: Vec<String> = data
        .lines()
        .filter_map(|l| {
            let c: serde_json::Value = serde_json::from_str(l).unwrap();
            c["wire"][wire].as_str().map(str::to_owned)
        })
        .collect();
    let fmt = Format::parse(wire);
    let sopts = match fmt {
        Some(f) => StreamOptions::only(f),
        None => StreamOptions {
            text_tagged: wire == "text_tagged",
            raw_json: (wire == "raw_json").then_some(RawJsonMode::Fenced),
            formats: FormatSet::NONE,
            ..StreamOptions::default()
        },
    };
    let topts = TextOptions {
        text_tagged: wire == "text_tagged",
        formats: fmt.map_or(FormatSet::NONE, FormatSet::only),
        raw_json: (wire == "raw_json").then_some(RawJsonMode::Fenced),
        json: ParseOptions::default(),
        tools: None,
    };
    let mut m = 0;
    for _ in 0..iters {
        for text in &texts {
            m += match variant.as_str() {
                "extract" => extract_text(&mut ValueBuilder, text, &topts).unwrap().len(),
                "read" => read_calls(&mut ValueBuilder, text, sopts, None)
                    .unwrap()
                    .len(),
                "parse" => parse_text(&mut ValueBuilder, text, sopts)
                    .unwrap()
                    .calls
                    .len(),
                _ => text.len(),
            };
        }
    }
    println!("{m}");
}
