"""Stage files: one call reads a file or a directory of them, as the shipped lifecycle is read."""

from __future__ import annotations

from pathlib import Path

import pytest

from fakeapi.kubelet import StageError, default_stages, load_stages
from fakeapi.kubelet.default_stages import default_stages_path

START = """\
stages:
- name: start
  selector: [{key: .status.phase, operator: In, values: [Pending]}]
  steps: [{phase: Running}]
"""
STOP = """\
- name: stop
  selector: [{key: .status.phase, operator: In, values: [Running]}]
  steps: &done [{phase: Succeeded}]
- name: stop-again
  steps: *done
"""


def _write(directory: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (directory / name).write_text(text)
    return directory


def test_a_directory_is_read_in_file_name_order_each_file_in_its_order(tmp_path: Path) -> None:
    directory = _write(tmp_path, {"20-stop.yaml": STOP, "10-start.yaml": START,
                                  "notes.txt": "not a stage file"})
    stages = load_stages(directory)
    assert [s.name for s in stages] == ["start", "stop", "stop-again"]
    assert stages[2].steps == ({"phase": "Succeeded"},)  # an anchor shares steps within a file


def test_a_file_is_read_by_the_same_call(tmp_path: Path) -> None:
    _write(tmp_path, {"10-start.yaml": START, "20-stop.yaml": STOP})
    start = load_stages(tmp_path / "10-start.yaml")  # a Path, or its string
    stop = load_stages(str(tmp_path / "20-stop.yaml"))
    assert start + stop == load_stages(tmp_path)


@pytest.mark.parametrize(
    ("files", "message"),
    [
        ({"10-start.yaml": START, "20-bad.yaml": "- name: x\n  steps: [{explode: true}]\n"},
         r"^20-bad\.yaml: stage x\.steps\[0\]: must be one of"),
        ({"10-start.yaml": START, "20-start.yaml": START}, "stage names must be unique"),
        ({"10-empty.yaml": ""}, r"^10-empty\.yaml: expected a non-empty list of stages"),
        ({"10-broken.yaml": "stages: [\n"}, r"^10-broken\.yaml: while parsing"),
        ({"README.md": "no stages here"}, r"no \*\.yaml stage files"),
    ],
)
def test_bad_stage_files_are_refused_naming_the_file(
    tmp_path: Path, files: dict[str, str], message: str
) -> None:
    with pytest.raises(StageError, match=message):
        load_stages(_write(tmp_path, files))


def test_the_default_stages_are_the_shipped_files_read_once() -> None:
    assert default_stages() is default_stages()
    shipped = sorted(f.name for f in default_stages_path().iterdir() if f.name.endswith(".yaml"))
    assert shipped[0] == "10-run.yaml" and default_stages()[0].name == "pod-ready"
