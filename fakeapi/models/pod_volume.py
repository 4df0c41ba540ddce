"""Pod volumes (core/v1): the volume list of a pod spec and its sources.

The sources pods commonly use (emptyDir, configMap, secret, hostPath, persistentVolumeClaim,
projected, downwardAPI, ephemeral, csi, image) are modelled field for field. The in-tree and
deprecated cloud sources are declared by name as free-form JSON: a manifest that uses one is
accepted and stored as written, without being checked."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from fakeapi.models.base import K8sModel, Quantity, RawJSON, atomic_list, atomic_map
from fakeapi.models.meta import LabelSelector, ObjectMeta
from fakeapi.models.pod_container import (
    LocalObjectReference,
    ObjectFieldSelector,
    ResourceFieldSelector,
)

__all__ = [
    "CSIVolumeSource",
    "ClusterTrustBundleProjection",
    "ConfigMapProjection",
    "ConfigMapVolumeSource",
    "DownwardAPIProjection",
    "DownwardAPIVolumeFile",
    "DownwardAPIVolumeSource",
    "EmptyDirVolumeSource",
    "EphemeralVolumeSource",
    "HostPathVolumeSource",
    "ImageVolumeSource",
    "KeyToPath",
    "PersistentVolumeClaimSpec",
    "PersistentVolumeClaimTemplate",
    "PersistentVolumeClaimVolumeSource",
    "PodCertificateProjection",
    "ProjectedVolumeSource",
    "SecretProjection",
    "SecretVolumeSource",
    "ServiceAccountTokenProjection",
    "TypedLocalObjectReference",
    "TypedObjectReference",
    "Volume",
    "VolumeProjection",
    "VolumeResourceRequirements",
]


class HostPathVolumeSource(K8sModel):
    """A file or directory on the node."""

    path: str
    """Path on the node."""
    type: str | None = None
    """What the path must be, e.g. Directory or FileOrCreate."""


class EmptyDirVolumeSource(K8sModel):
    """A fresh directory that lives as long as the pod."""

    medium: str | None = None
    """Storage medium: empty for the node default, or Memory."""
    size_limit: Quantity | None = None
    """Most local storage the directory may use."""
    mode: int | None = None
    """File mode of the directory."""


class KeyToPath(K8sModel):
    """Maps one key to a file path in a volume."""

    key: str
    """The key to project."""
    path: str
    """Relative path of the file to map the key to."""
    mode: int | None = None
    """File mode bits for this file, as a value between 0 and 0777."""
    user: int | None = None
    """Owner UID for this file."""


class SecretVolumeSource(K8sModel):
    """Files with the content of a secret."""

    secret_name: str | None = None
    """Name of the secret in the pod's namespace."""
    items: Annotated[list[KeyToPath] | None, atomic_list()] = None
    """Which keys to project, and to which paths; all keys when empty."""
    default_mode: int | None = None
    """File mode bits for created files, as a value between 0 and 0777."""
    optional: bool | None = None
    """When true, a missing source object or key is not an error."""
    default_user: int | None = None
    """Owner UID for created files."""


class PersistentVolumeClaimVolumeSource(K8sModel):
    """A persistent volume claim in the pod's namespace."""

    claim_name: str
    """Name of the claim in the pod's namespace."""
    read_only: bool | None = None
    """Force the mount read-only."""


class DownwardAPIVolumeFile(K8sModel):
    """One downward-API file."""

    path: str
    """Relative path of the file."""
    field_ref: Annotated[ObjectFieldSelector | None, atomic_map()] = None
    """A pod field, such as metadata.name or metadata.labels['app']."""
    resource_field_ref: Annotated[ResourceFieldSelector | None, atomic_map()] = None
    """A container resource limit or request."""
    mode: int | None = None
    """File mode bits for this file, as a value between 0 and 0777."""
    user: int | None = None
    """Owner UID for this file."""


class DownwardAPIVolumeSource(K8sModel):
    """Files with information about the pod itself."""

    items: Annotated[list[DownwardAPIVolumeFile] | None, atomic_list()] = None
    """Files to create."""
    default_mode: int | None = None
    """File mode bits for created files, as a value between 0 and 0777."""
    default_user: int | None = None
    """Owner UID for created files."""


class ConfigMapVolumeSource(K8sModel):
    """Files with the content of a config map."""

    name: str | None = None
    """Name of the referent."""
    items: Annotated[list[KeyToPath] | None, atomic_list()] = None
    """Which keys to project, and to which paths; all keys when empty."""
    default_mode: int | None = None
    """File mode bits for created files, as a value between 0 and 0777."""
    optional: bool | None = None
    """When true, a missing source object or key is not an error."""
    default_user: int | None = None
    """Owner UID for created files."""


