"""The Deployment controller's sizing rules, as plans over ReplicaSets.

Cases from upstream's ``pkg/controller/deployment`` tests: ``TestReconcileNewReplicaSet``
(rolling.go's scale-up of the new ReplicaSet within maxSurge), ``TestScale`` (sync.go's
proportional scaling, "proportional scaling: 5 -> 10" ...) and the rolling scale-down of old
ReplicaSets within maxUnavailable (unhealthy pods first).
"""

from __future__ import annotations

from typing import Any

import pytest

from fakeapi.controllers.deployment_rollout import (
    new_replica_set_size,
    plan_old_scale_down,
    plan_proportional_scale,
)


def _deployment(replicas: int, *, surge: int | str = 0, unavailable: int | str = 0,
                 status_replicas: int = 0) -> dict[str, Any]:
    return {
        "metadata": {"name": "foo", "generation": 1},
        "spec": {"replicas": replicas, "strategy": {"type": "RollingUpdate", "rollingUpdate": {
            "maxSurge": surge, "maxUnavailable": unavailable}}},
        "status": {"replicas": status_replicas},
    }


def _rs(name: str, replicas: int, *, available: int | None = None, created: str = "",
        max_replicas: int | None = None) -> dict[str, Any]:
    annotations = {}
    if max_replicas is not None:
        annotations["deployment.kubernetes.io/max-replicas"] = str(max_replicas)
    return {
        "metadata": {"name": name, "creationTimestamp": created or "2026-01-01T00:00:00Z",
                     "annotations": annotations},
        "spec": {"replicas": replicas},
        "status": {"replicas": replicas,
                   "availableReplicas": replicas if available is None else available},
    }


# (desired, maxSurge, old replicas, new replicas, new size)
NEW_RS = [
    (10, 0, 10, 0, 0),   # no room: not scaled up
    (10, 2, 10, 0, 2),
    (10, 2, 5, 0, 7),    # scaled up to what is left below desired + surge
    (10, 2, 10, 2, 2),   # at desired + surge already
    (10, "20%", 10, 0, 2),
]


@pytest.mark.parametrize(("desired", "surge", "old", "new", "expected"), NEW_RS)
def test_the_new_replica_set_grows_within_max_surge(
    desired: int, surge: int | str, old: int, new: int, expected: int
) -> None:
    deployment = _deployment(desired, surge=surge, unavailable=1)
    new_rs = _rs("foo-v2", new)
    assert new_replica_set_size(deployment, [_rs("foo-v1", old), new_rs], new_rs) == expected


OLD, NEW = "2026-01-01T00:00:00Z", "2026-01-01T00:01:00Z"

# (name, new desired, old desired, new RS, old RSs, expected sizes)
PROPORTIONAL = [
    ("5 -> 10", 10, 5, _rs("foo-v2", 2, created=NEW), [_rs("foo-v1", 3, created=OLD)],
     {"foo-v2": 4, "foo-v1": 6}),
    ("5 -> 3", 3, 5, _rs("foo-v2", 2, created=NEW), [_rs("foo-v1", 3, created=OLD)],
     {"foo-v2": 1, "foo-v1": 2}),
    ("9 -> 4", 4, 9, _rs("foo-v2", 8, created=NEW), [_rs("foo-v1", 1, created=OLD)],
     {"foo-v2": 4, "foo-v1": 0}),
    ("7 -> 10", 10, 7, _rs("foo-v3", 2, created=NEW),
     [_rs("foo-v2", 3, created="2026-01-01T00:00:30Z"), _rs("foo-v1", 2, created=OLD)],
     {"foo-v3": 3, "foo-v2": 4, "foo-v1": 3}),
    ("13 -> 8", 8, 13, _rs("foo-v3", 2, created=NEW),
     [_rs("foo-v2", 8, created="2026-01-01T00:00:30Z"), _rs("foo-v1", 3, created=OLD)],
     {"foo-v3": 1, "foo-v2": 5, "foo-v1": 2}),
]


@pytest.mark.parametrize(("name", "desired", "before", "new_rs", "old_sets", "expected"),
                         PROPORTIONAL, ids=[case[0] for case in PROPORTIONAL])
def test_scaling_spreads_the_change_in_proportion(
    name: str, desired: int, before: int, new_rs: dict[str, Any],
    old_sets: list[dict[str, Any]], expected: dict[str, int],
) -> None:
    for rs in (new_rs, *old_sets):
        rs["metadata"]["annotations"]["deployment.kubernetes.io/max-replicas"] = str(before)
    plan, _ = plan_proportional_scale(_deployment(desired), new_rs, old_sets)
    sizes = {rs["metadata"]["name"]: rs["spec"]["replicas"] for rs in (new_rs, *old_sets)}
    sizes.update(dict(plan))
    assert sizes == expected


def test_a_single_active_replica_set_takes_the_whole_count() -> None:
    plan, operation = plan_proportional_scale(_deployment(12), _rs("foo-v1", 10), [])
    assert (plan, operation) == ([("foo-v1", 12)], "up")


# (description, desired, maxUnavailable, old RS, new RS, expected plan)
OLD_DOWN = [
    ("available old pods go down to desired - maxUnavailable", 10, 2,
     _rs("foo-v1", 10), _rs("foo-v2", 0), [("foo-v1", 8)]),
    ("unhealthy old pods go first, then available ones", 10, 3,
     _rs("foo-v1", 10, available=9), _rs("foo-v2", 0), [("foo-v1", 9), ("foo-v1", 7)]),
    ("unhealthy old pods go, but never below the floor", 10, 2,
     _rs("foo-v1", 10, available=7), _rs("foo-v2", 0), [("foo-v1", 8)]),
    ("the new ReplicaSet's unavailable pods leave no room", 10, 2,
     _rs("foo-v1", 8), _rs("foo-v2", 2, available=0), []),
    ("available new pods let old ones go", 10, 2,
     _rs("foo-v1", 8), _rs("foo-v2", 2), [("foo-v1", 6)]),
]


@pytest.mark.parametrize(("description", "desired", "unavailable", "old", "new", "expected"),
                         OLD_DOWN, ids=[case[0] for case in OLD_DOWN])
def test_old_replica_sets_shrink_within_max_unavailable(
    description: str, desired: int, unavailable: int, old: dict[str, Any], new: dict[str, Any],
    expected: list[tuple[str, int]],
) -> None:
    deployment = _deployment(desired, surge=0, unavailable=unavailable)
    plan = plan_old_scale_down(deployment, all_sets=[old, new], old_sets=[old], new_rs=new)
    assert plan == expected
