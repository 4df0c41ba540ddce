"""The evaluator against the CEL conformance tables (tests/cel/conformance/*.yaml).

The tables are converted from google/cel-spec by ``bench/cel_conformance_import.py``; docs/cel.md
describes the notation. A case passes when the expression compiles (with the declared
variables, type-checked unless the case says otherwise) and evaluates to exactly the expected
value (same CEL type, NaN equal to NaN), or fails to compile or evaluate when an error is
expected. Cases the Kubernetes environment cannot express carry a ``skip`` reason in the table;
:data:`UNSUPPORTED` adds the reasons this evaluator itself cannot run a case.
"""

from __future__ import annotations

import math
import pathlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pytest
import yaml

from fakeapi.cel import CELCompileError, CELRuntimeError
from fakeapi.cel.ast import UInt
from fakeapi.cel.environment import compile_expression
from fakeapi.cel.time_values import Duration, Timestamp
from fakeapi.cel.values import CelType, type_name

TABLES = pathlib.Path(__file__).parent / "conformance"

# Features of the Kubernetes environment that this evaluator does not implement (yet).
UNSUPPORTED: dict[str, str] = {}


# Kubernetes compiles with cel-go's homogeneous aggregate literal validator, which rejects what
# some cel-spec cases expect to run; such a rejection is the Kubernetes behaviour.
_MIXED_LITERAL = re.compile(r"expected type '[^']+' but found '[^']+'")
MIXED_LITERAL_REASON = (
    "mixed-type list/map literal: Kubernetes rejects it (homogeneous aggregate literals)"
)


@dataclass(frozen=True)
class Outcome:
    status: str  # "pass", "fail" or "skip"
    detail: str = ""


def load_area(area: str) -> list[dict[str, Any]]:
    cases = yaml.safe_load((TABLES / f"{area}.yaml").read_text()) or []
    assert isinstance(cases, list)
    return cases


def areas() -> list[str]:
    return sorted(path.stem for path in TABLES.glob("*.yaml"))


def decode(tagged: Mapping[str, Any]) -> object:
    ((kind, raw),) = tagged.items()
    if kind == "null":
        return None
    if kind in ("bool", "string"):
        return raw
    if kind == "int":
        return int(raw)
    if kind == "uint":
        return UInt(int(raw))
    if kind == "double":
        return float(raw) if not isinstance(raw, str) else float(raw.replace("Infinity", "inf"))
    if kind == "bytes":
        return bytes.fromhex(raw)
    if kind == "list":
        return [decode(item) for item in raw]
    if kind == "map":
        return {decode(key): decode(value) for key, value in raw}
    if kind == "type":
        return CelType(raw)
    if kind == "timestamp":
        return Timestamp(raw[0] * 1_000_000_000 + raw[1])
    if kind == "duration":
        return Duration(raw[0] * 1_000_000_000 + raw[1])
    raise ValueError(f"unsupported value kind {kind}")


def same_value(expected: object, actual: object) -> bool:
    if type_name(expected) != type_name(actual):
        return False
    if isinstance(expected, float) and isinstance(actual, float):
        return (math.isnan(expected) and math.isnan(actual)) or expected == actual
    if isinstance(expected, list) and isinstance(actual, (list, tuple)):
        return len(expected) == len(actual) and all(
            same_value(e, a) for e, a in zip(expected, actual, strict=True)
        )
    if isinstance(expected, dict) and isinstance(actual, dict):
        if len(expected) != len(actual):
            return False
        for key, value in expected.items():
            match = [k for k in actual if same_value(k, key)]
            if len(match) != 1 or not same_value(value, actual[match[0]]):
                return False
        return True
    return expected == actual


# Cases where cel-go, which Kubernetes runs, and the cel-spec tables disagree; this evaluator
# follows cel-go.
CEL_GO = "cel-go (what Kubernetes runs) departs from cel-spec here"
PAST_THE_END = CEL_GO + ": an offset past the end gives -1"
CEL_GO_DEPARTURES = {
    "string_ext/value_errors/indexof_out_of_range": PAST_THE_END,
    "string_ext/value_errors/lastindexof_out_of_range": PAST_THE_END,
    "fields/qualified_identifier_resolution/map_key_float": CEL_GO + ": double map keys work",
    "fields/qualified_identifier_resolution/map_key_null": CEL_GO + ": null map keys work",
    "fields/qualified_identifier_resolution/map_value_repeat_key": CEL_GO
    + ": a repeated key overwrites",
}


