"""Which kind a CustomResourceDefinition serves, as controllers that follow every kind see it.

Upstream's namespace controller and garbage collector find custom kinds through discovery: a
definition's kind is there once the definition is ``Established``, at each served version, and
they act through the preferred one. Controllers here read the definitions instead of discovery
(one list or informer, not a walk over every group), so the same decision is made from the
definition: established, with at least one served version; the storage version when it is
served (every served version reads the same stored objects), otherwise the first served one.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from fakeapi.objects import as_dict, as_list, text
from fakeapi.rules.conditions import is_status_condition_true

__all__ = ["ServedKind", "served_kind"]


class ServedKind(NamedTuple):
    """The kind of a definition, at the version to act through."""

    group: str
    version: str
    plural: str
    kind: str
    namespaced: bool


def served_kind(definition: dict[str, Any]) -> ServedKind | None:
    """The kind ``definition`` serves now; None before it is established or when it serves no
    version."""
    spec, status = as_dict(definition.get("spec")), as_dict(definition.get("status"))
    if not is_status_condition_true(as_list(status.get("conditions")), "Established"):
        return None
    served = [as_dict(v) for v in as_list(spec.get("versions")) if as_dict(v).get("served")]
    names = as_dict(status.get("acceptedNames"))
    if not served or not names.get("plural") or not names.get("kind"):
        return None
    version = next((v for v in served if v.get("storage")), served[0])
    return ServedKind(
        group=text(spec.get("group")),
        version=text(version.get("name")),
        plural=text(names.get("plural")),
        kind=text(names.get("kind")),
        namespaced=spec.get("scope") == "Namespaced",
    )
