//! The stream engine: the input fed as bytes in random chunks (cut anywhere, even inside a
//! UTF-8 sequence) gives the same coalesced events as one feed of the whole text, `parse_text`
//! folds exactly those events, and the calls agree with the batch `~~~tool_call` parser.
//! Byte 0 picks the options (raw JSON mode, repair, calls in reasoning), byte 1 the formats
//! (bit 7: none; else the low nibble: one of the ten open-weight formats, or 10–15 for all of them),
//! whether the text starts in reasoning (bit 6), and seeds the chunk sizes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolwire_core::calls::Outcome;
use toolwire_core::extract::{parse_text_tagged, RawJsonMode};
use toolwire_core::formats::{Format, FormatSet};
use toolwire_core::json::{Value, ValueBuilder};
use toolwire_core::stream::{
    coalesce, collect, parse_text, Event, StreamError, StreamOptions, StreamParser,
};
use toolwire_fuzz::{check_invalid, json_options, mask_event_ids, mask_ids, Cuts};

fuzz_target!(|data: &[u8]| {
    let [control, seed, bytes @ ..] = data else {
        return;
    };
    let formats = if seed & 0x80 != 0 {
        FormatSet::NONE
    } else {
        Format::ALL
            .get(usize::from(seed & 0x0F))
            .map_or(FormatSet::ALL, |&f| FormatSet::only(f))
    };
    let options = StreamOptions {
        text_tagged: true,
        raw_json: [None, Some(RawJsonMode::Whole), Some(RawJsonMode::Fenced)]
            [usize::from(control % 3)],
        formats,
        calls_in_reasoning: control & 0x40 != 0,
        starts_in_reasoning: seed & 0x40 != 0,
        json: json_options(*control),
        json_answers: false,
    };

    let mut parser = StreamParser::new(options);
    let mut chunked: Vec<Event<Value>> = Vec::new();
    let mut cuts = Cuts::new(*seed);
    let mut rest = bytes;
    let mut failure = None;
    while !rest.is_empty() && failure.is_none() {
        let n = cuts.next_len().min(rest.len());
        failure = parser
            .feed_bytes(&rest[..n], &mut ValueBuilder, &mut chunked)
            .err();
        rest = &rest[n..];
    }
    if failure.is_none() {
        failure = parser.finish(&mut ValueBuilder, &mut chunked).err();
    }

    let text = match std::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => {
            // Bytes that are not UTF-8 are an error naming the first bad byte.
            assert_eq!(
                failure,
                Some(StreamError::Utf8 {
                    offset: e.valid_up_to()
                })
            );
            return;
        }
    };
    assert_eq!(failure, None);

    let mut whole = StreamParser::new(options);
    let mut events = Vec::new();
    let Ok(()) = whole.feed(text, &mut ValueBuilder, &mut events);
    whole.finish(&mut ValueBuilder, &mut events).unwrap();
    let mut chunked = coalesce(chunked);
    let mut events = coalesce(events);
    let mut folded = collect(events.clone(), whole.saw_reasoning());
    mask_event_ids(&mut chunked);
    mask_event_ids(&mut events);
    assert_eq!(chunked, events, "chunked and one-shot events differ");
    for event in &events {
        if let Event::Invalid(invalid) = event {
            check_invalid(text, invalid);
        }
    }

    let Ok(mut parsed) = parse_text(&mut ValueBuilder, text, options);
    mask_ids(&mut parsed.calls);
    mask_ids(&mut folded.calls);
    assert_eq!(parsed, folded, "parse_text is not the folded events");

    // In strict and repair mode alike.
    if options.raw_json.is_none() && options.formats.is_empty() && options.calls_in_reasoning {
        // Same calls (ids aside: the stream fixes an id at its start) as the batch parser.
        let Ok(batch) = parse_text_tagged(&mut ValueBuilder, text, options.json);
        assert_eq!(
            good_calls(&parsed.calls),
            good_calls(&batch),
            "stream and batch calls differ"
        );
    }
});

fn good_calls(outcomes: &[Outcome<Value>]) -> Vec<(&str, &Value)> {
    outcomes
        .iter()
        .filter_map(|o| match o {
            Outcome::Call(call) => Some((call.name.as_str(), &call.arguments)),
            Outcome::Invalid(_) => None,
        })
        .collect()
}
