//! One stream pass over a text of about 64 KB fed in fixed-size chunks, for instruction counts:
//! `valgrind --tool=callgrind --toggle-collect='*stream_pass*' target/release/examples/stream_chunks KIND CHUNK`
//! (KIND: prose, qwen3_coder, hermes, fenced, minimax, dsml, glm). The criterion bench `stream` times the same
//! engine on 1 MB texts.

use std::hint::black_box;

use toolwire_core::json::ValueBuilder;
use toolwire_core::stream::{Event, StreamOptions, StreamParser};

const SIZE: usize = 64 << 10;
const LINE: &str = r#"fn f(x: &str) -> String { format!(\"{}\\n\", x.replace(\"~~~\", \"é\")) }\n"#;

fn code() -> String {
    LINE.repeat(SIZE / LINE.len() + 1)
}

fn html() -> String {
    let line = "<li><a href=\"/docs/x\">Docs</a> <b>new</b></li>\n";
    line.repeat(SIZE / line.len() + 1)
}

fn text(kind: &str) -> String {
    match kind {
        "prose" => {
            let paragraph = "The quick brown fox jumps over the lazy dog. ".repeat(4) + "\n";
            paragraph.repeat(SIZE / paragraph.len() + 1)
        }
        "qwen3_coder" => {
            let code = code().replace("\\n", "\n").replace("\\\"", "\"");
            format!("Writing it.\n<tool_call>\n<function=write_file>\n<parameter=path>\na.rs\n</parameter>\n<parameter=content>\n{code}\n</parameter>\n</function>\n</tool_call>\n")
        }
        "hermes" => format!("Writing it.\n<tool_call>\n{{\"name\": \"write_file\", \"arguments\": {{\"path\": \"a.rs\", \"content\": \"{}\"}}}}\n</tool_call>\n", code()),
        "fenced" => format!("Writing it.\n~~~tool_call\n{{\"name\": \"write_file\", \"arguments\": {{\"path\": \"a.rs\", \"content\": \"{}\"}}}}\n~~~\n", code()),
        // Invoke-shaped values that hold markup-like text: a search stops at every `<`.
        "minimax" => format!("Writing it.\n<minimax:tool_call>\n<invoke name=\"write_file\">\n<parameter name=\"path\">a.html</parameter>\n<parameter name=\"content\">{}</parameter>\n</invoke>\n</minimax:tool_call>\n", html()),
        "dsml" => format!("Writing it.\n<｜DSML｜ calls>\n<｜DSML｜ invoke name=\"write_file\">\n<｜DSML｜ parameter name=\"path\" string=\"true\">a.html</｜DSML｜ parameter>\n<｜DSML｜ parameter name=\"content\" string=\"true\">{}</｜DSML｜ parameter>\n</｜DSML｜ invoke>\n</｜DSML｜ calls>\n", html()),
        "glm" => format!("Writing it.\n<tool_call>write_file\n<arg_key>path</arg_key>\n<arg_value>a.html</arg_value>\n<arg_key>content</arg_key>\n<arg_value>{}</arg_value>\n</tool_call>\n", html()),
        other => panic!("unknown text kind {other:?}"),
    }
}

/// Feeds `text` in `chunk`-byte pieces; returns the number of events.
#[inline(never)]
fn stream_pass(text: &str, chunk: usize) -> usize {
    let mut parser = StreamParser::new(StreamOptions::default());
    let mut events: Vec<Event<_>> = Vec::new();
    let mut count = 0;
    for piece in text.as_bytes().chunks(chunk) {
        parser
            .feed_bytes(piece, &mut ValueBuilder, &mut events)
            .unwrap();
        count += events.len();
        events.clear();
    }
    parser.finish(&mut ValueBuilder, &mut events).unwrap();
    count + events.len()
}

fn main() {
    let mut args = std::env::args().skip(1);
    let kind = args.next().unwrap_or_else(|| "prose".into());
    let chunk: usize = args.next().map_or(4, |c| c.parse().expect("a chunk size"));
    let text = text(&kind);
    println!(
        "{kind} {} bytes, {chunk}-byte chunks: {} events",
        text.len(),
        black_box(stream_pass(black_box(&text), chunk))
    );
}
