//! `gigachat35` (GigaChat 3.5): `<｜GCML｜tool_calls><｜GCML｜invoke name="f"><｜GCML｜parameter
//! name="a" string="false">1</｜GCML｜parameter></｜GCML｜invoke></｜GCML｜tool_calls>`, DSML's
//! shape with GCML tokens. `string="true"` keeps a value's text, `string="false"` decodes it as
//! JSON; a value without the attribute is typed by the tool schema.

use super::cursor::Markers;
use super::invoke::{self, Tags};
use crate::protocol::Format;
use crate::scan::find::Needle;

const OPEN: &str = "<｜GCML｜tool_calls>";
const CLOSE: &str = "</｜GCML｜tool_calls>";
const INVOKE_CLOSE: &str = "</｜GCML｜invoke>";

static CLOSES: [Needle; 1] = [Needle::new(CLOSE)];

static TAGS: Tags = Tags {
    format: Format::Gigachat35,
    closes: &CLOSES,
    open_markers: Markers::new(&[OPEN]),
    recover: &[Markers::new(&[INVOKE_CLOSE, CLOSE])],
    invoke: "<｜GCML｜invoke",
    invoke_close: Needle::new(INVOKE_CLOSE),
    parameter: "<｜GCML｜parameter",
    parameter_close: Needle::new("</｜GCML｜parameter>"),
    between: &[],
};

invoke::spec!(TAGS, [OPEN], Format::Gigachat35);
