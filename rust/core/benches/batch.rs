//! `extract_jsonl` on the shipped sample log, on one and two threads (§12).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use toolwire_core::batch::{extract_jsonl, LineOptions, Locate};
use toolwire_core::body::Shape;
use toolwire_core::extract::{RawJsonMode, TextOptions};
use toolwire_core::json::ParseOptions;

fn batch(c: &mut Criterion) {
    let log = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/logs_sample.jsonl"
    ))
    .expect("the sample log");
    let options = LineOptions {
        text: TextOptions {
            text_tagged: true,
            formats: toolwire_core::formats::FormatSet::ALL,
            raw_json: Some(RawJsonMode::Fenced),
            json: ParseOptions::default(),
            tools: None,
        },
        shape: Shape::Auto,
        locate: Locate::LogRecord,
    };
    let mut group = c.benchmark_group("extract_jsonl");
    group.throughput(Throughput::Bytes(log.len() as u64));
    for threads in [1, 2] {
        group.bench_function(format!("threads={threads}"), |b| {
            b.iter(|| extract_jsonl(&log, 1, &options, threads).expect("pool"))
        });
    }
    group.finish();
}

criterion_group!(benches, batch);
criterion_main!(benches);
