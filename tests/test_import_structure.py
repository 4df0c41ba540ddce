"""No import inside a function hides an import circle, and the module-level imports form none.

An ``import`` inside a function body runs at the first call instead of at import time. That is
fine when it saves start-up time (the pytest plugin, ``fakeapi.cli`` and the cluster assembler
load little until they need it), and wrong when it is there because the imported module, through
its own module-level imports, comes back to the importer: hoisting it would close an import
circle, so the deferral only hides a knot that moving code to where it belongs unties. Python's
import machinery cannot tell the two apart, so this test reads the source.

It parses every module of the installed ``fakeapi`` package, the symlinked component folders
included, builds the graph of module-level imports (an ``if TYPE_CHECKING:`` block imports nothing
at run time; a class body or a ``try`` at module level does) and checks that no import made
inside a function would close a circle if it were hoisted, and that no module-level import closes
one. There are no exceptions for package ``__init__`` re-exports: none is needed.

An import closes a circle when the modules it runs reach the importer's side back through
module-level imports. Between two modules of one package the importer's side is the importer.
Otherwise it is the part of the closest common package that holds the importer (the subpackage
``fakeapi.validation`` for ``fakeapi.validation.dra_common`` importing ``fakeapi.cel``): two parts
of a package that import each other are a circle even when no single module comes back, because
neither is below the other any more, and the next import added in between makes it a real one.

``from package import name`` imports the submodule when ``name`` is one, else the package itself.
Importing a module runs the ``__init__`` of every package above it that is not already running,
so those count; the importer's own packages do not, as Python imports them before the importer.
The check reads only the source (about 300 files) and takes about a second.
"""

from __future__ import annotations

import ast
import os
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

import fakeapi

#: Function-level imports known to hide a circle, each to be removed by work already under way.
#: The test fails when an entry no longer hides a circle, so an entry cannot outlive its fix.
KNOWN_HIDDEN_CIRCLES: dict[tuple[str, str], str] = {}


@dataclass(frozen=True)
class Import:
    """One import edge: ``module`` imports ``target`` at ``line``, inside a function or not."""

    module: str
    target: str
    line: int
    in_function: bool


def _package_modules(directories: Sequence[str], *, package: str) -> dict[str, Path]:
    """Every module of a package by dotted name, following symlinked folders."""
    modules: dict[str, Path] = {}
    for top in directories:
        for directory, subdirectories, files in os.walk(top, followlinks=True):
            here = Path(directory)
            subdirectories[:] = sorted(
                d for d in subdirectories if (here / d / "__init__.py").is_file()
            )
            parts = (package, *here.relative_to(top).parts)
            for file in files:
                if file.endswith(".py"):
                    name = parts if file == "__init__.py" else (*parts, file[:-3])
                    modules[".".join(name)] = here / file
    return modules


def _is_type_checking(test: ast.expr) -> bool:
    if isinstance(test, ast.Name):
        return test.id == "TYPE_CHECKING"
    return isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"


