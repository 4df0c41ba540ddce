"""Against a real cluster (``--fakeapi-kubeconfig``) the plugin says what it cannot do: a test
whose marker needs the in-process cluster is skipped naming the option, options that shape an
in-process cluster are a warning, a member of the in-process cluster raises naming itself; the
test's client is scoped to its namespace, and ``load`` is applied there."""

from __future__ import annotations

from pathlib import Path

import pytest

from fakeapi.cluster.report import event_time, format_events

pytest_plugins = ["pytester"]

INI = """
[pytest]
asyncio_mode = strict
asyncio_default_fixture_loop_scope = function
"""

REMOTE_TESTS = '''
import re

import pytest

CONFIG_MAP = "apiVersion: v1\\nkind: ConfigMap\\nmetadata: {name: mine}\\n"


@pytest.mark.fakeapi(clock="fake", nodes=2)
def test_needs_a_fake_clock(fakeapi_cluster):
    raise AssertionError("not run against a real cluster")


@pytest.mark.fakeapi(nodes=2, profiles=["gpu"])
def test_shaping_options_warn(fakeapi_cluster):
    assert fakeapi_cluster.namespace.startswith("fakeapi-test-")


@pytest.mark.asyncio
async def test_an_in_process_member_says_so(fakeapi_cluster):
    with pytest.raises(AttributeError) as failure:
        fakeapi_cluster.kubelets
    assert re.fullmatch(
        r"cluster.kubelets needs the in-process fakeapi cluster \\(the simulated kubelets, "
        r"for fault injection\\); this test runs against http://127.0.0.1:\\d+ "
        r"\\(--fakeapi-kubeconfig\\)", str(failure.value))


@pytest.mark.asyncio
async def test_the_client_is_scoped_to_the_test_namespace(fakeapi_cluster):
    await fakeapi_cluster.apply_yaml(CONFIG_MAP)
    await fakeapi_cluster.create_namespace("elsewhere-" + fakeapi_cluster.namespace[-5:])
    await fakeapi_cluster.client.create(
        "configmaps", namespace="elsewhere-" + fakeapi_cluster.namespace[-5:],
        body={"metadata": {"name": "theirs"}})
    mine = (await fakeapi_cluster.client.list("configmaps")).items
    assert [c["metadata"]["name"] for c in mine] == ["mine"]
    every = (await fakeapi_cluster.client.list("configmaps", namespace="")).items
    assert {"mine", "theirs"} <= {c["metadata"]["name"] for c in every}


@pytest.mark.fakeapi(load=[CONFIG_MAP])
def test_load_is_applied_in_the_test_namespace(fakeapi_cluster):
    [config_map] = fakeapi_cluster.client.list("configmaps").items
    assert config_map["metadata"]["namespace"] == fakeapi_cluster.namespace
'''


def test_against_a_real_cluster_what_cannot_apply_is_said(
    pytester: pytest.Pytester, fakeapi_serve: Path
) -> None:
    pytester.makeini(INI)
    pytester.makepyfile(test_remote=REMOTE_TESTS)
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "-p", "no:randomly", "-rs",
        f"--fakeapi-kubeconfig={fakeapi_serve}")
    result.assert_outcomes(passed=4, skipped=1, warnings=1)
    result.stdout.fnmatch_lines([
        "SKIPPED * needs the in-process fakeapi cluster: option(s) clock (--fakeapi-kubeconfig "
        f"runs the tests against {fakeapi_serve})",
    ])
    result.stdout.fnmatch_lines([
        "*RemoteOptionWarning: option(s) nodes, profiles do not apply with "
        "--fakeapi-kubeconfig*",
    ])


@pytest.mark.parametrize(
    "times",
    [
        ("2026-01-01T00:00:05.500000Z", "2026-01-01T00:00:05Z"),
        ("2026-01-01T00:00:10Z", "2026-01-01T00:00:09.999999Z"),
        ("2026-01-01T00:30:00-01:00", "2026-01-01T01:00:00Z"),
    ],
)
def test_events_are_ordered_by_time_not_by_their_text(times: tuple[str, str]) -> None:
    later, earlier = times
    events = [{"reason": "Later", "lastTimestamp": later},
              {"reason": "Earlier", "lastTimestamp": earlier}]
    ordered = sorted(events, key=event_time)
    assert [e["reason"] for e in ordered] == ["Earlier", "Later"]
    assert "Earlier" in format_events(ordered).splitlines()[0]
