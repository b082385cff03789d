"""toolwire: fast, complete tool-call parsing for LLM responses, with a Rust core.

>>> import toolwire
>>> toolwire.extract('~~~tool_call\\n{"name": "f", "arguments": {"a": 1}}\\n~~~')[0].arguments
{'a': 1}
"""

from ._errors import (
    ArgumentsError,
    JSONDecodeError,
    ProviderFormatError,
    ToolCallParseError,
    ToolDefinitionError,
    ToolValidationError,
    ToolwireError,
)
from ._toolwire import (
    InvalidToolCall,
    ToolCall,
    __version__,
    decode_arguments,
    extract,
    loads,
    parse_native,
    parse_raw_json,
    parse_text_tagged,
)
from ._types import Parsed, Tool, ToolResult

__all__ = [
    "ArgumentsError",
    "InvalidToolCall",
    "JSONDecodeError",
    "Parsed",
    "ProviderFormatError",
    "Tool",
    "ToolCall",
    "ToolCallParseError",
    "ToolDefinitionError",
    "ToolResult",
    "ToolValidationError",
    "ToolwireError",
    "__version__",
    "decode_arguments",
    "extract",
    "loads",
    "parse_native",
    "parse_raw_json",
    "parse_text_tagged",
]
