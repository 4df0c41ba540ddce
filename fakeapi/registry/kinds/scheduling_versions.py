"""scheduling.k8s.io Workload, PodGroup and CompositePodGroup rows at every served version.

The seed's v1alpha1 (KEP-5729) is the storage version of Workload and PodGroup: the components
keep reading and writing it. Upstream's shapes are served beside it (v1beta1 and v1alpha3 as 1.37
serves them, v1alpha2 as 1.36 did) and converted (:mod:`fakeapi.registry.conversion.scheduling`);
the seed strategies validate what both shapes share, and :class:`UpstreamGroupRules` adds
upstream's rules for the fields only its shapes have — the disruption-mode union, priority,
preemption policy, topology constraints and the composite parent, each behind its gate where
upstream has one — and keeps them immutable. CompositePodGroup (v1alpha3) has no seed
counterpart and is stored as it is served.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, ClassVar

from fakeapi.features import enabled
from fakeapi.objects import as_dict, as_list
from fakeapi.objects import text as as_str
from fakeapi.registry.conversion import ConvertingStrategy, served_version
from fakeapi.registry.conversion import scheduling as conversion
from fakeapi.registry.kinds.podgroup import PodGroupStrategy
from fakeapi.registry.kinds.workload import WorkloadStrategy
from fakeapi.registry.resource_table import ResourceType
from fakeapi.registry.strategy import Obj, Strategy, WriteContext
from fakeapi.storage.interface import Converter
from fakeapi.validation.dra_common import validate_conditions
from fakeapi.validation.dra_names import (
    validate_dns_label,
    validate_dns_subdomain,
    validate_label_name,
)
from fakeapi.validation.field import FieldError, Path, forbidden, invalid, not_supported, required

__all__ = ["CompositePodGroupStrategy", "UpstreamGroupRules", "scheduling_rows"]

_GROUP = "scheduling.k8s.io"
_SEED = "fakeapi.models.scheduling:"
_UPSTREAM = "fakeapi.models.scheduling_upstream:"
_V1ALPHA2 = "fakeapi.models.scheduling_v1alpha2:"

#: upstream's HighestUserDefinablePriority
MAX_PRIORITY = 1_000_000_000
_PREEMPTION_POLICIES = ("Never", "PreemptLowerPriority")
_IMMUTABLE = (
    "parentCompositePodGroupName",
    "schedulingConstraints",
    "disruptionMode",
    "priorityClassName",
    "priority",
    "preemptionPolicy",
)


def _one_of(value: Any, path: Path, members: tuple[str, ...]) -> list[FieldError]:
    """An upstream ``+union``: exactly one member set."""
    chosen = [m for m in members if as_dict(value).get(m) is not None]
    if len(chosen) == 1:
        return []
    names = ", ".join(f"`{m}`" for m in members)
    if not chosen:
        return [required(path, f"must specify one of: {names}")]
    return [invalid(path, value, f"must specify exactly one of: {names}")]


def _gated(
    entry: Mapping[str, Any], name: str, gate: str, path: Path, gates: Mapping[str, bool]
) -> list[FieldError]:
    if entry.get(name) is None or enabled(gates, gate):
        return []
    return [forbidden(path.child(name), f"disabled by feature-gate {gate}")]


def group_field_errors(
    entry: Mapping[str, Any], path: Path, gates: Mapping[str, bool], *, composite: bool = False
) -> list[FieldError]:
    """Upstream's rules for the fields of a template or group the seed does not have."""
    errs: list[FieldError] = []
    if entry.get("disruptionMode") is not None:
        errs += _one_of(entry["disruptionMode"], path.child("disruptionMode"), ("single", "all"))
    name = entry.get("priorityClassName")
    if name:
        errs += validate_dns_subdomain(as_str(name), path.child("priorityClassName"))
    priority = entry.get("priority")
    if isinstance(priority, int) and priority > MAX_PRIORITY:
        errs.append(
            invalid(
                path.child("priority"), priority, f"must be less than or equal to {MAX_PRIORITY}"
            )
        )
    errs += _gated(entry, "preemptionPolicy", "PodGroupPreemptionPolicy", path, gates)
    policy = entry.get("preemptionPolicy")
    if policy is not None and policy not in _PREEMPTION_POLICIES:
        errs.append(not_supported(path.child("preemptionPolicy"), policy, _PREEMPTION_POLICIES))
    if not composite:
        errs += _gated(
            entry, "schedulingConstraints", "TopologyAwareWorkloadScheduling", path, gates
        )
    errs += _gated(entry, "parentCompositePodGroupName", "CompositePodGroup", path, gates)
    parent = entry.get("parentCompositePodGroupName")
    if parent:
        errs += validate_dns_subdomain(as_str(parent), path.child("parentCompositePodGroupName"))
    constraints = entry.get("schedulingConstraints")
    if isinstance(constraints, dict):
        topology = as_list(constraints.get("topology"))
        topology_path = path.child("schedulingConstraints", "topology")
        if len(topology) > 1:
            errs.append(invalid(topology_path, len(topology), "must have at most 1 items"))
        for i, item in enumerate(topology):
            key = as_str(as_dict(item).get("key"))
            key_path = topology_path.index(i).child("key")
            errs += [required(key_path)] if not key else validate_label_name(key, key_path)
    return errs


