"""Turn cel-spec's conformance test files into the project's own CEL test tables.

Usage::

    python bench/cel_conformance_import.py /path/to/cel-spec [--out tests/cel/conformance]

``/path/to/cel-spec`` is a checkout (or a bare mirror: files are then read with ``git show``) of
github.com/google/cel-spec; the tests live in ``tests/simple/testdata/<area>.textproto``. Each
area becomes ``<out>/<area>.yaml``, a list of cases in a compact notation (see
``tests/cel/conformance_cases.py`` for how the tests read it)::

    - name: section/test
      expr: "1 + 1"
      value: {int: 2}                  # or  error: "<expected message>"  (absent: true)
      env: {x: "map(string, int)"}     # declared variables, cel-go type spelling
      bindings: {x: {map: [[{string: a}, {int: 1}]]}}
      check: false                     # the case disables the type checker
      skip: "<reason>"                 # decided here, kept in the table so it is reported

Only facts (expressions, values, names) are carried over. The tables are committed; tests never
need the network. The reader below understands the subset of the protobuf text format those
files use; there is no protobuf dependency.
"""

from __future__ import annotations

import argparse
import math
import pathlib
import re
import subprocess
import sys
from typing import Any

import yaml

AREAS = (
    "basic",
    "comparisons",
    "conversions",
    "fields",
    "lists",
    "logic",
    "macros",
    "macros2",
    "math_ext",
    "string",
    "string_ext",
    "optionals",
    "parse",
    "plumbing",
    "integer_math",
    "fp_math",
    "timestamps",
    "bindings_ext",
    "namespace",
    "network_ext",
    "type_deduction",
    "dynamic",
    "wrappers",
    "encoders_ext",
    "block_ext",
    "enums",
    "proto2",
    "proto3",
    "proto2_ext",
)

# Libraries the Kubernetes base environment (k8s.io/apiserver/pkg/cel/environment/base.go)
# does not enable, and protobuf features no Kubernetes CEL environment declares.
AREA_SKIPS = {
    "math_ext": "ext.Math is not part of the Kubernetes base environment",
    "encoders_ext": "ext.Encoders is not part of the Kubernetes base environment",
    "block_ext": "cel.block is not part of the Kubernetes base environment",
    "network_ext": "cel-go's ext.Network; Kubernetes ships its own ip/cidr library instead",
    "proto2": "protobuf messages: no Kubernetes CEL environment declares protobuf types",
    "proto3": "protobuf messages: no Kubernetes CEL environment declares protobuf types",
    "proto2_ext": "protobuf extensions: no Kubernetes CEL environment declares protobuf types",
    "enums": "protobuf enums: no Kubernetes CEL environment declares protobuf types",
    "wrappers": "protobuf wrapper types: no Kubernetes CEL environment declares them",
    "unknowns": "partial evaluation with unknowns is not used by Kubernetes",
    "dynamic": "protobuf well-known types (Any, Struct, Value): not declared in Kubernetes",
}

PROTO_MARKERS = re.compile(
    r"google\.protobuf\.(?!Timestamp\b|Duration\b)|cel\.expr\.conformance|TestAllTypes|"
    r"NestedTestAllTypes|google\.api\.expr|GlobalEnum|TestRequired"
)
PROTO_REASON = "protobuf messages: no Kubernetes CEL environment declares protobuf types"


# -- a small protobuf text-format reader -----------------------------------------------------
_TOKEN = re.compile(
    r"""\s+|\#[^\n]*|
    (?P<str>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')|
    (?P<ext>\[[A-Za-z0-9_./]+\])|
    (?P<num>-?(?:inf(?:inity)?|nan|0x[0-9a-fA-F]+|[0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)[fFuU]?)|
    (?P<id>[A-Za-z_][A-Za-z0-9_.]*)|
    (?P<punct>[{}<>:\[\],;])""",
    re.X | re.I,
)

_ESCAPE = re.compile(r"\\([0-7]{1,3}|x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)", re.S)
_SIMPLE = {"n": 10, "t": 9, "r": 13, "a": 7, "b": 8, "f": 12, "v": 11, "?": 63}


def _unquote(text: str) -> bytes:
    """A text-format string literal's bytes (C escapes; octal/hex are raw bytes)."""
    body = text[1:-1]
    out = bytearray()
    pos = 0
    for match in _ESCAPE.finditer(body):
        out.extend(body[pos : match.start()].encode())
        esc = match.group(1)
        if esc[0] in "01234567":
            out.append(int(esc, 8) & 0xFF)
        elif esc[0] == "x":
            out.append(int(esc[1:], 16))
        elif esc[0] in "uU" and len(esc) > 1:
            out.extend(chr(int(esc[1:], 16)).encode())
        else:
            out.append(_SIMPLE.get(esc, ord(esc)))
        pos = match.end()
    out.extend(body[pos:].encode())
    return bytes(out)


