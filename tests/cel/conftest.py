"""Collects the CEL conformance results and reports them per area, when asked.

The per-area tests in test_conformance.py record every case's outcome here; the report shows
pass counts per area and every reason for skipping, with the cases named for the smaller groups
(the large ones are whole libraries or protobuf features), so it says what is covered and what
is not. It is long, so a plain run leaves it out: ``--cel-conformance-report=-`` prints it after
the run, ``--cel-conformance-report=PATH`` writes it to a file (the option is defined in
``tests/conftest.py``, where pytest reads options from).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path

import pytest

LIST_NAMES_UP_TO = 60  # smaller groups of skipped cases are listed case by case
RESULTS = pytest.StashKey[dict[str, list[tuple[str, str, str]]]]()


@pytest.fixture
def conformance_results(request: pytest.FixtureRequest) -> dict[str, list[tuple[str, str, str]]]:
    """area → [(case name, status, detail)], shared by the whole session."""
    stash = request.config.stash
    if RESULTS not in stash:
        stash[RESULTS] = {}
    return stash[RESULTS]


TITLE = "CEL conformance (google/cel-spec simple tests)"


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    target = terminalreporter.config.getoption("cel_conformance_report", None)
    results = terminalreporter.config.stash.get(RESULTS, None)
    if not target or not results:
        return
    lines = report_lines(results)
    if target == "-":
        terminalreporter.section(TITLE)
        for line in lines:
            terminalreporter.write_line(line)
        return
    Path(target).write_text("\n".join([TITLE, *lines]) + "\n")
    terminalreporter.write_line(f"CEL conformance report written to {target}")


def report_lines(results: dict[str, list[tuple[str, str, str]]]) -> list[str]:
    """The report: pass counts per area, then the skipped cases by reason."""
    lines: list[str] = []
    write = lines.append
    totals: Counter[str] = Counter()
    skip_reasons: dict[str, Counter[str]] = defaultdict(Counter)
    skipped_names: dict[str, list[str]] = defaultdict(list)
    for area in sorted(results):
        counts = Counter(status for _, status, _ in results[area])
        totals.update(counts)
        ran = counts["pass"] + counts["fail"]
        write(
            f"{area:<16} {counts['pass']:>4}/{ran:<4} passed"
            + (f"  {counts['skip']:>4} skipped" if counts["skip"] else "")
        )
        for name, status, detail in results[area]:
            if status == "skip":
                skip_reasons[detail][area] += 1
                skipped_names[detail].append(f"{area}/{name}")
    fully_skipped = {
        area for area, rows in results.items() if all(status == "skip" for _, status, _ in rows)
    }
    ran = totals["pass"] + totals["fail"]
    write(f"{'total':<16} {totals['pass']:>4}/{ran:<4} passed  {totals['skip']:>4} skipped")
    if skip_reasons:
        write("skipped, by reason:")
        for reason, areas in sorted(skip_reasons.items(), key=lambda item: -sum(item[1].values())):
            where = ", ".join(f"{area} {n}" for area, n in sorted(areas.items()))
            write(f"  {sum(areas.values()):>4}  {reason} ({where})")
            whole_areas = all(area in fully_skipped for area in areas)
            if len(skipped_names[reason]) <= LIST_NAMES_UP_TO and not whole_areas:
                for name in skipped_names[reason]:
                    write(f"          {name}")
    return lines
