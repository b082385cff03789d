//! Locating calls in model text: byte ranges only, no decoding.

pub mod fence;
pub mod finders;
pub mod raw;
pub mod think;
