"""Golden files pin the default lifecycle: the stage data and what each stage does to a pod.

Regenerate after an intended change with ``FAKEAPI_UPDATE_GOLDEN=1`` and review the diff.
"""

from __future__ import annotations

import dataclasses
import os
import random
from pathlib import Path
from typing import Any

import pytest
import yaml

from fakeapi.kubelet import default_stages, parse_stages
from fakeapi.kubelet.engine import StageEngine
from fakeapi.kubelet.stages import Delay, Stage, StageError
from fakeapi.kubelet.steps import StageContext, apply_steps

GOLDEN = Path(__file__).parent / "golden"
STAGES = default_stages()
CTX = StageContext(now="2026-01-01T00:00:10Z", node_name="node-1", host_ip="172.18.0.2",
                   pod_ip="10.64.0.5")

Obj = dict[str, Any]


def _pod(*, phase: str, annotations: dict[str, str] | None = None, restart: str = "Always",
         container_state: Obj | None = None, deleting: bool = False,
         sidecar_state: Obj | None = None, last_state: Obj | None = None,
         owner_kind: str = "") -> Obj:
    meta: Obj = {"name": "web", "namespace": "default",
                 "uid": "0f7e3b8e-4c7e-4d0a-9d55-1b2c3d4e5f60", "annotations": annotations or {}}
    if owner_kind:
        meta["ownerReferences"] = [{"apiVersion": "batch/v1", "kind": owner_kind, "name": "work",
                                    "uid": "5c0e7b1a-2d3f-4a5b-8c9d-0e1f2a3b4c5d",
                                    "controller": True, "blockOwnerDeletion": True}]
    if deleting:
        meta["deletionTimestamp"] = "2026-01-01T00:00:40Z"
    status: Obj = {
        "phase": phase,
        "qosClass": "BestEffort",
        "conditions": [{"type": "PodScheduled", "status": "True",
                        "lastTransitionTime": "2026-01-01T00:00:00Z"}],
    }
    if phase == "Running":  # its sandbox exists
        status.update(podIP="10.64.0.5", podIPs=[{"ip": "10.64.0.5"}])
    if container_state is not None:
        status["containerStatuses"] = [{
            "name": "app", "image": "registry.example/app:1.0",
            "imageID": "registry.example/app@sha256:" + "0" * 64,
            "ready": "running" in container_state, "restartCount": 0,
            "started": "running" in container_state, "state": container_state,
            "containerID": "containerd://0f7e3b8e4c7e4d0a9d551b2c00000000",
        }]
        if last_state is not None:
            status["containerStatuses"][0]["lastState"] = last_state
    spec: Obj = {"restartPolicy": restart, "nodeName": "node-1",
                 "containers": [{"name": "app", "image": "registry.example/app:1.0"}]}
    if sidecar_state is not None:
        spec["initContainers"] = [{"name": "proxy", "image": "registry.example/proxy:1.0",
                                   "restartPolicy": "Always"}]
        status["initContainerStatuses"] = [{
            "name": "proxy", "image": "registry.example/proxy:1.0",
            "imageID": "registry.example/proxy@sha256:" + "0" * 64, "ready": True,
            "restartCount": 0, "started": True, "state": sidecar_state,
            "containerID": "containerd://0f7e3b8e4c7e4d0a9d551b2c11111111",
        }]
    return {"metadata": meta, "spec": spec, "status": status}


RUNNING = {"running": {"startedAt": "2026-01-01T00:00:01Z"}}
FAILED = {"terminated": {"exitCode": 1, "reason": "Error",
                         "startedAt": "2026-01-01T00:00:01Z", "finishedAt": "2026-01-01T00:00:06Z"}}
COMPLETED = {"terminated": {"exitCode": 0, "reason": "Completed",
                            "startedAt": "2026-01-01T00:00:01Z",
                            "finishedAt": "2026-01-01T00:00:06Z"}}
BACKING_OFF = {"waiting": {"reason": "CrashLoopBackOff", "message": (
    "back-off 10s restarting failed container=app "
    "pod=web_default(0f7e3b8e-4c7e-4d0a-9d55-1b2c3d4e5f60)")}}
#: for each default stage, a pod it fires on
SCENARIOS: dict[str, Obj] = {
    "pod-ready": _pod(phase="Pending"),
    "pod-complete": _pod(phase="Running", annotations={"fakeapi.dev/finish": "Succeeded"},
                         restart="Never", container_state=RUNNING),
    "job-pod-complete": _pod(phase="Running", restart="Never", container_state=RUNNING,
                             owner_kind="Job"),
    "pod-fail": _pod(phase="Running", annotations={"fakeapi.dev/finish": "Failed"},
                     restart="Never", container_state=RUNNING),
    "sidecar-stop": _pod(phase="Running", restart="Never", container_state=FAILED,
                         sidecar_state=RUNNING),
    "sidecar-stop-on-failure": _pod(phase="Running", restart="OnFailure",
                                    container_state=COMPLETED, sidecar_state=RUNNING),
    "container-restart-always": _pod(phase="Running", container_state=FAILED),
    "container-restart-on-failure": _pod(phase="Running", restart="OnFailure",
                                         container_state=FAILED),
    "container-back-off-over": _pod(phase="Running", container_state=BACKING_OFF,
                                    last_state=FAILED),
    "pod-delete": _pod(phase="Running", container_state=RUNNING, deleting=True,
                       sidecar_state=RUNNING),
}