class _ImportCollector(ast.NodeVisitor):
    """The import statements of one module that reach a module of the package."""

    def __init__(self, *, module: str, is_package: bool, modules: dict[str, Path]) -> None:
        self.module = module
        self.package = module if is_package else module.rpartition(".")[0]
        self.modules = modules
        self.imports: list[Import] = []
        self._function_depth = 0

    def _visit_function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self._function_depth += 1
        self.generic_visit(node)
        self._function_depth -= 1

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self._visit_function(node)

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> None:
        self._visit_function(node)

    def visit_If(self, node: ast.If) -> None:
        if not _is_type_checking(node.test):
            self.generic_visit(node)
            return
        for statement in node.orelse:
            self.visit(statement)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._add(alias.name, node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        base = node.module or ""
        if node.level:
            anchor = self.package.split(".")
            anchor = anchor[: len(anchor) - node.level + 1]
            base = ".".join([*anchor, base]) if base else ".".join(anchor)
        for alias in node.names:
            submodule = f"{base}.{alias.name}"
            self._add(submodule if submodule in self.modules else base, node)

    def _add(self, target: str, node: ast.stmt) -> None:
        if target in self.modules:
            self.imports.append(
                Import(self.module, target, node.lineno, in_function=self._function_depth > 0)
            )


def _ancestors(module: str) -> Iterator[str]:
    parts = module.split(".")
    for end in range(1, len(parts)):
        yield ".".join(parts[:end])


def _runs(statement: Import) -> list[str]:
    """The modules whose code an import runs: the target, and the ``__init__`` of each package
    above it that is not one of the importer's own (those are already being imported)."""
    running = {*_ancestors(statement.module), statement.module}
    above = [name for name in _ancestors(statement.target) if name not in running]
    return [*above, statement.target]


def collect_imports(directories: Sequence[str], *, package: str) -> list[Import]:
    """Every import statement of the package that reaches one of its own modules."""
    modules = _package_modules(directories, package=package)
    imports: list[Import] = []
    for module, path in modules.items():
        collector = _ImportCollector(
            module=module, is_package=path.name == "__init__.py", modules=modules
        )
        collector.visit(ast.parse(path.read_bytes(), filename=str(path)))
        imports.extend(collector.imports)
    return imports


def module_level_graph(imports: Sequence[Import]) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for statement in imports:
        if not statement.in_function:
            graph.setdefault(statement.module, set()).update(
                name for name in _runs(statement) if name != statement.module
            )
    return graph


def _sides(importer: str, target: str) -> tuple[str, str]:
    """The two parts of the closest package that holds both modules which hold each of them: a
    child package or module of it, or the module itself when it is the other one's package."""
    a, b = importer.split("."), target.split(".")
    common = 0
    while common < min(len(a), len(b)) and a[common] == b[common]:
        common += 1
    return ".".join(a[: common + 1]), ".".join(b[: common + 1])


def _path(
    graph: dict[str, set[str]], *, starts: Sequence[str], goal: Callable[[str], bool]
) -> list[str] | None:
    """The shortest chain of module-level imports from one of ``starts`` to a ``goal`` module."""
    previous: dict[str, str | None] = dict.fromkeys(starts)
    queue = deque(starts)
    while queue:
        current = queue.popleft()
        if goal(current):
            chain = [current]
            while (step := previous[chain[-1]]) is not None:
                chain.append(step)
            return chain[::-1]
        # deepest first: name the module an import is for, not the package __init__ it runs
        for following in sorted(graph.get(current, ()), key=lambda n: (-n.count("."), n)):
            if following not in previous:
                previous[following] = current
                queue.append(following)
    return None


def circle_closed_by(statement: Import, graph: dict[str, set[str]]) -> str | None:
    """How the import closes a circle (None when it does not): the modules it runs reach the
    importer's side back through module-level imports.

    The importer's side is the importer itself when the two sit in one package, else the part of
    their closest common package that holds the importer: ``fakeapi.validation`` for an import of
    ``fakeapi.cel`` by ``fakeapi.validation.dra_common``. Two parts of a package that import
    each other form a circle even when no single module comes back to the importer, since which
    part is below the other can no longer be told.
    """
    own, other = _sides(statement.module, statement.target)
    # the importer is the target's package: only its own __init__ is on its side
    whole = own != statement.module or not statement.target.startswith(f"{own}.")

    def on_own_side(name: str) -> bool:
        return name == own or (whole and name.startswith(f"{own}."))

    starts = [name for name in _runs(statement) if name != statement.module]
    chain = _path(graph, starts=starts, goal=on_own_side)
    if chain is None:
        return None
    circle = " -> ".join([statement.module, *chain])
    if own == statement.module:
        return circle
    return f"{circle} (a circle between {own} and {other})"


def _closing_imports(imports: Sequence[Import], *, in_function: bool) -> dict[tuple[str, str], str]:
    graph = module_level_graph(imports)
    found: dict[tuple[str, str], str] = {}
    for statement in imports:
        key = (statement.module, statement.target)
        if statement.in_function != in_function or key in found:
            continue
        circle = circle_closed_by(statement, graph)
        if circle is not None:
            where = f"{statement.module}:{statement.line} imports {statement.target}"
            found[key] = (
                f"{where} in a function; hoisted, it closes {circle}"
                if in_function
                else f"{where}: {circle}"
            )
    return found


def hidden_circles(imports: Sequence[Import]) -> dict[tuple[str, str], str]:
    """(importer, imported) of every function-level import that would close a circle if hoisted,
    with that circle."""
    return _closing_imports(imports, in_function=True)


def module_level_circles(imports: Sequence[Import]) -> dict[tuple[str, str], str]:
    """(importer, imported) of every module-level import that closes a circle, with it."""
    return _closing_imports(imports, in_function=False)


@cache
def _fakeapi_imports() -> tuple[Import, ...]:
    return tuple(collect_imports(list(fakeapi.__path__), package="fakeapi"))


def test_no_function_level_import_hides_an_import_circle() -> None:
    hidden = hidden_circles(_fakeapi_imports())
    unexpected = [text for key, text in sorted(hidden.items()) if key not in KNOWN_HIDDEN_CIRCLES]
    assert not unexpected, "function-level imports that hide a circle:\n" + "\n".join(unexpected)
    fixed = [" -> ".join(key) for key in KNOWN_HIDDEN_CIRCLES if key not in hidden]
    assert not fixed, "no hidden circle any more, remove from KNOWN_HIDDEN_CIRCLES: " + ", ".join(
        fixed
    )


def test_module_level_imports_form_no_circle() -> None:
    circles = module_level_circles(_fakeapi_imports())
    assert not circles, "module-level imports that close a circle:\n" + "\n".join(
        text for _, text in sorted(circles.items())
    )


def test_every_component_folder_is_read() -> None:
    modules = {statement.module for statement in _fakeapi_imports()}
    for component in ("controllers", "scheduler", "kubelet", "cluster"):
        assert any(module.startswith(f"fakeapi.{component}.") for module in modules), component


# --- the checks on a package made for them -----------------------------------------------------

_SAMPLE = {
    "__init__.py": "",
    # two modules: hoisting util's import closes util -> api -> util
    "api.py": "from sample import util\n",
    "util.py": "def helper():\n    from sample.api import Api\n    return Api\n",
    # an import for type checking only is no edge: hoisting make's import closes the circle
    "low.py": (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from sample.high import High\n"
        "def make():\n    from sample import high\n    return high.High\n"
    ),
    "high.py": "from sample import low\n",
    # importing sample.deep.other runs sample/deep/__init__, which comes back to alone
    "alone.py": "def load():\n    x = 1\n    from sample.deep import other\n    return other\n",
    "deep/__init__.py": "from sample.deep.inner import Inner\n",
    "deep/inner.py": "import sample.alone\n\nInner = 1\n",
    "deep/other.py": "",
    # a package and a module beside it that import each other, through different modules
    "plugin/__init__.py": "",
    "plugin/user.py": "def f():\n    from sample import helpers\n",
    "plugin/base.py": "",
    "helpers.py": "from sample.plugin import base\n",
    # the same at module level
    "parts/__init__.py": "",
    "parts/one.py": "from sample import lonely\n",
    "parts/two.py": "",
    "lonely.py": "from sample.parts import two\n",
    # a package's __init__ re-exports a name its own modules import back from it
    "sub/__init__.py": "from .one import One\n",
    "sub/one.py": "from sample.sub import two\n\nOne = 1\n",
    "sub/two.py": "from sample.sub import One\n",
    # a late import that closes nothing
    "leaf.py": "def f():\n    import sample.high\n",
}


@pytest.fixture
def sample_imports(tmp_path: Path) -> list[Import]:
    for name, text in _SAMPLE.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    return collect_imports([str(tmp_path)], package="sample")


def test_the_check_names_each_function_level_import_that_would_close_a_circle(
    sample_imports: list[Import],
) -> None:
    assert hidden_circles(sample_imports) == {
        ("sample.util", "sample.api"): "sample.util:2 imports sample.api in a function; "
        "hoisted, it closes sample.util -> sample.api -> sample.util",
        ("sample.low", "sample.high"): "sample.low:5 imports sample.high in a function; "
        "hoisted, it closes sample.low -> sample.high -> sample.low",
        ("sample.alone", "sample.deep.other"): "sample.alone:3 imports sample.deep.other in a "
        "function; hoisted, it closes sample.alone -> sample.deep -> sample.deep.inner -> "
        "sample.alone",
        ("sample.plugin.user", "sample.helpers"): "sample.plugin.user:2 imports sample.helpers "
        "in a function; hoisted, it closes sample.plugin.user -> sample.helpers -> "
        "sample.plugin.base (a circle between sample.plugin and sample.helpers)",
    }


def test_the_check_names_each_module_level_import_that_closes_a_circle(
    sample_imports: list[Import],
) -> None:
    circles = module_level_circles(sample_imports)
    assert sorted(circles) == [
        ("sample.parts.one", "sample.lonely"),
        ("sample.sub", "sample.sub.one"),
        ("sample.sub.one", "sample.sub.two"),
        ("sample.sub.two", "sample.sub"),
    ]
    assert circles["sample.sub.two", "sample.sub"] == (
        "sample.sub.two:1 imports sample.sub: sample.sub.two -> sample.sub -> sample.sub.one -> "
        "sample.sub.two"
    )
    assert circles["sample.parts.one", "sample.lonely"] == (
        "sample.parts.one:1 imports sample.lonely: sample.parts.one -> sample.lonely -> "
        "sample.parts.two (a circle between sample.parts and sample.lonely)"
    )
