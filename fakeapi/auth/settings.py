"""kube-apiserver's security flags as one value, for ``fakeapi serve``, ``sandbox`` and ``Cluster``.

``--authorization-mode`` (``AlwaysAllow``, ``RBAC``, ``Node``, comma-separated, evaluated in
order), ``--token-auth-file``, ``--client-ca-file``, ``--tls-cert-file`` with
``--tls-private-key-file``, and ``--anonymous-auth`` (on by default, as upstream). All off by
default: a server without any of them authenticates nobody and allows everything, as fakeapi
always has. Asking for authentication without a mode gives upstream's default mode,
``AlwaysAllow``; asking for a mode without a token file or client CA still authenticates, with the
tokens the cluster makes for its own identities (the admin's kubeconfig, the nodes').

:meth:`SecuritySettings.check` refuses inconsistent settings with a message naming the flag.
:meth:`SecuritySettings.authenticator` builds the server's authenticators from the flags, and
:meth:`SecuritySettings.server_trust` says what a kubeconfig trusts of the server's certificate.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

from fakeapi.auth.authentication import Authenticator, load_token_file
from fakeapi.auth.authorizer import ALWAYS_ALLOW, parse_modes

__all__ = ["SecuritySettings"]


@dataclass(frozen=True, slots=True, kw_only=True)
class SecuritySettings:
    """The authentication, authorization and TLS flags of one server (see the module)."""

    authorization_modes: tuple[str, ...] = ()
    token_auth_file: str | None = None
    client_ca_file: str | None = None
    tls_cert_file: str | None = None
    tls_private_key_file: str | None = None
    anonymous_auth: bool = True

    @classmethod
    def of(
        cls,
        *,
        authorization: str | Sequence[str] | None = None,
        token_auth_file: str | os.PathLike[str] | None = None,
        client_ca_file: str | os.PathLike[str] | None = None,
        tls_cert_file: str | os.PathLike[str] | None = None,
        tls_private_key_file: str | os.PathLike[str] | None = None,
        anonymous_auth: bool = True,
    ) -> SecuritySettings:
        """Checked settings from flag-like values (ValueError naming what is wrong)."""
        settings = cls(
            authorization_modes=parse_modes(authorization) if authorization else (),
            token_auth_file=os.fspath(token_auth_file) if token_auth_file else None,
            client_ca_file=os.fspath(client_ca_file) if client_ca_file else None,
            tls_cert_file=os.fspath(tls_cert_file) if tls_cert_file else None,
            tls_private_key_file=os.fspath(tls_private_key_file) if tls_private_key_file else None,
            anonymous_auth=anonymous_auth,
        )
        settings.check()
        return settings

    def check(self) -> None:
        if bool(self.tls_cert_file) != bool(self.tls_private_key_file):
            raise ValueError("--tls-cert-file and --tls-private-key-file go together")
        if self.client_ca_file and not self.tls_cert_file:
            raise ValueError("--client-ca-file needs TLS: give --tls-cert-file and "
                             "--tls-private-key-file")
        for flag, path in (
            ("--token-auth-file", self.token_auth_file),
            ("--client-ca-file", self.client_ca_file),
            ("--tls-cert-file", self.tls_cert_file),
            ("--tls-private-key-file", self.tls_private_key_file),
        ):
            if path and not os.path.isfile(path):
                raise ValueError(f"{flag}: no file {path}")

    @property
    def authenticates(self) -> bool:
        """Whether requests are authenticated (any flag but TLS alone asks for it)."""
        return bool(
            self.authorization_modes
            or self.token_auth_file
            or self.client_ca_file
            or not self.anonymous_auth
        )

    @property
    def modes(self) -> tuple[str, ...]:
        """The authorization modes in force: the given ones, else ``AlwaysAllow`` when requests
        are authenticated, else none (authorization off)."""
        if self.authorization_modes:
            return self.authorization_modes
        return (ALWAYS_ALLOW,) if self.authenticates else ()

    @property
    def open_to_anyone(self) -> bool:
        """Whether a request with no credentials may do everything (the default sandbox)."""
        return self.anonymous_auth and self.modes in ((), (ALWAYS_ALLOW,))

    def authenticator(self) -> Authenticator | None:
        """The server's authenticators (None: requests are not authenticated); reads the token
        file (:class:`~fakeapi.auth.authentication.TokenFileError` when it is malformed)."""
        if not self.authenticates:
            return None
        tokens = load_token_file(self.token_auth_file) if self.token_auth_file else {}
        return Authenticator(
            tokens=tokens,
            client_certificates=bool(self.client_ca_file),
            anonymous=self.anonymous_auth,
        )

    def server_trust(self) -> bytes | None:
        """What a kubeconfig of this server trusts (its certificate-authority-data; None over
        plain HTTP): the serving certificate file (its chain) and the client CA, so that a
        self-signed serving certificate verifies as well as one the client CA signed."""
        if not self.tls_cert_file:
            return None
        with open(self.tls_cert_file, "rb") as handle:
            bundle = handle.read()
        if self.client_ca_file:
            with open(self.client_ca_file, "rb") as handle:
                bundle = bundle.rstrip(b"\n") + b"\n" + handle.read()
        return bundle
