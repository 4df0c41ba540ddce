"""Property: any JSON value in any field, through any write, is stored typed or rejected cleanly.

For every served kind, hypothesis picks a field path — one of the sample object's own paths or a
path the kind's schema declares (a few levels deep, list items at index 0, metadata and
spec/status alike) — and a JSON value of any type (null, bool, int, float, string, list, object,
an unparsable or an offset timestamp, or a plain value of the field's own type), puts it there,
and sends the object through one kind of write: create, update, status update, JSON patch, merge
patch, strategic merge patch or server-side apply. Whatever happens:

* never a server error: the write succeeds or raises a ``StatusError`` whose code is a client
  error, rendered as a ``kind: Status`` body;
* a decoding failure answers as upstream does: 400 ``... cannot be handled as a <Kind>: ...`` for
  create and update, 422 on the field ``patch`` for the three patch types, 400
  ``failed to create typed patch object`` for apply;
* a rejected write stores nothing (the global resourceVersion and every stored byte unchanged);
* whatever is stored reads back through the ``kubernetes`` client's typed models. The Python
  client has no model for ``scheduling.k8s.io/v1alpha1`` Workload and PodGroup (it ships other
  versions) nor for the seed KEP's ``resource.k8s.io/v1beta2`` ResourcePool kind; for those the
  read-back is skipped, everything else is still checked.

Runs are derandomized and bounded for CI (about 30 examples per kind). ``FAKEAPI_PROPERTY_EXAMPLES``
raises the number of examples per kind and ``FAKEAPI_PROPERTY_SEED`` makes a run random but
repeatable; ``bench/bench_bad_input.py`` runs it long and prints what happened.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import itertools
import os
from collections.abc import Iterator
from typing import Any

import kubernetes.client
import orjson
import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from fakeapi.bootstrap import new_registry
from fakeapi.clock import FakeClock
from fakeapi.errors import StatusError
from fakeapi.registry.options import DeleteOptions, WriteOptions
from fakeapi.resources import ResourceType, default_resources
from fakeapi.schema import SchemaNode
from fakeapi.server.patching import apply_patch_request
from fakeapi.server.routing import Target

from ..support.samples import SAMPLE_FIELD_MANAGERS, sample

KINDS = list(default_resources())
STORED = [rt for rt in KINDS if not rt.strategy.create_only]
REVIEWS = [rt for rt in KINDS if rt.strategy.create_only]
NS = "default"
EXAMPLES = int(os.environ.get("FAKEAPI_PROPERTY_EXAMPLES", "30"))
#: a seed for a random (not derandomized) run; unset, every run tries the same examples
SEED = os.environ.get("FAKEAPI_PROPERTY_SEED")
SCHEMA_DEPTH = int(os.environ.get("FAKEAPI_PROPERTY_DEPTH", "8"))
CLIENT_ERRORS = {400, 403, 404, 409, 413, 415, 422}
OPERATIONS = ("create", "update", "status", "json-patch", "merge-patch", "strategic", "apply")

#: (apiVersion, kind) -> the kubernetes client model; None: the client has no model for it
CLIENT_MODELS: dict[tuple[str, str], str | None] = {
    ("v1", "Namespace"): "V1Namespace",
    ("v1", "Node"): "V1Node",
    ("v1", "Pod"): "V1Pod",
    ("v1", "Event"): "CoreV1Event",
    ("v1", "ConfigMap"): "V1ConfigMap",
    ("v1", "Service"): "V1Service",
    ("v1", "ServiceAccount"): "V1ServiceAccount",
    ("v1", "Secret"): "V1Secret",
    ("v1", "ReplicationController"): "V1ReplicationController",
    ("apps/v1", "Deployment"): "V1Deployment",
    ("apps/v1", "ReplicaSet"): "V1ReplicaSet",
    ("apps/v1", "StatefulSet"): "V1StatefulSet",
    ("apps/v1", "DaemonSet"): "V1DaemonSet",
    ("apps/v1", "ControllerRevision"): "V1ControllerRevision",
    ("batch/v1", "Job"): "V1Job",
    ("batch/v1", "CronJob"): "V1CronJob",
    ("policy/v1", "PodDisruptionBudget"): "V1PodDisruptionBudget",
    ("rbac.authorization.k8s.io/v1", "Role"): "V1Role",
    ("rbac.authorization.k8s.io/v1", "ClusterRole"): "V1ClusterRole",
    ("rbac.authorization.k8s.io/v1", "RoleBinding"): "V1RoleBinding",
    ("rbac.authorization.k8s.io/v1", "ClusterRoleBinding"): "V1ClusterRoleBinding",
    ("apiextensions.k8s.io/v1", "CustomResourceDefinition"): "V1CustomResourceDefinition",
    ("events.k8s.io/v1", "Event"): "EventsV1Event",
    ("coordination.k8s.io/v1", "Lease"): "V1Lease",
    ("resource.k8s.io/v1", "DeviceClass"): "V1DeviceClass",
    ("resource.k8s.io/v1", "ResourceClaim"): "ResourceV1ResourceClaim",
    ("resource.k8s.io/v1", "ResourceClaimTemplate"): "V1ResourceClaimTemplate",
    ("resource.k8s.io/v1", "ResourceSlice"): "V1ResourceSlice",
    ("resource.k8s.io/v1", "DeviceTaintRule"): "V1DeviceTaintRule",
    ("resource.k8s.io/v1beta2", "DeviceTaintRule"): "V1beta2DeviceTaintRule",
    ("resource.k8s.io/v1beta2", "DeviceClass"): "V1beta2DeviceClass",
    ("resource.k8s.io/v1beta2", "ResourceClaim"): "V1beta2ResourceClaim",
    ("resource.k8s.io/v1beta2", "ResourceClaimTemplate"): "V1beta2ResourceClaimTemplate",
    ("resource.k8s.io/v1beta2", "ResourceSlice"): "V1beta2ResourceSlice",
    ("resource.k8s.io/v1beta1", "DeviceClass"): "V1beta1DeviceClass",
    ("resource.k8s.io/v1beta1", "ResourceClaim"): "V1beta1ResourceClaim",
    ("resource.k8s.io/v1beta1", "ResourceClaimTemplate"): "V1beta1ResourceClaimTemplate",
    ("resource.k8s.io/v1beta1", "ResourceSlice"): "V1beta1ResourceSlice",
    ("resource.k8s.io/v1alpha3", "ResourcePoolStatusRequest"): "V1alpha3ResourcePoolStatusRequest",
    ("resource.k8s.io/v1beta2", "ResourcePool"): None,  # the client's V1beta2ResourcePool is
    # the slice's pool struct, not this kind
    ("scheduling.k8s.io/v1", "PriorityClass"): "V1PriorityClass",
    ("scheduling.k8s.io/v1alpha1", "Workload"): None,  # the client ships v1alpha3 and v1beta1
    ("scheduling.k8s.io/v1alpha1", "PodGroup"): None,
    ("scheduling.k8s.io/v1beta1", "Workload"): "V1beta1Workload",
    ("scheduling.k8s.io/v1beta1", "PodGroup"): "V1beta1PodGroup",
    ("scheduling.k8s.io/v1alpha3", "Workload"): "V1alpha3Workload",
    ("scheduling.k8s.io/v1alpha3", "PodGroup"): "V1alpha3PodGroup",
    ("scheduling.k8s.io/v1alpha3", "CompositePodGroup"): "V1alpha3CompositePodGroup",
    ("authentication.k8s.io/v1", "SelfSubjectReview"): "V1SelfSubjectReview",
    ("authorization.k8s.io/v1", "SelfSubjectAccessReview"): "V1SelfSubjectAccessReview",
    ("authorization.k8s.io/v1", "SelfSubjectRulesReview"): "V1SelfSubjectRulesReview",
    ("authorization.k8s.io/v1", "SubjectAccessReview"): "V1SubjectAccessReview",
    ("authorization.k8s.io/v1", "LocalSubjectAccessReview"): "V1LocalSubjectAccessReview",
}

Path = tuple[str | int, ...]

JSON_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**40), max_value=2**40),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.sampled_from(
        ["", "x", "yesterday", "2026-01-01T03:00:00.5+03:00", "2026-01-01T00:00:00.000000Z", "1Gi"]
    ),
    st.lists(st.one_of(st.none(), st.integers(-3, 3), st.text(max_size=3)), max_size=2),
    st.dictionaries(st.sampled_from(["a", "name"]), st.integers(-3, 3), max_size=2),
)


#: drawn as a value: stands for a value of the field's own type (so that writes also succeed)
TYPED = "<a value of the field's own type>"


def node_at(root: SchemaNode, path: Path) -> SchemaNode | None:
    node: SchemaNode | None = root
    for part in path:
        if node is None:
            return None
        node = node.item if node.kind in ("array", "map") else node.properties.get(str(part))
    return node


def typed_value(node: SchemaNode | None) -> Any:
    """A plain valid-looking value of the node's type."""
    if node is None or node.kind in ("object", "map", "any"):
        return {}
    if node.kind == "array":
        return []
    if node.format == "quantity":
        return "1"
    if node.format == "date-time":
        return "2026-01-01T00:00:00.000000Z" if node.micro_time else "2026-01-01T00:00:00Z"
    return {"integer": 1, "number": 1.5, "boolean": True}.get(node.scalar_type, "a")


