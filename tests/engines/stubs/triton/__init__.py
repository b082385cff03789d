"""Stand-in for triton (see ``_placeholder``): ``sglang.srt.utils`` imports it, the tool
parsers never run it."""

import _placeholder

_placeholder.install(__name__, "3.6.0")
