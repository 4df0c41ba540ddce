"""The DynamicResources plugin: kube-scheduler's DRA plugin around the allocator library.

Phases, as upstream (``pkg/scheduler/framework/plugins/dynamicresources``):

* **PreEnqueue** — every claim of the pod must exist (template claims: once the resourceclaim
  controller recorded them in the pod status; PodGroup claims: through the PodGroup), not be
  deleting, and be owned by the pod or its PodGroup.
* **PreFilter** — allocated claims must be reserved for the pod or reservable
  (``resourceclaim in use``); an unallocated claim whose allocation is in flight for another pod
  waits (``resource claim ns/x is in the process of being allocated``) unless that pod is of the
  same PodGroup and reached it through the group; a missing DeviceClass makes the pod
  unschedulable. Unallocated claims are prepared once for the allocator.
* **Filter** — per node: allocated claims' node selectors must match, and with device binding
  conditions their binding must not have failed or timed out
  (``resourceclaim not available on the node``); unallocated claims must all allocate
  (``cannot allocate all claims``). A node's result is reused while nothing that feeds the
  allocator for that node has changed (its labels, its pools' slices and allocations, classes,
  taint rules; ``memo.py``).
* **PostFilter** — deallocate one allocated claim that blocked the pod and is reserved for
  nobody but the pod, or for the pod's PodGroup while no member of it is assumed or bound (the
  seed's PodGroupPostFilter); never one reserved for a workload or a busy group, nor one whose
  allocation is still in flight (``postfilter.py``).
* **Score** — prioritized lists: ``8 − i`` for each subrequest chosen at index ``i``.
* **Reserve / Unreserve** — the chosen allocation is marked in flight (so the next pod cannot
  take the devices); Unreserve drops it, takes the pod out of ``reservedFor`` and undoes an
  allocation PreBind already wrote.
* **PreBind** — finalizer ``resource.kubernetes.io/delete-protection`` (an update), then
  ``status.allocation`` and ``status.reservedFor`` (a status update), retried on conflicts; with
  device binding conditions on any of the pod's claims (allocated now or shared), records
  ``BindingConditionsPending`` on the pod and waits until the drivers report them (or a failure,
  or the timeout, counted from the claim's ``allocationTimestamp``).

Extended resources backed by DRA (``resources.requests: {example.com/gpu: 1}`` mapped by a
DeviceClass) go through one more claim, the scheduler's own: see ``extended.py``. Filter adds it,
with the requests the node needs, to the claims it allocates; Reserve holds its allocation under
a temporary uid; PreBind creates it, binds it like the others and records it in the pod's
``status.extendedResourceClaimStatus``; Unreserve deletes it. One left over from an earlier
attempt makes every node unschedulable, and PostFilter deletes it for the next attempt.

Who a claim is reserved for is decided in ``podclaims.py``.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from fakeapi.client import (
    DEVICE_CLASSES,
    DEVICE_TAINT_RULES,
    NODES,
    POD_GROUPS,
    PODS,
    RESOURCE_CLAIMS,
    RESOURCE_SLICES,
    Client,
)
from fakeapi.features import enabled
from fakeapi.objects import Obj, meta
from fakeapi.rules.claims import (
    EXTENDED_RESOURCE_ANNOTATION,
    can_be_reserved,
    is_reserved_for,
    is_reserved_for_pod,
)
from fakeapi.rules.podgroups import pod_group_name
from fakeapi.scheduler.framework.cycle_state import CycleState
from fakeapi.scheduler.framework.events import (
    ClusterEventWithHint,
)
from fakeapi.scheduler.framework.interface import (
    Handle,
    NodeToStatus,
    PostFilterResult,
    PreFilterResult,
)
from fakeapi.scheduler.framework.status import (
    Code,
    Status,
    as_error,
    skip,
    unresolvable,
)
from fakeapi.scheduler.framework.types import NodeInfo, NodeScore, klog_name
from fakeapi.scheduler.plugins.dynamic_resources.allocator import Allocator, PreparedClaims
from fakeapi.scheduler.plugins.dynamic_resources.claims import ClaimTracker
from fakeapi.scheduler.plugins.dynamic_resources.errors import (
    AllocationError,
    AllocationTimeoutError,
    FailedAllocationOnNodeError,
)
from fakeapi.scheduler.plugins.dynamic_resources.extended import (
    IN_MEMORY_NAME,
    OWNER_INDEX,
    DeviceClassResolver,
    ExtendedRequests,
    owner_index,
    pod_extended_resources,
    requests_and_mappings,
)
from fakeapi.scheduler.plugins.dynamic_resources.features import AllocatorFeatures
from fakeapi.scheduler.plugins.dynamic_resources.hints import QueueingHints
from fakeapi.scheduler.plugins.dynamic_resources.inventory import DeviceInventory
from fakeapi.scheduler.plugins.dynamic_resources.memo import FilterMemo, MemoEntry
from fakeapi.scheduler.plugins.dynamic_resources.nodeaffinity import node_selector_matches
from fakeapi.scheduler.plugins.dynamic_resources.podclaims import (
    ClaimNotReadyError,
    PodClaim,
    resolve_pod_claims,
)
from fakeapi.scheduler.plugins.dynamic_resources.postfilter import ClaimReleaser
from fakeapi.scheduler.plugins.dynamic_resources.writer import BindError, ClaimWriter
from fakeapi.scheduler.plugins.helpers import default_normalize_score

__all__ = ["DEFAULT_FILTER_TIMEOUT", "DynamicResources", "NAME"]

log = logging.getLogger("fakeapi.scheduler.dra")
NAME = "DynamicResources"
#: upstream's default ``filterTimeout`` for one node's allocation in Filter, in seconds
DEFAULT_FILTER_TIMEOUT = 10.0
MAX_SUBREQUESTS = 8
#: the common per-node rejection, shared: Filter results are only read afterwards
_CANNOT_ALLOCATE = Status(
    Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ("cannot allocate all claims",), plugin=NAME
)
_TIMED_OUT = Status(
    Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ("timed out trying to allocate devices",), plugin=NAME
)
_NOT_AVAILABLE = Status(
    Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ("resourceclaim not available on the node",), plugin=NAME
)
#: a placeholder in Filter's answers for a node whose answer is not remembered
_ASK_ALLOCATOR = Status(Code.ERROR, ("not asked yet",), plugin=NAME)
_STALE_EXTENDED = Status(
    Code.UNSCHEDULABLE, ("cannot schedule extended resource claim",), plugin=NAME
)


@dataclass(slots=True)
class _PodState:
    claims: list[PodClaim]
    #: indexes of claims the scheduler allocates in this attempt
    to_allocate: list[int] = field(default_factory=list)
    prepared: PreparedClaims | None = None
    signature: bytes = b""
    #: node selectors of claims already allocated (or shared in flight), by claim index
    available_on: dict[int, tuple[Obj, frozenset[str] | None]] = field(default_factory=dict)
    #: claims whose allocation is in flight for another member of the pod's group
    shared_pending: dict[int, Obj] = field(default_factory=dict)
    #: the allocations Filter found, by node name: those it computed, then (``remembered``)
    #: those the memo had (see ``_allocations_on``)
    node_allocations: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    remembered: Mapping[str, MemoEntry] = field(default_factory=dict)
    unavailable: set[int] = field(default_factory=set)
    #: allocated claims whose device binding failed or timed out: no node will do until they
    #: are allocated again (PostFilter may deallocate them)
    binding_blocked: list[int] = field(default_factory=list)
    allocations: dict[int, Obj] = field(default_factory=dict)
    pending_uids: list[str] = field(default_factory=list)
    #: claims whose allocation PreBind wrote (Unreserve takes it back)
    wrote_allocation: set[int] = field(default_factory=set)
    group: Obj | None = None
    extended: _Extended | None = None


@dataclass(slots=True)
class _Extended:
    """The pod's extended resources backed by DRA, served by one claim of the scheduler's."""

    pod: Obj
    #: the DRA-mapped extended resources the pod requests
    resources: list[str]
    #: the in-memory claim (metadata only), or the one an earlier attempt left (``stale``)
    claim: Obj
    stale: bool
    #: the in-memory claim's temporary uid, under which Reserve holds its allocation
    uid: str
    #: by the resources a node needs through DRA: their requests, the allocator's prepared
    #: claims (the pod's, then this one) and the signature of its remembered answers
    variants: dict[frozenset[str], tuple[ExtendedRequests, PreparedClaims, bytes]] = field(
        default_factory=dict
    )
    #: nodes whose allocation (last in ``node_allocations``) includes this claim
    on_node: dict[str, ExtendedRequests] = field(default_factory=dict)
    #: what Reserve chose, and the claim as PreBind created and bound it
    requests: ExtendedRequests | None = None
    allocation: Obj | None = None
    created: Obj | None = None


def _allocations_on(s: _PodState, node_name: str) -> list[dict[str, Any]] | None:
    """The allocations Filter found for the pod's claims on a node it let through.

    Filter leaves the answers it took from the memo there rather than copying them per node;
    they cannot be gone by the time Score and Reserve read them, which run in the same
    scheduling cycle, without awaiting, before anything can change the memo.
    """
    found = s.node_allocations.get(node_name)
    if found is None:
        entry = s.remembered.get(node_name)
        if entry is not None:
            found = entry.result
    return found


def _pinned_nodes(selector: Obj) -> frozenset[str] | None:
    """The node names of a selector that is exactly ``metadata.name In [...]`` (what the
    allocator writes for node-local devices), else None."""
    terms: list[Obj] = list(selector.get("nodeSelectorTerms") or ())
    if len(terms) != 1 or terms[0].get("matchExpressions"):
        return None
    fields: list[Obj] = list(terms[0].get("matchFields") or ())
    if len(fields) != 1:
        return None
    field_req = fields[0]
    if field_req.get("key") != "metadata.name" or field_req.get("operator") != "In":
        return None
    return frozenset(field_req.get("values") or ())


class DynamicResources:
    name = NAME

    def __init__(self, handle: Handle) -> None:
        self.handle = handle
        self.client: Client = handle.client
        gates = handle.feature_gates
        self.features = AllocatorFeatures.from_gates(gates)
        self.pod_group_claims = enabled(gates, "WorkloadPodGroupResourceClaimTemplate")
        self.reserved_for_workloads = enabled(gates, "DRAReservedForWorkloads")
        self.taint_rules_enabled = enabled(gates, "DRADeviceTaintRules")
        self.inventory = DeviceInventory(features=self.features)
        self.allocator = Allocator(inventory=self.inventory)
        #: Filter's allocator, its answers remembered per requests and node
        self.memo = FilterMemo(
            inventory=self.inventory,
            allocator=self.allocator,
            monotonic=self._monotonic,
            # upstream's ``filterTimeout``: 10 s with DRASchedulerFilterTimeout on; 0 waits
            filter_timeout=(
                DEFAULT_FILTER_TIMEOUT if enabled(gates, "DRASchedulerFilterTimeout") else 0.0
            ),
        )
        self.claims_informer = handle.informer(RESOURCE_CLAIMS)
        self.tracker = ClaimTracker(
            informer=self.claims_informer,
            inventory=self.inventory,
            on_pool_change=self.memo.forget_pool,
        )
        self.pod_groups = handle.informer(POD_GROUPS)
        #: extended resources backed by DRA (None: DRAExtendedResource off)
        self.resolver: DeviceClassResolver | None = None
        if enabled(gates, "DRAExtendedResource"):
            self.resolver = DeviceClassResolver(handle.informer(DEVICE_CLASSES))
            self.claims_informer.add_index(OWNER_INDEX, owner_index)
        self.writer = ClaimWriter(
            client=self.client,
            tracker=self.tracker,
            clock=handle.clock,
            features=self.features,
            event=handle.event,
            reserved_for_workloads=self.reserved_for_workloads,
        )
        self.releaser = ClaimReleaser(handle=handle, writer=self.writer, tracker=self.tracker)
        self.hints = QueueingHints(resolve=self._resolve)
        self._wire()

    def _monotonic(self) -> float:
        """The scheduler's clock, read each time (a test may swap the clock)."""
        return self.handle.clock.monotonic()

    @property
    def filter_timeout(self) -> float:
        """Seconds one node's allocation may take in Filter (0: no limit)."""
        return self.memo.filter_timeout

    @filter_timeout.setter
    def filter_timeout(self, seconds: float) -> None:
        self.memo.filter_timeout = seconds

    @property
    def allocate_calls(self) -> int:
        """How often Filter ran the allocator (for benchmarks and tests)."""
        return self.memo.allocate_calls

    @property
    def memo_hits(self) -> int:
        """How often Filter reused a remembered answer instead."""
        return self.memo.hits

    # -- informers ------------------------------------------------------------------------------
    def _wire(self) -> None:
        self.claims_informer.add_handler(
            on_add=self._claim_seen,
            on_update=lambda old, new: self._claim_seen(new),
            on_delete=self.tracker.on_claim_deleted,
        )
        slices = self.handle.informer(RESOURCE_SLICES)
        slices.add_handler(
            on_add=self.inventory.upsert_slice,
            on_update=lambda old, new: self.inventory.upsert_slice(new),
            on_delete=lambda obj: self.inventory.remove_slice(key=meta(obj).get("name", "")),
        )
        # Filter's remembered answers hold for a node's labels: they go when the labels change
        # (handlers of one informer run in one dispatch, so the cache's NodeInfo and the memo
        # never disagree during a scheduling cycle)
        self.handle.informer(NODES).add_handler(
            on_add=self._node_seen,
            on_update=self._node_updated,
            on_delete=self._node_seen,
        )
        classes = self.handle.informer(DEVICE_CLASSES)
        classes.add_handler(
            on_add=self._class_seen,
            on_update=lambda old, new: self._class_seen(new),
            on_delete=self._class_gone,
        )
        if self.taint_rules_enabled:
            rules = self.handle.informer(DEVICE_TAINT_RULES)
            rules.add_handler(
                on_add=self.inventory.upsert_taint_rule,
                on_update=lambda old, new: self.inventory.upsert_taint_rule(new),
                on_delete=lambda obj: self.inventory.remove_taint_rule(
                    name=meta(obj).get("name", "")
                ),
            )

    def _node_seen(self, node: Obj) -> None:
        """A node came or went: no answer of an earlier node of that name holds."""
        self.memo.forget_node(meta(node).get("name", ""))

    def _node_updated(self, old: Obj, new: Obj) -> None:
        if meta(old).get("labels") != meta(new).get("labels"):
            self.memo.forget_node(meta(new).get("name", ""))

    def _claim_seen(self, claim: Obj) -> None:
        self.tracker.on_claim(claim)
        self.writer.claim_changed(meta(claim).get("uid", ""))

    def _class_seen(self, device_class: Obj) -> None:
        self.inventory.upsert_class(device_class)
        self.memo.classes_changed()

    def _class_gone(self, device_class: Obj) -> None:
        self.inventory.remove_class(name=meta(device_class).get("name", ""))
        self.memo.classes_changed()

    def _get_pod_group(self, namespace: str, name: str) -> Obj | None:
        return self.pod_groups.get(f"{namespace}/{name}")

    def _resolve(self, pod: Obj) -> list[PodClaim]:
        return resolve_pod_claims(
            pod,
            get_claim=self.tracker.get,
            get_pod_group=self._get_pod_group,
            pod_group_claims=self.pod_group_claims,
        )

    # -- queueing --------------------------------------------------------------------------------
    def events_to_register(self) -> list[ClusterEventWithHint]:
        return self.hints.events()

    def pre_enqueue(self, pod: Obj) -> Status | None:
        if not (pod.get("spec") or {}).get("resourceClaims"):
            return None
        try:
            self._resolve(pod)
        except ClaimNotReadyError as exc:
            return unresolvable(str(exc))
        return None

    # -- scheduling cycle -------------------------------------------------------------------------
    def pre_filter(
        self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        extended = (
            pod_extended_resources(pod, self.resolver) if self.resolver is not None else []
        )
        if not (pod.get("spec") or {}).get("resourceClaims") and not extended:
            return None, skip()
        try:
            claims = self._resolve(pod)
        except ClaimNotReadyError as exc:
            return None, unresolvable(str(exc))
        if not claims and not extended:
            return None, skip()
        s = _PodState(claims=claims)
        if extended:
            s.extended = self._extended(pod, extended)
        state.write(NAME, s)
        group_name = pod_group_name(pod)
        namespace = meta(pod).get("namespace", "")
        s.group = self._get_pod_group(namespace, group_name) if group_name else None
        to_allocate: list[Obj] = []
        for index, pod_claim in enumerate(claims):
            claim = pod_claim.claim
            allocation = (claim.get("status") or {}).get("allocation")
            if allocation is not None:
                if not can_be_reserved(claim) and not is_reserved_for_pod(pod, claim):
                    return None, unresolvable("resourceclaim in use")
                if self.writer.binding_blocked(claim):
                    s.binding_blocked.append(index)
                if allocation.get("nodeSelector"):
                    selector = allocation["nodeSelector"]
                    s.available_on[index] = (selector, _pinned_nodes(selector))
                continue
            pending = self.tracker.pending(meta(claim).get("uid", ""))
            if pending is not None:
                if pod_claim.via_group and pending.group == f"{namespace}/{group_name}":
                    s.shared_pending[index] = pending.allocation
                    if pending.allocation.get("nodeSelector"):
                        selector = pending.allocation["nodeSelector"]
                        s.available_on[index] = (selector, _pinned_nodes(selector))
                    continue
                return None, unresolvable(
                    f"resource claim {klog_name(claim)} is in the process of being allocated"
                )
            status = self._check_classes(claim)
            if status is not None:
                return None, status
            s.to_allocate.append(index)
            to_allocate.append(claim)
        if to_allocate:
            s.prepared = self.allocator.prepare(claims=to_allocate)
            # what the allocator's answer depends on, besides the node: the requests (a claim's
            # name only appears in errors, which are never reused)
            s.signature = orjson.dumps([(c.get("spec") or {}).get("devices") for c in to_allocate])
        return None, None

    def _extended(self, pod: Obj, resources: list[str]) -> _Extended:
        """The claim for the pod's extended resources: one an earlier attempt created, or a new
        one in memory (upstream's ``preFilterExtendedResources``)."""
        metadata = meta(pod)
        uid = metadata.get("uid", "")
        earlier = self.claims_informer.by_index(OWNER_INDEX, uid)
        if earlier:
            return _Extended(pod, resources, earlier[0], stale=True, uid="")
        claim = {
            "metadata": {
                "name": IN_MEMORY_NAME,
                "generateName": f"{metadata.get('name', '')}-extended-resources-",
                "namespace": metadata.get("namespace", ""),
                "annotations": {EXTENDED_RESOURCE_ANNOTATION: "true"},
                "ownerReferences": [
                    {"apiVersion": "v1", "kind": "Pod", "name": metadata.get("name", ""),
                     "uid": uid, "controller": True, "blockOwnerDeletion": True},
                ],
            },
            "spec": {},
        }
        temporary = str(uuid.UUID(int=self.handle.rng.getrandbits(128), version=4))
        return _Extended(pod, resources, claim, stale=False, uid=temporary)

    def _variant(
        self, s: _PodState, needed: frozenset[str]
    ) -> tuple[ExtendedRequests, PreparedClaims, bytes]:
        """What the allocator gets on a node that needs ``needed`` through DRA."""
        ext = s.extended
        assert ext is not None and self.resolver is not None
        found = ext.variants.get(needed)
        if found is None:
            requests = requests_and_mappings(ext.pod, sorted(needed), self.resolver)
            claim = {**ext.claim, "spec": {"devices": {"requests": requests.requests}}}
            claims = [*(s.claims[index].claim for index in s.to_allocate), claim]
            found = ext.variants[needed] = (
                requests,
                self.allocator.prepare(claims=claims),
                orjson.dumps([(c.get("spec") or {}).get("devices") for c in claims]),
            )
        return found

    def _check_classes(self, claim: Obj) -> Status | None:
        for request in ((claim.get("spec") or {}).get("devices") or {}).get("requests") or ():
            name = request.get("name", "")
            exactly = request.get("exactly")
            subrequests = request.get("firstAvailable")
            if exactly is not None:
                checks = [(name, exactly.get("deviceClassName", ""))]
            elif subrequests:
                if not self.features.prioritized_list:
                    return unresolvable(
                        f"resource claim {klog_name(claim)}, request {name}: has subrequests, "
                        "but the DRAPrioritizedList feature is disabled"
                    )
                checks = [
                    (f"{name}/{sub.get('name', '')}", sub.get("deviceClassName", ""))
                    for sub in subrequests
                ]
            else:
                checks = [(name, "")]
            for request_name, class_name in checks:
                if not class_name:
                    return as_error(f"request {request_name}: unsupported request type")
                if class_name not in self.inventory.classes:
                    return unresolvable(
                        f"request {request_name}: device class {class_name} does not exist"
                    )
        return None

    def filter_nodes(
        self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]
    ) -> list[Status | None]:
        s: _PodState | None = state.get(NAME)
        if s is None:
            return [None] * len(nodes)
        if s.binding_blocked:
            s.unavailable.update(s.binding_blocked)
            return [_NOT_AVAILABLE] * len(nodes)
        if s.extended is not None:  # the claim's requests depend on the node
            return [self._filter(s, node) for node in nodes]
        if s.available_on and s.prepared is None:
            pins = [(index, pinned) for index, (_, pinned) in s.available_on.items()]
            index, pinned = pins[0]
            if len(pins) == 1 and pinned is not None:
                # one allocated claim pinned to named nodes, nothing to allocate: set lookups
                pinned_answers: list[Status | None] = [
                    None if node.name in pinned else _NOT_AVAILABLE for node in nodes
                ]
                if any(answer is not None for answer in pinned_answers):
                    s.unavailable.add(index)
                return pinned_answers
            if all(pinned is not None for _, pinned in pins):
                return [self._pinned(s, pins, node.name) for node in nodes]
        if s.available_on or s.prepared is None:
            return [self._filter(s, node) for node in nodes]
        # the common case: no node-bound claims, and an answer per node, mostly remembered
        # (one dict lookup per node, by name: this runs for hundreds of nodes per pod); a
        # remembered answer's allocations stay in the memo (``_allocations_on`` finds them)
        s.remembered = self.memo.remembered(s.signature)
        fits = self.memo.fits(s.signature).get
        answers: list[Status | None] = []
        append = answers.append
        missed = 0
        for node in nodes:
            fit = fits(node.name)
            if fit:
                append(None)
            elif fit is None:
                missed += 1
                append(_ASK_ALLOCATOR)
            else:
                append(_CANNOT_ALLOCATE)
        if missed:
            for position, answer in enumerate(answers):
                if answer is _ASK_ALLOCATOR:
                    answers[position] = self._filter(s, nodes[position])
        self.memo.hits += len(nodes) - missed
        return answers

    def filter(self, state: CycleState, pod: Obj, node: NodeInfo) -> Status | None:
        return self.filter_nodes(state, pod, (node,))[0]

    def _pinned(
        self, s: _PodState, pins: list[tuple[int, frozenset[str] | None]], node_name: str
    ) -> Status | None:
        """What :meth:`_filter` answers when every allocated claim names its nodes."""
        missing = [index for index, pinned in pins if pinned is None or node_name not in pinned]
        if not missing:
            return None
        s.unavailable.update(missing)
        return _NOT_AVAILABLE

    def _filter(self, s: _PodState, node: NodeInfo) -> Status | None:
        prepared, signature = s.prepared, s.signature
        extra: ExtendedRequests | None = None
        ext = s.extended
        if ext is not None:
            if ext.stale:
                return _STALE_EXTENDED
            # a resource the node advertises comes from its device plugin, not from DRA
            needed = frozenset(r for r in ext.resources if not node.allocatable.scalar.get(r))
            if needed:
                extra, prepared, signature = self._variant(s, needed)
        target = self.memo.node(node)
        unavailable = (
            [
                index
                for index, (selector, pinned) in s.available_on.items()
                if not (
                    target.name in pinned
                    if pinned is not None
                    else node_selector_matches(selector, target)
                )
            ]
            if s.available_on
            else ()
        )
        if prepared is not None:
            try:
                allocations = self.memo.allocate(prepared, signature, target)
            except AllocationTimeoutError:
                return _TIMED_OUT
            except FailedAllocationOnNodeError as exc:
                return unresolvable(str(exc))
            except AllocationError as exc:
                return as_error(exc)
            if allocations is None:
                return _CANNOT_ALLOCATE
            if not unavailable:
                s.node_allocations[node.name] = allocations
                if ext is not None:
                    if extra is not None:
                        ext.on_node[node.name] = extra
                    else:
                        ext.on_node.pop(node.name, None)
        if unavailable:
            s.unavailable.update(unavailable)
            return _NOT_AVAILABLE
        return None

    async def post_filter(
        self, state: CycleState, pod: Obj, statuses: NodeToStatus
    ) -> tuple[PostFilterResult | None, Status | None]:
        s: _PodState | None = state.get(NAME)
        stale = s.extended.claim if s is not None and s.extended and s.extended.stale else None
        return await self.releaser.post_filter(
            pod,
            claims=s.claims if s is not None else None,
            blocking=s.unavailable if s is not None else set(),
            stale_extended_claim=stale,
        )

    def pre_score(self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]) -> Status | None:
        s: _PodState | None = state.get(NAME)
        if s is None or s.prepared is None:
            return skip()
        has_lists = any(
            request.get("firstAvailable")
            for index in s.to_allocate
            for request in ((s.claims[index].claim.get("spec") or {}).get("devices") or {}).get(
                "requests"
            )
            or ()
        )
        return None if has_lists else skip()

    def score(self, state: CycleState, pod: Obj, node: NodeInfo) -> tuple[int, Status | None]:
        s: _PodState = state.read(NAME)
        total = 0
        for position, allocation in enumerate(_allocations_on(s, node.name) or ()):
            if position >= len(s.to_allocate):
                break  # the extended-resource claim's: no prioritized lists
            claim = s.claims[s.to_allocate[position]].claim
            requests = {
                r.get("name"): r
                for r in ((claim.get("spec") or {}).get("devices") or {}).get("requests") or ()
            }
            seen: set[str] = set()
            for result in (allocation.get("devices") or {}).get("results") or ():
                parent, _, sub = str(result.get("request", "")).partition("/")
                if not sub or parent in seen:
                    continue
                seen.add(parent)
                subrequests = requests.get(parent, {}).get("firstAvailable") or ()
                names = [x.get("name") for x in subrequests]
                if sub in names:
                    total += MAX_SUBREQUESTS - names.index(sub)
        return total, None

    def normalize_score(
        self, state: CycleState, pod: Obj, scores: list[NodeScore]
    ) -> Status | None:
        default_normalize_score(scores)
        return None

    def reserve(self, state: CycleState, pod: Obj, node_name: str) -> Status | None:
        s: _PodState | None = state.get(NAME)
        if s is None:
            return None
        pod_uid = meta(pod).get("uid", "")
        group = f"{meta(pod).get('namespace', '')}/{pod_group_name(pod)}"
        for index, allocation in s.shared_pending.items():
            uid = meta(s.claims[index].claim).get("uid", "")
            s.allocations[index] = allocation
            self.tracker.signal_pending(uid=uid, allocation=allocation, holder=pod_uid, group=group)
            s.pending_uids.append(uid)
        extra = s.extended.on_node.get(node_name) if s.extended is not None else None
        if s.prepared is None and extra is None:
            return None
        allocations = _allocations_on(s, node_name)
        if allocations is None or len(allocations) != len(s.to_allocate) + (extra is not None):
            return as_error("claim allocation not found for node")
        for position, index in enumerate(s.to_allocate):
            claim = s.claims[index].claim
            uid = meta(claim).get("uid", "")
            allocation = orjson.loads(orjson.dumps(allocations[position]))
            s.allocations[index] = allocation
            self.tracker.signal_pending(
                uid=uid,
                allocation=allocation,
                holder=pod_uid,
                group=group if s.claims[index].via_group else "",
            )
            s.pending_uids.append(uid)
        if extra is not None:
            ext = s.extended
            assert ext is not None
            ext.requests = extra
            ext.allocation = orjson.loads(orjson.dumps(allocations[-1]))
            self.tracker.signal_pending(uid=ext.uid, allocation=ext.allocation, holder=pod_uid)
            s.pending_uids.append(ext.uid)
        return None

    async def unreserve(self, state: CycleState, pod: Obj, node_name: str) -> None:
        s: _PodState | None = state.get(NAME)
        if s is None:
            return
        pod_uid = meta(pod).get("uid", "")
        for uid in s.pending_uids:
            self.tracker.release_pending(uid=uid, holder=pod_uid)
        s.pending_uids = []
        for index, pod_claim in enumerate(s.claims):
            metadata = meta(pod_claim.claim)
            claim = self.tracker.get(metadata.get("namespace", ""), metadata.get("name", ""))
            if claim is None or not (claim.get("status") or {}).get("allocation"):
                continue
            reserved = (claim.get("status") or {}).get("reservedFor") or []
            if index in s.wrote_allocation and self._only_ours(pod, pod_claim, reserved):
                await self.writer.deallocate(claim)
                continue
            if is_reserved_for(claim, uid=pod_uid):
                await self.writer.remove_pod_reservation(claim, pod_uid=pod_uid)
        s.wrote_allocation.clear()
        ext = s.extended
        if ext is not None and ext.created is not None:
            created, ext.created = ext.created, None
            try:
                await self.writer.delete_claim(created)
            except Exception as exc:
                log.warning("unreserve: delete %s: %s", klog_name(created), exc)

    def _only_ours(self, pod: Obj, pod_claim: PodClaim, reserved: list[Obj]) -> bool:
        pod_uid = meta(pod).get("uid")
        for ref in reserved:
            if ref.get("resource") == "pods" and not ref.get("apiGroup"):
                if ref.get("uid") != pod_uid:
                    return False
            elif pod_claim.via_group and ref.get("name") == pod_group_name(pod):
                members = [
                    p
                    for p in self.handle.pods_of_group(
                        meta(pod).get("namespace", ""), pod_group_name(pod)
                    )
                    if meta(p).get("uid") != pod_uid
                ]
                if any(
                    self.handle.is_assumed_or_bound(meta(p).get("uid", "")) for p in members
                ):
                    return False
            else:
                return False
        return True

    # -- binding cycle --------------------------------------------------------------------------
    async def pre_bind(self, state: CycleState, pod: Obj, node_name: str) -> Status | None:
        s: _PodState | None = state.get(NAME)
        if s is None:
            return None
        pod_uid = meta(pod).get("uid", "")
        try:
            for index, pod_claim in enumerate(s.claims):
                allocation = s.allocations.get(index)
                current = self.writer.current(pod_claim.claim)
                if allocation is None and is_reserved_for_pod(pod, current):
                    continue
                claim, wrote = await self.writer.bind_claim(
                    pod=pod,
                    pod_claim=pod_claim,
                    allocation=allocation,
                    shared=index in s.shared_pending,
                    pod_group=s.group,
                )
                if wrote:
                    s.wrote_allocation.add(index)
                s.claims[index] = PodClaim(pod_claim.pod_claim_name, claim, pod_claim.via_group)
            if s.extended is not None and s.extended.allocation is not None:
                await self._bind_extended(pod, s.extended)
        except BindError as exc:
            return as_error(str(exc))
        except Exception as exc:
            return as_error(exc)
        finally:
            for uid in s.pending_uids:
                self.tracker.release_pending(uid=uid, holder=pod_uid)
            s.pending_uids = []
        bound = [pod_claim.claim for pod_claim in s.claims]
        if s.extended is not None and s.extended.created is not None:
            bound.append(s.extended.created)
        return await self.writer.wait_for_binding_conditions(pod, node_name, bound)

    async def _bind_extended(self, pod: Obj, ext: _Extended) -> None:
        """Create the extended-resource claim, write its allocation and the pod's reservation,
        and name it in the pod's status with the request of each container's resource."""
        assert ext.allocation is not None and ext.requests is not None
        metadata = ext.claim["metadata"]
        body = {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceClaim",
            "metadata": {key: value for key, value in metadata.items() if key != "name"},
            "spec": {"devices": {"requests": ext.requests.requests}},
        }
        try:
            ext.created = await self.client.create(
                RESOURCE_CLAIMS, body=body, namespace=metadata["namespace"]
            )
        except Exception:
            self.handle.count_claim_create(success=False, admin_access=False)
            raise
        self.handle.count_claim_create(success=True, admin_access=False)
        self.tracker.assume(ext.created)
        ext.created, _ = await self.writer.bind_claim(
            pod=pod,
            pod_claim=PodClaim("", ext.created, False),
            allocation=ext.allocation,
            shared=False,
            pod_group=None,
        )
        pod_meta = meta(pod)
        await self.client.patch(
            PODS,
            name=pod_meta.get("name", ""),
            namespace=pod_meta.get("namespace", ""),
            subresource="status",
            patch_type="strategic",
            patch={"status": {"extendedResourceClaimStatus": {
                "requestMappings": ext.requests.mappings,
                "resourceClaimName": meta(ext.created).get("name", ""),
            }}},
        )
