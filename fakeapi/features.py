"""Feature gates and the Kubernetes release fakeapi emulates: one table for every component.

fakeapi behaves like a Kubernetes 1.37 control plane (:data:`EMULATED_VERSION`, which ``/version``
reports too) with the seed KEPs switched on; ``--emulated-version 1.36``
(:func:`parse_emulated_version`) makes it a 1.36 one, with that release's gate defaults (each
spec's ``earlier`` rows, from upstream's versioned specs) and API versions (the resource table's
rows say which releases serve them). :data:`KNOWN_FEATURES` gives every DRA and workload
gate its 1.37 default, as upstream's versioned feature specs (``pkg/features/kube_features.go``
and the scheduler's feature list) resolve them at emulation version 1.37; the gates of the seed
designs (KEP-5729, KEP-5194, KEP-5677, KEP-4680) default to on. ``GenericWorkload`` is beta and off
in 1.37 but on here: the seed KEP-5729 builds on Workload and PodGroup, and without it the seed
feature could not be used at all. The API server, the registry strategies and the allocator all
read their defaults from this one table (docs/api.md lists the deliberate departures).

The flag parser follows component-base's ``featureGate.Set``: comma-separated ``Name=bool`` pairs,
Go ``strconv.ParseBool`` spelling, the first unknown or locked gate aborts with upstream's message.

Registry strategies call :func:`enabled` (a missing name means the default, never "off") and
:func:`drop_disabled_fields`, which reproduces upstream's ``dropDisabledFields`` pattern: fields of
a disabled gate are removed from a new object unless the old object already uses that gate's fields,
so an update never silently strips data that was stored while the gate was on.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

__all__ = [
    "EMULATED_VERSION",
    "SUPPORTED_VERSIONS",
    "KubernetesVersion",
    "EmulatedVersionError",
    "parse_emulated_version",
    "FeatureSpec",
    "FeatureGateError",
    "GatedFields",
    "KNOWN_FEATURES",
    "default_gates",
    "parse_feature_gates",
    "enabled",
    "drop_disabled_fields",
    "field_in_use",
    "drop_field",
]

Stage = Literal["alpha", "beta", "ga", "seed"]


@dataclass(frozen=True, slots=True)
class KubernetesVersion:
    """A Kubernetes minor release: ``str()`` gives ``1.37``, :attr:`git_version` ``v1.37.0``."""

    major: int
    minor: int

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}"

    @property
    def git_version(self) -> str:
        return f"v{self.major}.{self.minor}.0"


#: The release fakeapi emulates: ``/version``, the gate defaults below and the API versions served.
EMULATED_VERSION = KubernetesVersion(major=1, minor=37)


#: The releases ``--emulated-version`` accepts, oldest first.
SUPPORTED_VERSIONS = (KubernetesVersion(major=1, minor=36), EMULATED_VERSION)


@dataclass(frozen=True, slots=True)
class FeatureSpec:
    """One gate: its default, maturity and whether the default may be overridden, at
    :data:`EMULATED_VERSION`; ``earlier`` holds how older releases differed, as
    ``(minor, default, stage, locked)`` rows (upstream's versioned specs)."""

    name: str
    default: bool
    stage: Stage
    locked: bool = False
    earlier: tuple[tuple[int, bool, Stage, bool], ...] = ()

    def at(self, version: KubernetesVersion) -> FeatureSpec:
        """The gate as ``version`` defines it: the first ``earlier`` row at or after it."""
        if version.minor < EMULATED_VERSION.minor:
            for minor, default, stage, locked in sorted(self.earlier):
                if version.minor <= minor:
                    return FeatureSpec(self.name, default, stage, locked)
        return self


def _specs(*specs: FeatureSpec) -> dict[str, FeatureSpec]:
    return {spec.name: spec for spec in specs}


#: Every gate fakeapi knows, with its default at :data:`EMULATED_VERSION` (seed gates on).
KNOWN_FEATURES: Mapping[str, FeatureSpec] = _specs(
    # resource.k8s.io
    FeatureSpec("DynamicResourceAllocation", True, "ga", locked=True),
    FeatureSpec("DRAAdminAccess", True, "ga", locked=True),
    FeatureSpec("DRAPrioritizedList", True, "ga", locked=True, earlier=((36, True, "ga", False),)),
    FeatureSpec("DRAResourceClaimDeviceStatus", True, "ga", locked=True,
                earlier=((36, True, "beta", False),)),
    FeatureSpec("DRAExtendedResource", True, "ga", locked=True,
                earlier=((36, True, "beta", False),)),
    FeatureSpec("DRADeviceTaints", True, "ga", earlier=((36, True, "beta", False),)),
    FeatureSpec("DRADeviceTaintRules", True, "ga", earlier=((36, False, "beta", False),)),
    FeatureSpec("DRAPartitionableDevices", True, "beta"),
    FeatureSpec("DRAConsumableCapacity", True, "beta"),
    FeatureSpec("DRADeviceBindingConditions", True, "beta"),
    FeatureSpec("DRASchedulerFilterTimeout", True, "beta"),
    FeatureSpec("DRAResourceClaimGranularStatusAuthorization", True, "beta"),
    # beta in 1.37, but on by default only once the minimum compatibility version reaches 1.37
    FeatureSpec("DRAFractionalCapacityRange", False, "beta"),
    FeatureSpec("DRAWorkloadResourceClaims", False, "beta", earlier=((36, False, "alpha", False),)),
    FeatureSpec("DRAListTypeAttributes", False, "alpha"),
    FeatureSpec("DRANodeAllocatableResources", False, "alpha"),
    FeatureSpec("DRAOptionalNodeOperations", False, "alpha"),
    FeatureSpec("DRAPartitionableDevicesType", False, "alpha"),
    FeatureSpec("DRADerivedAttributes", False, "alpha"),
    FeatureSpec("DRADeviceCompatibilityGroups", False, "alpha"),
    # scheduling.k8s.io
    FeatureSpec("GenericWorkload", True, "beta"),  # off upstream; on for the seed KEP-5729
    FeatureSpec("TopologyAwareWorkloadScheduling", False, "alpha"),
    FeatureSpec("CompositePodGroup", False, "alpha"),
    FeatureSpec("PodGroupPreemptionPolicy", False, "alpha"),
    # core
    FeatureSpec("ClearingNominatedNodeNameAfterBinding", True, "beta"),
    FeatureSpec("SchedulerPopFromBackoffQ", True, "beta"),
    FeatureSpec("SchedulerPreEnqueuePodStatus", True, "beta"),  # KEP-5501
    # seed KEPs served by fakeapi
    FeatureSpec("WorkloadPodGroupResourceClaimTemplate", True, "seed"),
    FeatureSpec("DRAReservedForWorkloads", True, "seed"),
    FeatureSpec("DRAResourceAvailabilityVisibility", True, "seed"),
    FeatureSpec("ResourceHealthStatus", True, "seed"),
)


class FeatureGateError(ValueError):
    """A ``--feature-gates`` value the component-base parser would reject; str() is its message."""


class EmulatedVersionError(ValueError):
    """An ``--emulated-version`` fakeapi cannot emulate; str() is the message."""


def parse_emulated_version(text: str) -> KubernetesVersion:
    """``1.36``, ``v1.36`` or ``kube=1.36`` (component-base's form) as a supported release."""
    value = text.strip()
    if "=" in value:
        component, _, value = value.partition("=")
        if component.strip() != "kube":
            raise EmulatedVersionError(f"unrecognized component name: {component.strip()}")
    match = re.fullmatch(r"v?(\d+)\.(\d+)(?:\.\d+)?", value.strip())
    if match is None:
        raise EmulatedVersionError(f"illegal version string {value.strip()!r}")
    version = KubernetesVersion(major=int(match.group(1)), minor=int(match.group(2)))
    if version not in SUPPORTED_VERSIONS:
        oldest, newest = SUPPORTED_VERSIONS[0], SUPPORTED_VERSIONS[-1]
        raise EmulatedVersionError(
            f"emulation version {version} is not between [{oldest}, {newest}]"
        )
    return version


def default_gates(version: KubernetesVersion = EMULATED_VERSION) -> dict[str, bool]:
    """Every known gate at its default in ``version``."""
    return {name: spec.at(version).default for name, spec in KNOWN_FEATURES.items()}


_TRUE = frozenset({"1", "t", "T", "TRUE", "true", "True"})
_FALSE = frozenset({"0", "f", "F", "FALSE", "false", "False"})


def _parse_bool(text: str) -> bool:
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise ValueError(f'strconv.ParseBool: parsing "{text}": invalid syntax')


def parse_feature_gates(
    text: str,
    *,
    base: Mapping[str, bool] | None = None,
    version: KubernetesVersion = EMULATED_VERSION,
) -> dict[str, bool]:
    """The full gate map after applying ``A=true,B=false`` on top of ``base`` (the defaults).

    Raises :class:`FeatureGateError` with component-base's wording: ``missing bool value for X``,
    ``invalid value of X=Y, err: ...``, ``unrecognized feature gate: X`` or
    ``cannot set feature gate X to false, feature is locked to true``.
    """
    requested: dict[str, bool] = {}
    for item in text.split(","):
        if not item:
            continue
        name, sep, raw = item.partition("=")
        name = name.strip()
        if not sep:
            raise FeatureGateError(f"missing bool value for {name}")
        raw = raw.strip()
        try:
            requested[name] = _parse_bool(raw)
        except ValueError as exc:
            raise FeatureGateError(f"invalid value of {name}={raw}, err: {exc}") from None
    gates = dict(default_gates(version) if base is None else base)
    for name, value in requested.items():
        spec = KNOWN_FEATURES.get(name)
        if spec is None:
            raise FeatureGateError(f"unrecognized feature gate: {name}")
        spec = spec.at(version)
        if spec.locked and spec.default != value:
            raise FeatureGateError(
                f"cannot set feature gate {name} to {str(value).lower()}, "
                f"feature is locked to {str(spec.default).lower()}"
            )
        gates[name] = value
    return gates


def enabled(gates: Mapping[str, bool], name: str) -> bool:
    """Whether ``name`` is on in ``gates``; a gate missing from the map has its default."""
    value = gates.get(name)
    if value is not None:
        return value
    spec = KNOWN_FEATURES.get(name)
    return spec.default if spec is not None else False


# --- dropping fields of disabled gates ---------------------------------------------------------
#
# A field path is dotted wire names; ``[*]`` descends into every list item and ``{*}`` into every
# map value: ``spec.devices.requests[*].exactly.adminAccess``,
# ``spec.devices[*].capacity{*}.requestPolicy``.

_TOKEN = re.compile(r"([^.\[{]+)|\[\*\]|\{\*\}")


@functools.cache  # a handful of constant paths, parsed on every write of a gated kind
def _tokens(path: str) -> tuple[str, ...]:
    return tuple(match.group(1) or match.group(0) for match in _TOKEN.finditer(path))


def _parents(value: Any, tokens: tuple[str, ...]) -> list[tuple[dict[str, Any], str]]:
    """Every (containing dict, key) that ``tokens`` addresses inside ``value``, in document order.

    A frontier of the values reached so far, widened one token at a time, rather than a
    recursive generator: this runs for every gated path on every write of a gated kind, and
    nearly always stops at the first token or two (the field's parent is absent).
    """
    if not tokens:
        return []
    frontier: list[Any] = [value]
    for head in tokens[:-1]:
        reached: list[Any] = []
        if head == "[*]":
            for item in frontier:
                if isinstance(item, list):
                    reached.extend(item)
        elif head == "{*}":
            for item in frontier:
                if isinstance(item, dict):
                    reached.extend(item.values())
        else:
            for item in frontier:
                if isinstance(item, dict):
                    found = item.get(head)
                    if found is not None:
                        reached.append(found)
        if not reached:
            return []
        frontier = reached
    last = tokens[-1]
    if last == "[*]" or last == "{*}":
        return []  # a wildcard addresses items, not a field of a dict
    return [(item, last) for item in frontier if isinstance(item, dict) and last in item]


def _set(value: Any) -> bool:
    return value is not None and value != [] and value != {}


def field_in_use(obj: Mapping[str, Any] | None, path: str) -> bool:
    """Whether ``obj`` sets the field at ``path`` (not null, not an empty list or map)."""
    if obj is None:
        return False
    return any(_set(parent[key]) for parent, key in _parents(obj, _tokens(path)))


def drop_field(obj: dict[str, Any], path: str) -> None:
    """Remove the field at ``path`` (every match of the wildcards) from ``obj`` in place."""
    for parent, key in _parents(obj, _tokens(path)):
        del parent[key]


@dataclass(frozen=True, slots=True)
class GatedFields:
    """Fields that exist only while all of ``gates`` are on (upstream: one dropDisabled… function).

    ``in_use_paths`` decide whether the old object already uses the feature (defaults to ``paths``);
    upstream sometimes judges use by fewer fields than it drops.
    """

    gates: tuple[str, ...]
    paths: tuple[str, ...]
    in_use_paths: tuple[str, ...] = ()

    def in_use(self, obj: Mapping[str, Any] | None) -> bool:
        return any(field_in_use(obj, p) for p in (self.in_use_paths or self.paths))


def drop_disabled_fields(
    new: dict[str, Any],
    old: Mapping[str, Any] | None,
    *,
    gates: Mapping[str, bool],
    rules: Iterable[GatedFields],
) -> None:
    """Drop from ``new`` the fields of rules whose gates are not all on, unless ``old`` uses them.

    ``old`` is None on create, so disabled fields are always dropped then.
    """
    for rule in rules:
        for gate in rule.gates:  # enabled(), inlined: this runs for every rule on every write
            on = gates.get(gate)
            if on is None:
                spec = KNOWN_FEATURES.get(gate)
                on = spec is not None and spec.default
            if not on:
                break
        else:
            continue
        if rule.in_use(old):
            continue
        for path in rule.paths:
            drop_field(new, path)
