"""Who a request comes from: client certificates, bearer tokens, or anonymous, as kube-apiserver.

The authenticators run in upstream's order, the first that knows the request wins:

1. **Client certificates** (``--client-ca-file``): a certificate the TLS handshake verified
   against the CA is the user named by its subject's common name, in the groups of its
   organizations (``CN=jane,O=devs``). The TLS layer (:mod:`fakeapi.server.runner`) does the
   verifying; this module reads the verified subject.
2. **Bearer tokens** (``--token-auth-file``): ``Authorization: Bearer <token>`` against a CSV
   file of ``token,user,uid,"group1,group2"`` rows (:func:`load_token_file`, upstream's
   messages for a malformed file). An unknown token is refused even when anonymous requests are
   allowed: a bad credential is never taken for no credential.
3. **Anonymous** (``--anonymous-auth``, on by default as upstream): a request with no credentials
   is ``system:anonymous`` in ``system:unauthenticated``. With it off such a request gets
   ``401 Unauthorized``.

Every authenticated user is also in ``system:authenticated``.
"""

from __future__ import annotations

import csv
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from fakeapi import errors
from fakeapi.auth.user import ANONYMOUS_USER, UserInfo, with_authenticated_group

__all__ = [
    "Authenticator",
    "TokenFileError",
    "certificate_user",
    "load_token_file",
    "unauthorized",
]


class TokenFileError(ValueError):
    """A ``--token-auth-file`` that cannot be read (upstream's message)."""


def unauthorized() -> errors.StatusError:
    """The 401 of a request whose credentials no authenticator accepted."""
    return errors.StatusError(401, "Unauthorized", "Unauthorized")


def load_token_file(path: str | os.PathLike[str]) -> dict[str, UserInfo]:
    """The users of a static token file: ``token,user,uid[,"group1,group2,..."]`` per line, as
    upstream's ``tokenfile.NewCSV`` reads it (an empty token is skipped, the last of duplicate
    tokens wins)."""
    tokens: dict[str, UserInfo] = {}
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            for record in csv.reader(handle):
                if not record:
                    continue
                if len(record) < 3:
                    raise TokenFileError(
                        f"token file '{os.fspath(path)}' must have at least 3 columns (token, "
                        f"user name, user uid), found {len(record)}"
                    )
                if not record[0]:
                    continue
                groups = tuple(record[3].split(",")) if len(record) >= 4 else ()
                tokens[record[0]] = UserInfo(record[1], record[2], groups)
    except OSError as exc:
        raise TokenFileError(f"cannot read token file '{os.fspath(path)}': {exc.strerror}") \
            from None
    except csv.Error as exc:
        raise TokenFileError(f"token file '{os.fspath(path)}': {exc}") from None
    return tokens


def certificate_user(peer_certificate: Mapping[str, Any] | None) -> UserInfo | None:
    """The user of a verified client certificate (``ssl.getpeercert()`` form): its subject's
    common name, in its organizations; None without a certificate or a common name."""
    if not peer_certificate:
        return None
    common_name = ""
    organizations: list[str] = []
    for rdn in peer_certificate.get("subject") or ():
        for key, value in rdn:
            if key == "commonName" and not common_name:
                common_name = str(value)
            elif key == "organizationName":
                organizations.append(str(value))
    if not common_name:
        return None
    return UserInfo(common_name, groups=tuple(organizations))


def _bearer_token(authorization: str | None) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header (None: no bearer token)."""
    if not authorization:
        return None
    parts = authorization.strip().split(" ", 2)
    if len(parts) < 2 or parts[0].lower() != "bearer" or not parts[1]:
        return None
    return parts[1]


@dataclass(slots=True)
class Authenticator:
    """The authenticators of one server: token users, whether client certificates count (a
    client CA is configured) and whether anonymous requests are allowed."""

    tokens: dict[str, UserInfo] = field(default_factory=dict)
    client_certificates: bool = False
    anonymous: bool = True

    def add_token(self, token: str, user: UserInfo) -> None:
        """Accept ``token`` as ``user`` (the sandbox's own identities, beside the file's)."""
        self.tokens[token] = user

    def authenticate(
        self, *, authorization: str | None, peer_certificate: Mapping[str, Any] | None = None
    ) -> UserInfo:
        """The request's user; 401 Unauthorized when a credential is bad, or when there is none
        and anonymous requests are off."""
        if self.client_certificates:
            user = certificate_user(peer_certificate)
            if user is not None:
                return with_authenticated_group(user)
        token = _bearer_token(authorization)
        if token is not None:
            user = self.tokens.get(token)
            if user is None:
                raise unauthorized()
            return with_authenticated_group(user)
        if self.anonymous:
            return ANONYMOUS_USER
        raise unauthorized()