# Kubernetes enables ext.Strings at version 2; cel-spec's format cases test the version 4
# formatter (other number handling, lists and maps printed without CEL quoting).
FORMAT_V2 = "Kubernetes runs ext.Strings v2, whose format() differs from the v4 one cel-spec tests"
CEL_GO_DEPARTURES.update(
    dict.fromkeys(
        (
            "string_ext/format/default precision for fixed-point clause with int",
            "string_ext/format/default precision for fixed-point clause with uint",
            "string_ext/format/default precision for scientific notation with int",
            "string_ext/format/default precision for scientific notation with uint",
            "string_ext/format/positive infinity support for scientific notation",
            "string_ext/format/negative infinity support for scientific notation",
            "string_ext/format/NaN support for decimal",
            "string_ext/format/positive infinity support for decimal",
            "string_ext/format/negative infinity support for decimal",
            "string_ext/format/positive infinity support for fixed-point",
            "string_ext/format/negative infinity support for fixed-point",
            "string_ext/format/map support (all key types)",
            "string_ext/format/dyntype NaN/infinity support",
            "string_ext/format/dyntype support for lists",
            "string_ext/format/list support for string",
            "string_ext/format/map support for string",
            "string_ext/format/dyntype support for maps",
        ),
        FORMAT_V2,
    )
)


def unsupported_reason(case: Mapping[str, Any], area: str = "") -> str | None:
    departure = CEL_GO_DEPARTURES.get(f"{area}/{case.get('name')}")
    if departure:
        return departure
    text = yaml.safe_dump(dict(case))
    for marker, reason in UNSUPPORTED.items():
        if marker in text:
            return reason
    if case.get("container"):
        return "expression containers: Kubernetes compiles expressions without a container"
    return None


def run_case(case: Mapping[str, Any], area: str = "") -> Outcome:
    reason = case.get("skip") or unsupported_reason(case, area)
    if reason:
        return Outcome("skip", str(reason))
    expects_error = "error" in case
    try:
        program = compile_expression(
            str(case["expr"]),
            variables=case.get("env") or {},
            type_check=case.get("check", True),
        )
    except CELCompileError as exc:
        if expects_error:
            return Outcome("pass")
        if _MIXED_LITERAL.search(exc.message):
            return Outcome("skip", MIXED_LITERAL_REASON)
        return Outcome("fail", f"compile error: {exc.message.splitlines()[0]}")
    if case.get("check_only"):
        return Outcome("pass")
    bindings = {name: decode(value) for name, value in (case.get("bindings") or {}).items()}
    try:
        actual = program.evaluate(bindings)
    except CELRuntimeError as exc:
        if expects_error:
            return Outcome("pass")
        return Outcome("fail", f"runtime error: {exc.message}")
    except Exception as exc:  # an evaluator bug must show up as a failed case, not abort
        return Outcome("fail", f"internal error: {type(exc).__name__}: {exc}")
    if expects_error:
        return Outcome("fail", f"expected error {case['error']!r}, got {actual!r}")
    expected = decode(case["value"]) if "value" in case else True
    if same_value(expected, actual):
        return Outcome("pass")
    return Outcome("fail", f"expected {expected!r}, got {actual!r}")


# Passing cases per area must not drop below these (raise them as the evaluator improves).
MINIMUM_PASSED = {
    "basic": 43,
    "bindings_ext": 6,
    "comparisons": 320,
    "conversions": 108,
    "fields": 46,
    "fp_math": 30,
    "integer_math": 64,
    "lists": 39,
    "logic": 30,
    "macros": 39,
    "macros2": 40,
    "namespace": 3,
    "optionals": 55,
    "parse": 193,
    "plumbing": 5,
    "string": 51,
    "string_ext": 194,
    "timestamps": 77,
    "type_deduction": 21,
}


@pytest.mark.parametrize("area", areas())
def test_conformance_area(
    area: str, conformance_results: dict[str, list[tuple[str, str, str]]]
) -> None:
    outcomes = [(str(case["name"]), run_case(case, area)) for case in load_area(area)]
    conformance_results[area] = [(name, o.status, o.detail) for name, o in outcomes]
    passed = sum(1 for _, o in outcomes if o.status == "pass")
    failures = [f"{name}: {o.detail}" for name, o in outcomes if o.status == "fail"]
    assert passed >= MINIMUM_PASSED.get(area, 0), "\n".join(failures)


def test_every_table_case_names_an_expression_and_an_expectation_or_a_skip() -> None:
    for area in areas():
        for case in load_area(area):
            assert case.get("name"), area
            assert "skip" in case or "expr" in case, case["name"]
