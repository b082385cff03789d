//! Strict JSON: a one-pass parser over a builder interface, a read view, a compact writer, and
//! the rewriting of model JSON text with raw control characters as strict JSON.

mod builder;
mod error;
mod members;
mod number;
mod parser;
mod plain_run;
mod skip;
mod strict_pieces;
mod string;
mod value;
mod view;
mod write;

pub use builder::{JsonBuilder, JsonStr, Refusal};
pub use error::{ParseError, SyntaxError, SyntaxErrorKind};
pub use members::{parse_object_with, MemberAction, MemberText, ObjectVisitor};
pub use parser::{parse, parse_prefix, ParseOptions, MAX_DEPTH};
pub(crate) use plain_run::plain_run;
pub use skip::deferrable_object;
pub(crate) use skip::{skip_value, SkipBuilder};
pub use strict_pieces::StrictPieces;
pub(crate) use value::{dedupe_members, known_key, same_key};
pub use value::{DeferringBuilder, Key, Value, ValueBuilder};
pub use view::{JsonKind, JsonView};
pub use write::{python_float_repr, to_compact_json, write_json_string};

#[cfg(test)]
mod tests;
