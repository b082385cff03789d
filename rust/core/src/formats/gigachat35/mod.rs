//! `gigachat35` (GigaChat 3.5): `<｜GCML｜tool_calls><｜GCML｜invoke name="f"><｜GCML｜parameter
//! name="a" string="false">1</｜GCML｜parameter></｜GCML｜invoke></｜GCML｜tool_calls>`, DSML's
//! shape with GCML tokens. `string="true"` keeps a value's text, `string="false"` decodes it as
//! JSON; a value without the attribute is typed by the tool schema.

use super::invoke;
use crate::protocol::Format;

invoke::xml_spec!(Format::Gigachat35, "｜GCML｜tool_calls", "｜GCML｜invoke", "｜GCML｜parameter");
