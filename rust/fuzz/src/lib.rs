//! Shared oracles of the fuzz targets: what must hold for the outcomes of any input, beyond
//! "does not panic".

use toolwire_core::calls::{Invalid, Outcome};
use toolwire_core::extract::{RawJsonMode, TextOptions};
use toolwire_core::finish_outcomes;
use toolwire_core::formats::FormatSet;
use toolwire_core::json::{JsonKind, JsonView, ParseOptions, Value};
use toolwire_core::stream::Event;

/// Fuzz input as text: lossily decoded, so every input exercises the parsers.
pub fn text_of(data: &[u8]) -> String {
    String::from_utf8_lossy(data).into_owned()
}

/// The JSON of model text, strict or lenient (`repair=`) from one bit of a control byte.
pub fn json_options(control: u8) -> ParseOptions {
    ParseOptions::model_text(control & 0x80 != 0)
}

/// The whole text cascade (every tier and format), with the raw-JSON mode picked by the
/// control byte modulo 3 and repair by its top bit.
pub fn cascade_options(control: u8) -> TextOptions<'static> {
    TextOptions {
        text_tagged: true,
        formats: FormatSet::ALL,
        raw_json: Some(
            [
                RawJsonMode::Whole,
                RawJsonMode::Fenced,
                RawJsonMode::Anywhere,
            ][usize::from(control % 3)],
        ),
        json: json_options(control),
        tools: None,
        starts_in_reasoning: false,
    }
}

/// Finishes `outcomes` as the API does (offsets, ids) and checks what every response must
/// satisfy: failures point inside the text at a character boundary with the right character
/// offset, every call has an id, and the ids of one response are unique (docs/parsing.md,
/// docs/errors.md).
pub fn check_outcomes(text: &str, outcomes: &mut [Outcome<Value>]) {
    finish_outcomes(text, outcomes);
    check_calls(outcomes);
    for outcome in outcomes.iter() {
        if let Outcome::Invalid(invalid) = outcome {
            check_invalid(text, invalid);
        }
    }
}

/// Every call of a finished response has a non-empty name, an object of arguments and an id
/// unique within the response.
pub fn check_calls(outcomes: &[Outcome<Value>]) {
    let mut ids = std::collections::HashSet::new();
    for outcome in outcomes {
        match outcome {
            Outcome::Call(call) => {
                let id = call.id.as_deref().expect("every call has an id");
                assert!(!id.is_empty(), "empty id");
                assert!(ids.insert(id.to_owned()), "repeated id {id:?}");
                assert!(!call.name.is_empty(), "empty name");
                assert!(
                    call.arguments.kind() == JsonKind::Object,
                    "arguments are not an object: {:?}",
                    call.arguments
                );
            }
            Outcome::Invalid(invalid) => assert!(!invalid.message().is_empty()),
        }
    }
}

/// A failure's offsets are consistent with the text it came from.
pub fn check_invalid(text: &str, invalid: &Invalid) {
    let message = invalid.message();
    assert!(!message.is_empty());
    if let Some(byte) = invalid.byte_offset {
        assert!(
            byte <= text.len(),
            "offset {byte} past the text ({message})"
        );
        assert!(
            text.is_char_boundary(byte),
            "offset {byte} inside a character ({message})"
        );
        if let Some(offset) = invalid.offset {
            assert_eq!(offset, text[..byte].chars().count(), "{message}");
            assert!(message.contains(&format!("offset {offset})")), "{message}");
        }
    }
}

/// Generated ids (`call_` + 12 characters) replaced by their order of appearance, so two runs
/// compare equal.
pub fn mask_ids(outcomes: &mut [Outcome<Value>]) {
    let mut seen: Vec<String> = Vec::new();
    for outcome in outcomes.iter_mut() {
        if let Outcome::Call(call) = outcome {
            if let Some(id) = &mut call.id {
                *id = masked(&mut seen, id);
            }
        }
    }
}

/// Coalesced stream events with generated ids masked (see [`mask_ids`]).
pub fn mask_event_ids(events: &mut [Event<Value>]) {
    let mut seen: Vec<String> = Vec::new();
    for event in events.iter_mut() {
        match event {
            Event::CallStart { id, .. } => *id = masked(&mut seen, id),
            Event::CallEnd { call, .. } => {
                if let Some(id) = &mut call.id {
                    *id = masked(&mut seen, id);
                }
            }
            _ => {}
        }
    }
}

fn masked(seen: &mut Vec<String>, id: &str) -> String {
    if !(id.starts_with("call_") && id.len() == 17) {
        return id.to_owned();
    }
    let k = seen.iter().position(|x| x == id).unwrap_or_else(|| {
        seen.push(id.to_owned());
        seen.len() - 1
    });
    format!("generated#{k}")
}

/// A small deterministic generator (xorshift) for chunk sizes.
pub struct Cuts(u64);

impl Cuts {
    pub fn new(seed: u8) -> Self {
        Self(0x9E37_79B9_7F4A_7C15 ^ u64::from(seed).wrapping_mul(0x2545_F491_4F6C_DD1D) | 1)
    }

    /// The next chunk length: mostly tiny (1–8 bytes), sometimes larger.
    pub fn next_len(&mut self) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        let r = self.0 as usize;
        if r % 8 == 0 {
            1 + (r >> 3) % 64
        } else {
            1 + (r >> 3) % 8
        }
    }
}
