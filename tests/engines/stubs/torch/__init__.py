"""Stand-in for torch (see ``_placeholder``): vLLM and SGLang import it, the tool parsers never
run it. The version is the one vLLM 0.33.0 pins."""

import _placeholder

_placeholder.install(__name__, "2.14.0")
