"""The public surface is what docs/architecture.md says it is: documented roots, each with its
``__all__``, every listed name importable, and the docs' examples importing from those roots only.

Everything else may move without notice, so a doc that imports an inner module would teach users
an import that can break; this test is what keeps the promise honest.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path

import pytest

import fakeapi.rules

REPO = Path(__file__).resolve().parents[1]
#: the package roots docs/architecture.md lists under "The public surface"
PUBLIC_ROOTS = (
    "fakeapi.client",
    "fakeapi.cluster",
    "fakeapi.cluster.pytest_plugin",
    "fakeapi.usage",
    "fakeapi.controllers",
    "fakeapi.scheduler",
    "fakeapi.scheduler.framework",
    "fakeapi.kubelet",
    "fakeapi.objects",
    "fakeapi.clock",
)
RULE_FAMILIES = tuple(
    f"fakeapi.rules.{info.name}" for info in pkgutil.iter_modules(fakeapi.rules.__path__)
)
_IMPORT = re.compile(r"^\s*from (fakeapi[\w.]*) import ", re.M)


@pytest.mark.parametrize("root", PUBLIC_ROOTS + RULE_FAMILIES)
def test_every_name_a_public_root_lists_imports(root: str) -> None:
    module = importlib.import_module(root)
    names = getattr(module, "__all__", None)
    assert names, f"{root} has no __all__"
    missing = [name for name in names if not hasattr(module, name)]
    assert not missing, f"{root}.__all__ lists names it does not have: {missing}"


def test_the_architecture_page_lists_the_same_roots() -> None:
    page = (REPO / "docs" / "architecture.md").read_text()
    section = page.split("### The public surface", 1)[1].split("\n## ", 1)[0]
    listed = set(re.findall(r"`(fakeapi[\w.]*)`", section))
    assert set(PUBLIC_ROOTS) <= listed, sorted(set(PUBLIC_ROOTS) - listed)


def test_the_docs_examples_import_only_from_public_roots() -> None:
    allowed = set(PUBLIC_ROOTS) | set(RULE_FAMILIES)
    offenders = [
        f"{path.relative_to(REPO)}: from {module} import"
        for path in [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
        for module in _IMPORT.findall(path.read_text())
        if module not in allowed
    ]
    assert not offenders, "docs import from internal modules:\n" + "\n".join(offenders)
