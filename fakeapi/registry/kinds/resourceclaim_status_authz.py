"""Who may write which part of a claim's status (DRAResourceClaimGranularStatusAuthorization).

Since 1.36 (beta, on by default) a status write needs, besides ``resourceclaims/status``,
permission on synthetic subresources for the fields it changes, as upstream's status strategy
checks them:

- changing ``status.allocation`` or ``status.reservedFor`` needs the request's verb (``update``,
  ``patch``) on ``resourceclaims/binding``, cluster-wide — the scheduler's and the claim
  controller's right;
- changing ``status.devices`` needs, for every driver whose entries were added, removed or
  changed, ``arbitrary-node:<verb>`` on ``resourceclaims/driver`` named after the driver, in the
  claim's namespace; a service account whose bound token runs on the one node the claim is
  allocated on (the ``authentication.kubernetes.io/node-name`` extra) is asked
  ``associated-node:<verb>`` first — a node-local driver's grant.

A refusal is a ``Forbidden`` field error (422) naming the resource, the verb and the authorizer's
403 message, as upstream writes it. Nothing is checked with authorization off, or for a trusted
in-process client (the loopback user may do anything).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fakeapi.auth.attributes import Attributes, forbidden
from fakeapi.auth.authorizer import AuthorizerChain, Decision
from fakeapi.auth.user import NODE_NAME_EXTRA, UserInfo, service_account
from fakeapi.name_syntax import is_dns1123_subdomain
from fakeapi.objects import as_dict, as_list, text
from fakeapi.validation.field import FieldError
from fakeapi.validation.field import forbidden as forbidden_field

__all__ = ["ASSOCIATED_NODE", "ARBITRARY_NODE", "claim_status_authorization_errors"]

_GROUP = "resource.k8s.io"
ASSOCIATED_NODE = "associated-node:"
ARBITRARY_NODE = "arbitrary-node:"


def _denied(authorizer: AuthorizerChain, attrs: Attributes) -> str:
    """"" when allowed, else the 403 message of the refusal (upstream's checkAuthorization)."""
    answer = authorizer.authorize(attrs)
    if answer.decision is Decision.ALLOW:
        return ""
    reason = answer.reason
    if answer.error:
        reason = f"{answer.error}: {reason}" if reason else answer.error
    return forbidden(attrs, reason).message


def _device_key(entry: Mapping[str, Any]) -> tuple[str, str, str, str]:
    return (text(entry.get("driver")), text(entry.get("pool")), text(entry.get("device")),
            text(entry.get("shareID")))


def _modified_drivers(new: Mapping[str, Any], old: Mapping[str, Any]) -> list[str]:
    """Drivers with ``status.devices`` entries added, removed or changed (upstream's
    getModifiedDrivers)."""
    before = {_device_key(as_dict(e)): e for e in as_list(old.get("devices"))}
    drivers: set[str] = set()
    for entry in as_list(new.get("devices")):
        key = _device_key(as_dict(entry))
        if before.pop(key, None) != entry:
            drivers.add(key[0])
    drivers.update(key[0] for key in before)
    return sorted(drivers)


def _allocated_node(status: Mapping[str, Any]) -> str:
    """The one node an allocation's node selector names by ``metadata.name``, else ""."""
    terms = as_list(as_dict(as_dict(status.get("allocation")).get("nodeSelector"))
                    .get("nodeSelectorTerms"))
    if len(terms) != 1:
        return ""
    term = as_dict(terms[0])
    fields = as_list(term.get("matchFields"))
    if as_list(term.get("matchExpressions")) or len(fields) != 1:
        return ""
    field = as_dict(fields[0])
    values = as_list(field.get("values"))
    if field.get("key") != "metadata.name" or field.get("operator") != "In" or len(values) != 1:
        return ""
    return text(values[0])


def _on_allocated_node(user: UserInfo, node: str) -> bool:
    """A service account whose one node-name extra is the allocated node."""
    if not node or service_account(user.name) is None:
        return False
    names = user.extra.get(NODE_NAME_EXTRA) or ()
    return len(names) == 1 and not is_dns1123_subdomain(names[0]) and names[0] == node


def claim_status_authorization_errors(
    *,
    authorizer: AuthorizerChain,
    user: UserInfo,
    verb: str,
    namespace: str,
    new: Mapping[str, Any],
    old: Mapping[str, Any],
) -> list[FieldError]:
    """The refusals of a status write from ``old`` to ``new`` (the claims' ``status``)."""
    verb = verb or "update"
    errors: list[FieldError] = []
    # nil and empty compare equal, as in upstream's semantic DeepEqual
    if (new.get("allocation") or None) != (old.get("allocation") or None) or (
        (new.get("reservedFor") or None) != (old.get("reservedFor") or None)
    ):
        attrs = Attributes(user=user, verb=verb, api_group=_GROUP, resource="resourceclaims",
                           subresource="binding")
        denied = _denied(authorizer, attrs)
        if denied:
            errors.append(forbidden_field(
                "status",
                'changing status.allocation or status.reservedFor requires '
                f'resource="resourceclaims/binding", verb="{verb}" permission: {denied}',
            ))
    drivers = _modified_drivers(new, old)
    if not drivers:
        return errors
    verbs = [ARBITRARY_NODE + verb]
    if _on_allocated_node(user, _allocated_node(new)):
        verbs.insert(0, ASSOCIATED_NODE + verb)
    for driver in drivers:
        first = ""
        for asked in verbs:
            attrs = Attributes(user=user, verb=asked, api_group=_GROUP,
                               resource="resourceclaims", subresource="driver",
                               namespace=namespace, name=driver)
            denied = _denied(authorizer, attrs)
            if not denied:
                break
            first = first or denied
        else:
            errors.append(forbidden_field(
                "status.devices",
                'changing status.devices requires resource="resourceclaims/driver", '
                f'verb="[{" ".join(verbs)}]" permission: {first}',
            ))
    return errors
