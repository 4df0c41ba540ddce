"""A self-signed serving certificate, for a server that authenticates but was given none.

kubectl sends a kubeconfig's credentials only over TLS (client-go reads the user of a kubeconfig
only for an ``https`` server), so a server that authenticates over plain HTTP would see every
kubectl as ``system:anonymous``. kube-apiserver never serves without TLS: given no
``--tls-cert-file`` it generates a self-signed certificate for its address into ``--cert-dir``.
:func:`self_signed_certificate` does the same with the ``openssl`` binary (Python's standard
library cannot make certificates, and fakeapi adds no dependency for it); without one it returns
None and the caller says that it serves plain HTTP.
"""

from __future__ import annotations

import ipaddress
import shutil
import subprocess
from pathlib import Path

__all__ = ["self_signed_certificate"]


def _subject_alt_names(host: str) -> str:
    names = ["DNS:localhost", "IP:127.0.0.1", "IP:::1"]
    try:
        address = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        names.append(f"DNS:{host}")
    else:
        if not address.is_unspecified:
            names.append(f"IP:{address}")
    return ",".join(dict.fromkeys(names))


def self_signed_certificate(*, directory: Path, host: str) -> tuple[Path, Path] | None:
    """(certificate, key) files made in ``directory`` for ``host`` and loopback (valid a year),
    or None without an ``openssl`` binary; ValueError when openssl fails."""
    openssl = shutil.which("openssl")
    if openssl is None:
        return None
    cert, key = directory / "apiserver.crt", directory / "apiserver.key"
    made = subprocess.run(
        [openssl, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
         "-nodes", "-days", "365", "-subj", "/CN=fakeapi-apiserver",
         "-addext", f"subjectAltName={_subject_alt_names(host)}",
         "-keyout", str(key), "-out", str(cert)],
        capture_output=True, text=True, check=False,
    )
    if made.returncode != 0:
        raise ValueError(f"cannot make a self-signed serving certificate with {openssl}: "
                         f"{made.stderr.strip()}")
    return cert, key
