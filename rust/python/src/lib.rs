//! `toolwire._toolwire`: the thin PyO3 binding of `toolwire-core`. Conversion happens here, at
//! the edge; every parsing rule lives in the core crate.

use pyo3::prelude::*;

/// Batch work builds a small tree per line on every core; mimalloc's per-thread heaps make
/// those allocations several times cheaper than the system allocator's.
#[global_allocator]
static ALLOCATOR: allocator::MiMalloc = allocator::MiMalloc;

mod allocator;

mod accumulators;
mod api;
mod batch;
mod builder;
mod codec;
mod columns;
mod encoder;
mod errors;
mod events;
mod gateway;
mod gc_pause;
mod input;
mod parsed;
mod schema;
mod stream;
mod tool_defs;
mod types;
mod view;
mod wire_decode;
mod wire_encode;

/// The module needs the GIL: on a free-threaded CPython, importing it turns the GIL back on
/// (with a `RuntimeWarning`). Two parts rely on it: the batch's collector pause (`gc_pause`)
/// switches a setting of the whole interpreter off and on, which another thread running at the
/// same time could read or change in between, and small dicts (tool definitions, stream
/// chunks) are read through borrowed references (`view::ScannedJson`), which another thread
/// could free by changing the dict.
#[pymodule(gil_used = true)]
fn _toolwire(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    input::add_format_names(m)?;
    m.add_class::<types::ToolCall>()?;
    m.add_class::<types::InvalidToolCall>()?;
    m.add_class::<parsed::Parsed>()?;
    m.add_class::<stream::StreamParser>()?;
    events::add_classes(m)?;
    accumulators::add_classes(m)?;
    m.add_class::<encoder::StreamEncoder>()?;
    m.add_class::<encoder::StreamTranslator>()?;
    m.add_function(wrap_pyfunction!(encoder::frame_chunk, m)?)?;
    m.add_function(wrap_pyfunction!(input::sdk_plain_data, m)?)?;
    m.add_function(wrap_pyfunction!(parsed::parse_text, m)?)?;
    m.add_function(wrap_pyfunction!(api::new_call_id, m)?)?;
    m.add_function(wrap_pyfunction!(api::loads, m)?)?;
    m.add_function(wrap_pyfunction!(api::decode_arguments, m)?)?;
    m.add_function(wrap_pyfunction!(api::parse_native, m)?)?;
    m.add_function(wrap_pyfunction!(api::parse_text_tagged, m)?)?;
    m.add_function(wrap_pyfunction!(api::parse_raw_json, m)?)?;
    m.add_function(wrap_pyfunction!(api::extract, m)?)?;
    m.add_function(wrap_pyfunction!(codec::decode_tool_calls, m)?)?;
    m.add_function(wrap_pyfunction!(codec::dumps_compact, m)?)?;
    m.add_function(wrap_pyfunction!(wire_encode::assistant_message, m)?)?;
    m.add_function(wrap_pyfunction!(batch::extract_batch, m)?)?;
    m.add_function(wrap_pyfunction!(columns::extract_jsonl_chunk, m)?)?;
    m.add_function(wrap_pyfunction!(columns::unread_jsonl_record, m)?)?;
    m.add_function(wrap_pyfunction!(columns::extract_arrow_buffers, m)?)?;
    m.add_class::<schema::CompiledSchema>()?;
    m.add_function(wrap_pyfunction!(schema::compile_schema, m)?)?;
    Ok(())
}