def _sample_paths(value: Any, path: Path = ()) -> Iterator[Path]:
    if path:
        yield path
    if isinstance(value, dict):
        for key, sub in value.items():
            yield from _sample_paths(sub, (*path, key))
    elif isinstance(value, list):
        for i, sub in enumerate(value):
            yield from _sample_paths(sub, (*path, i))


def _schema_paths(node: SchemaNode, path: Path, depth: int) -> Iterator[Path]:
    if depth == 0:
        return
    if node.kind == "object":
        for key, child in node.properties.items():
            yield (*path, key)
            yield from _schema_paths(child, (*path, key), depth - 1)
    elif node.kind == "array" and node.item is not None:
        yield (*path, 0)
        yield from _schema_paths(node.item, (*path, 0), depth - 1)
    elif node.kind == "map" and node.item is not None:
        yield (*path, "example")
        yield from _schema_paths(node.item, (*path, "example"), depth - 1)


@functools.cache
def field_paths(rt: ResourceType, depth: int = SCHEMA_DEPTH) -> tuple[Path, ...]:
    """Every path of the sample plus the schema's paths, without duplicates, in a stable order."""
    base = sample(rt.api_version, rt.kind)
    paths = dict.fromkeys(_sample_paths(base))
    paths.update(dict.fromkeys(_schema_paths(rt.schema, (), depth)))
    return tuple(p for p in paths if p not in (("metadata", "name"), ("metadata", "namespace")))


