"""Who a request comes from: the user an authenticator found, and the well-known names.

Upstream's ``user.Info`` carries a name, a uid, groups and extra attributes; every authorizer,
admission plugin and review reads it. :class:`UserInfo` is that, immutable so one value can be
shared by every request of a client (the in-process components keep theirs for their lifetime).

The names here are upstream's: ``system:anonymous`` in ``system:unauthenticated`` for a request
with no credentials, ``system:authenticated`` added to every authenticated user,
``system:masters`` (whom the privileged-group authorizer allows everything),
``system:node:<name>`` in ``system:nodes`` for kubelets (:func:`node_name`), and
``system:serviceaccount:<namespace>:<name>`` in ``system:serviceaccounts`` and
``system:serviceaccounts:<namespace>`` for service accounts (:func:`service_account`), whose
bound tokens carry the node they run on in ``authentication.kubernetes.io/node-name``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

__all__ = [
    "ALL_AUTHENTICATED",
    "ALL_UNAUTHENTICATED",
    "ANONYMOUS",
    "ADMIN_USER",
    "ANONYMOUS_USER",
    "KUBE_CONTROLLER_MANAGER",
    "KUBE_SCHEDULER",
    "NODES_GROUP",
    "NODE_NAME_EXTRA",
    "NODE_USER_PREFIX",
    "PRIVILEGED_GROUP",
    "SERVICE_ACCOUNTS_GROUP",
    "SERVICE_ACCOUNT_PREFIX",
    "UserInfo",
    "node_name",
    "node_user",
    "service_account",
    "service_account_user",
    "with_authenticated_group",
]

ANONYMOUS = "system:anonymous"
ALL_AUTHENTICATED = "system:authenticated"
ALL_UNAUTHENTICATED = "system:unauthenticated"
#: the group the privileged-group authorizer allows everything (upstream's SystemPrivilegedGroup)
PRIVILEGED_GROUP = "system:masters"
NODES_GROUP = "system:nodes"
NODE_USER_PREFIX = "system:node:"
SERVICE_ACCOUNT_PREFIX = "system:serviceaccount:"
SERVICE_ACCOUNTS_GROUP = "system:serviceaccounts"
KUBE_SCHEDULER = "system:kube-scheduler"
KUBE_CONTROLLER_MANAGER = "system:kube-controller-manager"
#: the extra key of a bound service account token naming the node its pod runs on
NODE_NAME_EXTRA = "authentication.kubernetes.io/node-name"


@dataclass(frozen=True, slots=True)
class UserInfo:
    """A user as an authenticator (or an impersonation) gives it: name, uid, groups, extra."""

    name: str
    uid: str = ""
    groups: tuple[str, ...] = ()
    extra: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def __hash__(self) -> int:  # extra is a mapping: hash what identifies the user
        return hash((self.name, self.uid, self.groups))

    def in_group(self, group: str) -> bool:
        return group in self.groups

    def extra_lists(self) -> dict[str, list[str]]:
        """``extra`` as the API writes it (``UserInfo.extra`` of the reviews)."""
        return {key: list(values) for key, values in self.extra.items()}


#: who a request without credentials is, when anonymous requests are allowed
ANONYMOUS_USER = UserInfo(ANONYMOUS, groups=(ALL_UNAUTHENTICATED,))
#: the user of the kubeconfig ``fakeapi serve`` and ``sandbox`` write when they authenticate, and
#: of a cluster's test client: a cluster admin, as kubeadm's ``kubernetes-admin``
ADMIN_USER = UserInfo("fakeapi-admin", groups=(PRIVILEGED_GROUP, ALL_AUTHENTICATED))


def with_authenticated_group(user: UserInfo) -> UserInfo:
    """``user`` with ``system:authenticated`` added, as upstream's AuthenticatedGroupAdder does for
    every authenticated user (unless it is anonymous or already in the group)."""
    if user.name == ANONYMOUS or ALL_AUTHENTICATED in user.groups:
        return user
    return UserInfo(user.name, user.uid, (*user.groups, ALL_AUTHENTICATED), user.extra)


def node_name(user: UserInfo) -> tuple[str, bool]:
    """Upstream's NodeIdentity: (node name, whether the user is a node). A user is a node when it
    is in ``system:nodes``; its name is what follows ``system:node:`` ("" when the name has no
    such prefix: a node that cannot be identified)."""
    if NODES_GROUP not in user.groups:
        return "", False
    if not user.name.startswith(NODE_USER_PREFIX):
        return "", True
    return user.name[len(NODE_USER_PREFIX):], True


def node_user(node: str) -> UserInfo:
    """The kubelet of ``node``: ``system:node:<node>`` in ``system:nodes``."""
    return UserInfo(f"{NODE_USER_PREFIX}{node}", groups=(NODES_GROUP, ALL_AUTHENTICATED))


def service_account(name: str) -> tuple[str, str] | None:
    """(namespace, name) of a service account user name, None for any other user
    (upstream's ``serviceaccount.SplitUsername``)."""
    if not name.startswith(SERVICE_ACCOUNT_PREFIX):
        return None
    parts = name[len(SERVICE_ACCOUNT_PREFIX):].split(":")
    if len(parts) != 2 or not parts[0] or not parts[1]:
        return None
    return parts[0], parts[1]


def service_account_user(
    namespace: str, name: str, *, uid: str = "", extra: Mapping[str, Iterable[str]] | None = None
) -> UserInfo:
    """The user of a service account's token, with its groups (and ``extra``, e.g. the node a
    bound token's pod runs on under :data:`NODE_NAME_EXTRA`)."""
    return UserInfo(
        f"{SERVICE_ACCOUNT_PREFIX}{namespace}:{name}",
        uid,
        (SERVICE_ACCOUNTS_GROUP, f"{SERVICE_ACCOUNTS_GROUP}:{namespace}", ALL_AUTHENTICATED),
        {key: tuple(values) for key, values in (extra or {}).items()},
    )
