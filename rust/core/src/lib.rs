//! toolwire-core: the pure-Rust engine of toolwire.
//!
//! It knows nothing of Python. The binding crate implements [`json::JsonBuilder`] and
//! [`json::JsonView`] for Python objects and calls the parsers here, so every rule of the
//! contract lives in one place and is tested with `cargo test`.

pub mod batch;
pub mod body;
pub mod calls;
pub mod columns;
pub mod extract;
pub mod formats;
pub mod gate;
pub mod ids;
pub mod json;
pub mod position;
pub mod protocol;
pub mod provider_stream;
pub mod raw_json;
mod registry;
pub mod scan;
pub mod stream;
pub mod text_body;
pub mod text_tagged;
pub mod utf8;
pub mod validate;

use calls::{assign_ids, resolve_offsets, Outcome};

/// The last step for the outcomes of one response: character offsets for failures, ids for
/// calls (docs/parsing.md).
pub fn finish_outcomes<V>(text: &str, outcomes: &mut [Outcome<V>]) {
    resolve_offsets(text, outcomes);
    assign_ids(outcomes);
}
