"""scheduling.k8s.io v1beta1, v1alpha3 and v1alpha2 <-> the seed's v1alpha1 (the storage version).

The seed (KEP-5729, ``fakeapi.models.scheduling``) and upstream name the same things differently:

- ``policy`` is upstream's ``schedulingPolicy``;
- the seed's ``workloadRef.name`` and ``podGroupTemplateRef.name`` are v1beta1's and v1alpha3's
  ``workloadRef.workloadName`` and ``workloadRef.templateName``, and v1alpha2's
  ``podGroupTemplateRef.workload.workloadName`` and ``.podGroupTemplateName``.

Upstream fields the seed has no place for (scheduling constraints, disruption mode, priority
fields, a composite parent, composite templates) are kept, as upstream keeps fields an older
version cannot hold, in an annotation of the stored object (:data:`UPSTREAM_FIELDS_ANNOTATION`,
JSON keyed by where the field sits: ``spec``, or ``template/<name>`` for a template). Converting
back takes them out again, so a round trip through the storage version loses nothing; a
v1alpha1 reader sees the annotation. Topology constraints are kept in the v1beta1 spelling
(``topology[].key``); v1alpha2's ``topologyConstraints[].topologyKey`` is renamed on the way.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson

from fakeapi.objects import as_dict
from fakeapi.registry.conversion import ConversionChain
from fakeapi.registry.strategy import Obj

__all__ = [
    "POD_GROUP_V1ALPHA2",
    "POD_GROUP_V1ALPHA3",
    "POD_GROUP_V1BETA1",
    "UPSTREAM_FIELDS_ANNOTATION",
    "WORKLOAD_V1ALPHA2",
    "WORKLOAD_V1ALPHA3",
    "WORKLOAD_V1BETA1",
]

#: on a stored Workload or PodGroup: the upstream fields v1alpha1 has no place for
UPSTREAM_FIELDS_ANNOTATION = "fakeapi.dev/scheduling-upstream-fields"

_STORED = "scheduling.k8s.io/v1alpha1"
#: template fields beyond name, policy and claims
_TEMPLATE_EXTRAS = (
    "schedulingConstraints",
    "disruptionMode",
    "priorityClassName",
    "priority",
    "preemptionPolicy",
)
_POD_GROUP_EXTRAS = ("parentCompositePodGroupName", *_TEMPLATE_EXTRAS)

Extras = dict[str, Any]


# --- the annotation ----------------------------------------------------------------------------


def _stash(obj: Obj, extras: Extras) -> Obj:
    """``obj`` with ``extras`` in the annotation (new metadata; ``obj`` unchanged)."""
    if not extras:
        return obj
    meta = dict(obj.get("metadata") or {})
    annotations = dict(meta.get("annotations") or {})
    annotations[UPSTREAM_FIELDS_ANNOTATION] = orjson.dumps(
        extras, option=orjson.OPT_SORT_KEYS
    ).decode()
    meta["annotations"] = annotations
    return {**obj, "metadata": meta}


def _unstash(obj: Obj) -> tuple[Obj, Extras]:
    """``obj`` without the annotation, and what it held."""
    meta = obj.get("metadata")
    annotations = meta.get("annotations") if isinstance(meta, dict) else None
    if not isinstance(annotations, dict) or UPSTREAM_FIELDS_ANNOTATION not in annotations:
        return obj, {}
    try:
        extras = orjson.loads(annotations[UPSTREAM_FIELDS_ANNOTATION])
    except orjson.JSONDecodeError:
        extras = {}
    rest = {k: v for k, v in annotations.items() if k != UPSTREAM_FIELDS_ANNOTATION}
    new_meta = {k: v for k, v in as_dict(meta).items() if k != "annotations"}
    if rest:
        new_meta["annotations"] = rest
    return {**obj, "metadata": new_meta}, extras if isinstance(extras, dict) else {}


def _rename(obj: Any, old: str, new: str) -> Any:
    if not isinstance(obj, dict) or old not in obj:
        return obj
    return {(new if k == old else k): v for k, v in obj.items()}


def _split(entry: dict[str, Any], extras: tuple[str, ...]) -> tuple[dict[str, Any], Extras]:
    kept = {k: v for k, v in entry.items() if k not in extras}
    moved = {k: v for k, v in entry.items() if k in extras}
    return kept, moved


# --- topology spelling (v1alpha2) ------------------------------------------------------------


def _topology_from_v1alpha2(constraints: Any) -> Any:
    if not isinstance(constraints, dict) or "topologyConstraints" not in constraints:
        return constraints
    out = {k: v for k, v in constraints.items() if k != "topologyConstraints"}
    items = constraints["topologyConstraints"]
    out["topology"] = (
        [_rename(item, "topologyKey", "key") for item in items]
        if isinstance(items, list)
        else items
    )
    return out


def _topology_to_v1alpha2(constraints: Any) -> Any:
    if not isinstance(constraints, dict) or "topology" not in constraints:
        return constraints
    out = {k: v for k, v in constraints.items() if k != "topology"}
    items = constraints["topology"]
    out["topologyConstraints"] = (
        [_rename(item, "key", "topologyKey") for item in items]
        if isinstance(items, list)
        else items
    )
    return out


# --- Workload --------------------------------------------------------------------------------


def _template_in(template: Any, extras: Extras, *, v1alpha2: bool) -> Any:
    if not isinstance(template, dict):
        return template
    template = _rename(template, "schedulingPolicy", "policy")
    kept, moved = _split(template, _TEMPLATE_EXTRAS)
    if v1alpha2 and "schedulingConstraints" in moved:
        moved["schedulingConstraints"] = _topology_from_v1alpha2(moved["schedulingConstraints"])
    if moved:
        extras[f"template/{template.get('name', '')}"] = moved
    return kept


def _template_out(template: Any, extras: Extras, *, v1alpha2: bool) -> Any:
    if not isinstance(template, dict):
        return template
    out: dict[str, Any] = {}
    for key, value in template.items():
        out["schedulingPolicy" if key == "policy" else key] = value
    moved = extras.get(f"template/{template.get('name', '')}")
    if isinstance(moved, dict):
        for key, value in moved.items():
            if v1alpha2 and key != "schedulingConstraints":
                continue  # 1.36 has no place for it
            out[key] = _topology_to_v1alpha2(value) if v1alpha2 else value
    if v1alpha2:
        out.pop("resourceClaims", None)
    return out


def _workload_in(*, v1alpha2: bool) -> Callable[[Obj], Obj]:
    def step(obj: Obj) -> Obj:
        spec = obj.get("spec")
        if not isinstance(spec, dict):
            return obj
        extras: Extras = {}
        out = {k: v for k, v in spec.items() if k != "compositePodGroupTemplates"}
        if "compositePodGroupTemplates" in spec:
            extras["spec"] = {"compositePodGroupTemplates": spec["compositePodGroupTemplates"]}
        templates = spec.get("podGroupTemplates")
        if isinstance(templates, list):
            out["podGroupTemplates"] = [
                _template_in(t, extras, v1alpha2=v1alpha2) for t in templates
            ]
        return _stash({**obj, "spec": out}, extras)

    return step


def _workload_out(*, v1alpha2: bool) -> Callable[[Obj], Obj]:
    def step(obj: Obj) -> Obj:
        obj, extras = _unstash(obj)
        spec = obj.get("spec")
        if not isinstance(spec, dict):
            return obj
        out = dict(spec)
        templates = spec.get("podGroupTemplates")
        if isinstance(templates, list):
            out["podGroupTemplates"] = [
                _template_out(t, extras, v1alpha2=v1alpha2) for t in templates
            ]
        spec_extras = extras.get("spec")
        if isinstance(spec_extras, dict) and not v1alpha2:
            out.update(spec_extras)
        return {**obj, "spec": out}

    return step


# --- PodGroup --------------------------------------------------------------------------------


def _group_refs_in(spec: dict[str, Any], *, v1alpha2: bool) -> dict[str, Any]:
    """The seed's ``workloadRef`` and ``podGroupTemplateRef`` from upstream's reference."""
    out = {k: v for k, v in spec.items() if k not in ("workloadRef", "podGroupTemplateRef")}
    if v1alpha2:
        ref = spec.get("podGroupTemplateRef")
        workload = ref.get("workload") if isinstance(ref, dict) else None
        workload_name, template_name = "workloadName", "podGroupTemplateName"
    else:
        workload = spec.get("workloadRef")
        workload_name, template_name = "workloadName", "templateName"
    if isinstance(workload, dict):
        if workload_name in workload:
            out["workloadRef"] = {"name": workload[workload_name]}
        if template_name in workload:
            out["podGroupTemplateRef"] = {"name": workload[template_name]}
    return out


def _group_refs_out(spec: dict[str, Any], *, v1alpha2: bool) -> dict[str, Any]:
    out = {k: v for k, v in spec.items() if k not in ("workloadRef", "podGroupTemplateRef")}
    workload_ref, template_ref = spec.get("workloadRef"), spec.get("podGroupTemplateRef")
    ref: dict[str, Any] = {}
    if isinstance(workload_ref, dict) and "name" in workload_ref:
        ref["workloadName"] = workload_ref["name"]
    if isinstance(template_ref, dict) and "name" in template_ref:
        ref["podGroupTemplateName" if v1alpha2 else "templateName"] = template_ref["name"]
    if ref:
        if v1alpha2:
            out["podGroupTemplateRef"] = {"workload": ref}
        else:
            out["workloadRef"] = ref
    return out


def _pod_group_in(*, v1alpha2: bool) -> Callable[[Obj], Obj]:
    def step(obj: Obj) -> Obj:
        spec = obj.get("spec")
        if not isinstance(spec, dict):
            return obj
        refs = _group_refs_in(spec, v1alpha2=v1alpha2)
        ref_field = "podGroupTemplateRef" if v1alpha2 else "workloadRef"
        kept, moved = _split(_rename(refs, "schedulingPolicy", "policy"), _POD_GROUP_EXTRAS)
        if _group_refs_out(refs, v1alpha2=v1alpha2).get(ref_field) != spec.get(ref_field):
            moved["ref"] = spec.get(ref_field)  # a reference the seed's two names cannot carry
        if v1alpha2 and "schedulingConstraints" in moved:
            moved["schedulingConstraints"] = _topology_from_v1alpha2(
                moved["schedulingConstraints"]
            )
        return _stash({**obj, "spec": kept}, {"spec": moved} if moved else {})

    return step


def _pod_group_out(*, v1alpha2: bool) -> Callable[[Obj], Obj]:
    def step(obj: Obj) -> Obj:
        obj, extras = _unstash(obj)
        spec = obj.get("spec")
        if not isinstance(spec, dict):
            return obj
        out: dict[str, Any] = {}
        for key, value in _group_refs_out(spec, v1alpha2=v1alpha2).items():
            out["schedulingPolicy" if key == "policy" else key] = value
        moved = extras.get("spec")
        if isinstance(moved, dict):
            for key, value in moved.items():
                if key == "ref":
                    out["podGroupTemplateRef" if v1alpha2 else "workloadRef"] = value
                elif v1alpha2 and key != "schedulingConstraints":
                    continue
                else:
                    out[key] = _topology_to_v1alpha2(value) if v1alpha2 else value
        result = {**obj, "spec": out}
        if v1alpha2:
            out.pop("resourceClaims", None)
            status = obj.get("status")
            if isinstance(status, dict) and "resourceClaimStatuses" in status:
                result["status"] = {
                    k: v for k, v in status.items() if k != "resourceClaimStatuses"
                }
        return result

    return step


def _chain(
    served: str, inward: Callable[..., Callable[[Obj], Obj]], outward: Callable[..., Any]
) -> ConversionChain:
    v1alpha2 = served.endswith("/v1alpha2")
    return ConversionChain(
        stored=_STORED,
        served=served,
        inward=(inward(v1alpha2=v1alpha2),),
        outward=(outward(v1alpha2=v1alpha2),),
    )


WORKLOAD_V1BETA1 = _chain("scheduling.k8s.io/v1beta1", _workload_in, _workload_out)
WORKLOAD_V1ALPHA3 = _chain("scheduling.k8s.io/v1alpha3", _workload_in, _workload_out)
WORKLOAD_V1ALPHA2 = _chain("scheduling.k8s.io/v1alpha2", _workload_in, _workload_out)
POD_GROUP_V1BETA1 = _chain("scheduling.k8s.io/v1beta1", _pod_group_in, _pod_group_out)
POD_GROUP_V1ALPHA3 = _chain("scheduling.k8s.io/v1alpha3", _pod_group_in, _pod_group_out)
POD_GROUP_V1ALPHA2 = _chain("scheduling.k8s.io/v1alpha2", _pod_group_in, _pod_group_out)