class SecretProjection(K8sModel):
    """Secret keys projected into a volume."""

    name: str | None = None
    """Name of the referent."""
    items: Annotated[list[KeyToPath] | None, atomic_list()] = None
    """Which keys to project, and to which paths; all keys when empty."""
    optional: bool | None = None
    """When true, a missing source object or key is not an error."""


class DownwardAPIProjection(K8sModel):
    """Pod information projected into a volume."""

    items: Annotated[list[DownwardAPIVolumeFile] | None, atomic_list()] = None
    """Files to create."""


class ConfigMapProjection(K8sModel):
    """Config map keys projected into a volume."""

    name: str | None = None
    """Name of the referent."""
    items: Annotated[list[KeyToPath] | None, atomic_list()] = None
    """Which keys to project, and to which paths; all keys when empty."""
    optional: bool | None = None
    """When true, a missing source object or key is not an error."""


class ServiceAccountTokenProjection(K8sModel):
    """A service account token projected into a volume."""

    audience: str | None = None
    """Intended audience of the token; the API server by default."""
    expiration_seconds: int | None = None
    """Requested token validity in seconds. Default 3600."""
    path: str
    """Relative path of the token file."""
    user: int | None = None
    """Owner UID for this file."""


class ClusterTrustBundleProjection(K8sModel):
    """Trust anchors from ClusterTrustBundle objects projected into a volume."""

    name: str | None = None
    """Select one ClusterTrustBundle by name."""
    signer_name: str | None = None
    """Select bundles of this signer."""
    label_selector: LabelSelector | None = None
    """Select bundles of the signer by label."""
    optional: bool | None = None
    """When true, no matching bundle is not an error."""
    path: str
    """Relative path of the file."""
    user: int | None = None
    """Owner UID for this file."""


class PodCertificateProjection(K8sModel):
    """A private key and certificate chain issued for the pod."""

    signer_name: str
    """Name of the signer."""
    key_type: str
    """Type of the generated key pair."""
    max_expiration_seconds: int | None = None
    """Longest certificate lifetime to request."""
    credential_bundle_path: str | None = None
    """File holding key and chain together."""
    key_path: str | None = None
    """File holding the private key."""
    certificate_chain_path: str | None = None
    """File holding the certificate chain."""
    user_annotations: dict[str, str] | None = None
    """Annotations copied into the certificate request."""
    user: int | None = None
    """Owner UID for this file."""


class VolumeProjection(K8sModel):
    """One source of a projected volume; exactly one is set."""

    secret: SecretProjection | None = None
    """A secret."""
    downward_api: DownwardAPIProjection | None = Field(default=None, alias="downwardAPI")
    """Information about the pod."""
    config_map: ConfigMapProjection | None = None
    """A config map."""
    service_account_token: ServiceAccountTokenProjection | None = None
    """A service account token."""
    cluster_trust_bundle: ClusterTrustBundleProjection | None = None
    """Certificates from ClusterTrustBundles."""
    pod_certificate: PodCertificateProjection | None = None
    """A key and certificate issued for the pod."""


class ProjectedVolumeSource(K8sModel):
    """Several sources projected into one directory."""

    sources: Annotated[list[VolumeProjection] | None, atomic_list()] = None
    """The sources to project."""
    default_mode: int | None = None
    """File mode bits for created files, as a value between 0 and 0777."""
    default_user: int | None = None
    """Owner UID for created files."""


class CSIVolumeSource(K8sModel):
    """An ephemeral volume provided by a CSI driver."""

    driver: str
    """Name of the CSI driver."""
    read_only: bool | None = None
    """Mount read-only. Default false."""
    fs_type: str | None = None
    """Filesystem type, e.g. ext4."""
    volume_attributes: dict[str, str] | None = None
    """Driver-specific properties."""
    node_publish_secret_ref: Annotated[LocalObjectReference | None, atomic_map()] = None
    """Secret passed to the driver's publish calls."""


class VolumeResourceRequirements(K8sModel):
    """Storage a claim asks for."""

    limits: dict[str, Quantity] | None = None
    """The most of each resource that may be used."""
    requests: dict[str, Quantity] | None = None
    """The least of each resource that is required."""


class TypedLocalObjectReference(K8sModel):
    """A typed reference to an object in the same namespace."""

    api_group: str | None = None
    """API group of the referent; empty for the core group."""
    kind: str
    """Kind of the referent."""
    name: str
    """Name of the referent."""


class TypedObjectReference(K8sModel):
    """A typed reference to an object, possibly in another namespace."""

    api_group: str | None = None
    """API group of the referent; empty for the core group."""
    kind: str
    """Kind of the referent."""
    name: str
    """Name of the referent."""
    namespace: str | None = None
    """Namespace of the referent."""


