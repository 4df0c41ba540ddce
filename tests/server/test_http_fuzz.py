"""The HTTP fuzz campaign, short and seeded: hostile requests never get a 5xx, never hang, never
change anything when refused, and never stop the server (see ``tests/support/http_fuzz.py``;
``bench/bench_http_fuzz.py`` runs it long)."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, seed, settings

from ..support.http_fuzz import FuzzRequest, FuzzServer, check, fuzz_requests

EXAMPLES = int(os.environ.get("FAKEAPI_FUZZ_EXAMPLES", "150"))


@pytest.fixture(scope="module")
def server() -> Iterator[FuzzServer]:
    fuzz = FuzzServer()
    yield fuzz
    fuzz.close()


@seed(int(os.environ.get("FAKEAPI_FUZZ_SEED", "33")))
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                           HealthCheck.data_too_large],
)
@given(request=fuzz_requests())
def test_hostile_requests_are_answered_cleanly_and_change_nothing_when_refused(
    server: FuzzServer, request: FuzzRequest
) -> None:
    check(server, request)


# --- what the campaign found, kept as plain regression tests ----------------------------------


def test_a_field_name_with_control_characters_is_warned_about_on_one_header_line(
    server: FuzzServer,
) -> None:
    body = b'{"metadata": {"name": "newline"}, "data": {"a": "b"}, "x\\ny\\u001bz": 1}'
    response = server.client.post(
        "/api/v1/namespaces/default/configmaps",
        content=body,
        headers={"Content-Type": "application/json"},
    )
    assert response.status_code == 201, response.text
    assert response.headers["Warning"] == '299 - "unknown field \\"x y z\\""'


@pytest.mark.parametrize(
    ("resource_version", "code"),
    [("18446744073709551615", 504), ("18446744073709551616", 400)],  # uint64's last, and past
)
def test_a_read_version_past_64_bits_is_invalid_not_yet_to_come(
    server: FuzzServer, resource_version: str, code: int
) -> None:
    response = server.client.get(
        "/api/v1/configmaps", params={"resourceVersion": resource_version}
    )
    assert response.status_code == code
    if code == 400:
        assert response.json()["message"] == f"invalid resource version: '{resource_version}'"


@pytest.mark.parametrize("method", ["DELETE", "POST", "PUT", "PATCH"])
def test_a_watch_path_serves_only_get(server: FuzzServer, method: str) -> None:
    before = server.resource_version()
    response = server.client.request(
        method, "/apis/scheduling.k8s.io/v1/watch/priorityclasses", content=b"{}"
    )
    assert response.status_code == 405, response.text  # not a collection delete or a create
    assert response.json()["reason"] == "MethodNotAllowed"
    assert server.resource_version() == before
