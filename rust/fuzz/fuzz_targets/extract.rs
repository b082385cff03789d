//! `extract` end to end: the text cascade (all tiers) on the input as text, and the body
//! path (shape recognition, native calls, the text of a body) when the input is JSON.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolwire_core::body::{extract_body, BodyError};
use toolwire_core::extract::extract_text;
use toolwire_core::json::{parse, ValueBuilder};
use toolwire_fuzz::{cascade_options, check_calls, check_outcomes, text_of};

fuzz_target!(|data: &[u8]| {
    let Some((&control, rest)) = data.split_first() else {
        return;
    };
    let text = text_of(rest);
    let options = cascade_options(control);
    let Ok(mut outcomes) = extract_text(&mut ValueBuilder, &text, &options);
    check_outcomes(&text, &mut outcomes);
    if let Ok(body) = parse(&text, &mut ValueBuilder, options.json) {
        match extract_body(&mut ValueBuilder, &body, &options) {
            // A body's failures are offsets into its message text, which is not at hand here.
            Ok(outcomes) => check_calls(&outcomes),
            Err(BodyError::Format(e)) => assert!(!e.message.is_empty()),
            Err(BodyError::Build(never)) => match never {},
        }
    }
});
