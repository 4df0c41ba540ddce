"""Server-side apply and managedFields bookkeeping, scenario by scenario as upstream behaves."""

from __future__ import annotations

from typing import Annotated, Any

import pytest

from fakeapi.models.base import K8sModel, atomic_list, map_list
from fakeapi.models.meta import Condition, ObjectMeta
from fakeapi.models.pod import Pod
from fakeapi.patch import (
    ApplyConflict,
    FieldSet,
    PatchError,
    apply_patch,
    managed_fields_for_write,
    update_managed_fields,
)
from fakeapi.schema import schema_for


class Container(K8sModel):
    """A container."""

    name: str
    """Name."""
    image: str | None = None
    """Image."""


class Toleration(K8sModel):
    """A toleration."""

    key: str | None = None
    """Key."""


class Spec(K8sModel):
    """A deployment-like spec."""

    replicas: int | None = None
    """Replicas."""
    paused: bool | None = None
    """Paused."""
    containers: Annotated[list[Container], map_list("name")]
    """Containers by name (required, so a zero spec holds it as null)."""
    tolerations: Annotated[list[Toleration] | None, atomic_list()] = None
    """Atomic."""


class Status(K8sModel):
    """A status."""

    ready: int | None = None
    """Ready replicas."""
    conditions: Annotated[list[Condition] | None, map_list("type")] = None
    """Conditions."""


class Deploy(K8sModel):
    """A deployment-like object."""

    api_version: str | None = None
    """Version."""
    kind: str | None = None
    """Kind."""
    metadata: ObjectMeta | None = None
    """Metadata."""
    spec: Spec | None = None
    """Spec."""
    status: Status | None = None
    """Status."""


SCHEMA = schema_for(Deploy)
T0, T1, T2 = "2026-01-01T00:00:00Z", "2026-01-01T00:01:00Z", "2026-01-01T00:02:00Z"
STATUS = FieldSet.from_paths(("f:status",))


def obj(spec: dict[str, Any], **meta: Any) -> dict[str, Any]:
    return {"apiVersion": "apps/v1", "kind": "Deploy", "metadata": {"name": "d", **meta},
            "spec": spec}


def created_by_kubectl_create(spec: dict[str, Any]) -> dict[str, Any]:
    new = obj(spec)
    new["metadata"].update(uid="u", resourceVersion="1", creationTimestamp=T0)
    fields = update_managed_fields(old=None, new=new, manager="kubectl-create", managed_fields=[],
                                   schema=SCHEMA, api_version="apps/v1", now=T0)
    new["metadata"]["managedFields"] = fields
    return new