def put(obj: Any, path: Path, value: Any) -> Any:
    """A copy of ``obj`` with ``value`` at ``path``; missing containers are created."""
    out = copy.deepcopy(obj)
    target = out
    for part, following in itertools.pairwise(path):
        container: Any = [] if isinstance(following, int) else {}
        if isinstance(part, int):
            while len(target) <= part:
                target.append({} if not isinstance(following, int) else [])
            if not isinstance(target[part], type(container)):
                target[part] = container
        elif not isinstance(target.get(part), type(container)):
            target[part] = container
        target = target[part]
    last = path[-1]
    if isinstance(last, int):
        while len(target) <= last:
            target.append(None)
    target[last] = value
    return out


class Cluster:
    """One registry per kind, shared by that kind's examples, with the sample object stored."""

    def __init__(self, rt: ResourceType) -> None:
        self.rt = rt
        self.registry = new_registry(clock=FakeClock())
        self.ns = NS if rt.namespaced else None
        self.base = sample(rt.api_version, rt.kind)
        stored = self.registry.create(rt, self.ns, copy.deepcopy(self.base), self.options())
        self.name: str = stored.obj["metadata"]["name"]
        self.created = 0

    def options(self, **kw: Any) -> WriteOptions:
        manager = SAMPLE_FIELD_MANAGERS.get((self.rt.api_version, self.rt.kind), "property")
        return WriteOptions(field_manager=manager, **kw)

    def snapshot(self) -> tuple[int, list[bytes]]:
        table = self.rt.store(self.registry.storage)
        return self.registry.resource_version, [s.raw for s in table.scan("", None, None)]

    def current(self) -> dict[str, Any]:
        loaded: dict[str, Any] = orjson.loads(self.registry.get(self.rt, self.ns, self.name).raw)
        return loaded


