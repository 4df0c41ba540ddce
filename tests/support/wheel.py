"""Build the project's wheel once per test session, from a copy of the working tree.

Building in place would leave ``build/`` behind and race with other builds, so the tree is copied
(without tests, benchmarks, virtualenvs and build output) and built there, without build
isolation when the installed setuptools is recent enough, which keeps it to a couple of seconds.
``tests/test_packaging.py`` inspects the wheel; ``tests/e2e/test_install.py`` installs it into a
fresh virtualenv as a user would.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

__all__ = ["DISTRIBUTION", "REPO", "build_wheel"]

REPO = Path(__file__).resolve().parents[2]
#: the project's name on PyPI (the import package is ``fakeapi``)
DISTRIBUTION = "fakeapi-dra"
_COPY_IGNORE = shutil.ignore_patterns(
    ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".*_cache", "tests", "bench"
)


def _setuptools_major() -> int:
    from importlib import metadata

    try:
        return int(metadata.version("setuptools").split(".")[0])
    except metadata.PackageNotFoundError:
        return 0


def build_wheel(work: Path) -> Path:
    """Build the wheel under ``work`` and return its path."""
    source = work / "src"
    shutil.copytree(REPO, source, symlinks=True, ignore=_COPY_IGNORE)
    out = work / "dist"
    # without isolation when the installed setuptools meets pyproject's build requirement
    isolation = [] if _setuptools_major() >= 69 else ["--use-pep517"]
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps",
         *(isolation or ["--no-build-isolation"]), "--wheel-dir", str(out), str(source)],
        check=True, capture_output=True, text=True,
    )  # fmt: skip
    (built,) = out.glob(f"{DISTRIBUTION.replace('-', '_')}-*.whl")
    return built
