"""Claims prepared once per pod, before any node is tried.

Everything about a claim that does not depend on the node is worked out here: request and
subrequest specs, the device class, compiled selectors, capacity requests, tolerations and the
claim's constraints. The scheduler checks hundreds of nodes per pod with the same claims, so this
work must not be repeated per node.

Upstream validates requests at the start of every ``Allocate`` and stops at the first problem, in
a fixed order that interleaves node-independent checks with node-dependent ones (``All`` requests
look at the node's pools). To keep that exact order, a problem found here is stored on the spec
and raised only when the per-node pass reaches it. Selector compile errors are kept too: upstream
reports them only when a device is actually checked against the selector.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from fakeapi.cel import CELCompileError, CompiledSelector, SelectorCompiler
from fakeapi.objects import Obj, object_key
from fakeapi.quantity import Quantity, QuantityError, parse_quantity
from fakeapi.scheduler.plugins.dynamic_resources.constraints import (
    Constraint,
    DistinctAttribute,
    MatchAttribute,
)
from fakeapi.scheduler.plugins.dynamic_resources.errors import AllocationError
from fakeapi.scheduler.plugins.dynamic_resources.features import AllocatorFeatures

__all__ = [
    "ClassEntry",
    "PreparedClaim",
    "PreparedRequest",
    "RequestSpec",
    "prepare_claim",
]

Selector = tuple[int, CompiledSelector | CELCompileError]


@dataclass(slots=True)
class ClassEntry:
    """A DeviceClass with its selectors compiled."""

    name: str
    raw: Obj
    selectors: tuple[Selector, ...]
    config: tuple[Obj, ...]


@dataclass(slots=True)
class RequestSpec:
    """One ``exactly`` request or one subrequest of a ``firstAvailable`` list."""

    name: str
    parent: str | None
    raw: Obj
    error: AllocationError | None = None
    device_class: ClassEntry | None = None
    selectors: tuple[Selector, ...] = ()
    mode: str = "ExactCount"
    count: int = 1
    admin: bool = False
    tolerations: list[Obj] | None = None
    capacity: dict[str, Quantity] | None = None
    index: int = 0

    @property
    def full_name(self) -> str:
        return f"{self.parent}/{self.name}" if self.parent else self.name

    @property
    def base_name(self) -> str:
        return self.parent or self.name

    @property
    def subrequest(self) -> str | None:
        return self.name if self.parent else None


@dataclass(slots=True)
class PreparedRequest:
    name: str
    error: AllocationError | None
    specs: list[RequestSpec]
    has_subrequests: bool


@dataclass(slots=True)
class PreparedClaim:
    raw: Obj
    ref: str
    requests: list[PreparedRequest]
    constraint_error: AllocationError | None
    constraint_specs: list[tuple[type[Constraint], list[str], str]] = field(default_factory=list)
    # False when neither the claim nor any class it uses has config (results skip that work).
    has_config: bool = True

    def new_constraints(self, list_semantics: bool) -> list[Constraint]:
        return [
            kind(requests, attribute, list_semantics)
            for kind, requests, attribute in self.constraint_specs
        ]


def _compile_all(compiler: SelectorCompiler, selectors: Sequence[Obj]) -> tuple[Selector, ...]:
    out: list[Selector] = []
    for i, selector in enumerate(selectors):
        cel = selector.get("cel") if isinstance(selector, Mapping) else None
        expression = cel.get("expression") if isinstance(cel, Mapping) else None
        try:
            if expression is None:
                raise CELCompileError("CEL expression empty (unsupported selector type?)")
            out.append((i, compiler.compile(str(expression))))
        except CELCompileError as exc:
            out.append((i, exc))
    return tuple(out)


def prepare_class(raw: Obj, compiler: SelectorCompiler) -> ClassEntry:
    spec = raw.get("spec") or {}
    name = str((raw.get("metadata") or {}).get("name", ""))
    return ClassEntry(
        name,
        raw,
        _compile_all(compiler, spec.get("selectors") or ()),
        tuple(spec.get("config") or ()),
    )


def _capacity_requests(raw: Obj) -> dict[str, Quantity] | None:
    capacity = raw.get("capacity")
    if not isinstance(capacity, Mapping):
        return None
    out: dict[str, Quantity] = {}
    for name, value in (capacity.get("requests") or {}).items():
        try:
            out[str(name)] = parse_quantity(str(value))
        except QuantityError:
            continue
    return out


def _spec(
    *,
    ref: str,
    raw: Obj,
    name: str,
    parent: str | None,
    classes: Mapping[str, ClassEntry],
    compiler: SelectorCompiler,
    features: AllocatorFeatures,
) -> RequestSpec:
    spec = RequestSpec(name=name, parent=parent, raw=raw)
    prefix = f"claim {ref}, request {name}"
    for i, selector in enumerate(raw.get("selectors") or ()):
        cel = selector.get("cel") if isinstance(selector, Mapping) else None
        if not isinstance(cel, Mapping):
            spec.error = AllocationError(
                f"{prefix}, selector #{i}: CEL expression empty (unsupported selector type?)"
            )
            return spec
    if not features.admin_access and parent is None and raw.get("adminAccess") is not None:
        spec.error = AllocationError(
            f"{prefix}: admin access is requested, but the feature is disabled"
        )
        return spec
    class_name = raw.get("deviceClassName") or ""
    if not class_name:
        spec.error = AllocationError(
            f"{prefix}: missing device class name (unsupported request type?)"
        )
        return spec
    device_class = classes.get(class_name)
    if device_class is None:
        spec.error = AllocationError(
            f"{prefix}: could not retrieve device class {class_name}: "
            f'deviceclass.resource.k8s.io "{class_name}" not found'
        )
        return spec
    spec.device_class = device_class
    spec.selectors = _compile_all(compiler, raw.get("selectors") or ())
    spec.mode = raw.get("allocationMode") or "ExactCount"
    spec.count = int(raw.get("count") or 1) if spec.mode == "ExactCount" else 0
    spec.admin = parent is None and bool(raw.get("adminAccess"))
    spec.tolerations = list(raw["tolerations"]) if raw.get("tolerations") else None
    spec.capacity = _capacity_requests(raw)
    if spec.mode not in ("ExactCount", "All"):
        spec.error = AllocationError(f"{prefix}: unsupported count mode {spec.mode}")
    return spec


def prepare_claim(
    claim: Obj,
    *,
    classes: Mapping[str, ClassEntry],
    compiler: SelectorCompiler,
    features: AllocatorFeatures,
) -> PreparedClaim:
    ref = object_key(claim)  # how messages name the claim
    devices = (claim.get("spec") or {}).get("devices") or {}
    prepared: list[PreparedRequest] = []
    for request in devices.get("requests") or ():
        name = str(request.get("name", ""))
        subrequests = request.get("firstAvailable") or []
        exactly = request.get("exactly") or {}
        error: AllocationError | None = None
        if subrequests and not features.prioritized_list:
            error = AllocationError(
                f"claim {ref}, request {name}: has subrequests, "
                "but the DRAPrioritizedList feature is disabled"
            )
        elif not features.consumable_capacity:
            if exactly.get("capacity") is not None:
                error = AllocationError(
                    f"claim {ref}, request {name}: has capacity requests, "
                    "but the DRAConsumableCapacity feature is disabled"
                )
            for sub in subrequests:
                if error is None and sub.get("capacity") is not None:
                    error = AllocationError(
                        f"claim {ref}, subrequest {sub.get('name', '')}: has capacity requests, "
                        "but the DRAConsumableCapacity feature is disabled"
                    )
        specs: list[RequestSpec] = []
        if error is None:
            common = {"ref": ref, "classes": classes, "compiler": compiler, "features": features}
            if subrequests:
                for i, sub in enumerate(subrequests):
                    spec = _spec(raw=sub, name=str(sub.get("name", "")), parent=name, **common)  # type: ignore[arg-type]
                    spec.index = i
                    specs.append(spec)
            else:
                specs.append(_spec(raw=exactly, name=name, parent=None, **common))  # type: ignore[arg-type]
        prepared.append(PreparedRequest(name, error, specs, bool(subrequests)))

    constraint_error: AllocationError | None = None
    constraint_specs: list[tuple[type[Constraint], list[str], str]] = []
    for i, constraint in enumerate(devices.get("constraints") or ()):
        requests = list(constraint.get("requests") or [])
        if constraint.get("matchAttribute") is not None:
            constraint_specs.append((MatchAttribute, requests, str(constraint["matchAttribute"])))
        elif constraint.get("distinctAttribute") is not None:
            constraint_specs.append(
                (DistinctAttribute, requests, str(constraint["distinctAttribute"]))
            )
        else:
            constraint_error = AllocationError(
                f"claim {ref}, constraint #{i}: empty constraint (unsupported constraint type?)"
            )
            break
    has_config = bool(devices.get("config")) or any(
        spec.device_class is not None and spec.device_class.config
        for request in prepared
        for spec in request.specs
    )
    return PreparedClaim(claim, ref, prepared, constraint_error, constraint_specs, has_config)