def _templates(spec: Mapping[str, Any], path: Path) -> Iterator[tuple[Mapping[str, Any], Path]]:
    for i, template in enumerate(as_list(spec.get("podGroupTemplates"))):
        yield as_dict(template), path.child("podGroupTemplates").index(i)


def _immutable(new: Mapping[str, Any], old: Mapping[str, Any], path: Path) -> list[FieldError]:
    return [
        invalid(path.child(name), new.get(name), "field is immutable")
        for name in _IMMUTABLE
        if new.get(name) != old.get(name)
    ]


class UpstreamGroupRules(ConvertingStrategy):
    """The seed strategy over the converted object, plus upstream's rules for the fields the
    seed has no place for (validated in the served shape, where they are)."""

    def __init__(self, base: Strategy, converter: Converter, *, workload: bool) -> None:
        super().__init__(base, converter)
        self._workload = workload

    def _entries(self, obj: Obj) -> Iterator[tuple[Mapping[str, Any], Path]]:
        spec, path = as_dict(obj.get("spec")), Path("spec")
        if self._workload:
            yield from _templates(spec, path)
        else:
            yield spec, path

    def validate(self, obj: Obj, ctx: WriteContext) -> list[FieldError]:
        errs = super().validate(obj, ctx)
        for entry, path in self._entries(obj):
            errs += group_field_errors(entry, path, ctx.feature_gates)
        if self._workload:
            spec = as_dict(obj.get("spec"))
            errs += _gated(
                spec, "compositePodGroupTemplates", "CompositePodGroup", Path("spec"),
                ctx.feature_gates,
            )
        return errs

    def validate_update(self, new: Obj, old: Obj, ctx: WriteContext) -> list[FieldError]:
        errs = super().validate_update(new, old, ctx)
        old_entries = {
            as_str(entry.get("name")) if self._workload else "": entry
            for entry, _ in self._entries(old)
        }
        for entry, path in self._entries(new):
            before = old_entries.get(as_str(entry.get("name")) if self._workload else "")
            if before is not None:
                errs += _immutable(entry, before, path)
        return errs


