"""The HTTP fuzz campaign, long: ``python bench/bench_http_fuzz.py [--examples 5000] [--seed N]``.

Runs the property of ``tests/server/test_http_fuzz.py`` (every route, verb, content type, hostile
query strings and headers, truncated, oversized and slowly sent bodies; no 5xx, no hang, nothing
changed by a refused request, ``/readyz`` answering after each) with many examples and a seed
(random but repeatable), then prints how many requests were sent per verb and status code and the
requests per second. A failure prints hypothesis' minimal request and exits non-zero.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=int(time.time()))
    args = parser.parse_args()
    os.environ["FAKEAPI_FUZZ_EXAMPLES"] = str(args.examples)
    os.environ["FAKEAPI_FUZZ_SEED"] = str(args.seed)

    from tests.server import test_http_fuzz
    from tests.support.http_fuzz import FuzzServer

    server = FuzzServer()
    print(f"seed {args.seed}, {args.examples} examples", flush=True)
    started = time.perf_counter()
    try:
        test_http_fuzz.test_hostile_requests_are_answered_cleanly_and_change_nothing_when_refused(
            server=server
        )
        failed = False
    except Exception as exc:  # with hypothesis' minimal failing request in its notes
        print("FAILED:", *traceback.format_exception_only(exc), sep="\n")
        print(*getattr(exc, "__notes__", ()), sep="\n")
        print(*server.errors.records[-3:], sep="\n")
        failed = True
    finally:
        elapsed = time.perf_counter() - started
        server.close()
    total = sum(server.counts.values())
    print(f"{'verb status':<24} {'requests':>9}")
    for key, count in sorted(server.counts.items()):
        print(f"{key:<24} {count:>9}")
    print(f"{'total':<24} {total:>9}  ({total / elapsed:.0f} requests/s, {elapsed:.1f}s)")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
