//! `minimax_m2` (MiniMax-M2, M2.1, M2.5): `<minimax:tool_call><invoke name="f"><parameter
//! name="a">1</parameter></invoke>…</minimax:tool_call>`, several invokes per block. Values are
//! typed by the tool schema, as in qwen3_coder.

use super::invoke;
use crate::protocol::Format;

invoke::xml_spec!(Format::MinimaxM2, "minimax:tool_call", "invoke", "parameter");
