"""Containers of a pod (core/v1): the container spec and everything it is built from.

Split out of ``pod.py`` only for size. The types follow upstream ``core/v1`` field for field,
because a Strict create rejects any field a model does not declare; list semantics (merge keys,
list types) are copied from upstream's struct tags so that strategic merge and apply agree with a
real server. Enum-like strings stay ``str``: their values are checked by the strategy, which
answers with upstream's ``Unsupported value`` errors rather than a schema error."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from fakeapi.models.base import (
    GoType,
    Int32,
    IntOrString,
    K8sModel,
    ListMeta_,
    Quantity,
    atomic_list,
    atomic_map,
    map_list,
)

__all__ = [
    "AppArmorProfile",
    "Capabilities",
    "ConfigMapEnvSource",
    "ConfigMapKeySelector",
    "Container",
    "ContainerPort",
    "ContainerResizePolicy",
    "ContainerRestartRule",
    "ContainerRestartRuleOnExitCodes",
    "EnvFromSource",
    "EnvVar",
    "EnvVarSource",
    "EphemeralContainer",
    "ExecAction",
    "FileKeySelector",
    "GRPCAction",
    "HTTPGetAction",
    "HTTPHeader",
    "Lifecycle",
    "LifecycleHandler",
    "LocalObjectReference",
    "ObjectFieldSelector",
    "Probe",
    "ResourceClaim",
    "ResourceFieldSelector",
    "ResourceRequirements",
    "SELinuxOptions",
    "SeccompProfile",
    "SecretEnvSource",
    "SecretKeySelector",
    "SecurityContext",
    "SleepAction",
    "TCPSocketAction",
    "VolumeDevice",
    "VolumeMount",
    "WindowsSecurityContextOptions",
]


class ObjectFieldSelector(K8sModel):
    """A field of the pod, by path."""

    api_version: str | None = None
    """Schema version of fieldPath; v1 by default."""
    field_path: str
    """Path of the field to select."""


class ResourceFieldSelector(K8sModel):
    """A container resource (limit or request) exposed to the container."""

    container_name: str | None = None
    """Container name; needed in volumes."""
    resource: str
    """Resource to select, e.g. limits.cpu."""
    divisor: Quantity | None = None
    """Unit the value is expressed in; 1 by default."""


class LocalObjectReference(K8sModel):
    """The name of an object in the same namespace."""

    name: str | None = None
    """Name of the referent."""


class ContainerPort(K8sModel):
    """A network port a container exposes."""

    name: str | None = None
    """An IANA service name unique in the pod, usable by services."""
    host_port: Int32 | None = None
    """Port exposed on the host; rarely needed."""
    container_port: Int32
    """Port number on the pod's IP."""
    # The default reaches the schema: as a key of the ports list, server-side apply keys a port
    # that omits it as TCP, the same item as the stored (defaulted) port.
    protocol: Annotated[str | None, GoType("Protocol")] = "TCP"
    """UDP, TCP or SCTP. Default TCP."""
    host_ip: str | None = Field(default=None, alias="hostIP")
    """Host IP the host port binds to."""


class ConfigMapEnvSource(K8sModel):
    """A config map whose keys become environment variables."""

    name: str | None = None
    """Name of the referent."""
    optional: bool | None = None
    """When true, a missing source object or key is not an error."""


class SecretEnvSource(K8sModel):
    """A secret whose keys become environment variables."""

    name: str | None = None
    """Name of the referent."""
    optional: bool | None = None
    """When true, a missing source object or key is not an error."""


class EnvFromSource(K8sModel):
    """A source whose keys become environment variables."""

    prefix: str | None = None
    """Prefix prepended to each key."""
    config_map_ref: ConfigMapEnvSource | None = None
    """The config map to read."""
    secret_ref: SecretEnvSource | None = None
    """The secret to read."""