def _stage_data(stage: Stage) -> Obj:
    return {
        "name": stage.name,
        "selector": [dataclasses.asdict(r) | {"values": list(r.values)} for r in stage.selector],
        "delay": dataclasses.asdict(stage.delay),
        "weight": stage.weight,
        "steps": [dict(s) for s in stage.steps],
    }


class _NoAliases(yaml.SafeDumper):
    """Stages share steps through YAML anchors; the golden files spell each one out."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def _check(name: str, data: Any) -> None:
    path = GOLDEN / name
    text = yaml.dump(data, Dumper=_NoAliases, sort_keys=True, default_flow_style=False)
    if os.environ.get("FAKEAPI_UPDATE_GOLDEN"):
        path.write_text(text)
    assert path.exists(), f"missing golden file {path}; run with FAKEAPI_UPDATE_GOLDEN=1"
    assert yaml.safe_load(path.read_text()) == yaml.safe_load(text), f"{name} changed"


def test_default_stage_data_matches_golden() -> None:
    _check("default_stages.yaml", [_stage_data(s) for s in STAGES])


def test_every_default_stage_has_a_scenario() -> None:
    assert set(SCENARIOS) == {s.name for s in STAGES}


@pytest.mark.parametrize("stage", STAGES, ids=lambda s: s.name)
def test_stage_outcome_matches_golden(stage: Stage) -> None:
    pod = SCENARIOS[stage.name]
    matching = [s.name for s in STAGES if s.matches(pod)]
    assert matching == [stage.name], "each scenario should select exactly its stage"
    outcome = apply_steps(pod, stage, CTX)
    assert not [s.name for s in STAGES if s.matches({**pod, "status": outcome.status})
                and s.name == stage.name and stage.name != "pod-delete"], "stage must not loop"
    _check(f"outcome_{stage.name}.yaml", dataclasses.asdict(outcome))


def test_engine_waits_for_delay_and_rechecks_the_selector() -> None:
    (ready,) = [s for s in STAGES if s.name == "pod-ready"]
    engine = StageEngine(stages=[ready], rng=random.Random(1))
    pod = SCENARIOS["pod-ready"]
    first = engine.decide("default/web", pod, now=0.0)
    assert first.stage is None and first.retry_after is not None
    assert 0.5 <= first.retry_after < 1.5
    assert engine.decide("default/web", pod, now=first.retry_after - 0.01).stage is None
    assert engine.decide("default/web", pod, now=first.retry_after).stage is ready
    engine.decide("default/web", pod, now=10.0)
    moved_on = {**pod, "status": {**pod["status"], "phase": "Running"}}
    assert engine.decide("default/web", moved_on, now=100.0).stage is None
    assert engine.pending("default/web") is None


def test_weights_pick_among_matching_stages() -> None:
    ready = STAGES[0]
    heavy = dataclasses.replace(ready, name="heavy", weight=3, delay=Delay())
    light = dataclasses.replace(ready, name="light", weight=1, delay=Delay())
    engine = StageEngine(stages=[heavy, light], rng=random.Random(3))
    picks = [engine.decide(f"k{i}", SCENARIOS["pod-ready"], now=0).stage for i in range(400)]
    heavy_share = sum(1 for s in picks if s is not None and s.name == "heavy") / len(picks)
    assert 0.65 < heavy_share < 0.85


def test_an_event_step_per_container_names_each_container_and_its_image() -> None:
    (stage,) = parse_stages([{"name": "start", "steps": [
        {"event": {"reason": "Pulled", "perContainer": True,
                   "note": 'Container image "{image}" already present on machine'}},
        {"event": {"reason": "Scheduled", "note": "{pod} in {namespace} on {node}"}},
    ]}])
    pod = {"metadata": {"name": "web", "namespace": "team", "uid": "u-1"}, "spec": {"containers": [
        {"name": "app", "image": "app:1"}, {"name": "proxy", "image": "proxy:2"}]}}
    outcome = apply_steps(pod, stage, CTX)
    assert outcome.events == [
        {"type": "Normal", "reason": "Pulled", "fieldPath": "spec.containers{app}",
         "note": 'Container image "app:1" already present on machine'},
        {"type": "Normal", "reason": "Pulled", "fieldPath": "spec.containers{proxy}",
         "note": 'Container image "proxy:2" already present on machine'},
        {"type": "Normal", "reason": "Scheduled", "note": "web in team on node-1"},
    ]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([{"name": "x", "steps": [{"explode": True}]}], "must be one of"),
        ([{"name": "x", "selector": [{"key": ".a", "operator": "Maybe"}],
           "steps": [{"phase": "Running"}]}], "operator"),
        ([{"name": "x", "selector": [{"key": "a[", "operator": "Exists"}],
           "steps": [{"phase": "Running"}]}], "cannot parse path"),
        ([{"name": "x", "steps": [{"phase": "Running"}]}] * 2, "unique"),
        ([{"name": "x", "steps": [{"event": {"reason": "R", "note": "{container} up"}}]}],
         "'container' is not a placeholder here"),
        ([{"name": "x", "steps": [{"event": "Started"}]}], "event: must be a mapping"),
    ],
)
def test_bad_stage_data_is_rejected_with_a_reason(data: list[Obj], message: str) -> None:
    with pytest.raises(StageError, match=message):
        parse_stages(data)
