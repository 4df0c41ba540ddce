"""kube-scheduler's framework in small pieces: extension points, statuses, per-cycle state,
cluster events with queueing hints, the plugin registry and the runtime that runs them."""

from .cycle_state import CycleState
from .events import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventIndex,
    EventResource,
    HintFn,
    QueueingHint,
)
from .interface import (
    MAX_NODE_SCORE,
    Handle,
    NodeToStatus,
    PostFilterResult,
    PreFilterResult,
)
from .registry import PluginFactory, Profile, Registry
from .runtime import Framework
from .status import (
    Code,
    Status,
    as_error,
    is_rejected,
    is_success,
    skip,
    unresolvable,
    unschedulable,
)
from .types import NodeInfo, NodeScore, PodInfo, QueuedPodInfo, Resource, pod_key
from .waiting import WaitingPod

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
