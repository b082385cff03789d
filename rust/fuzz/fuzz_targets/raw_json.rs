//! Bare JSON in each mode (`whole`, `fenced`, `anywhere`); the first byte picks repair.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolwire_core::extract::{parse_raw_json, RawJsonMode};
use toolwire_core::json::ValueBuilder;
use toolwire_fuzz::{check_outcomes, json_options, mask_ids, text_of};

fuzz_target!(|data: &[u8]| {
    let Some((&control, rest)) = data.split_first() else {
        return;
    };
    let text = text_of(rest);
    let options = json_options(control);
    let run = |mode| {
        let Ok(mut outcomes) = parse_raw_json(&mut ValueBuilder, &text, mode, options);
        check_outcomes(&text, &mut outcomes);
        mask_ids(&mut outcomes);
        outcomes
    };
    let whole = run(RawJsonMode::Whole);
    let fenced = run(RawJsonMode::Fenced);
    run(RawJsonMode::Anywhere);
    // `fenced` is `whole` plus fences, tried only when the whole message is no call.
    if !whole.is_empty() {
        assert_eq!(whole, fenced);
    }
});