class ConfigMapKeySelector(K8sModel):
    """One key of a config map."""

    name: str | None = None
    """Name of the referent."""
    key: str
    """The key to select."""
    optional: bool | None = None
    """When true, a missing source object or key is not an error."""


class SecretKeySelector(K8sModel):
    """One key of a secret."""

    name: str | None = None
    """Name of the referent."""
    key: str
    """The key of the secret to select."""
    optional: bool | None = None
    """When true, a missing source object or key is not an error."""


class FileKeySelector(K8sModel):
    """One key of an env file in a volume."""

    volume_name: str
    """Name of the volume holding the env file."""
    path: str
    """Path of the env file within the volume."""
    key: str
    """The variable name to read from the file."""
    optional: bool | None = None
    """When true, a missing file or key leaves the variable unset instead of failing."""


class EnvVarSource(K8sModel):
    """Where an environment variable's value is read from."""

    field_ref: Annotated[ObjectFieldSelector | None, atomic_map()] = None
    """A pod field, such as metadata.name or metadata.labels['app']."""
    resource_field_ref: Annotated[ResourceFieldSelector | None, atomic_map()] = None
    """A container resource limit or request."""
    config_map_key_ref: Annotated[ConfigMapKeySelector | None, atomic_map()] = None
    """A key of a config map."""
    secret_key_ref: Annotated[SecretKeySelector | None, atomic_map()] = None
    """A key of a secret."""
    file_key_ref: Annotated[FileKeySelector | None, atomic_map()] = None
    """A key of an env file in a volume."""


class EnvVar(K8sModel):
    """One environment variable of a container."""

    name: str
    """Name of the environment variable."""
    value: str | None = None
    """Value, with $(VAR) references expanded; empty by default."""
    value_from: EnvVarSource | None = None
    """Where the value comes from; cannot be used with value."""


class ResourceClaim(K8sModel):
    """A reference from a container to one of the pod's resource claims."""

    name: str
    """Name of an entry of the pod's spec.resourceClaims."""
    request: str | None = None
    """Name of a request in the claim; all requests of the claim when empty."""


class ResourceRequirements(K8sModel):
    """Compute resources a container (or the pod) asks for and may use."""

    limits: dict[str, Quantity] | None = None
    """The most of each resource that may be used."""
    requests: dict[str, Quantity] | None = None
    """The least of each resource that is required; limits when omitted."""
    claims: Annotated[list[ResourceClaim] | None, map_list("name", patch=False)] = None
    """Names of the pod's resource claims (and requests) this container uses."""


class ContainerResizePolicy(K8sModel):
    """What happens to a container when one of its resources is resized."""

    resource_name: str
    """Resource the policy applies to, cpu or memory."""
    restart_policy: str
    """NotRequired or RestartContainer."""


class ContainerRestartRuleOnExitCodes(K8sModel):
    """Exit codes a restart rule matches."""

    operator: str
    """In or NotIn."""
    values: Annotated[list[int] | None, ListMeta_("set")] = None
    """Exit codes to compare with."""


class ContainerRestartRule(K8sModel):
    """A rule deciding whether a container restarts after it exits."""

    action: str
    """What to do when the rule matches; only Restart exists."""
    exit_codes: ContainerRestartRuleOnExitCodes | None = None
    """Exit codes the rule matches."""


class VolumeMount(K8sModel):
    """Where a volume is mounted inside a container."""

    name: str
    """Name of a volume of the pod."""
    read_only: bool | None = None
    """Mount read-only. Default false."""
    recursive_read_only: str | None = None
    """Whether a read-only mount is read-only recursively: Disabled, IfPossible or Enabled."""
    mount_path: str
    """Path inside the container at which the volume is mounted."""
    sub_path: str | None = None
    """Path within the volume to mount instead of its root."""
    mount_propagation: str | None = None
    """How mounts propagate between host and container: None, HostToContainer or Bidirectional."""
    sub_path_expr: str | None = None
    """Like subPath, with $(VAR) references expanded from the environment."""
    bind_mount_options: Annotated[list[str] | None, ListMeta_("set")] = None
    """Extra bind-mount options."""


