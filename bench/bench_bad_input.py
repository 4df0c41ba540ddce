"""The bad-input property run, long: every JSON type in every field, through every kind of write.

Runs the property of ``tests/registry/test_typed_decoding_property.py`` with many examples per
served kind and a seed (random but repeatable), and prints, per kind, how many writes were sent,
how many changed what is stored, how many paths were tried and the writes per second. Any
5xx, unclean rejection or stored object the ``kubernetes`` client cannot read fails the run with
hypothesis' minimal example.

    python bench/bench_bad_input.py [--examples 3000] [--seed 1]
"""

from __future__ import annotations

import argparse
import collections
import os
import sys
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=3000, help="examples per served kind")
    parser.add_argument("--seed", type=int, default=int(time.time()))
    parser.add_argument("--kind", action="append", default=[], help="only these kinds")
    args = parser.parse_args()
    os.environ["FAKEAPI_PROPERTY_EXAMPLES"] = str(args.examples)
    os.environ["FAKEAPI_PROPERTY_SEED"] = str(args.seed)

    from fakeapi.errors import StatusError
    from tests.registry import test_typed_decoding_property as prop

    outcomes: collections.Counter[str] = collections.Counter()
    original = prop.check_one_write

    def counted(cluster: Any, operation: str, path: Any, value: Any) -> None:
        before = cluster.snapshot()
        try:
            original(cluster, operation, path, value)
        except StatusError:  # pragma: no cover - check_one_write catches client errors
            raise
        outcomes["stored" if cluster.snapshot() != before else "not stored"] += 1

    prop.check_one_write = counted
    print(f"seed {args.seed}, {args.examples} examples per kind")
    print(f"{'kind':<48} {'writes':>7} {'changed':>7} {'paths':>6} {'writes/s':>9}")
    total = 0
    started = time.perf_counter()
    for rt in prop.KINDS:
        label = f"{rt.qualified_plural}/{rt.version}"
        if args.kind and rt.kind not in args.kind and rt.plural not in args.kind:
            continue
        outcomes.clear()
        t0 = time.perf_counter()
        prop.test_every_json_type_in_every_field_is_stored_typed_or_rejected_cleanly(rt)
        elapsed = time.perf_counter() - t0
        writes = outcomes["stored"] + outcomes["not stored"]
        total += writes
        print(
            f"{label:<48} {writes:>7} {outcomes['stored']:>7} {len(prop.field_paths(rt)):>6} "
            f"{writes / elapsed:>9.0f}"
        )
    elapsed = time.perf_counter() - started
    print(f"{'all kinds':<48} {total:>7} {'':>7} {'':>6} {total / elapsed:>9.0f}")
    print("no 5xx, every rejection a clean Status, nothing stored by a rejected write")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
