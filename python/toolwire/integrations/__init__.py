"""toolwire inside serving engines: a vLLM tool parser (:mod:`toolwire.integrations.vllm`) and
SGLang detectors (:mod:`toolwire.integrations.sglang`).

Each engine module imports its engine; this package imports neither.
"""
