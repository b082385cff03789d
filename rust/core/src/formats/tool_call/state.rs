//! The states of the `<tool_call>` group's stream machine ([`super::machine::TagCall`]).

use super::value::ValueScan;

#[derive(Clone, Copy, Debug)]
pub(super) enum State {
    /// After `<tool_call>`: the body's first bytes decide its format.
    Shape(usize),
    Json,
    AfterJson(usize),
    /// A failed call: its markup runs to the closing tag, or to the next call's opening tag,
    /// looked for from here.
    SeekClose(usize),
    /// The call (`len` bytes of markup) written again from `from` (`tags::repeat_end`), read
    /// up to `from + matched`; after it, reading goes on in `then`.
    Repeat {
        from: usize,
        len: usize,
        matched: usize,
        then: fn(usize) -> State,
    },
    /// A function tag's name (after `<function`, so `=NAME>` when canonical) that starts at
    /// `start`, read up to `scanned`.
    QName { start: usize, scanned: usize },
    /// After a function's name: parameters, or JSON arguments.
    QFirst(usize),
    QBetween(usize),
    QParamName { start: usize, scanned: usize },
    /// A parameter value, read so far.
    QValue(ValueScan),
    /// JSON arguments after a function's name (hermes's `<function=f>{…}`), from here.
    ArgsOpen(usize, ArgsClose),
    Args(ArgsClose),
    /// After the JSON arguments: their closing tag.
    AfterArgs(usize, ArgsClose),
    /// The name of `<function name="NAME">`.
    FName { start: usize, scanned: usize },
    /// After `<function name="NAME">`: JSON arguments, or MiniCPM 5's elements.
    FBody(usize),
    /// MiniCPM 5's elements, up to the function's end looked for from `from` outside CDATA
    /// sections (the next `<![CDATA[` looked for from `cdata_from`); `cdata`: inside one, its
    /// `]]>` looked for from `cdata_from`.
    PBody {
        from: usize,
        cdata_from: usize,
        cdata: bool,
    },
    QAfterFunction(usize),
    /// After a block written without its wrapper: a stray `</tool_call>` may follow
    /// (`tags::stray_close`).
    StrayClose(usize),
    /// RWKV's earlier call (`rwkv::legacy`): the object's line, its break looked for from here.
    RLine(usize),
    /// A `<tool_call>` read as RWKV's that holds no object: invokes follow (`<invoke`, from
    /// here), or the tag is prose ([`State::RNone`]).
    RInvoke(usize),
    /// A `<tool_call>` read as RWKV's that holds no call: the tag is prose.
    RNone,
    /// After that line: a `</tool_call>` may follow (the call's markup runs through it).
    RAfter(usize),
    GName { start: usize, scanned: usize },
    /// A glm45 name `function` that stopped at the line break at `stop`: Step-Audio 2's type
    /// line, if the tool's name follows on the next line (`tags::typed_name`, from `scanned`).
    GTyped {
        start: usize,
        stop: usize,
        scanned: usize,
    },
    /// After a glm45 name: pairs, or JSON arguments.
    GFirst(usize),
    GBetween(usize),
    GKey(usize),
    GValueTag(usize),
    /// A value, its `</arg_value>` looked for from `from`; `quoted`: the first one met, which
    /// did not close it (`tags::closes_value`).
    /// `opens_call`: no tag of the wrapper has come before the value's first close yet, so a
    /// wrapper's opening tag may still begin a call the value quotes.
    GValue {
        from: usize,
        quoted: Option<usize>,
        opens_call: bool,
    },
    /// A call the value quotes whole (a wrapper's opening tag before the value's first
    /// `</arg_value>`), read up to `from`; `depth` of them are open.
    GQuotedCall {
        from: usize,
        depth: u32,
    },
}

/// What closes JSON arguments: `</function>` (after a function tag), or `</tool_call>` (after a
/// glm45 name: Laguna writes `<tool_call>f\n{"a": 1}</tool_call>` at times).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ArgsClose {
    Function,
    ToolCall,
    /// After a glm45 name's `>` (GLM-5.3 Flash's `<tool_call>f>{…}`): the wrapper's closing
    /// tag, or the call ends with the arguments.
    Optional,
}
