//! One `extract_text` pass over 1 MB of marker-free text, for instruction counts:
//! `valgrind --tool=callgrind --toggle-collect='*extract_pass*' target/release/examples/extract_prose KIND`
//! (KIND: prose, markdown, near_misses: the texts of the criterion bench `scanners`, which times them).

use std::hint::black_box;

use toolwire_core::extract::{extract_text, RawJsonMode, TextOptions};
use toolwire_core::formats::FormatSet;
use toolwire_core::json::{ParseOptions, ValueBuilder};

const SIZE: usize = 1 << 20;

fn text(kind: &str) -> String {
    let unit = match kind {
        "prose" => {
            "The quick brown fox jumps over the lazy dog; {braces} and [brackets] in prose. "
        }
        // LLM answers in markdown: bold, lists and quotes at line starts, where line-start
        // markers (Functionary's `>>>`, RWKV's `**Tool Call:**`) are looked for.
        "markdown" => "- **Step 1:** run `make` and read the *output*.\n> a quote, 2 > 1\n",
        "near_misses" => {
            "If a < b and c <= d, see <b>bold</b>, [a link](x), <tool_response>, \
                          <|im_end|>, <functions>, <TOOL>, [INST] and <|tool_result|>. "
        }
        other => panic!("unknown text kind {other:?}"),
    };
    let mut text = unit.repeat(SIZE / unit.len() + 1);
    text.truncate(SIZE);
    text
}

#[inline(never)]
fn extract_pass(text: &str) -> usize {
    let options = TextOptions {
        text_tagged: true,
        formats: FormatSet::ALL,
        raw_json: Some(RawJsonMode::Fenced),
        json: ParseOptions::model_text(false),
        tools: None,
        starts_in_reasoning: false,
    };
    extract_text(&mut ValueBuilder, text, &options)
        .unwrap()
        .len()
}

fn main() {
    let kind = std::env::args().nth(1).unwrap_or_else(|| "prose".into());
    let text = text(&kind);
    println!(
        "{kind}: {} calls",
        black_box(extract_pass(black_box(&text)))
    );
}