class _Reader:
    def __init__(self, text: str) -> None:
        self.tokens: list[tuple[str, str]] = []
        for match in _TOKEN.finditer(text):
            kind = match.lastgroup
            if kind is not None:
                self.tokens.append((kind, match.group(kind)))
        self.pos = 0

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self) -> tuple[str, str]:
        token = self.tokens[self.pos]
        self.pos += 1
        return token

    def message(self, close: str | None) -> dict[str, list[Any]]:
        fields: dict[str, list[Any]] = {}
        while True:
            token = self.peek()
            if token is None or token[1] == close:
                if token is not None:
                    self.take()
                return fields
            kind, name = self.take()
            if kind == "punct" and name in ",;":
                continue
            if self.peek() == ("punct", ":"):
                self.take()
            fields.setdefault(name, []).extend(self.value())

    def value(self) -> list[Any]:
        kind, text = self.take()
        if text in ("{", "<"):
            return [self.message("}" if text == "{" else ">")]
        if text == "[":
            items: list[Any] = []
            while self.peek() != ("punct", "]"):
                if self.peek() == ("punct", ","):
                    self.take()
                    continue
                items.extend(self.value())
            self.take()
            return items
        if kind == "str":
            data = _unquote(text)
            while self.peek() is not None and self.peek()[0] == "str":  # type: ignore[index]
                data += _unquote(self.take()[1])
            return [data]
        if kind == "num":
            return [_number(text)]
        return [text]  # identifiers and enum names


def _number(text: str) -> int | float:
    lowered = text.lower()
    if "inf" in lowered:
        return -math.inf if lowered.startswith("-") else math.inf
    if "nan" in lowered:
        return math.nan
    if not lowered.startswith(("0x", "-0x")):
        lowered = lowered.rstrip("fu")
    if lowered.startswith(("0x", "-0x")):
        return int(lowered, 16)
    if re.fullmatch(r"-?[0-9]+", lowered):
        return int(lowered)
    return float(lowered)


def parse_textproto(text: str) -> dict[str, list[Any]]:
    return _Reader(text).message(None)


# -- conversion to the compact notation ------------------------------------------------------
class UnsupportedError(Exception):
    """A value or type the Kubernetes environment cannot express (protobuf messages)."""


def _one(fields: dict[str, list[Any]], name: str, default: Any = None) -> Any:
    values = fields.get(name)
    return values[-1] if values else default


def _text(data: Any) -> str:
    return data.decode() if isinstance(data, bytes) else str(data)


def convert_value(value: dict[str, list[Any]]) -> Any:
    if "null_value" in value:
        return {"null": None}
    if "bool_value" in value:
        return {"bool": _one(value, "bool_value") == "true"}
    if "int64_value" in value:
        return {"int": int(_one(value, "int64_value"))}
    if "uint64_value" in value:
        return {"uint": int(_one(value, "uint64_value"))}
    if "double_value" in value:
        number = float(_one(value, "double_value"))
        if math.isnan(number):
            return {"double": "NaN"}
        if math.isinf(number):
            return {"double": "Infinity" if number > 0 else "-Infinity"}
        return {"double": number}
    if "string_value" in value:
        return {"string": _text(_one(value, "string_value"))}
    if "bytes_value" in value:
        return {"bytes": bytes(_one(value, "bytes_value")).hex()}
    if "list_value" in value:
        items = _one(value, "list_value") or {}
        return {"list": [convert_value(v) for v in items.get("values", [])]}
    if "map_value" in value:
        entries = (_one(value, "map_value") or {}).get("entries", [])
        return {
            "map": [
                [convert_value(_one(e, "key")), convert_value(_one(e, "value"))] for e in entries
            ]
        }
    if "type_value" in value:
        return {"type": _text(_one(value, "type_value"))}
    if "object_value" in value:
        return _object(_one(value, "object_value"))
    if not value:
        raise UnsupportedError("empty value")
    raise UnsupportedError(f"value kind {sorted(value)}")


def _object(obj: dict[str, list[Any]]) -> Any:
    for name, payloads in obj.items():
        payload = payloads[-1]
        if name.endswith("google.protobuf.Duration]"):
            seconds = int(_one(payload, "seconds", 0))
            nanos = int(_one(payload, "nanos", 0))
            return {"duration": [seconds, nanos]}
        if name.endswith("google.protobuf.Timestamp]"):
            seconds = int(_one(payload, "seconds", 0))
            nanos = int(_one(payload, "nanos", 0))
            return {"timestamp": [seconds, nanos]}
    raise UnsupportedError("protobuf message value")


_PRIMITIVES = {
    "BOOL": "bool",
    "INT64": "int",
    "UINT64": "uint",
    "DOUBLE": "double",
    "STRING": "string",
    "BYTES": "bytes",
}