class VolumeDevice(K8sModel):
    """A raw block volume mapped into a container."""

    name: str
    """Name of a persistent volume claim in the pod."""
    device_path: str
    """Path inside the container the device is mapped to."""


class ExecAction(K8sModel):
    """Runs a command inside the container."""

    command: Annotated[list[str] | None, atomic_list()] = None
    """Command line to run in the container; not run in a shell. Exit status 0 is success."""


class HTTPHeader(K8sModel):
    """A header sent with an HTTP probe."""

    name: str
    """Header name."""
    value: str
    """Header value."""


class HTTPGetAction(K8sModel):
    """Sends an HTTP GET request to the container."""

    path: str | None = None
    """Path to request."""
    port: IntOrString
    """Port number or name."""
    host: str | None = None
    """Host name to connect to; the pod IP by default."""
    scheme: str | None = None
    """HTTP or HTTPS. Default HTTP."""
    http_headers: Annotated[list[HTTPHeader] | None, atomic_list()] = None
    """Headers to send."""
    protocol: str | None = None
    """HTTP protocol version to use."""


class TCPSocketAction(K8sModel):
    """Opens a TCP connection to the container."""

    port: IntOrString
    """Port number or name."""
    host: str | None = None
    """Host name or IP to connect to; the pod IP by default."""


class GRPCAction(K8sModel):
    """Calls the gRPC health checking service of the container."""

    port: int
    """Port of the gRPC service."""
    service: str | None = None
    """Service name sent in the health check request."""
    mode: str | None = None
    """How the gRPC probe connects."""


class Probe(K8sModel):
    """A periodic health check of a container."""

    exec: ExecAction | None = None
    """Run a command in the container."""
    http_get: HTTPGetAction | None = None
    """Send an HTTP GET request."""
    tcp_socket: TCPSocketAction | None = None
    """Open a TCP connection."""
    grpc: GRPCAction | None = None
    """Call a gRPC health service."""
    initial_delay_seconds: int | None = None
    """Seconds after start before probes begin."""
    timeout_seconds: int | None = None
    """Seconds after which a probe times out. Default 1."""
    period_seconds: int | None = None
    """How often to probe, in seconds. Default 10."""
    success_threshold: int | None = None
    """Consecutive successes needed after a failure. Default 1."""
    failure_threshold: int | None = None
    """Consecutive failures that count as failure. Default 3."""
    termination_grace_period_seconds: int | None = None
    """Grace period after a probe failure, overriding the pod's."""


class SleepAction(K8sModel):
    """Pauses for a number of seconds."""

    seconds: int
    """Seconds to sleep."""


class LifecycleHandler(K8sModel):
    """An action run at a lifecycle hook; exactly one is set."""

    exec: ExecAction | None = None
    """Run a command in the container."""
    http_get: HTTPGetAction | None = None
    """Send an HTTP GET request."""
    tcp_socket: TCPSocketAction | None = None
    """Open a TCP connection."""
    sleep: SleepAction | None = None
    """Sleep for a while."""


class Lifecycle(K8sModel):
    """Actions the kubelet runs when a container starts or stops."""

    post_start: LifecycleHandler | None = None
    """Run right after the container is created."""
    pre_stop: LifecycleHandler | None = None
    """Run before the container is stopped."""
    stop_signal: str | None = None
    """Signal used to stop the container."""


class Capabilities(K8sModel):
    """Linux capabilities added to or dropped from a container."""

    add: Annotated[list[str] | None, atomic_list()] = None
    """Capabilities to add."""
    drop: Annotated[list[str] | None, atomic_list()] = None
    """Capabilities to remove."""


