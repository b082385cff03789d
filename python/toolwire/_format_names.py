"""The names of the open-weight formats as a type. The registry in the Rust core
(``rust/core/src/registry.rs``) is the source; ``tests/test_registry_names.py`` checks that this
list equals the module's ``FORMATS``."""

from typing import Literal

FormatName = Literal[
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
    "dots",
    "muse_glimmer",
    "step3",
    "minimax_m2",
    "deepseek_dsml",
]
