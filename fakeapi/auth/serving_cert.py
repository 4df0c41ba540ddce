"""Certificates: a self-signed serving certificate for a server that authenticates but was given
none, and the certificates a test or a user's setup signs with a CA of its own.

kubectl sends a kubeconfig's credentials only over TLS (client-go reads the user of a kubeconfig
only for an ``https`` server), so a server that authenticates over plain HTTP would see every
kubectl as ``system:anonymous``. kube-apiserver never serves without TLS: given no
``--tls-cert-file`` it generates a self-signed certificate for its address into ``--cert-dir``.
:func:`self_signed_certificate` does the same, with the ``cryptography`` package (Python's
standard library cannot make certificates). Keys are ECDSA P-256, as kubeadm's defaults are
being moved to; the subject's common name is the user and its organizations the groups, as
kube-apiserver reads a client certificate.
"""

from __future__ import annotations

import datetime
import ipaddress
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

__all__ = ["Issued", "issue_certificate", "self_signed_certificate"]

_ONE_DAY = datetime.timedelta(days=1)


@dataclass(frozen=True, slots=True)
class Issued:
    """A certificate and its private key, PEM-encoded."""

    cert: bytes
    key: bytes

    def write(self, directory: Path, name: str) -> tuple[Path, Path]:
        """``<name>.crt`` and ``<name>.key`` in ``directory`` (the key readable by its owner
        only)."""
        cert, key = directory / f"{name}.crt", directory / f"{name}.key"
        cert.write_bytes(self.cert)
        key.touch(mode=0o600)
        key.write_bytes(self.key)
        return cert, key


def _alt_names(hosts: Sequence[str]) -> list[x509.GeneralName]:
    names: list[x509.GeneralName] = []
    for host in dict.fromkeys(hosts):
        try:
            address = ipaddress.ip_address(host.strip("[]"))
        except ValueError:
            names.append(x509.DNSName(host))
        else:
            if not address.is_unspecified:
                names.append(x509.IPAddress(address))
    return names


def issue_certificate(
    *,
    common_name: str,
    organizations: Sequence[str] = (),
    hosts: Sequence[str] = (),
    usage: str = "server",
    issuer: Issued | None = None,
    days: int = 365,
) -> Issued:
    """A certificate for ``common_name`` (and ``organizations``): ``usage`` ``server`` (with
    ``hosts`` as subject alternative names), ``client`` or ``ca``; signed by ``issuer`` (a CA
    made here), or self-signed without one."""
    key = ec.generate_private_key(ec.SECP256R1())
    attributes = [x509.NameAttribute(NameOID.COMMON_NAME, common_name)]
    attributes += [x509.NameAttribute(NameOID.ORGANIZATION_NAME, o) for o in organizations]
    subject = x509.Name(attributes)
    if issuer is None:
        issuer_name, signer = subject, key
    else:
        ca = x509.load_pem_x509_certificate(issuer.cert)
        ca_key = serialization.load_pem_private_key(issuer.key, password=None)
        if not isinstance(ca_key, ec.EllipticCurvePrivateKey):
            raise ValueError("the issuer's key is not an ECDSA key made by issue_certificate")
        issuer_name, signer = ca.subject, ca_key
    now = datetime.datetime.now(datetime.UTC)
    builder = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - _ONE_DAY)
        .not_valid_after(now + days * _ONE_DAY)
        .add_extension(x509.BasicConstraints(ca=usage == "ca", path_length=None), critical=True)
    )
    if usage == "ca":
        builder = builder.add_extension(
            x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                          content_commitment=False, key_encipherment=False,
                          data_encipherment=False, key_agreement=False, encipher_only=False,
                          decipher_only=False),
            critical=True,
        )
    else:
        purpose = (ExtendedKeyUsageOID.SERVER_AUTH if usage == "server"
                   else ExtendedKeyUsageOID.CLIENT_AUTH)
        builder = builder.add_extension(x509.ExtendedKeyUsage([purpose]), critical=False)
        if usage == "server" and hosts:
            builder = builder.add_extension(
                x509.SubjectAlternativeName(_alt_names(hosts)), critical=False
            )
    cert = builder.sign(signer, hashes.SHA256())
    return Issued(
        cert=cert.public_bytes(serialization.Encoding.PEM),
        key=key.private_bytes(serialization.Encoding.PEM,
                              serialization.PrivateFormat.PKCS8,
                              serialization.NoEncryption()),
    )


def self_signed_certificate(*, directory: Path, host: str) -> tuple[Path, Path]:
    """(certificate, key) files made in ``directory`` for ``host`` and loopback, valid a
    year, as kube-apiserver's self-signed serving certificate."""
    issued = issue_certificate(
        common_name="fakeapi-apiserver", hosts=["localhost", "127.0.0.1", "::1", host],
    )
    return issued.write(directory, "apiserver")
