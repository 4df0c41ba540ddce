"""ImageLocality: prefer nodes that already hold the pod's images (``status.images``).

Upstream's score: for each of the pod's container images (a name without a tag reads
``:latest``) that the node lists, the image's size scaled by the share of all nodes that have it
(so an image every node has does not tip the balance); the sum, clamped between 23 MiB and
1000 MiB per container, mapped onto 0-100. Nodes that report no images (the simulated kubelets
do not) make PreScore answer Skip.
"""

from __future__ import annotations

from collections.abc import Sequence

from fakeapi.objects import Obj
from fakeapi.scheduler.framework.cycle_state import CycleState
from fakeapi.scheduler.framework.events import ClusterEventWithHint
from fakeapi.scheduler.framework.interface import MAX_NODE_SCORE, Handle
from fakeapi.scheduler.framework.status import Status, skip
from fakeapi.scheduler.framework.types import NodeInfo

__all__ = ["NAME", "ImageLocality", "normalized_image_name"]

NAME = "ImageLocality"
_STATE = NAME
_MB = 1024 * 1024
_MIN_THRESHOLD = 23 * _MB
_MAX_CONTAINER_THRESHOLD = 1000 * _MB


def normalized_image_name(name: str) -> str:
    """The name as nodes report it: ``:latest`` added when the name carries no tag."""
    return name if name.rfind(":") > name.rfind("/") else name + ":latest"


class ImageLocality:
    name = NAME

    def __init__(self, handle: Handle | None = None) -> None:
        self.handle = handle

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return []  # a score plugin rejects no pod

    def pre_score(self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]) -> Status | None:
        every = self.handle.node_infos() if self.handle is not None else nodes
        # the cache knows the nodes with images (they are few, or none)
        index = every[0].traits if every else None
        holders = (
            list(index.images.values())
            if index is not None
            else [node for node in every if node.images]
        )
        if not holders:
            return skip()
        spec = pod.get("spec") or {}
        images = [
            normalized_image_name(str(container.get("image") or ""))
            for key in ("initContainers", "containers")
            for container in spec.get(key) or ()
        ]
        # an image's weight: its size times the share of all nodes that hold it
        spread = {
            image: sum(1 for node in holders if image in node.images) / len(every)
            for image in set(images)
        }
        state.write(_STATE, (images, spread))
        return None

    def score(self, state: CycleState, pod: Obj, node: NodeInfo) -> tuple[int, Status | None]:
        images, spread = state.read(_STATE)
        total = sum(
            int(node.images[image] * spread[image]) for image in images if image in node.images
        )
        ceiling = _MAX_CONTAINER_THRESHOLD * len(images)
        total = min(max(total, _MIN_THRESHOLD), ceiling)
        if ceiling <= _MIN_THRESHOLD:
            return 0, None
        return MAX_NODE_SCORE * (total - _MIN_THRESHOLD) // (ceiling - _MIN_THRESHOLD), None
