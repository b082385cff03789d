#!/usr/bin/env bash
# The whole test suite: Rust tests and lints, Python lints and types, pytest (tests and the
# benchmarks' correctness checks, each run once). Run from an environment where
# `pip install -e '.[test,lint]'` has been done (`.ci/run` does exactly that, then this).
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== cargo fmt --check"
cargo fmt --all -- --check
cargo fmt --manifest-path rust/fuzz/Cargo.toml -- --check
echo "== cargo clippy"
cargo clippy --workspace --all-targets -- -D warnings
echo "== cargo test"
cargo test --workspace --exclude toolwire-python
# The fuzz targets (run by scripts/fuzz.sh on nightly) must keep compiling against the core.
echo "== cargo check (fuzz targets)"
cargo check --quiet --manifest-path rust/fuzz/Cargo.toml --target-dir target/fuzz-check
echo "== ruff"
ruff check .
ruff format --check .
echo "== mypy --strict"
mypy --strict python/ tests/typing_check.py tests/typing_user.py
echo "== stubtest"
python -m mypy.stubtest toolwire._toolwire --allowlist python/toolwire/stubtest_allowlist.txt
echo "== pytest"
status=0
python -m pytest tests benches --benchmark-disable -p no:cacheprovider || status=$?
# Exit status 5 means "no tests collected": a broken suite, not a pass.
if [ "$status" -ne 0 ]; then
    echo "pytest failed with exit status $status" >&2
    exit "$status"
fi
# vLLM and SGLang (scripts/install_engines.sh), in a process of their own: the group puts
# stand-ins for torch and triton in sys.modules. TOOLWIRE_REQUIRE_ENGINES=1 (CI) makes their
# absence an error rather than a skip.
echo "== pytest (engines: vLLM, SGLang)"
if python -c "import importlib.util as u, sys; sys.exit(not (u.find_spec('vllm') and u.find_spec('sglang')))" \
    || [ "${TOOLWIRE_REQUIRE_ENGINES:-}" = 1 ]; then
    python -m pytest tests/engines -p no:cacheprovider
else
    echo "skipped: vLLM and SGLang are not installed (bash scripts/install_engines.sh)"
fi
