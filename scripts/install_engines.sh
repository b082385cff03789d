#!/usr/bin/env bash
# Installs vLLM and SGLang for the engine test group (tests/engines), without their GPU stack:
# the engines' wheels with --no-deps, then only the light modules their tool-parser import
# chains need (tests/engines/requirements.txt). torch and triton are never installed; the
# tests put stand-ins for them on the path (tests/engines/stubs, see tests/engines/README.md).
set -euo pipefail
cd "$(dirname "$0")/.."

VLLM_VERSION=0.33.0
SGLANG_VERSION=0.5.23
XGRAMMAR_VERSION=0.2.8  # vLLM's pin; SGLang 0.5.23 pins 0.2.7, and imports with either

start=$(date +%s)
python -m pip install --quiet --no-deps \
    "vllm==${VLLM_VERSION}" "sglang==${SGLANG_VERSION}" "xgrammar==${XGRAMMAR_VERSION}"
python -m pip install --quiet -r tests/engines/requirements.txt
echo "engines installed (vllm ${VLLM_VERSION}, sglang ${SGLANG_VERSION}) in $(($(date +%s) - start)) s"
