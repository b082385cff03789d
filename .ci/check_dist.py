"""Checks the wheel and the sdist in a folder: the wheel's tags (abi3 for CPython >= 3.11, the
manylinux tag auditwheel finds), what the wheel and the sdist hold, and the version they carry.

Usage: python .ci/check_dist.py DIST_DIR MANYLINUX_TAG (e.g. manylinux_2_17)
"""

from __future__ import annotations

import json
import platform
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def fail(message: str) -> None:
    sys.exit(f"check_dist: {message}")


def check_wheel(wheel: Path, version: str, manylinux: str) -> None:
    name, wheel_version, python, abi, platforms = wheel.stem.split("-")
    plat = f"{manylinux}_{platform.machine()}"
    tags = (name, wheel_version, python, abi, plat in platforms.split("."))
    if tags != ("toolwire", version, "cp311", "abi3", True):
        fail(f"{wheel.name}: expected toolwire-{version}-cp311-abi3-…{plat}….whl")
    shown = subprocess.run(
        [sys.executable, "-m", "auditwheel", "show", "--json", str(wheel)],
        capture_output=True,
        text=True,
        check=True,
    )
    audit = json.loads(shown.stdout)
    if audit["overall_tag"] != plat or audit["external_libs"]:
        fail(f"auditwheel: {wheel.name} is {audit['overall_tag']}, links {audit['external_libs']}")

    names = set(zipfile.ZipFile(wheel).namelist())
    dist_info = f"toolwire-{version}.dist-info"
    required = {
        "toolwire/__init__.py",
        "toolwire/_toolwire.abi3.so",
        "toolwire/_toolwire.pyi",
        "toolwire/py.typed",
        f"{dist_info}/METADATA",
        f"{dist_info}/entry_points.txt",
        f"{dist_info}/licenses/LICENSE",
    }
    if missing := required - names:
        fail(f"{wheel.name} lacks {sorted(missing)}")
    stray = [
        n
        for n in names
        if not (n.startswith(("toolwire/", f"{dist_info}/")))
        or Path(n).name.startswith(("test_", "conftest", "bench_"))
        or n.endswith("stubtest_allowlist.txt")
    ]
    if stray:
        fail(f"{wheel.name} holds files that are not the package's: {sorted(stray)}")
    metadata = zipfile.ZipFile(wheel).read(f"{dist_info}/METADATA").decode()
    for line in (f"Version: {version}", "Requires-Python: >=3.11"):
        if line not in metadata.splitlines():
            fail(f"{wheel.name}: METADATA lacks {line!r}")


def check_sdist(sdist: Path, version: str) -> None:
    top = f"toolwire-{version}"
    names = set(tarfile.open(sdist).getnames())
    required = {
        f"{top}/{path}"
        for path in (
            "pyproject.toml",
            "Cargo.toml",
            "Cargo.lock",
            "LICENSE",
            "README.md",
            "docs/README.md",
            "rust/core/src/lib.rs",
            "rust/python/src/lib.rs",
            "python/toolwire/__init__.py",
            "python/toolwire/_toolwire.pyi",
        )
    }
    if missing := required - names:
        fail(f"{sdist.name} lacks {sorted(missing)}")
    build_output = {"target", ".venv", "__pycache__", "dist"}
    stray = [
        n
        for n in names
        if build_output.intersection(n.split("/")) or n.endswith((".so", ".pyd", ".whl"))
    ]
    if stray:
        fail(f"{sdist.name} holds build output: {sorted(stray)[:5]}")


def main() -> None:
    dist, manylinux = Path(sys.argv[1]), sys.argv[2]
    with (ROOT / "Cargo.toml").open("rb") as f:
        version = tomllib.load(f)["workspace"]["package"]["version"]
    wheels = sorted(dist.glob("*.whl"))
    sdists = sorted(dist.glob("*.tar.gz"))
    if len(wheels) != 1 or len(sdists) != 1:
        fail(f"expected one wheel and one sdist in {dist}, found {wheels + sdists}")
    check_wheel(wheels[0], version, manylinux)
    check_sdist(sdists[0], version)
    print(f"check_dist: {wheels[0].name} and {sdists[0].name} are as expected")


if __name__ == "__main__":
    main()
