"""The base every API type derives from, and the markers that describe lists and maps.

API types are pydantic models used as *schemas*: objects at rest stay JSON-shaped dicts, and the
models validate writes, produce OpenAPI and drive patching. What upstream writes as Go struct tags
and OpenAPI extensions (``patchStrategy``, ``patchMergeKey``, ``listType``, ``listMapKeys``,
``mapType``) is declared here once, with ``Annotated`` markers next to the field, so strategic
merge, server-side apply and the OpenAPI documents all read the same facts.

Field names are snake_case in Python and camelCase on the wire (``alias_generator``); a field
whose wire name does not follow the rule (``hostIPs``) spells its alias out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

__all__ = [
    "K8sModel",
    "ListMeta_",
    "MapMeta",
    "Quantity",
    "IntOrString",
    "Time",
    "MicroTime",
    "Int32",
    "RawJSON",
    "atomic_list",
    "set_list",
    "map_list",
    "merge_list",
    "atomic_map",
    "Field",
    "GoType",
]


class K8sModel(BaseModel):
    """Base of every API type: camelCase aliases, unknown fields are a schema error.

    A field's docstring (the string literal under it) is its description in OpenAPI and
    ``kubectl explain``; ``fakeapi.schema`` reads them from the source when it compiles a kind,
    which keeps importing the models cheap.

    Unknown fields never reach a model: the registry prunes them (and reports them as the
    ``fieldValidation`` mode asks) before validating, so ``extra="forbid"`` is only a safety net.
    """

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="forbid",
        validate_default=False,
        # validators are built on first use of each kind, not at import: start-up stays fast
        defer_build=True,
    )


@dataclass(frozen=True, slots=True)
class ListMeta_:  # noqa: N801 - the trailing underscore keeps it apart from the API's ListMeta
    """How a list field merges and how apply tracks ownership of its items.

    ``list_type`` is the OpenAPI ``x-kubernetes-list-type`` (``atomic``, ``set`` or ``map``) and
    ``map_keys`` its ``x-kubernetes-list-map-keys``. ``patch_strategy``/``patch_merge_key`` are
    the strategic-merge-patch tags; they usually agree with the list type but upstream has lists
    that merge by a key without being ``map`` lists (``ownerReferences`` by ``uid``).
    """

    list_type: Literal["atomic", "set", "map"] = "atomic"
    map_keys: tuple[str, ...] = ()
    patch_strategy: str | None = None
    patch_merge_key: str | None = None


@dataclass(frozen=True, slots=True)
class MapMeta:
    """``x-kubernetes-map-type`` of a struct or map field: ``atomic`` replaces it as a whole."""

    map_type: Literal["atomic", "granular"] = "atomic"


@dataclass(frozen=True, slots=True)
class GoType:
    """The named Go type a string field has upstream (``DeviceAllocationMode``).

    Only the decoder's error text shows it (``... of type v1.DeviceAllocationMode``); a name
    with a dot (``v1.ConditionStatus``) is printed as is, a bare one with the kind's version.
    """

    name: str


def atomic_list() -> ListMeta_:
    """A list replaced as a whole by every patch and owned as a whole by apply."""
    return ListMeta_("atomic")


def set_list() -> ListMeta_:
    """A list of scalars merged as a set (``patchStrategy: merge`` on primitives)."""
    return ListMeta_("set", (), "merge", None)


def map_list(*keys: str, patch: bool = True) -> ListMeta_:
    """A list of objects identified by ``keys``; with ``patch`` it also merges by the first key."""
    if patch:
        return ListMeta_("map", keys, "merge", keys[0])
    return ListMeta_("map", keys)


def merge_list(key: str, *, strategy: str = "merge") -> ListMeta_:
    """A list that strategic merge patches by ``key`` but that is atomic for apply."""
    return ListMeta_("atomic", (), strategy, key)


def atomic_map() -> MapMeta:
    """A struct or map replaced as a whole."""
    return MapMeta("atomic")


#: A resource quantity (``"1Gi"``, ``"500m"``, ``4``): a string or a number on the wire.
Quantity = Annotated[str | int | float, "quantity"]
#: ``intstr.IntOrString``.
IntOrString = Annotated[int | str, "int-or-string"]
#: ``metav1.Time``: an RFC 3339 timestamp, stored in UTC with whole seconds
#: (``2026-01-01T00:00:00Z``).
Time = Annotated[str, "date-time"]
#: ``metav1.MicroTime``: a timestamp with exactly six fractional digits
#: (``2026-01-01T00:00:00.000000Z``), stored in UTC.
MicroTime = Annotated[str, "micro-time"]
#: A 32-bit integer (Go ``int32``); a value out of its range fails decoding.
Int32 = Annotated[int, "int32"]
#: Free-form JSON kept as sent (``runtime.RawExtension``).
RawJSON = Annotated[Any, "raw"]
