"""Shared pytest configuration: the tests import the project from the repository root."""

from __future__ import annotations

from pathlib import Path

import pytest

from .support.wheel import build_wheel


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--cel-conformance-report",
        metavar="PATH",
        default=None,
        help="report the CEL conformance results per area: '-' prints them after the run, "
        "a path writes them there (tests/cel/conftest.py)",
    )


@pytest.fixture(scope="session")
def project_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project's wheel, built once for every test that inspects or installs it."""
    return build_wheel(tmp_path_factory.mktemp("wheel"))