@functools.cache
def cluster_for(rt: ResourceType) -> Cluster:
    return Cluster(rt)


def read_back(rt: ResourceType, raw: bytes) -> None:
    """Deserialize stored bytes with the kubernetes client's typed model (raises if it cannot)."""
    model = CLIENT_MODELS[(rt.api_version, rt.kind)]
    if model is None:
        return
    client = kubernetes.client.ApiClient()
    client.deserialize(raw.decode(), model, "application/json")


def _write(cluster: Cluster, operation: str, path: Path, value: Any) -> Any:
    """Send one write carrying ``value`` at ``path``; returns the registry's result."""
    rt, registry, ns = cluster.rt, cluster.registry, cluster.ns
    target = Target(rt, ns, cluster.name, "")
    if operation == "create":
        cluster.created += 1
        body = put(cluster.base, path, value)
        _set_meta(body, name=f"made-{cluster.created}")
        return registry.create(rt, ns, body, cluster.options(field_validation="Strict"))
    current = cluster.current()
    mutated = put(current, path, value)
    if operation in ("update", "status"):
        _set_meta(
            mutated, name=cluster.name, resourceVersion=current["metadata"]["resourceVersion"]
        )
        sub = "status" if operation == "status" else ""
        return registry.update(rt, ns, cluster.name, mutated, cluster.options(), subresource=sub)
    top = path[0]
    if operation == "json-patch":
        pointer = "/" + "/".join(str(p).replace("~", "~0").replace("/", "~1") for p in path)
        parent_exists = len(path) == 1 or _exists(current, path[:-1])
        ops = (
            [{"op": "add", "path": pointer, "value": value}]
            if parent_exists
            else [{"op": "add", "path": f"/{top}", "value": mutated[top]}]
        )
        content_type, patch = "application/json-patch+json", ops
    elif operation == "merge-patch":
        content_type, patch = "application/merge-patch+json", {top: mutated[top]}
    elif operation == "strategic":
        content_type, patch = "application/strategic-merge-patch+json", {top: mutated[top]}
    else:
        config = put(cluster.base, path, value)
        _set_meta(config, name=cluster.name, **({"namespace": ns} if ns else {}))
        content_type, patch = "application/apply-patch+yaml", config
    return apply_patch_request(
        registry, target, content_type=content_type, patch=patch, options=cluster.options()
    )


def _set_meta(body: dict[str, Any], **fields: str) -> None:
    """Set metadata fields unless the example replaced metadata by a non-object."""
    meta = body.get("metadata")
    if isinstance(meta, dict):
        meta.update(fields)


def _exists(obj: Any, path: Path) -> bool:
    for part in path:
        if isinstance(part, int):
            if not isinstance(obj, list) or part >= len(obj):
                return False
        elif not isinstance(obj, dict) or part not in obj:
            return False
        obj = obj[part]
    return isinstance(obj, dict | list)


