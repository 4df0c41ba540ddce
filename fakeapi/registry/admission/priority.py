"""Priority: a pod's ``priorityClassName`` becomes its ``priority`` and ``preemptionPolicy``.

Upstream's plugin, for what a DRA user sees of it:

* on pod create, the named PriorityClass is looked up and its value and preemption policy are
  written into ``spec.priority`` and ``spec.preemptionPolicy``; a pod that names none gets the
  ``globalDefault`` class (the lowest value if several claim it) and its name, or priority 0 with
  ``PreemptLowerPriority`` when there is no default;
* an unknown class is refused with 403 ``pods "x" is forbidden: no PriorityClass with name y was
  found``, and so is a pod whose own ``spec.priority`` or ``spec.preemptionPolicy`` differs from
  what the class gives (clients may repeat the computed values, as a re-applied manifest does);
* on pod update, a body without ``priority``/``preemptionPolicy`` keeps the stored ones (validation
  then keeps them immutable);
* a PriorityClass may claim ``globalDefault`` only while no other class does.
"""

from __future__ import annotations

from typing import Any

from fakeapi import errors
from fakeapi.registry.admission.interface import Attributes, ObjectReader

__all__ = ["Priority", "DEFAULT_PRIORITY_WHEN_NO_DEFAULT_CLASS_EXISTS"]

DEFAULT_PRIORITY_WHEN_NO_DEFAULT_CLASS_EXISTS = 0
_GROUP = "scheduling.k8s.io"


class Priority:
    """Resolves pod priorities from PriorityClasses; keeps one default class."""

    name = "Priority"
    resources = frozenset({("", "pods"), (_GROUP, "priorityclasses")})

    def __init__(self, *, reader: ObjectReader) -> None:
        self._reader = reader

    def handles(self, attrs: Attributes) -> bool:
        if attrs.subresource:
            return False
        return (attrs.group, attrs.resource) in (("", "pods"), (_GROUP, "priorityclasses"))

    def admit(self, attrs: Attributes) -> None:
        if attrs.resource == "pods":
            self._admit_pod(attrs)
        else:
            self._admit_priority_class(attrs)

    def _classes(self) -> list[dict[str, Any]]:
        return self._reader.list_objects(group=_GROUP, version="v1", resource="priorityclasses")

    def _default_class(self) -> dict[str, Any] | None:
        chosen: dict[str, Any] | None = None
        for pc in self._classes():
            if pc.get("globalDefault") is True and (
                chosen is None or int(pc.get("value") or 0) < int(chosen.get("value") or 0)
            ):
                chosen = pc
        return chosen

    def _forbidden(self, attrs: Attributes, message: str) -> errors.StatusError:
        return errors.forbidden(
            resource=attrs.resource, group=attrs.group, name=attrs.name, message=message
        )

    def _admit_pod(self, attrs: Attributes) -> None:
        spec = attrs.obj.get("spec")
        if not isinstance(spec, dict):
            return
        if attrs.operation == "UPDATE":
            old_spec = (attrs.old or {}).get("spec") or {}
            for key in ("priority", "preemptionPolicy"):
                if spec.get(key) is None and old_spec.get(key) is not None:
                    spec[key] = old_spec[key]
            return
        class_name = spec.get("priorityClassName")
        policy: Any
        if not class_name:
            default = self._default_class()
            if default is None:
                priority = DEFAULT_PRIORITY_WHEN_NO_DEFAULT_CLASS_EXISTS
                policy = "PreemptLowerPriority"
            else:
                spec["priorityClassName"] = default["metadata"]["name"]
                priority = int(default.get("value") or 0)
                policy = default.get("preemptionPolicy")
        else:
            found = next(
                (pc for pc in self._classes() if pc["metadata"]["name"] == class_name), None
            )
            if found is None:
                raise self._forbidden(attrs, f"no PriorityClass with name {class_name} was found")
            priority = int(found.get("value") or 0)
            policy = found.get("preemptionPolicy")
        given = spec.get("priority")
        if given is not None and given != priority:
            raise self._forbidden(
                attrs,
                f"the integer value of priority ({given}) must not be provided in pod spec; "
                f"priority admission controller computed {priority} from the given "
                "PriorityClass name",
            )
        spec["priority"] = priority
        if policy is not None:
            given_policy = spec.get("preemptionPolicy")
            if given_policy is not None and given_policy != policy:
                raise self._forbidden(
                    attrs,
                    f"the string value of PreemptionPolicy ({given_policy}) must not be provided "
                    f"in pod spec; priority admission controller computed {policy} from the "
                    "given PriorityClass name",
                )
            spec["preemptionPolicy"] = policy

    def _admit_priority_class(self, attrs: Attributes) -> None:
        if attrs.obj.get("globalDefault") is not True:
            return
        default = self._default_class()
        if default is None:
            return
        default_name = default["metadata"]["name"]
        if attrs.operation == "CREATE" or default_name != attrs.name:
            raise self._forbidden(
                attrs,
                f"PriorityClass {default_name} is marked as default. Only one default can exist",
            )
