//! `dots` (rednote dots.llm): `<dots_function_call><invoke name="f"><parameter name="a">1
//! </parameter></invoke></dots_function_call>`, MiniMax-M2's invokes in another wrapper, several
//! per block. Values are typed by the tool schema, as in qwen3_coder.

use super::invoke;
use crate::protocol::Format;

invoke::xml_spec!(Format::Dots, "dots_function_call", "invoke", "parameter");