class SELinuxOptions(K8sModel):
    """SELinux labels applied to a container."""

    user: str | None = None
    """SELinux user label."""
    role: str | None = None
    """SELinux role label."""
    type: str | None = None
    """SELinux type label."""
    level: str | None = None
    """SELinux level label."""


class WindowsSecurityContextOptions(K8sModel):
    """Windows-specific security settings."""

    gmsa_credential_spec_name: str | None = None
    """Name of the GMSA credential spec to use."""
    gmsa_credential_spec: str | None = None
    """Content of the GMSA credential spec."""
    run_as_user_name: str | None = None
    """User name to run the entrypoint as."""
    host_process: bool | None = None
    """Run the container as a host process."""


class SeccompProfile(K8sModel):
    """The seccomp profile a container runs with."""

    type: str
    """RuntimeDefault, Unconfined or Localhost."""
    localhost_profile: str | None = None
    """Path of a profile preloaded on the node, for type Localhost."""


class AppArmorProfile(K8sModel):
    """The AppArmor profile a container runs with."""

    type: str
    """RuntimeDefault, Unconfined or Localhost."""
    localhost_profile: str | None = None
    """Path of a profile preloaded on the node, for type Localhost."""


class SecurityContext(K8sModel):
    """Security settings of one container; they override the pod's."""

    capabilities: Capabilities | None = None
    """Capabilities to add or drop."""
    privileged: bool | None = None
    """Run the container privileged. Default false."""
    se_linux_options: SELinuxOptions | None = None
    """SELinux context for the container; chosen by the runtime when empty."""
    windows_options: WindowsSecurityContextOptions | None = None
    """Windows-specific settings."""
    run_as_user: int | None = None
    """UID to run the entrypoint of the container process as."""
    run_as_group: int | None = None
    """GID to run the entrypoint of the container process as."""
    run_as_non_root: bool | None = None
    """If true, the kubelet refuses to start a container that would run as root."""
    read_only_root_filesystem: bool | None = None
    """Mount the root filesystem read-only."""
    allow_privilege_escalation: bool | None = None
    """Whether a process may gain more privileges than its parent."""
    proc_mount: str | None = None
    """Kind of /proc mount: Default or Unmasked."""
    seccomp_profile: SeccompProfile | None = None
    """The seccomp profile to use."""
    app_armor_profile: AppArmorProfile | None = None
    """The AppArmor profile to use."""


class Container(K8sModel):
    """One application container of a pod."""

    name: str
    """Name of the container, a DNS label unique in the pod. Cannot be updated."""
    image: str | None = None
    """Container image name."""
    command: Annotated[list[str] | None, atomic_list()] = None
    """Entrypoint array, replacing the image's ENTRYPOINT; $(VAR) references are expanded."""
    args: Annotated[list[str] | None, atomic_list()] = None
    """Arguments to the entrypoint, replacing the image's CMD; $(VAR) references are expanded."""
    working_dir: str | None = None
    """Working directory; the image's default when empty."""
    ports: Annotated[list[ContainerPort] | None, map_list("containerPort", "protocol")] = None
    """Ports the container exposes; informational."""
    env_from: Annotated[list[EnvFromSource] | None, atomic_list()] = None
    """Sources whose keys become environment variables."""
    env: Annotated[list[EnvVar] | None, map_list("name")] = None
    """Environment variables of the container."""
    resources: ResourceRequirements | None = None
    """Compute resources the container asks for and may use."""
    resize_policy: Annotated[list[ContainerResizePolicy] | None, atomic_list()] = None
    """How each resource may be resized in place."""
    restart_policy: str | None = None
    """Restart behaviour of this container; Always makes an init container a sidecar."""
    restart_policy_rules: Annotated[list[ContainerRestartRule] | None, atomic_list()] = None
    """Rules deciding whether the container restarts after it exits."""
    volume_mounts: Annotated[list[VolumeMount] | None, map_list("mountPath")] = None
    """Volumes mounted into the container's filesystem."""
    volume_devices: Annotated[list[VolumeDevice] | None, map_list("devicePath")] = None
    """Block devices the container uses."""
    liveness_probe: Probe | None = None
    """Probe whose failure restarts the container."""
    readiness_probe: Probe | None = None
    """Probe whose failure takes the container out of service endpoints."""
    startup_probe: Probe | None = None
    """Probe that must succeed before the other probes start."""
    lifecycle: Lifecycle | None = None
    """Actions run as the container starts and stops."""
    termination_message_path: str | None = None
    """File whose content becomes the termination message. Default /dev/termination-log."""
    termination_message_policy: str | None = None
    """File or FallbackToLogsOnError. Default File."""
    image_pull_policy: str | None = None
    """Always, Never or IfNotPresent; Always for :latest or untagged images, else IfNotPresent."""
    security_context: SecurityContext | None = None
    """Security settings of the container."""
    stdin: bool | None = None
    """Allocate a stdin buffer for the container."""
    stdin_once: bool | None = None
    """Close stdin after the first attach ends."""
    tty: bool | None = None
    """Allocate a TTY; needs stdin."""