def apply(live: dict[str, Any] | None, config: dict[str, Any], manager: str = "kubectl", *,
          force: bool = False, now: str = T1, ignored: FieldSet | None = None,
          ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    entries = (live or {}).get("metadata", {}).get("managedFields") or []
    return apply_patch(live=live, config=config, manager=manager, managed_fields=entries,
                       schema=SCHEMA, force=force, api_version="apps/v1", now=now,
                       ignored_fields=ignored)


def entry(fields: list[dict[str, Any]], manager: str, operation: str = "Apply") -> dict[str, Any]:
    found = [f for f in fields if f["manager"] == manager and f["operation"] == operation]
    assert len(found) == 1, fields
    return found[0]


def owners(fields: list[dict[str, Any]], *path: str) -> list[str]:
    out = []
    for f in fields:
        if FieldSet.from_fields_v1(f["fieldsV1"]).has(path):
            out.append(f["manager"])
    return sorted(out)


# --- create and update bookkeeping -------------------------------------------------------------


def test_create_gives_the_creator_every_field_in_upstream_format() -> None:
    live = created_by_kubectl_create({"replicas": 1, "containers": [{"name": "c", "image": "i"}]})
    assert live["metadata"]["managedFields"] == [
        {
            "manager": "kubectl-create",
            "operation": "Update",
            "apiVersion": "apps/v1",
            "time": T0,
            "fieldsType": "FieldsV1",
            "fieldsV1": {"f:spec": {
                "f:containers": {'k:{"name":"c"}': {".": {}, "f:image": {}, "f:name": {}}},
                "f:replicas": {},
            }},
        }
    ]


def test_update_takes_changed_fields_from_other_managers() -> None:
    live = created_by_kubectl_create({"replicas": 1, "containers": [{"name": "c", "image": "i"}]})
    new = obj({"replicas": 3, "containers": [{"name": "c", "image": "i"}]})
    fields = update_managed_fields(old=live, new=new, manager="scaler",
                                   managed_fields=live["metadata"]["managedFields"],
                                   schema=SCHEMA, api_version="apps/v1", now=T1)
    assert owners(fields, "f:spec", "f:replicas") == ["scaler"]
    assert owners(fields, "f:spec", "f:containers", 'k:{"name":"c"}', "f:image") == [
        "kubectl-create"]
    assert entry(fields, "scaler", "Update")["time"] == T1


def test_update_that_changes_nothing_adds_no_entry_and_keeps_times() -> None:
    live = created_by_kubectl_create({"containers": [{"name": "c"}]})
    changed_meta = obj({"containers": [{"name": "c"}]}, resourceVersion="2")
    fields = update_managed_fields(old=live, new=changed_meta, manager="other",
                                   managed_fields=live["metadata"]["managedFields"],
                                   schema=SCHEMA, api_version="apps/v1", now=T1)
    assert fields == live["metadata"]["managedFields"]


def test_removed_fields_leave_every_set_and_empty_entries_drop() -> None:
    live = created_by_kubectl_create({"replicas": 1, "containers": []})
    scaled = obj({"replicas": 3, "containers": []})
    managed = update_managed_fields(old=live, new=scaled, manager="scaler",
                                    managed_fields=live["metadata"]["managedFields"],
                                    schema=SCHEMA, api_version="apps/v1", now=T1)
    assert [f["manager"] for f in managed] == ["kubectl-create", "scaler"]
    fields = update_managed_fields(old=scaled, new=obj({"containers": []}), manager="editor",
                                   managed_fields=managed, schema=SCHEMA,
                                   api_version="apps/v1", now=T2)
    assert [f["manager"] for f in fields] == ["kubectl-create"]
    assert fields[0]["fieldsV1"] == {"f:spec": {"f:containers": {}}}


def test_one_entry_per_manager_operation_and_subresource() -> None:
    live = created_by_kubectl_create({"containers": []})
    managed = live["metadata"]["managedFields"]
    with_status = {**live, "status": {"ready": 1}}
    managed = update_managed_fields(old=live, new=with_status, manager="ctrl",
                                    managed_fields=managed, schema=SCHEMA,
                                    api_version="apps/v1", now=T1, subresource="status")
    again = {**with_status, "status": {"ready": 2}}
    managed = update_managed_fields(old=with_status, new=again, manager="ctrl",
                                    managed_fields=managed, schema=SCHEMA,
                                    api_version="apps/v1", now=T2, subresource="status")
    ctrl = [f for f in managed if f["manager"] == "ctrl"]
    assert len(ctrl) == 1
    assert (ctrl[0]["subresource"], ctrl[0]["time"]) == ("status", T2)
    assert list(ctrl[0]) == ["manager", "operation", "apiVersion", "time", "fieldsType",
                             "fieldsV1", "subresource"]


def test_server_owned_metadata_is_never_owned() -> None:
    live = created_by_kubectl_create({"containers": []})
    fields = FieldSet.from_fields_v1(live["metadata"]["managedFields"][0]["fieldsV1"])
    for name in ("name", "uid", "resourceVersion", "creationTimestamp"):
        assert not fields.has(("f:metadata", "f:" + name))


def test_ignored_fields_are_neither_owned_nor_taken() -> None:
    live = created_by_kubectl_create({"containers": []})
    new = {**live, "status": {"ready": 1}, "spec": {"containers": [], "paused": True}}
    fields = update_managed_fields(old=live, new=new, manager="m",
                                   managed_fields=live["metadata"]["managedFields"],
                                   schema=SCHEMA, api_version="apps/v1", now=T1,
                                   ignored_fields=STATUS)
    assert owners(fields, "f:spec", "f:paused") == ["m"]
    assert owners(fields, "f:status", "f:ready") == []


def test_update_managers_are_capped_at_ten_into_ancient_changes() -> None:
    live = created_by_kubectl_create({"containers": []})
    managed = live["metadata"]["managedFields"]
    current = live
    for i in range(11):
        labels = {**current["metadata"].get("labels", {}), f"l{i}": "x"}
        new = {**current, "metadata": {**current["metadata"], "labels": labels}}
        managed = update_managed_fields(old=current, new=new, manager=f"m{i}",
                                        managed_fields=managed, schema=SCHEMA,
                                        api_version="apps/v1", now=f"2026-01-01T00:00:{i:02d}Z")
        current = new
    managers = [f["manager"] for f in managed]
    assert len(managers) == 10
    ancient = entry(managed, "ancient-changes", "Update")
    # the oldest three (kubectl-create, m0, m1) fold into one bucket to get down to ten
    assert ancient["fieldsV1"] == {
        "f:metadata": {"f:labels": {".": {}, "f:l0": {}, "f:l1": {}}},
        "f:spec": {"f:containers": {}},
    }
    assert ancient["time"] == "2026-01-01T00:00:01Z"


@pytest.mark.parametrize(
    ("request_entries", "subresource", "expected"),
    [
        (None, "", "live"),
        ([], "", []),
        ([{}], "", []),
        ("valid", "", "request"),
        ([{"manager": "x", "operation": "Bogus"}], "", "live"),
        ("valid", "status", "live"),
    ],
    ids=["absent_uses_live", "empty_list_resets", "single_empty_entry_resets",
         "valid_request_wins", "invalid_request_falls_back", "subresource_always_live"],
)
def test_managed_fields_for_write(request_entries: Any, subresource: str, expected: Any) -> None:
    live_entries = [{"manager": "a", "operation": "Update", "apiVersion": "v1",
                     "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {}}}]
    valid = [{**live_entries[0], "manager": "b"}]
    request = valid if request_entries == "valid" else request_entries
    got = managed_fields_for_write(live=live_entries, request=request, subresource=subresource)
    want = {"live": live_entries, "request": valid}.get(expected, expected) \
        if isinstance(expected, str) else expected
    assert got == want


# --- apply -------------------------------------------------------------------------------------


def test_create_on_apply() -> None:
    config = obj({"replicas": 2, "containers": [{"name": "c", "image": "i"}]})
    new, fields = apply(None, config)
    assert new["spec"] == config["spec"]
    assert "containers" in new["spec"] and new["metadata"]["managedFields"] == fields
    assert fields == [{
        "manager": "kubectl", "operation": "Apply", "apiVersion": "apps/v1", "time": T1,
        "fieldsType": "FieldsV1",
        "fieldsV1": {"f:spec": {
            "f:containers": {'k:{"name":"c"}': {".": {}, "f:image": {}, "f:name": {}}},
            "f:replicas": {},
        }},
    }]


def test_conflict_with_creator_single() -> None:
    live = created_by_kubectl_create({"replicas": 1, "containers": [{"name": "c"}]})
    with pytest.raises(ApplyConflict) as caught:
        apply(live, obj({"replicas": 3, "containers": [{"name": "c"}]}))
    status = caught.value.status()
    assert status["code"] == 409 and status["reason"] == "Conflict"
    assert status["message"] == (
        'Apply failed with 1 conflict: conflict with "kubectl-create" using apps/v1: '
        ".spec.replicas"
    )
    assert status["details"] == {"causes": [{
        "reason": "FieldManagerConflict",
        "message": 'conflict with "kubectl-create" using apps/v1',
        "field": ".spec.replicas",
    }]}


def test_conflicts_multiple_grouped_by_sorted_manager() -> None:
    live = created_by_kubectl_create({"replicas": 1, "containers": [{"name": "c", "image": "i"}]})
    live, _ = apply(live, obj({"paused": False, "containers": [{"name": "c"}]}), "ci")
    with pytest.raises(ApplyConflict) as caught:
        apply(live, obj({"replicas": 2, "paused": True,
                         "containers": [{"name": "c", "image": "j"}]}))
    assert caught.value.message == (
        "Apply failed with 3 conflicts: conflicts with \"ci\":\n- .spec.paused\n"
        'conflicts with "kubectl-create" using apps/v1:\n- .spec.replicas\n'
        '- .spec.containers[name="c"].image'
    )
    assert [c["field"] for c in caught.value.causes] == [
        ".spec.paused", ".spec.replicas", '.spec.containers[name="c"].image']
    assert caught.value.causes[0]["message"] == 'conflict with "ci"'


def test_same_value_is_not_a_conflict_and_ownership_is_shared() -> None:
    live = created_by_kubectl_create({"replicas": 1, "containers": [{"name": "c"}]})
    new, fields = apply(live, obj({"replicas": 1, "containers": [{"name": "c"}]}))
    assert owners(fields, "f:spec", "f:replicas") == ["kubectl", "kubectl-create"]
    assert new["spec"] == live["spec"]


def test_force_moves_ownership_to_the_applier() -> None:
    live = created_by_kubectl_create({"replicas": 1, "containers": [{"name": "c"}]})
    new, fields = apply(live, obj({"replicas": 3, "containers": [{"name": "c"}]}), force=True)
    assert new["spec"]["replicas"] == 3
    assert owners(fields, "f:spec", "f:replicas") == ["kubectl"]
    assert owners(fields, "f:spec", "f:containers", 'k:{"name":"c"}') == [
        "kubectl", "kubectl-create"]


def test_fields_a_manager_stopped_applying_are_removed() -> None:
    live, _ = apply(None, obj({"replicas": 2, "paused": True, "containers": [{"name": "c"}]}))
    new, fields = apply(live, obj({"replicas": 2, "containers": [{"name": "c"}]}), now=T2)
    assert "paused" not in new["spec"]
    assert owners(fields, "f:spec", "f:paused") == []
    assert entry(fields, "kubectl")["time"] == T2


def test_list_items_a_manager_stopped_applying_are_removed() -> None:
    live, _ = apply(None, obj({"containers": [{"name": "a"}, {"name": "b"}]}))
    new, _ = apply(live, obj({"containers": [{"name": "b"}]}))
    assert new["spec"]["containers"] == [{"name": "b"}]


def test_fields_shared_by_two_appliers_are_kept_when_one_stops() -> None:
    live, _ = apply(None, obj({"replicas": 2, "containers": [{"name": "c"}]}), "one")
    live, _ = apply(live, obj({"replicas": 2, "containers": [{"name": "c"}]}), "two")
    new, fields = apply(live, obj({"containers": [{"name": "c"}]}), "one")
    assert new["spec"]["replicas"] == 2
    assert owners(fields, "f:spec", "f:replicas") == ["two"]


def test_fields_an_updater_changed_are_kept_when_the_applier_stops() -> None:
    live, _ = apply(None, obj({"replicas": 2, "containers": [{"name": "c"}]}))
    scaled = {**live, "spec": {**live["spec"], "replicas": 5}}
    scaled["metadata"] = {**live["metadata"], "managedFields": update_managed_fields(
        old=live, new=scaled, manager="hpa", managed_fields=live["metadata"]["managedFields"],
        schema=SCHEMA, api_version="apps/v1", now=T1)}
    new, _ = apply(scaled, obj({"containers": [{"name": "c"}]}), now=T2)
    assert new["spec"]["replicas"] == 5


def test_reapplying_the_same_config_changes_nothing() -> None:
    config = obj({"replicas": 2, "containers": [{"name": "c"}]})
    live, fields = apply(None, config)
    again, fields_again = apply(live, config, now=T2)
    assert fields_again == fields
    assert again["spec"] is live["spec"]


def test_applied_null_removes_the_field() -> None:
    live, _ = apply(None, obj({"replicas": 2, "containers": [{"name": "c"}]}))
    new, _ = apply(live, obj({"replicas": None, "containers": [{"name": "c"}]}))
    assert "replicas" not in new["spec"]


def test_atomic_list_is_replaced_and_owned_whole() -> None:
    live, _ = apply(None, obj({"containers": [], "tolerations": [{"key": "a"}]}), "one")
    new, fields = apply(live, obj({"tolerations": [{"key": "b"}]}), "two", force=True)
    assert new["spec"]["tolerations"] == [{"key": "b"}]
    assert owners(fields, "f:spec", "f:tolerations") == ["two"]


def test_apply_ignored_status_is_not_owned() -> None:
    config = {**obj({"containers": []}), "status": {"ready": 3}}
    _, fields = apply(None, config, ignored=STATUS)
    assert owners(fields, "f:status", "f:ready") == []


def test_applier_conflicts_with_its_own_update_entry() -> None:
    live = created_by_kubectl_create({"replicas": 1, "containers": []})
    with pytest.raises(ApplyConflict) as caught:
        apply(live, obj({"replicas": 2}), "kubectl-create")
    assert 'conflict with "kubectl-create" using apps/v1' in caught.value.message


def test_managed_fields_in_the_config_are_refused() -> None:
    config = obj({"containers": []}, managedFields=[{"manager": "x"}])
    with pytest.raises(PatchError) as caught:
        apply(None, config)
    assert (caught.value.code, caught.value.message) == (400, "metadata.managedFields must be nil")


def test_duplicate_keys_in_config_are_refused() -> None:
    with pytest.raises(PatchError) as caught:
        apply(None, obj({"containers": [{"name": "c"}, {"name": "c"}]}))
    assert caught.value.code == 400
    assert 'duplicate entries for key [name="c"]' in caught.value.message


# --- map-list keys with schema defaults (a Pod's container ports) -------------------------------

POD_SCHEMA = schema_for(Pod)
PORT_80 = 'k:{"containerPort":80,"protocol":"TCP"}'
PORTS = ("f:spec", "f:containers", 'k:{"name":"c"}', "f:ports")


def pod(ports: list[dict[str, Any]]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
            "spec": {"containers": [{"name": "c", "image": "i", "ports": ports}]}}


def apply_pod(live: dict[str, Any] | None, config: dict[str, Any], manager: str = "kubectl",
              ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    entries = (live or {}).get("metadata", {}).get("managedFields") or []
    return apply_patch(live=live, config=config, manager=manager, managed_fields=entries,
                       schema=POD_SCHEMA, force=False, api_version="v1", now=T1)


def defaulted(new: dict[str, Any]) -> dict[str, Any]:
    """``new`` as the Pod strategy stores it: every port gets ``protocol: TCP``."""
    for port in new["spec"]["containers"][0].get("ports") or []:
        port.setdefault("protocol", "TCP")
    return new


def ports_of(obj: dict[str, Any]) -> list[dict[str, Any]]:
    ports: list[dict[str, Any]] = obj["spec"]["containers"][0]["ports"]
    return ports


def test_key_field_default_comes_from_the_model() -> None:
    node: Any = POD_SCHEMA
    for step in ("spec", "containers", None, "ports", None):
        node = node.item if step is None else node.child(step)
    assert node.child("protocol").default == "TCP"
    assert node.child("containerPort").default is None
    assert node.child("name").default is None


def test_key_field_left_to_its_default_matches_the_stored_item() -> None:
    created = defaulted(pod([{"containerPort": 80}]))
    created["metadata"]["managedFields"] = update_managed_fields(
        old=None, new=created, manager="kubectl-create", managed_fields=[], schema=POD_SCHEMA,
        api_version="v1", now=T0)
    new, fields = apply_pod(created, pod([{"containerPort": 80}]))
    assert ports_of(new) == [{"containerPort": 80, "protocol": "TCP"}]
    assert owners(fields, *PORTS, PORT_80) == ["kubectl", "kubectl-create"]
    assert owners(fields, *PORTS, PORT_80, "f:containerPort") == ["kubectl", "kubectl-create"]
    assert owners(fields, *PORTS, PORT_80, "f:protocol") == ["kubectl-create"]


def test_reapplying_a_port_without_protocol_keeps_one_port() -> None:
    live, fields = apply_pod(None, pod([{"containerPort": 80}]))
    assert FieldSet.from_fields_v1(entry(fields, "kubectl")["fieldsV1"]).has((*PORTS, PORT_80))
    again, fields_again = apply_pod(defaulted(live), pod([{"containerPort": 80, "name": "web"}]))
    assert ports_of(again) == [{"containerPort": 80, "protocol": "TCP", "name": "web"}]
    assert owners(fields_again, *PORTS, PORT_80, "f:name") == ["kubectl"]


def test_changing_the_port_replaces_the_item_keyed_by_its_default() -> None:
    live, _ = apply_pod(None, pod([{"containerPort": 80}]))
    new, fields = apply_pod(defaulted(live), pod([{"containerPort": 8080}]))
    assert ports_of(new) == [{"containerPort": 8080}]
    port_8080 = 'k:{"containerPort":8080,"protocol":"TCP"}'
    assert owners(fields, *PORTS, port_8080) == ["kubectl"]
    assert owners(fields, *PORTS, PORT_80) == []


def test_explicit_protocol_is_a_different_item_from_the_default() -> None:
    live, _ = apply_pod(None, pod([{"containerPort": 53}]))
    new, _ = apply_pod(defaulted(live), pod([{"containerPort": 53},
                                             {"containerPort": 53, "protocol": "UDP"}]))
    assert ports_of(new) == [{"containerPort": 53, "protocol": "TCP"},
                             {"containerPort": 53, "protocol": "UDP"}]


def test_same_port_spelled_with_and_without_its_default_is_a_duplicate() -> None:
    with pytest.raises(PatchError) as caught:
        apply_pod(None, pod([{"containerPort": 80}, {"containerPort": 80, "protocol": "TCP"}]))
    assert 'duplicate entries for key [containerPort=80,protocol="TCP"]' in caught.value.message


def test_item_without_any_key_field_is_refused() -> None:
    with pytest.raises(PatchError) as caught:
        apply(None, obj({"containers": [{"image": "i"}]}))
    assert caught.value.code == 400
    assert caught.value.message == (
        ".spec.containers: associative list with keys has an element that omits all key "
        'fields ["name"] (and doesn\'t have default values for any key fields)'
    )