def check_one_write(cluster: Cluster, operation: str, path: Path, value: Any) -> None:
    rt = cluster.rt
    before = cluster.snapshot()
    try:
        result = _write(cluster, operation, path, value)
    except StatusError as exc:
        status = exc.status()
        assert status["kind"] == "Status" and status["code"] == exc.code
        assert exc.code in CLIENT_ERRORS, f"{operation} {path}={value!r}: {exc!r}"
        assert cluster.snapshot() == before, f"{operation} {path}: a rejected write stored"
        decoding = "cannot unmarshal" in exc.message or "parsing time" in exc.message
        if decoding and not exc.message.startswith("couldn't get version/kind"):
            if operation in ("create", "update", "status"):
                assert exc.code == 400, exc
                assert exc.message.startswith(
                    f'{rt.kind} in version "{rt.version}" cannot be handled as a {rt.kind}: '
                ), exc
            elif operation != "apply":
                assert exc.code == 422, exc
                assert exc.message.startswith(' "" is invalid: patch: Invalid value: '), exc
        return
    read_back(rt, result.raw)
    if operation == "create":
        name = result.obj["metadata"]["name"]
        with contextlib.suppress(StatusError):
            cluster.registry.delete(rt, cluster.ns, name, DeleteOptions())
    else:
        read_back(rt, cluster.registry.get(rt, cluster.ns, cluster.name).raw)


@pytest.mark.parametrize("rt", STORED, ids=lambda rt: f"{rt.qualified_plural}-{rt.version}")
def test_every_json_type_in_every_field_is_stored_typed_or_rejected_cleanly(
    rt: ResourceType,
) -> None:
    cluster = cluster_for(rt)
    read_back(rt, cluster.registry.get(rt, cluster.ns, cluster.name).raw)
    operations = [op for op in OPERATIONS if op != "status" or "status" in rt.subresources]

    @settings(
        max_examples=EXAMPLES,
        derandomize=SEED is None,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow],
    )
    @given(
        path=st.sampled_from(field_paths(rt)),
        value=st.one_of(st.just(TYPED), JSON_VALUES),
        operation=st.sampled_from(operations),
    )
    def check(path: Path, value: Any, operation: str) -> None:
        if value == TYPED:
            value = typed_value(node_at(rt.schema, path))
        check_one_write(cluster, operation, path, value)

    if SEED is not None:
        check = seed(int(SEED))(check)
    check()


@pytest.mark.parametrize("rt", REVIEWS, ids=lambda rt: rt.qualified_plural)
def test_every_json_type_in_every_field_of_a_review_is_answered_typed_or_rejected_cleanly(
    rt: ResourceType,
) -> None:
    registry = new_registry(clock=FakeClock())
    ns = NS if rt.namespaced else None
    untouched = registry.resource_version

    @settings(max_examples=EXAMPLES, derandomize=SEED is None, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow])
    @given(path=st.sampled_from(field_paths(rt)), value=st.one_of(st.just(TYPED), JSON_VALUES))
    def check(path: Path, value: Any) -> None:
        if value == TYPED:
            value = typed_value(node_at(rt.schema, path))
        body = put(sample(rt.api_version, rt.kind), path, value)
        try:
            answer = registry.create(rt, ns, body, WriteOptions(field_validation="Strict"))
        except StatusError as exc:
            assert exc.status()["kind"] == "Status"
            assert exc.code in CLIENT_ERRORS, f"{path}={value!r}: {exc!r}"
        else:
            read_back(rt, answer.raw)
        assert registry.resource_version == untouched, "a review stored something"

    check()


def test_the_field_paths_cover_metadata_spec_and_status() -> None:
    pod = next(rt for rt in KINDS if rt.kind == "Pod")
    paths = field_paths(pod)
    tops = {p[0] for p in paths}
    assert {"metadata", "spec", "status"} <= tops
    assert ("metadata", "creationTimestamp") in paths
    assert ("spec", "containers", 0, "resources", "limits", "example") in field_paths(pod, 6)


def test_every_served_kind_says_which_client_model_reads_it_back() -> None:
    assert {(rt.api_version, rt.kind) for rt in KINDS} <= set(CLIENT_MODELS)
    for name in filter(None, CLIENT_MODELS.values()):
        assert hasattr(kubernetes.client, name), name