class EphemeralContainer(K8sModel):
    """A temporary container added to a running pod for debugging."""

    name: str
    """Name of the container, a DNS label unique in the pod. Cannot be updated."""
    image: str | None = None
    """Container image name."""
    command: Annotated[list[str] | None, atomic_list()] = None
    """Entrypoint array, replacing the image's ENTRYPOINT; $(VAR) references are expanded."""
    args: Annotated[list[str] | None, atomic_list()] = None
    """Arguments to the entrypoint, replacing the image's CMD; $(VAR) references are expanded."""
    working_dir: str | None = None
    """Working directory; the image's default when empty."""
    ports: Annotated[list[ContainerPort] | None, map_list("containerPort", "protocol")] = None
    """Ports the container exposes; informational."""
    env_from: Annotated[list[EnvFromSource] | None, atomic_list()] = None
    """Sources whose keys become environment variables."""
    env: Annotated[list[EnvVar] | None, map_list("name")] = None
    """Environment variables of the container."""
    resources: ResourceRequirements | None = None
    """Compute resources the container asks for and may use."""
    resize_policy: Annotated[list[ContainerResizePolicy] | None, atomic_list()] = None
    """How each resource may be resized in place."""
    restart_policy: str | None = None
    """Restart behaviour of this container; Always makes an init container a sidecar."""
    restart_policy_rules: Annotated[list[ContainerRestartRule] | None, atomic_list()] = None
    """Rules deciding whether the container restarts after it exits."""
    volume_mounts: Annotated[list[VolumeMount] | None, map_list("mountPath")] = None
    """Volumes mounted into the container's filesystem."""
    volume_devices: Annotated[list[VolumeDevice] | None, map_list("devicePath")] = None
    """Block devices the container uses."""
    liveness_probe: Probe | None = None
    """Probe whose failure restarts the container."""
    readiness_probe: Probe | None = None
    """Probe whose failure takes the container out of service endpoints."""
    startup_probe: Probe | None = None
    """Probe that must succeed before the other probes start."""
    lifecycle: Lifecycle | None = None
    """Actions run as the container starts and stops."""
    termination_message_path: str | None = None
    """File whose content becomes the termination message. Default /dev/termination-log."""
    termination_message_policy: str | None = None
    """File or FallbackToLogsOnError. Default File."""
    image_pull_policy: str | None = None
    """Always, Never or IfNotPresent; Always for :latest or untagged images, else IfNotPresent."""
    security_context: SecurityContext | None = None
    """Security settings of the container."""
    stdin: bool | None = None
    """Allocate a stdin buffer for the container."""
    stdin_once: bool | None = None
    """Close stdin after the first attach ends."""
    tty: bool | None = None
    """Allocate a TTY; needs stdin."""
    target_container_name: str | None = None
    """The container whose namespaces the ephemeral container joins."""
