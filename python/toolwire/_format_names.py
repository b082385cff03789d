"""The names ``formats=`` accepts, as types. The registry in the Rust core
(``rust/core/src/registry.rs``) is the source; ``tests/test_registry_names.py`` and
``tests/test_api_docs.py`` check that these lists equal the module's ``FORMATS``,
``FORMAT_NAMES`` and ``FORMAT_ALIASES``."""

from typing import Literal, TypeAlias

#: The open-weight formats (``toolwire.FORMATS``), in registry order.
FormatName: TypeAlias = Literal[
    "hermes",
    "qwen3_coder",
    "glm45",
    "mistral",
    "llama3_json",
    "pythonic",
    "deepseek_v3",
    "deepseek_v31",
    "kimi_k2",
    "harmony",
    "seed_oss",
    "gigachat3",
    "gigachat35",
    "longcat",
    "internlm2",
    "dots",
    "muse_glimmer",
    "step3",
    "minimax_m2",
    "deepseek_dsml",
    "lfm2",
    "jamba",
    "minimax_m1",
    "hy_v3",
    "nemotron",
    "granite",
    "apertus",
    "command_r7b",
    "olmo3",
    "phi4_mini",
    "function_gemma",
    "gemma4",
    "functionary_v3_2",
]

#: The protocols ``formats=`` accepts beside the open-weight formats.
ProtocolName: TypeAlias = Literal["text_tagged", "raw_json"]

#: Other projects' names for the open-weight formats, for formats that are raw JSON, and for
#: a set of names (``xlam``: raw_json, mistral and hermes, what vLLM's xLAM parser reads)
#: (``toolwire.FORMAT_ALIASES``); a name is also matched ignoring ASCII case and with ``-`` for
#: ``_``.
FormatAlias: TypeAlias = Literal[
    "xlam",
    "llamacpp_generic",
    "hermes2_pro",
    "qwen25",
    "qwen",
    "qwen2_5",
    "ernie45",
    "ernie45_moe",
    "granite4",
    "functionary_v3_1",
    "functionary_v3_1_llama_3_1",
    "granite_20b_fc",
    "qwen3_xml",
    "qwen3coder",
    "qwen3_5",
    "step3p5",
    "mimo",
    "glm4_moe",
    "glm",
    "glm47",
    "glm4_7",
    "ling3",
    "poolside_v1",
    "mistral_nemo",
    "magistral",
    "llama3",
    "llama3_x",
    "llama4_json",
    "llama3_builtin",
    "llama4_pythonic",
    "deepseekv3",
    "deepseek_r1",
    "deepseekv31",
    "deepseek_v3_1",
    "kimik2",
    "openai",
    "gpt_oss",
    "minimax_m2_5",
    "deepseek_v32",
    "deepseekv32",
    "deepseek_v32_dsml",
    "deepseek_v4",
    "deepseekv4",
    "lfm2_with_json_tools",
    "hunyuan_a13b",
    "apriel_1_5",
    "minimax",
    "hy_v4",
    "nemotron_v2",
    "nemotron_json",
    "granite3",
    "command_a",
    "phi4_mini_json",
    "firefunction_v2",
    "firefunction",
    "functiongemma",
    "internlm",
]

#: Any name ``formats=`` (and ``format=``) accepts.
AnyFormatName: TypeAlias = ProtocolName | FormatName | FormatAlias
