"""The CEL conformance report stays out of a plain run's output and comes when asked."""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import TITLE, report_lines

pytest_plugins = ["pytester"]

HERE = Path(__file__).parent
RESULTS = {
    "basic": [("self_eval_int", "pass", ""), ("self_eval_uint", "pass", "")],
    "proto2": [("any", "skip", "protobuf messages are not in the Kubernetes environment")],
}


def test_the_report_counts_passes_per_area_and_lists_skips_by_reason() -> None:
    assert report_lines(RESULTS) == [
        "basic               2/2    passed",
        "proto2              0/0    passed     1 skipped",
        "total               2/2    passed     1 skipped",
        "skipped, by reason:",
        "     1  protobuf messages are not in the Kubernetes environment (proto2 1)",
    ]


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    """A project with this folder's conftest, the option, and one test that records results."""
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    pytester.makeconftest(
        """
        from cel_conftest import *

        def pytest_addoption(parser):
            parser.addoption("--cel-conformance-report", default=None)
        """
    )
    pytester.makepyfile(cel_conftest=(HERE / "conftest.py").read_text())
    pytester.makepyfile(
        test_cases="""
        def test_cases(conformance_results):
            conformance_results["basic"] = [("a", "pass", ""), ("b", "pass", "")]
        """
    )
    return pytester


def test_a_plain_run_leaves_the_report_out(project: pytest.Pytester) -> None:
    result = project.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    assert TITLE not in result.stdout.str()


def test_the_report_is_printed_or_written_when_asked(project: pytest.Pytester) -> None:
    printed = project.runpytest("-p", "no:cacheprovider", "--cel-conformance-report=-")
    assert TITLE in printed.stdout.str()
    printed.stdout.fnmatch_lines(["basic*2/2*passed"])
    report = project.path / "cel.txt"
    written = project.runpytest("-p", "no:cacheprovider", f"--cel-conformance-report={report}")
    assert TITLE not in written.stdout.str()
    assert report.read_text().splitlines()[:2] == [TITLE, "basic               2/2    passed"]
