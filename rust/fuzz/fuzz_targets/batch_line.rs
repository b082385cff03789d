//! Batch extraction's shortcuts against the plain paths: a line read by the skim (members
//! skipped, call arguments kept as checked text) gives the calls and failures of the line
//! parsed in full, and text protocols give the same outcomes whether their builder defers
//! call arguments or builds them. The chunk `extract_batch` reads (the line packed) holds the
//! same outcomes as the line.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolwire_core::batch::{
    extract_line, read_record, Line, LineOptions, Locate, OrderedLines, OutcomeRef,
};
use toolwire_core::body::Shape;
use toolwire_core::calls::Outcome;
use toolwire_core::extract::extract_text;
use toolwire_core::json::{parse, to_compact_json, DeferringBuilder, ParseOptions, ValueBuilder};
use toolwire_fuzz::{cascade_options, text_of};

/// A call's id as text; a generated one (`call_` and 12 random characters) differs from run
/// to run.
fn id_text(id: Option<&str>) -> String {
    match id {
        Some(id) if id.starts_with("call_") && id.len() == 17 => "<generated>".to_owned(),
        id => format!("{id:?}"),
    }
}

/// A line's record id and outcomes, generated call ids masked.
fn reading(line: &Line) -> (Option<String>, Result<Vec<String>, String>) {
    let id = line.id.as_ref().map(to_compact_json);
    let outcomes = line
        .result
        .as_ref()
        .map_err(|e| e.message.clone())
        .map(|outcomes| {
            outcomes
                .iter()
                .map(|outcome| match outcome {
                    Outcome::Call(call) => format!(
                        "{} {} {}",
                        id_text(call.id.as_deref()),
                        call.name,
                        to_compact_json(&call.arguments)
                    ),
                    Outcome::Invalid(invalid) => invalid.message(),
                })
                .collect()
        });
    (id, outcomes)
}

/// The outcomes of the first line of a packed chunk, as [`reading`] gives them.
fn packed_reading(work: &OrderedLines<'_>) -> Result<Vec<String>, String> {
    let chunk = work.take(0);
    let line = chunk.line(0).expect("a chunk of one line");
    line.map_err(|e| e.message.clone()).map(|outcomes| {
        outcomes
            .map(|outcome| match outcome {
                OutcomeRef::Call {
                    id,
                    name,
                    arguments,
                } => {
                    let Ok(arguments) = arguments.build(&mut ValueBuilder);
                    format!("{} {name} {}", id_text(id), to_compact_json(&arguments))
                }
                OutcomeRef::Invalid(invalid) => invalid.message(),
            })
            .collect()
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&control, rest)) = data.split_first() else {
        return;
    };
    let text = text_of(rest);
    let options = cascade_options(control);
    let Ok(deferred) = extract_text(&mut DeferringBuilder, &text, &options);
    let Ok(built) = extract_text(&mut ValueBuilder, &text, &options);
    assert_eq!(deferred, built, "deferring and building builders differ");

    let place = if control & 4 == 0 {
        Locate::Whole
    } else {
        Locate::LogRecord
    };
    let line_options = LineOptions {
        text: options,
        shape: Shape::Auto,
        locate: place,
        deterministic_ids: false,
    };
    let skimmed = extract_line(text.as_bytes(), &line_options);
    let lines = [(1, text.as_bytes())];
    assert_eq!(
        packed_reading(&OrderedLines::new(&lines, &line_options)),
        reading(&skimmed).1,
        "the packed chunk and the line differ"
    );
    // Lines are read as `json.loads` reads bytes: a leading byte order mark is dropped.
    let json = text.strip_prefix('\u{feff}').unwrap_or(&text);
    if let Ok(record) = parse(json, &mut ValueBuilder, ParseOptions::default()) {
        let full = read_record(&record, &line_options);
        assert_eq!(
            reading(&skimmed),
            reading(&full),
            "skim and full parse differ"
        );
    } else {
        assert!(
            skimmed.result.is_err(),
            "the skim accepted what the parser rejects"
        );
    }
});