def _validate_composite(obj: Obj, gates: Mapping[str, bool]) -> list[FieldError]:
    spec = as_dict(obj.get("spec"))
    path = Path("spec")
    errs: list[FieldError] = []
    ref = spec.get("workloadRef")
    if not isinstance(ref, dict):
        errs.append(required(path.child("workloadRef")))
    else:
        for name, check in (("workloadName", validate_dns_subdomain),
                            ("templateName", validate_dns_label)):
            value = as_str(ref.get(name))
            at = path.child("workloadRef", name)
            errs += [required(at)] if not value else check(value, at)
    policy = spec.get("schedulingPolicy")
    policy_path = path.child("schedulingPolicy")
    if policy is None:
        errs.append(required(policy_path))
    else:
        errs += _one_of(policy, policy_path, ("basic", "gang"))
        gang = as_dict(policy).get("gang")
        if isinstance(gang, dict):
            count = gang.get("minGroupCount")
            if not isinstance(count, int) or count < 1:
                errs.append(invalid(
                    policy_path.child("gang", "minGroupCount"), count,
                    "must be greater than or equal to 1",
                ))
    errs += group_field_errors(spec, path, gates, composite=True)
    return errs


class CompositePodGroupStrategy(Strategy):
    """CompositePodGroups (v1alpha3): validated, immutable spec; conditions in status."""

    status_subresource: ClassVar[bool] = True
    tracks_generation: ClassVar[bool] = True

    def prepare_for_create(self, obj: Obj, ctx: WriteContext) -> None:
        obj.pop("status", None)

    def validate(self, obj: Obj, ctx: WriteContext) -> list[FieldError]:
        return _validate_composite(obj, ctx.feature_gates)

    def validate_update(self, new: Obj, old: Obj, ctx: WriteContext) -> list[FieldError]:
        errs = _validate_composite(new, ctx.feature_gates)
        if new.get("spec") != old.get("spec"):
            errs.append(invalid("spec", new.get("spec"), "field is immutable"))
        return errs

    def validate_status_update(self, new: Obj, old: Obj, ctx: WriteContext) -> list[FieldError]:
        conditions = as_list(as_dict(new.get("status")).get("conditions"))
        return validate_conditions(conditions, Path("status").child("conditions"))


def scheduling_rows() -> list[ResourceType]:
    """The storage rows (v1alpha1), the upstream versions converted from them, and
    CompositePodGroup; each row says which releases serve it."""
    workload = ResourceType(
        _GROUP, "v1alpha1", "Workload", "workloads", True, _SEED + "Workload",
        WorkloadStrategy(), openapi_prefix="io.k8s.api.scheduling.v1alpha1",
    )
    pod_group = ResourceType(
        _GROUP, "v1alpha1", "PodGroup", "podgroups", True, _SEED + "PodGroup",
        PodGroupStrategy(), subresources=("status",),
        openapi_prefix="io.k8s.api.scheduling.v1alpha1",
    )
    rows = [workload, pod_group]
    versions = (
        ("v1beta1", (37,), _UPSTREAM, conversion.WORKLOAD_V1BETA1, conversion.POD_GROUP_V1BETA1),
        ("v1alpha3", (37,), _UPSTREAM, conversion.WORKLOAD_V1ALPHA3,
         conversion.POD_GROUP_V1ALPHA3),
        ("v1alpha2", (36,), _V1ALPHA2, conversion.WORKLOAD_V1ALPHA2,
         conversion.POD_GROUP_V1ALPHA2),
    )
    for version, releases, models, workload_conversion, pod_group_conversion in versions:
        for storage, model, converter, is_workload in (
            (workload, models + "Workload", workload_conversion, True),
            (pod_group, models + "PodGroup", pod_group_conversion, False),
        ):
            rows.append(served_version(
                storage, version=version, model=model, converter=converter,
                strategy=UpstreamGroupRules(storage.strategy, converter, workload=is_workload),
                releases=releases,
            ))
    rows.append(ResourceType(
        _GROUP, "v1alpha3", "CompositePodGroup", "compositepodgroups", True,
        _UPSTREAM + "CompositePodGroup", CompositePodGroupStrategy(), subresources=("status",),
        openapi_prefix="io.k8s.api.scheduling.v1alpha3", releases=(37,),
    ))
    return rows
