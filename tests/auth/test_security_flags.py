"""kube-apiserver's security flags on ``fakeapi serve``/``sandbox``: checked with a message naming
the flag, off by default, and a warning for a non-loopback address anyone may use."""

from __future__ import annotations

import ssl
from pathlib import Path

import pytest

from fakeapi.auth.settings import SecuritySettings
from fakeapi.cli import main
from fakeapi.commands.security import exposure_warning, with_serving_certificate


def test_no_flag_authenticates_nobody_and_allows_everything() -> None:
    settings = SecuritySettings.of()
    assert not settings.authenticates and settings.modes == () and settings.open_to_anyone
    assert settings.authenticator() is None


def test_a_token_file_alone_authenticates_with_upstreams_default_mode(tmp_path: Path) -> None:
    tokens = tmp_path / "tokens.csv"
    tokens.write_text('tok,jane,1001,"devs,ops"\n')
    settings = SecuritySettings.of(token_auth_file=tokens)
    assert settings.modes == ("AlwaysAllow",)
    authenticator = settings.authenticator()
    assert authenticator is not None
    user = authenticator.authenticate(authorization="Bearer tok")
    assert (user.name, user.uid, user.groups) == ("jane", "1001",
                                                  ("devs", "ops", "system:authenticated"))


@pytest.mark.parametrize(("args", "message"), [
    (["--authorization-mode", "ABAC"],
     'authorization-mode "ABAC" is not a valid mode (fakeapi serves AlwaysAllow, RBAC, Node)'),
    (["--authorization-mode", "RBAC,RBAC"],
     'authorization-mode ["RBAC" "RBAC"] has mode specified more than once'),
    (["--tls-cert-file", "server.crt"], "--tls-cert-file and --tls-private-key-file go together"),
    (["--token-auth-file", "/no/such/tokens.csv"],
     "--token-auth-file: no file /no/such/tokens.csv"),
    (["--anonymous-auth", "maybe"], "--anonymous-auth: want true or false, not 'maybe'"),
])
def test_a_bad_security_flag_is_one_line_and_exit_status_2(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["serve", "--port", "0", *args]) == 2
    assert capsys.readouterr().err == f"fakeapi serve: {message}\n"


OPEN = SecuritySettings.of()
SECURED = SecuritySettings.of(authorization="RBAC,Node", anonymous_auth=False)


@pytest.mark.parametrize(("host", "settings", "warned"), [
    ("127.0.0.1", OPEN, False),
    ("::1", OPEN, False),
    ("localhost", OPEN, False),
    ("0.0.0.0", OPEN, True),
    ("192.0.2.10", SecuritySettings.of(authorization="AlwaysAllow"), True),
    ("0.0.0.0", SECURED, False),
    ("0.0.0.0", SecuritySettings.of(authorization="RBAC"), False),
])
def test_a_non_loopback_address_anyone_may_use_is_warned_about(
    host: str, settings: SecuritySettings, warned: bool
) -> None:
    warning = exposure_warning(host, settings, command="sandbox")
    assert (warning is not None) is warned
    if warning:
        assert warning.startswith(f"fakeapi sandbox: WARNING: listening on {host} with neither "
                                  "authentication nor authorization")


def test_authentication_without_a_certificate_serves_a_self_signed_one() -> None:
    settings = with_serving_certificate(SECURED, host="127.0.0.1")
    assert settings.tls_cert_file and settings.tls_private_key_file
    assert settings.server_trust() == Path(settings.tls_cert_file).read_bytes()
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(settings.tls_cert_file, settings.tls_private_key_file)
    # nothing to make without authentication, or with a certificate given
    assert with_serving_certificate(OPEN, host="127.0.0.1") is OPEN
    assert with_serving_certificate(settings, host="127.0.0.1") is settings
