"""The default pod lifecycle, as stage data (YAML text, parsed by :mod:`fakeapi.kubelet.stages`).

Kept as a string in a module rather than a ``.yaml`` file so that it ships with the package however
it is installed; it is data all the same, and the golden files in tests/kubelet pin what each
stage does. Pass your own stages to :class:`~fakeapi.kubelet.Kubelet` (``stages=``) to change
timings or behaviour. Annotations a pod may carry to steer it:

``fakeapi.dev/finish``       ``Succeeded`` or ``Failed``: the containers exit after
                             ``fakeapi.dev/run-seconds`` (default 5 s), with exit code 0 or 1;
                             what happens next follows ``spec.restartPolicy``
``fakeapi.dev/run-seconds``  how long the containers run before they finish
"""

from __future__ import annotations

__all__ = ["DEFAULT_STAGES_YAML"]

DEFAULT_STAGES_YAML = """\
# Pod lifecycle stages (docs/kubelet.md). A stage fires when its selector matches the pod and its
# delay (+ jitter) has passed on the kubelet's clock; pods not being deleted are considered only
# once the kubelet has admitted them (claims checked and prepared). Phases and the conditions the
# kubelet owns follow from the containers as upstream computes them (FromContainers).
stages:
- name: pod-ready
  description: an admitted pod starts its containers and becomes Ready
  selector:
  - {key: .metadata.deletionTimestamp, operator: DoesNotExist}
  - {key: .status.phase, operator: In, values: [Pending]}
  delay: {seconds: 0.5, jitterSeconds: 1.0}
  steps:
  - network: true
  - containers: {state: running}
  - phase: FromContainers
  - conditions: FromContainers
  # A real kubelet also reports Pulled and Created for each container; each event is one more
  # API write per container, so they are left to stages that want them (docs/kubelet.md).
  - event: {reason: Started, perContainer: true, containerState: running, note: Container started}

- name: pod-complete
  description: containers of a pod annotated to finish successfully exit with code 0
  selector:
  - {key: .metadata.deletionTimestamp, operator: DoesNotExist}
  - {key: .status.phase, operator: In, values: [Running]}
  - {key: '.metadata.annotations["fakeapi.dev/finish"]', operator: In, values: [Succeeded]}
  - {key: '.status.containerStatuses[*].state.running', operator: Exists}
  delay:
    seconds: 5
    jitterSeconds: 1.0
    fromPath: '.metadata.annotations["fakeapi.dev/run-seconds"]'
  steps:
  - containers: {state: terminated, reason: Completed, exitCode: 0}
  - phase: FromContainers
  - conditions: FromContainers

- name: pod-fail
  description: containers of a pod annotated to fail exit with code 1
  selector:
  - {key: .metadata.deletionTimestamp, operator: DoesNotExist}
  - {key: .status.phase, operator: In, values: [Running]}
  - {key: '.metadata.annotations["fakeapi.dev/finish"]', operator: In, values: [Failed]}
  - {key: '.status.containerStatuses[*].state.running', operator: Exists}
  delay:
    seconds: 5
    jitterSeconds: 1.0
    fromPath: '.metadata.annotations["fakeapi.dev/run-seconds"]'
  steps:
  - containers: {state: terminated, reason: Error, exitCode: 1}
  - phase: FromContainers
  - conditions: FromContainers

- name: sidecar-stop
  description: once the main containers of a restartPolicy Never pod have exited, its sidecars
    are stopped; only then is the pod Succeeded or Failed
  selector:
  - {key: .metadata.deletionTimestamp, operator: DoesNotExist}
  - {key: .status.phase, operator: In, values: [Running]}
  - {key: .spec.restartPolicy, operator: In, values: [Never]}
  - {key: '.status.initContainerStatuses[*].state.running', operator: Exists}
  - {key: '.status.containerStatuses[*].state.running', operator: DoesNotExist}
  - {key: '.status.containerStatuses[*].state.waiting', operator: DoesNotExist}
  delay: {seconds: 0, jitterSeconds: 0.5}
  steps: &stop-sidecars
  - containers: {state: terminated, reason: Completed, exitCode: 0, sidecars: true}
  - event:
      reason: Killing
      perContainer: true
      containerState: terminated
      note: Stopping container {container}
  - phase: FromContainers
  - conditions: FromContainers

- name: sidecar-stop-on-failure
  description: the same for restartPolicy OnFailure once every main container exited with success
  selector:
  - {key: .metadata.deletionTimestamp, operator: DoesNotExist}
  - {key: .status.phase, operator: In, values: [Running]}
  - {key: .spec.restartPolicy, operator: In, values: [OnFailure]}
  - {key: '.status.initContainerStatuses[*].state.running', operator: Exists}
  - {key: '.status.containerStatuses[*].state.running', operator: DoesNotExist}
  - {key: '.status.containerStatuses[*].state.waiting', operator: DoesNotExist}
  - {key: '.status.containerStatuses[*].state.terminated.exitCode', operator: In, values: ["0"]}
  - {key: '.status.containerStatuses[*].state.terminated.reason', operator: NotIn,
     values: [Error]}
  delay: {seconds: 0, jitterSeconds: 0.5}
  steps: *stop-sidecars

- name: container-restart-always
  description: restartPolicy Always restarts an exited container at once the first time, then
    after the kubelet's crash-loop back-off (10 s doubling to 300 s) in CrashLoopBackOff
  selector:
  - {key: .metadata.deletionTimestamp, operator: DoesNotExist}
  - {key: .status.phase, operator: In, values: [Running]}
  - {key: .spec.restartPolicy, operator: In, values: [Always]}
  - {key: '.status.containerStatuses[*].state.terminated', operator: Exists}
  delay: {seconds: 0, jitterSeconds: 1.0}
  steps: &restart  # the same steps restart containers under OnFailure, and after the back-off
  - containers: {state: restart}
  - phase: FromContainers
  - conditions: FromContainers
  - event:
      type: Warning
      reason: BackOff
      perContainer: true
      containerState: waiting
      note: Back-off restarting failed container {container} in pod {pod}_{namespace}({uid})
  - event: {reason: Started, perContainer: true, containerState: running, note: Container started}

- name: container-restart-on-failure
  description: restartPolicy OnFailure restarts containers that exited with a non-zero code
  selector:
  - {key: .metadata.deletionTimestamp, operator: DoesNotExist}
  - {key: .status.phase, operator: In, values: [Running]}
  - {key: .spec.restartPolicy, operator: In, values: [OnFailure]}
  - {key: '.status.containerStatuses[*].state.terminated.exitCode', operator: NotIn, values: ["0"]}
  - {key: '.status.containerStatuses[*].state.terminated', operator: Exists}
  delay: {seconds: 0, jitterSeconds: 1.0}
  steps: *restart

- name: container-back-off-over
  description: a container waiting in CrashLoopBackOff restarts when its back-off is over
  selector:
  - {key: .metadata.deletionTimestamp, operator: DoesNotExist}
  - {key: .status.phase, operator: In, values: [Running]}
  - {key: '.status.containerStatuses[*].state.waiting.reason', operator: In,
     values: [CrashLoopBackOff]}
  delay: {fromBackOff: true, jitterSeconds: 1.0}
  steps: *restart

- name: pod-delete
  description: graceful deletion - stop the containers (sidecars last), report the terminal
    phase, then delete
  selector:
  - {key: .metadata.deletionTimestamp, operator: Exists}
  delay: {seconds: 0, jitterSeconds: 0.5}
  steps:
  - containers: {state: terminated, reason: Completed, exitCode: 0, sidecars: true}
  - event:
      reason: Killing
      perContainer: true
      containerState: terminated
      note: Stopping container {container}
  - phase: Terminal
  - conditions: FromContainers
  - delete: true
"""
