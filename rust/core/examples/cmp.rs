use std::time::Instant;
use toolwire_core::extract::{extract_text, RawJsonMode, TextOptions};
use toolwire_core::formats::{Format, FormatSet};
use toolwire_core::json::{ParseOptions, ValueBuilder};
use toolwire_core::stream::{parse_text, read_calls, StreamOptions};

fn main() {
    let data = std::fs::read_to_string("../../tests/data/cases.jsonl").unwrap();
    let cases: Vec<serde_json::Value> = data
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    for (wire, fmt) in [
        ("text_tagged", None),
        ("raw_json", None),
        ("hermes", Some(Format::Hermes)),
        ("qwen3_coder", Some(Format::Qwen3Coder)),
        ("kimi_k2", Some(Format::KimiK2)),
        ("mistral", Some(Format::Mistral)),
        ("harmony", Some(Format::Harmony)),
        ("pythonic", Some(Format::Pythonic)),
    ] {
        let texts: Vec<String> = cases
            .iter()
            .filter_map(|c| c["wire"][wire].as_str().map(str::to_owned))
            .collect();
        let (topts, sopts) = match fmt {
            Some(f) => (
                TextOptions {
                    text_tagged: false,
                    formats: FormatSet::only(f),
                    raw_json: None,
                    json: ParseOptions::default(),
                    tools: None,
                },
                StreamOptions::only(f),
            ),
            None if wire == "text_tagged" => (
                TextOptions {
                    text_tagged: true,
                    formats: FormatSet::NONE,
                    raw_json: None,
                    json: ParseOptions::default(),
                    tools: None,
                },
                StreamOptions {
                    text_tagged: true,
                    raw_json: None,
                    formats: FormatSet::NONE,
                    ..StreamOptions::default()
                },
            ),
            None => (
                TextOptions {
                    text_tagged: false,
                    formats: FormatSet::NONE,
                    raw_json: Some(RawJsonMode::Fenced),
                    json: ParseOptions::default(),
                    tools: None,
                },
                StreamOptions {
                    text_tagged: false,
                    raw_json: Some(RawJsonMode::Fenced),
                    formats: FormatSet::NONE,
                    ..StreamOptions::default()
                },
            ),
        };
        let mut best = [f64::MAX; 3];
        for _ in 0..15 {
            let t = Instant::now();
            let mut n = 0;
            for text in &texts {
                n += extract_text(&mut ValueBuilder, text, &topts).unwrap().len();
            }
            best[0] = best[0].min(t.elapsed().as_secs_f64());
            let t = Instant::now();
            let mut m = 0;
            for text in &texts {
                m += read_calls(&mut ValueBuilder, text, sopts, None)
                    .unwrap()
                    .len();
            }
            best[1] = best[1].min(t.elapsed().as_secs_f64());
            let t = Instant::now();
            let mut k = 0;
            for text in &texts {
                k += parse_text(&mut ValueBuilder, text, sopts)
                    .unwrap()
                    .calls
                    .len();
            }
            best[2] = best[2].min(t.elapsed().as_secs_f64());
            assert!(n > 0 && m == n && k == n, "{wire} {n} {m} {k}");
        }
        println!("{wire:12} extract {:.2} ms  read_calls {:.2} ms ({:.2}x)  parse_text {:.2} ms ({:.2}x)", best[0]*1e3, best[1]*1e3, best[1]/best[0], best[2]*1e3, best[2]/best[0]);
    }
}