class PersistentVolumeClaimSpec(K8sModel):
    """The storage a persistent volume claim asks for."""

    access_modes: Annotated[list[str] | None, atomic_list()] = None
    """Desired access modes."""
    selector: LabelSelector | None = None
    """A label query over volumes to bind to."""
    resources: VolumeResourceRequirements | None = None
    """Storage the claim needs."""
    volume_name: str | None = None
    """Bind to this persistent volume."""
    storage_class_name: str | None = None
    """StorageClass the claim needs."""
    volume_mode: str | None = None
    """Filesystem or Block."""
    data_source: Annotated[TypedLocalObjectReference | None, atomic_map()] = None
    """An object to populate the volume from."""
    data_source_ref: TypedObjectReference | None = None
    """An object to populate the volume from, possibly in another namespace."""
    volume_attributes_class_name: str | None = None
    """The VolumeAttributesClass the claim uses."""


class PersistentVolumeClaimTemplate(K8sModel):
    """The PVC created for an ephemeral volume."""

    metadata: ObjectMeta | None = None
    """Labels and annotations copied to the PVC."""
    spec: PersistentVolumeClaimSpec
    """Spec of the PVC."""


class EphemeralVolumeSource(K8sModel):
    """A volume backed by a PVC created for, and deleted with, the pod."""

    volume_claim_template: PersistentVolumeClaimTemplate | None = None
    """Template of the PVC created for the pod."""


class ImageVolumeSource(K8sModel):
    """The content of an OCI image or artifact, mounted read-only."""

    reference: str | None = None
    """Image or artifact reference to mount."""
    pull_policy: str | None = None
    """Always, Never or IfNotPresent."""


class Volume(K8sModel):
    """A named volume that containers of the pod may mount."""

    name: str
    """Name of the volume, a DNS label unique in the pod."""
    host_path: HostPathVolumeSource | None = None
    """A file or directory on the node."""
    empty_dir: EmptyDirVolumeSource | None = None
    """A temporary directory that lives as long as the pod."""
    gce_persistent_disk: RawJSON = None
    """Deprecated GCE persistent disk source; kept as free-form JSON."""
    aws_elastic_block_store: RawJSON = None
    """Deprecated AWS EBS source; kept as free-form JSON."""
    git_repo: RawJSON = None
    """Deprecated git repository source; kept as free-form JSON."""
    secret: SecretVolumeSource | None = None
    """A secret."""
    nfs: RawJSON = None
    """An NFS mount; kept as free-form JSON."""
    iscsi: RawJSON = None
    """An iSCSI disk; kept as free-form JSON."""
    glusterfs: RawJSON = None
    """Removed Glusterfs source; kept as free-form JSON."""
    persistent_volume_claim: PersistentVolumeClaimVolumeSource | None = None
    """A persistent volume claim in the same namespace."""
    rbd: RawJSON = None
    """Deprecated Ceph RBD source; kept as free-form JSON."""
    flex_volume: RawJSON = None
    """Deprecated FlexVolume source; kept as free-form JSON."""
    cinder: RawJSON = None
    """Deprecated Cinder source; kept as free-form JSON."""
    cephfs: RawJSON = None
    """Deprecated CephFS source; kept as free-form JSON."""
    flocker: RawJSON = None
    """Deprecated Flocker source; kept as free-form JSON."""
    downward_api: DownwardAPIVolumeSource | None = Field(default=None, alias="downwardAPI")
    """Information about the pod."""
    fc: RawJSON = None
    """A Fibre Channel disk; kept as free-form JSON."""
    azure_file: RawJSON = None
    """Deprecated Azure File source; kept as free-form JSON."""
    config_map: ConfigMapVolumeSource | None = None
    """A config map."""
    vsphere_volume: RawJSON = None
    """Deprecated vSphere source; kept as free-form JSON."""
    quobyte: RawJSON = None
    """Deprecated Quobyte source; kept as free-form JSON."""
    azure_disk: RawJSON = None
    """Deprecated Azure Disk source; kept as free-form JSON."""
    photon_persistent_disk: RawJSON = None
    """Deprecated Photon disk source; kept as free-form JSON."""
    projected: ProjectedVolumeSource | None = None
    """Several sources in one directory."""
    portworx_volume: RawJSON = None
    """Deprecated Portworx source; kept as free-form JSON."""
    scale_io: RawJSON = Field(default=None, alias="scaleIO")
    """Deprecated ScaleIO source; kept as free-form JSON."""
    storageos: RawJSON = None
    """Deprecated StorageOS source; kept as free-form JSON."""
    csi: CSIVolumeSource | None = None
    """An ephemeral volume from a CSI driver."""
    ephemeral: EphemeralVolumeSource | None = None
    """A PVC created for, and deleted with, the pod."""
    image: ImageVolumeSource | None = None
    """An OCI image or artifact."""
