"""Node: cluster-scoped, status written by the kubelet, columns as ``kubectl get nodes``.

Unlike most kinds a node may be created with its status (kubelets register that way), so
``prepare_for_create`` keeps it. The printer follows upstream's: Status comes from the Ready
condition (``Unknown`` without one) plus ``SchedulingDisabled`` for cordoned nodes, Roles from
``node-role.kubernetes.io/<role>`` and ``kubernetes.io/role`` labels.
"""

from __future__ import annotations

from datetime import datetime
from typing import ClassVar

from fakeapi.name_syntax import is_qualified_name, is_valid_label_value
from fakeapi.objects import as_dict, as_list, dig, text
from fakeapi.registry.strategy import AGE_COLUMN, NAME_COLUMN, Column, Obj, Strategy, WriteContext
from fakeapi.rules.nodes import NODE_READY, node_condition
from fakeapi.validation.field import FieldError, Path, duplicate, invalid, not_supported, required

__all__ = ["NodeStrategy", "node_roles", "node_status_cell"]

_ROLE_PREFIX = "node-role.kubernetes.io/"
_ROLE_LABEL = "kubernetes.io/role"
TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")


def node_status_cell(obj: Obj, _now: datetime | None = None) -> str:
    """``Ready``, ``NotReady`` or ``Unknown``, then ``SchedulingDisabled`` when unschedulable."""
    ready = node_condition(obj, NODE_READY)
    if ready is None:
        states = ["Unknown"]
    else:
        states = ["Ready" if ready.get("status") == "True" else "NotReady"]
    if dig(obj, "spec", "unschedulable") is True:
        states.append("SchedulingDisabled")
    return ",".join(states)


def node_roles(obj: Obj) -> list[str]:
    """Roles from role labels, sorted and without duplicates."""
    roles: set[str] = set()
    for key, value in as_dict(dig(obj, "metadata", "labels")).items():
        if key.startswith(_ROLE_PREFIX):
            role = key[len(_ROLE_PREFIX) :]
            if role:
                roles.add(role)
        elif key == _ROLE_LABEL and value:
            roles.add(str(value))
    return sorted(roles)


def _roles_cell(obj: Obj, _now: datetime) -> str:
    return ",".join(node_roles(obj)) or "<none>"


def _address(obj: Obj, kind: str) -> str:
    for address in as_list(dig(obj, "status", "addresses")):
        address = as_dict(address)
        if address.get("type") == kind:
            return text(address.get("address")) or "<none>"
    return "<none>"


def _info(field: str) -> Column:
    names = {
        "osImage": ("OS-Image", "OS image reported by the node from /etc/os-release."),
        "kernelVersion": ("Kernel-Version", "Kernel version reported by the node."),
        "containerRuntimeVersion": (
            "Container-Runtime",
            "Container runtime version reported by the node.",
        ),
    }
    name, description = names[field]
    return Column(
        name,
        lambda obj, _now: text(dig(obj, "status", "nodeInfo", field)) or "<unknown>",
        description=description,
        priority=1,
    )


class NodeStrategy(Strategy):
    """Cluster-scoped; status subresource; status may be set on create."""

    status_subresource = True
    field_labels = ("spec.unschedulable",)
    columns: ClassVar[tuple[Column, ...]] = (
        NAME_COLUMN,
        Column("Status", node_status_cell, description="The status of the node"),
        Column("Roles", _roles_cell, description="The roles of the node"),
        AGE_COLUMN,
        Column(
            "Version",
            lambda obj, _now: text(dig(obj, "status", "nodeInfo", "kubeletVersion")),
            description="Kubelet Version reported by the node.",
        ),
        Column(
            "Internal-IP",
            lambda obj, _now: _address(obj, "InternalIP"),
            description="List of addresses reachable to the node. Queried from cloud provider, "
            "if available.",
            priority=1,
        ),
        Column(
            "External-IP",
            lambda obj, _now: _address(obj, "ExternalIP"),
            description="List of addresses reachable to the node. Queried from cloud provider, "
            "if available.",
            priority=1,
        ),
        _info("osImage"),
        _info("kernelVersion"),
        _info("containerRuntimeVersion"),
    )

    def prepare_for_create(self, obj: Obj, ctx: WriteContext) -> None:
        """Keep the status: kubelets register nodes together with their status."""

    def validate(self, obj: Obj, ctx: WriteContext) -> list[FieldError]:
        return validate_taints(as_list(dig(obj, "spec", "taints")), Path("spec").child("taints"))

    def selectable_fields(self, obj: Obj) -> dict[str, str]:
        unschedulable = dig(obj, "spec", "unschedulable") is True
        return {"spec.unschedulable": "true" if unschedulable else "false"}


def validate_taints(taints: list[object], path: Path) -> list[FieldError]:
    """Taint keys are qualified names, values label values, effects known, (key, effect) unique."""
    errors: list[FieldError] = []
    seen: set[tuple[str, str]] = set()
    for i, taint in enumerate(taints):
        taint = as_dict(taint)
        at = path.index(i)
        key = text(taint.get("key"))
        for msg in is_qualified_name(key):
            errors.append(invalid(at.child("key"), key, msg))
        value = text(taint.get("value"))
        for msg in is_valid_label_value(value):
            errors.append(invalid(at.child("value"), value, msg))
        effect = text(taint.get("effect"))
        if not effect:
            errors.append(required(at.child("effect")))
        elif effect not in TAINT_EFFECTS:
            errors.append(not_supported(at.child("effect"), effect, TAINT_EFFECTS))
        if (key, effect) in seen:
            errors.append(duplicate(at, taint))
        seen.add((key, effect))
    return errors
