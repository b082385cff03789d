//! Core scanner throughput. Target (docs/performance.md): `extract_text` on 1 MB of marker-free
//! prose at >= 1 GB/s. Run: `cargo bench -p toolwire-core --bench scanners`.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use toolwire_core::extract::{extract_text, RawJsonMode, TextOptions};
use toolwire_core::formats::{Format, FormatSet, Group};
use toolwire_core::json::{parse, ParseOptions, ValueBuilder};
use toolwire_core::scan::fence::find_blocks;

const OPTIONS: TextOptions<'static> = TextOptions {
    text_tagged: true,
    formats: FormatSet::ALL,
    raw_json: Some(RawJsonMode::Fenced),
    json: ParseOptions::model_text(false),
    tools: None,
    starts_in_reasoning: false,
};

fn prose(size: usize) -> String {
    "The quick brown fox jumps over the lazy dog; {braces} and [brackets] in prose. "
        .repeat(size / 40 + 1)[..size]
        .to_owned()
}

fn marker_free_prose(c: &mut Criterion) {
    let text = prose(1 << 20);
    let mut group = c.benchmark_group("extract_text");
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.bench_function("1 MB prose, no markers", |b| {
        b.iter(|| {
            let outcomes = extract_text(&mut ValueBuilder, black_box(&text), &OPTIONS).unwrap();
            assert!(outcomes.is_empty());
        })
    });
    let mut with_calls = prose(1 << 20);
    for i in 0..100 {
        with_calls.push_str(&format!(
            "\n~~~tool_call\n{{\"name\": \"f\", \"arguments\": {{\"i\": {i}, \"s\": \"x~y\"}}}}\n~~~\n"
        ));
    }
    group.throughput(Throughput::Bytes(with_calls.len() as u64));
    group.bench_function("1 MB prose + 100 blocks", |b| {
        b.iter(|| {
            let outcomes =
                extract_text(&mut ValueBuilder, black_box(&with_calls), &OPTIONS).unwrap();
            assert_eq!(outcomes.len(), 100);
        })
    });
    group.finish();
}

/// Marker-free prose read with every format of the registry and with the formats of before
/// (their markers alone are compared), in the same run: more formats must not slow sniffing
/// down. Plain prose, and prose full of the bytes markers start with (`<`, `[`) and of near
/// misses that share a marker's first bytes (`<|tool_result|>`, `<TOOL>`, `<functions>`).
fn prose_with_marker_bytes(c: &mut Criterion) {
    let near_misses = "If a < b and c <= d, see <b>bold</b>, [a link](x), <tool_response>, \
                       <|im_end|>, <functions>, <TOOL>, [INST] and <|tool_result|>. "
        .repeat((1 << 20) / 120);
    // Without the formats issue 23 added.
    let before = Format::ALL
        .iter()
        .filter(|f| !matches!(f.group(), Group::JsonList | Group::Functionary))
        .fold(FormatSet::NONE, |set, &f| set.with(f));
    for (group, text) in [
        ("sniff prose", prose(1 << 20)),
        ("sniff near misses", near_misses),
    ] {
        let mut group = c.benchmark_group(group);
        group.throughput(Throughput::Bytes(text.len() as u64));
        for (name, formats) in [("formats before", before), ("all formats", FormatSet::ALL)] {
            let options = TextOptions { formats, ..OPTIONS };
            group.bench_function(name, |b| {
                b.iter(|| {
                    let outcomes =
                        extract_text(&mut ValueBuilder, black_box(&text), &options).unwrap();
                    assert!(outcomes.is_empty());
                })
            });
        }
        group.finish();
    }
}

fn fence_scanner(c: &mut Criterion) {
    let body = format!(
        "{{\"name\": \"write_file\", \"arguments\": {{\"content\": \"{}\"}}}}",
        "fn main() {\\n    println!(\\\"~~~ not a fence\\\");\\n}\\n".repeat(2000)
    );
    let text = format!("Writing it.\n~~~tool_call\n{body}\n~~~\n");
    let mut group = c.benchmark_group("find_blocks");
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.bench_function("one 100 KB block", |b| {
        b.iter(|| assert_eq!(find_blocks(black_box(&text)).len(), 1))
    });
    group.finish();
}

fn json_parser(c: &mut Criterion) {
    let document = format!(
        "[{}]",
        vec![r#"{"name": "get_weather", "arguments": {"city": "Paris", "days": 3, "units": "metric", "extra": [1.5, true, null, "\u00e9\n"]}}"#; 1000]
            .join(",")
    );
    let mut group = c.benchmark_group("json");
    group.throughput(Throughput::Bytes(document.len() as u64));
    group.bench_function("parse to Value", |b| {
        b.iter(|| {
            parse(
                black_box(&document),
                &mut ValueBuilder,
                ParseOptions::default(),
            )
            .unwrap()
        })
    });
    group.finish();
}

criterion_group!(
    benches,
    marker_free_prose,
    prose_with_marker_bytes,
    fence_scanner,
    json_parser
);
criterion_main!(benches);
