"""Collects the CEL conformance results and prints them per area after the run.

The per-area tests in test_conformance.py record every case's outcome here; the terminal
summary then shows pass counts per area and lists every skipped case's reason (grouped), so
the output says what is covered and what is not, with or without ``-s``.
"""

from __future__ import annotations

from collections import Counter, defaultdict

import pytest

RESULTS = pytest.StashKey[dict[str, list[tuple[str, str, str]]]]()


@pytest.fixture
def conformance_results(request: pytest.FixtureRequest) -> dict[str, list[tuple[str, str, str]]]:
    """area → [(case name, status, detail)], shared by the whole session."""
    stash = request.config.stash
    if RESULTS not in stash:
        stash[RESULTS] = {}
    return stash[RESULTS]


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    results = terminalreporter.config.stash.get(RESULTS, None)
    if not results:
        return
    write = terminalreporter.write_line
    terminalreporter.section("CEL conformance (google/cel-spec simple tests)")
    totals: Counter[str] = Counter()
    skip_reasons: dict[str, Counter[str]] = defaultdict(Counter)
    for area in sorted(results):
        counts = Counter(status for _, status, _ in results[area])
        totals.update(counts)
        ran = counts["pass"] + counts["fail"]
        write(
            f"{area:<16} {counts['pass']:>4}/{ran:<4} passed"
            + (f"  {counts['skip']:>4} skipped" if counts["skip"] else "")
        )
        for _, status, detail in results[area]:
            if status == "skip":
                skip_reasons[detail][area] += 1
    ran = totals["pass"] + totals["fail"]
    write(f"{'total':<16} {totals['pass']:>4}/{ran:<4} passed  {totals['skip']:>4} skipped")
    if skip_reasons:
        write("skipped, by reason:")
        for reason, areas in sorted(skip_reasons.items(), key=lambda item: -sum(item[1].values())):
            where = ", ".join(f"{area} {n}" for area, n in sorted(areas.items()))
            write(f"  {sum(areas.values()):>4}  {reason} ({where})")
