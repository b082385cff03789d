//! `muse_glimmer` (Muse Glimmer's ATEM blocks): `<atem:function_calls><atem:invoke name="f">
//! <atem:parameter name="a">1</atem:parameter></atem:invoke></atem:function_calls>`, several
//! invokes per block. Values are typed by the tool schema (without one, JSON when valid, else
//! the text), as in qwen3_coder. The channel framing around the block (`to=…<|message|>` …
//! `<|eom|>`) is prose.

use super::invoke;
use crate::protocol::Format;

invoke::xml_spec!(Format::MuseGlimmer, "atem:function_calls", "atem:invoke", "atem:parameter");
