"""toolwire: fast, complete tool-call parsing for LLM responses, with a Rust core.

>>> import toolwire
>>> toolwire.extract('~~~tool_call\\n{"name": "f", "arguments": {"a": 1}}\\n~~~')[0].arguments
{'a': 1}
"""

from ._arrow import extract_arrow
from ._errors import (
    ArgumentsError,
    JSONDecodeError,
    ProviderFormatError,
    ToolCallParseError,
    ToolDefinitionError,
    ToolValidationError,
    ToolwireError,
)
from ._filter import ToolFilter
from ._format_names import FormatName
from ._gateway import atranslate_stream, frame_stream, translate_stream
from ._history import pending_calls
from ._json import json_default
from ._loop import LoopObserver, LoopResult, arun_tool_loop, run_tool_loop
from ._registry import ToolRegistry
from ._toolwire import (
    FORMAT_ALIASES,
    FORMAT_NAMES,
    FORMATS,
    AnthropicStreamAccumulator,
    GeminiStreamAccumulator,
    InvalidToolCall,
    OllamaStreamAccumulator,
    OpenAIStreamAccumulator,
    Parsed,
    ReasoningDelta,
    ResponsesStreamAccumulator,
    StreamEncoder,
    StreamParser,
    StreamTranslator,
    TextDelta,
    ToolCall,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    __version__,
    decode_arguments,
    extract,
    extract_batch,
    frame_chunk,
    loads,
    parse_native,
    parse_raw_json,
    parse_text,
    parse_text_tagged,
)
from ._types import Diagnostic, Tool, ToolResult
from ._validation import validate_arguments
from .codecs import (
    PROVIDERS,
    Provider,
    convert_message,
    decode_results,
    decode_tool_calls,
    decode_tools,
    encode_calls,
    encode_results,
    encode_tools,
)
from .prompt import augment_system_prompt

__all__ = [
    "FORMATS",
    "FORMAT_ALIASES",
    "FORMAT_NAMES",
    "PROVIDERS",
    "AnthropicStreamAccumulator",
    "ArgumentsError",
    "Diagnostic",
    "FormatName",
    "GeminiStreamAccumulator",
    "InvalidToolCall",
    "JSONDecodeError",
    "LoopObserver",
    "LoopResult",
    "OllamaStreamAccumulator",
    "OpenAIStreamAccumulator",
    "Parsed",
    "Provider",
    "ProviderFormatError",
    "ReasoningDelta",
    "ResponsesStreamAccumulator",
    "StreamEncoder",
    "StreamParser",
    "StreamTranslator",
    "TextDelta",
    "Tool",
    "ToolCall",
    "ToolCallDelta",
    "ToolCallEnd",
    "ToolCallParseError",
    "ToolCallStart",
    "ToolDefinitionError",
    "ToolFilter",
    "ToolRegistry",
    "ToolResult",
    "ToolValidationError",
    "ToolwireError",
    "__version__",
    "arun_tool_loop",
    "atranslate_stream",
    "augment_system_prompt",
    "convert_message",
    "decode_arguments",
    "decode_results",
    "decode_tool_calls",
    "decode_tools",
    "encode_calls",
    "encode_results",
    "encode_tools",
    "extract",
    "extract_arrow",
    "extract_batch",
    "frame_chunk",
    "frame_stream",
    "json_default",
    "loads",
    "parse_native",
    "parse_raw_json",
    "parse_text",
    "parse_text_tagged",
    "pending_calls",
    "run_tool_loop",
    "translate_stream",
    "validate_arguments",
]
