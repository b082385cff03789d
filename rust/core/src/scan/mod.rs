//! Locating calls in model text: byte ranges only, no decoding.

pub mod call_scan;
pub mod fence;
pub mod find;
pub mod raw;
pub mod think;
