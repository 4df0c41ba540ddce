"""The ``scale`` subresource of custom resources: an autoscaling/v1 Scale over replica paths.

As upstream's ``ScaleREST`` for custom resources: the Scale's ``spec.replicas`` is the integer
at ``specReplicasPath`` (0 when unset), ``status.replicas`` the one at ``statusReplicasPath``,
``status.selector`` the string at ``labelSelectorPath``; metadata carries the object's name,
namespace, uid, resourceVersion and creationTimestamp. Writing a Scale sets ``specReplicasPath``
(creating the objects on the way) and updates the object through its own strategy, so its
schema and rules still apply (the store takes a Scale's resourceVersion as a precondition).
``kubectl scale`` patches this subresource.
"""

from __future__ import annotations

from typing import Any

from fakeapi import errors
from fakeapi.apiextensions.versions import ScaleSpec
from fakeapi.registry.strategy import Obj
from fakeapi.validation import field as fe

__all__ = ["ScaleView"]

_INT32_MAX = 2**31 - 1


def _parts(path: str) -> list[str]:
    return path.lstrip(".").split(".")


def _get(obj: Any, path: str) -> Any:
    for part in _parts(path):
        if not isinstance(obj, dict) or part not in obj:
            return None
        obj = obj[part]
    return obj


class ScaleView:
    """The Scale of one served version's objects."""

    def __init__(self, spec: ScaleSpec) -> None:
        self.spec = spec

    def read(self, obj: Obj) -> Obj:
        meta = obj.get("metadata") or {}
        scale_meta = {
            key: meta[key]
            for key in ("name", "namespace", "uid", "resourceVersion", "creationTimestamp")
            if meta.get(key) is not None
        }
        replicas = _get(obj, self.spec.spec_replicas_path)
        status_replicas = _get(obj, self.spec.status_replicas_path)
        status: dict[str, Any] = {
            "replicas": status_replicas if isinstance(status_replicas, int) else 0
        }
        if self.spec.label_selector_path:
            selector = _get(obj, self.spec.label_selector_path)
            if isinstance(selector, str) and selector:
                status["selector"] = selector
        return {
            "kind": "Scale",
            "apiVersion": "autoscaling/v1",
            "metadata": scale_meta,
            "spec": {"replicas": replicas if isinstance(replicas, int) else 0},
            "status": status,
        }

    def write(self, obj: Obj, view: Obj) -> Obj:
        if not isinstance(view, dict):
            raise errors.bad_request("the body of the request must be an object")
        for key, expected in (("kind", "Scale"), ("apiVersion", "autoscaling/v1")):
            value = view.get(key)
            if value not in (None, "", expected):
                raise errors.bad_request(
                    f"the {'kind' if key == 'kind' else 'API version'} in the data ({value}) "
                    f"does not match the expected {'kind' if key == 'kind' else 'API version'} "
                    f"({expected})"
                )
        replicas = (view.get("spec") or {}).get("replicas")
        name = str((obj.get("metadata") or {}).get("name") or "")
        if replicas is None:
            raise errors.bad_request(
                f'the spec replicas field "{self.spec.spec_replicas_path}" cannot be empty'
            )
        if isinstance(replicas, bool) or not isinstance(replicas, int) or replicas > _INT32_MAX:
            raise errors.bad_request(
                'Scale in version "v1" cannot be handled as a Scale: json: cannot unmarshal '
                "number into Go struct field ScaleSpec.spec.replicas of type int32"
            )
        if replicas < 0:
            raise errors.invalid(
                kind="Scale", group="autoscaling", name=name,
                causes=fe.causes([fe.invalid(
                    "spec.replicas", replicas, "must be greater than or equal to 0"
                )]),
            )
        target = obj
        parts = _parts(self.spec.spec_replicas_path)
        for part in parts[:-1]:
            nxt = target.get(part)
            if not isinstance(nxt, dict):
                nxt = target[part] = {}
            target = nxt
        target[parts[-1]] = replicas
        return obj
