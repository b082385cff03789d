//! `~~~tool_call` blocks, strict and with repair.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolwire_core::calls::Outcome;
use toolwire_core::extract::parse_text_tagged;
use toolwire_core::json::{ParseOptions, ValueBuilder};
use toolwire_core::scan::fence::find_blocks;
use toolwire_fuzz::{check_outcomes, mask_ids, text_of};

fuzz_target!(|data: &[u8]| {
    let text = text_of(data);
    let Ok(mut strict) = parse_text_tagged(&mut ValueBuilder, &text, ParseOptions::default());
    check_outcomes(&text, &mut strict);
    // Never silently lose a block: each one gives a call or a failure.
    let blocks = find_blocks(&text).len();
    assert!(
        strict.len() >= blocks,
        "{blocks} blocks, {} outcomes",
        strict.len()
    );
    let Ok(mut repaired) = parse_text_tagged(&mut ValueBuilder, &text, ParseOptions::json(true));
    check_outcomes(&text, &mut repaired);
    // Repair only changes what strict parsing rejects.
    if strict.iter().all(|o| matches!(o, Outcome::Call(_))) {
        mask_ids(&mut strict);
        mask_ids(&mut repaired);
        assert_eq!(strict, repaired);
    }
});
