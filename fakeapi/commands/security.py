"""kube-apiserver's security flags on ``fakeapi serve`` and ``fakeapi sandbox``.

The flags themselves are declared by :mod:`fakeapi.cli` (``--help`` must not import this
module); here they are read into one :class:`~fakeapi.auth.settings.SecuritySettings`
(:func:`security_settings`, a bad value is one line on stderr and exit status 2, as argparse's),
turned into what ``fakeapi serve`` runs with (:func:`serve_security`: the authenticators, the TLS
context and the admin token its kubeconfig carries), and checked against the address to listen
on (:func:`exposure_warning`): loopback stays the default, and a server reachable from elsewhere
that lets anyone do anything says so on stderr.

kubectl sends its credentials only over TLS, so a server that authenticates without
``--tls-cert-file`` serves HTTPS with a self-signed certificate for its address, as
kube-apiserver generates one (:func:`with_serving_certificate`,
:mod:`fakeapi.auth.serving_cert`); the kubeconfig trusts that certificate.

The sandbox hands the settings to its :class:`~fakeapi.cluster.Cluster`, which runs its
components under their own identities (:mod:`fakeapi.cluster.identities`).
"""

from __future__ import annotations

import argparse
import dataclasses
import ipaddress
import secrets
import ssl
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from fakeapi.auth.authentication import Authenticator
from fakeapi.auth.settings import SecuritySettings
from fakeapi.auth.user import ADMIN_USER

__all__ = [
    "ServeSecurity",
    "exposure_warning",
    "security_settings",
    "serve_security",
    "with_serving_certificate",
]


def security_settings(args: argparse.Namespace, *, command: str) -> SecuritySettings | None:
    """The settings of the parsed flags (None after printing why they are refused)."""
    anonymous = str(args.anonymous_auth).lower()
    if anonymous not in ("true", "false"):
        print(f"fakeapi {command}: --anonymous-auth: want true or false, not "
              f"{args.anonymous_auth!r}", file=sys.stderr)
        return None
    try:
        return SecuritySettings.of(
            authorization=args.authorization_mode or None,
            token_auth_file=args.token_auth_file,
            client_ca_file=args.client_ca_file,
            tls_cert_file=args.tls_cert_file,
            tls_private_key_file=args.tls_private_key_file,
            anonymous_auth=anonymous == "true",
        )
    except ValueError as exc:
        print(f"fakeapi {command}: {exc}", file=sys.stderr)
        return None


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:  # a host name: it may resolve to anything
        return False


def exposure_warning(host: str, settings: SecuritySettings, *, command: str) -> str | None:
    """The warning for listening on ``host`` (None on loopback, or when requests are
    authenticated and authorized): anyone who reaches a non-loopback address gets full rights."""
    if _loopback(host) or not settings.open_to_anyone:
        return None
    return (
        f"fakeapi {command}: WARNING: listening on {host} with neither authentication nor "
        "authorization: anyone who can reach this address may do anything to the cluster. "
        "Listen on 127.0.0.1, or see docs/sandbox.md (\"A secure setup\"): "
        "--authorization-mode=RBAC,Node --anonymous-auth=false and TLS"
    )


@dataclass(frozen=True, slots=True)
class ServeSecurity:
    """What ``fakeapi serve`` runs with: the authenticators (None: nobody is authenticated),
    the TLS context (None: plain HTTP), the admin's token for its kubeconfig and the
    certificate-authority-data the kubeconfig trusts."""

    authenticator: Authenticator | None
    tls: ssl.SSLContext | None
    admin_token: str | None
    ca_data: bytes | None


def serve_security(settings: SecuritySettings) -> ServeSecurity:
    """The authenticators, TLS and admin credentials of a server with ``settings`` (ValueError,
    OSError or ssl.SSLError for unreadable files)."""
    # late for start-up time: the server module pulls in aiohttp
    from fakeapi.server.runner import tls_context

    authenticator = settings.authenticator()
    token = None
    if authenticator is not None:
        token = secrets.token_urlsafe(24)
        authenticator.add_token(token, ADMIN_USER)
    tls = None
    if settings.tls_cert_file and settings.tls_private_key_file:
        tls = tls_context(cert_file=settings.tls_cert_file,
                          key_file=settings.tls_private_key_file,
                          client_ca_file=settings.client_ca_file)
    return ServeSecurity(authenticator=authenticator, tls=tls, admin_token=token,
                         ca_data=settings.server_trust())


def with_serving_certificate(settings: SecuritySettings, *, host: str) -> SecuritySettings:
    """``settings`` with a self-signed serving certificate when they authenticate without one
    (:mod:`fakeapi.auth.serving_cert`, kept in a temporary directory for the process's
    lifetime); unchanged otherwise."""
    if not settings.authenticates or settings.tls_cert_file:
        return settings
    from fakeapi.auth.serving_cert import self_signed_certificate  # late: TLS is rare

    cert, key = self_signed_certificate(
        directory=Path(tempfile.mkdtemp(prefix="fakeapi-certs-")), host=host)
    return dataclasses.replace(settings, tls_cert_file=str(cert), tls_private_key_file=str(key))
