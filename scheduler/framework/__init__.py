"""kube-scheduler's framework in small pieces: extension points, statuses, per-cycle state,
cluster events with queueing hints, the plugin registry and the runtime that runs them."""

from fakeapi.scheduler.framework.cycle_state import CycleState
from fakeapi.scheduler.framework.events import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventIndex,
    EventResource,
    HintFn,
    QueueingHint,
)
from fakeapi.scheduler.framework.interface import (
    MAX_NODE_SCORE,
    Handle,
    NodeToStatus,
    PostFilterResult,
    PreFilterResult,
)
from fakeapi.scheduler.framework.registry import PluginFactory, Profile, Registry
from fakeapi.scheduler.framework.runtime import Framework
from fakeapi.scheduler.framework.status import (
    Code,
    Status,
    as_error,
    is_rejected,
    is_success,
    skip,
    unresolvable,
    unschedulable,
)
from fakeapi.scheduler.framework.types import (
    NodeInfo,
    NodeScore,
    PodInfo,
    QueuedPodInfo,
    Resource,
    pod_key,
)
from fakeapi.scheduler.framework.waiting import WaitingPod

__all__ = [
    "MAX_NODE_SCORE",
    "ActionType",
    "ClusterEvent",
    "ClusterEventWithHint",
    "Code",
    "EventIndex",
    "CycleState",
    "EventResource",
    "Framework",
    "Handle",
    "HintFn",
    "NodeInfo",
    "NodeScore",
    "NodeToStatus",
    "PluginFactory",
    "PodInfo",
    "PostFilterResult",
    "PreFilterResult",
    "Profile",
    "QueuedPodInfo",
    "QueueingHint",
    "Registry",
    "Resource",
    "Status",
    "WaitingPod",
    "as_error",
    "is_rejected",
    "is_success",
    "pod_key",
    "skip",
    "unresolvable",
    "unschedulable",
]