def convert_type(t: dict[str, list[Any]]) -> str:
    if "primitive" in t:
        return _PRIMITIVES[_one(t, "primitive")]
    if "dyn" in t:
        return "dyn"
    if "null" in t:
        return "null"
    if "list_type" in t:
        return f"list({convert_type(_one(_one(t, 'list_type'), 'elem_type'))})"
    if "map_type" in t:
        m = _one(t, "map_type")
        return f"map({convert_type(_one(m, 'key_type'))}, {convert_type(_one(m, 'value_type'))})"
    if "well_known" in t:
        known = _one(t, "well_known")
        if known in ("TIMESTAMP", "DURATION"):
            return "google.protobuf." + known.title()
        raise UnsupportedError(f"well-known type {known}")
    if "abstract_type" in t:
        a = _one(t, "abstract_type")
        params = ", ".join(convert_type(p) for p in a.get("parameter_types", []))
        return f"{_text(_one(a, 'name'))}({params})"
    if "type" in t:
        return f"type({convert_type(_one(t, 'type'))})"
    raise UnsupportedError(f"type {sorted(t)}")


def convert_case(section: str, test: dict[str, list[Any]], area: str) -> dict[str, Any]:
    name = f"{_text(_one(section, 'name'))}/{_text(_one(test, 'name'))}"  # type: ignore[arg-type]
    if area in AREA_SKIPS:  # the whole library is absent: only the names are kept
        return {"name": name, "skip": AREA_SKIPS[area]}
    case: dict[str, Any] = {"name": name, "expr": _text(_one(test, "expr", b""))}
    try:
        if _one(test, "container"):
            case["container"] = _text(_one(test, "container"))
        env: dict[str, str] = {}
        for decl in test.get("type_env", []):
            ident = _one(decl, "ident")
            if ident is None:
                raise UnsupportedError("function declarations in the test environment")
            env[_text(_one(decl, "name"))] = convert_type(_one(ident, "type"))
        if env:
            case["env"] = env
        bindings = {}
        for binding in test.get("bindings", []):
            inner = _one(binding, "value")
            bindings[_text(_one(binding, "key"))] = convert_value(_one(inner, "value"))
        if bindings:
            case["bindings"] = bindings
        if _one(test, "disable_check") == "true":
            case["check"] = False
        if _one(test, "check_only") == "true":
            case["check_only"] = True
            if "typed_result" in test:
                deduced = _one(_one(test, "typed_result"), "deduced_type")
                case["type"] = convert_type(deduced)
        if "value" in test:
            case["value"] = convert_value(_one(test, "value"))
        elif "eval_error" in test:
            errors = _one(_one(test, "eval_error"), "errors") or {}
            case["error"] = _text(_one(errors, "message", b""))
        elif "any_eval_errors" in test:
            case["error"] = ""
        elif "typed_result" in test and not case.get("check_only"):
            typed = _one(test, "typed_result")
            case["value"] = convert_value(_one(typed, "result"))
            case["type"] = convert_type(_one(typed, "deduced_type"))
        elif "unknown" in test or "any_unknowns" in test:
            raise UnsupportedError("unknown results")
    except UnsupportedError as exc:
        case["skip"] = PROTO_REASON if "protobuf" in str(exc) or "message" in str(exc) else str(exc)
    if "skip" not in case:
        if PROTO_MARKERS.search(case["expr"] + " " + case.get("container", "")):
            case["skip"] = PROTO_REASON
        elif _one(test, "disable_macros") == "true":
            case["skip"] = "parser without macros: Kubernetes always enables them"
    return case


def _read(source: pathlib.Path, area: str) -> str | None:
    relative = f"tests/simple/testdata/{area}.textproto"
    if (source / relative).exists():
        return (source / relative).read_text()
    try:
        return subprocess.run(
            ["git", "--git-dir", str(source), "show", f"HEAD:{relative}"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    except subprocess.CalledProcessError:
        return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("cel_spec", type=pathlib.Path, help="cel-spec checkout or git directory")
    parser.add_argument("--out", type=pathlib.Path, default=pathlib.Path("tests/cel/conformance"))
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for area in AREAS:
        text = _read(args.cel_spec, area)
        if text is None:
            print(f"{area}: not found, skipped", file=sys.stderr)
            continue
        parsed = parse_textproto(text)
        cases = [
            convert_case(section, test, area)
            for section in parsed.get("section", [])
            for test in section.get("test", [])
        ]
        header = (
            f"# CEL conformance cases for '{area}', converted from google/cel-spec\n"
            f"# tests/simple/testdata/{area}.textproto by bench/cel_conformance_import.py.\n"
            "# Regenerate instead of editing; see docs/cel.md.\n"
        )
        body = yaml.safe_dump(cases, sort_keys=False, allow_unicode=True, width=100)
        (args.out / f"{area}.yaml").write_text(header + body)
        skipped = sum(1 for c in cases if "skip" in c)
        print(f"{area}: {len(cases)} cases ({skipped} skipped)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
