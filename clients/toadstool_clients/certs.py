"""TLS for a home LAN: `toadstool cert` makes a self-signed certificate and key, and `tls_mismatch` says in
plain words why a connection failed when one side speaks TLS and the other does not.

The certificate names every host name and IP address players will type (plus localhost and 127.0.0.1),
so gRPC's host name check passes; clients trust it by being given the certificate file itself
(`--tls-ca`). This is for a home LAN without a certificate authority, not a substitute for a real CA on
the internet: there is no revocation, and whoever holds the key can impersonate the server.
"""

from __future__ import annotations

import argparse
import datetime
import ipaddress
import os
import socket
import ssl
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

CERT_FILE = "toadstool-cert.pem"
KEY_FILE = "toadstool-key.pem"
DEFAULT_DAYS = 825


@dataclass(frozen=True)
class CertificatePair:
    cert: Path
    key: Path
    names: tuple[str, ...]
    addresses: tuple[str, ...]


def _split_hosts(hosts: Sequence[str]) -> tuple[list[str], list[str]]:
    """DNS names and IP addresses, with localhost and 127.0.0.1 always included, duplicates dropped."""
    names: list[str] = []
    addresses: list[str] = []
    for host in [*hosts, "localhost", "127.0.0.1"]:
        host = host.strip().strip("[]")
        if not host:
            continue
        try:
            address = str(ipaddress.ip_address(host))
        except ValueError:
            if any(c.isspace() or c in "/\\" for c in host):
                raise ValueError(f"{host!r} is neither a host name nor an IP address") from None
            if host.lower() not in names:
                names.append(host.lower())
        else:
            if address not in addresses:
                addresses.append(address)
    return names, addresses


def make_certificate(out: Path, hosts: Sequence[str] = (), days: int = DEFAULT_DAYS) -> CertificatePair:
    """Write a new key (ECDSA P-256, file mode 0600) and a self-signed certificate for `hosts` into `out`.

    The certificate is its own CA (basicConstraints CA:TRUE, pathlen 0) so that gRPC clients can use it
    directly as their root certificate, and it is a server certificate (serverAuth) with the hosts as
    subjectAltNames, which is what TLS host name checks read.
    """
    if days < 1:
        raise ValueError("--days must be at least 1")
    names, addresses = _split_hosts(hosts)
    key = ec.generate_private_key(ec.SECP256R1())
    common_name = (names[0] if names and names[0] != "localhost" else "Toadstool server")[:64]
    subject = x509.Name(
        [
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Toadstool (self-signed)"),
            x509.NameAttribute(NameOID.COMMON_NAME, common_name),
        ]
    )
    now = datetime.datetime.now(datetime.UTC)
    alt_names: list[x509.GeneralName] = [x509.DNSName(name) for name in names]
    alt_names += [x509.IPAddress(ipaddress.ip_address(address)) for address in addresses]
    certificate = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=days))
        .add_extension(x509.SubjectAlternativeName(alt_names), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=True,
                crl_sign=False,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(key, hashes.SHA256())
    )
    out.mkdir(parents=True, exist_ok=True)
    cert_path, key_path = out / CERT_FILE, out / KEY_FILE
    key_bytes = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    # The key is created 0600 from the start, never readable by others even for a moment.
    fd = os.open(key_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(key_bytes)
    key_path.chmod(0o600)
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    return CertificatePair(cert=cert_path, key=key_path, names=tuple(names), addresses=tuple(addresses))


def speaks_tls(address: str, timeout: float = 2.0) -> bool | None:
    """Whether the server at HOST:PORT answers a TLS handshake (certificate not checked: this only asks
    which protocol it speaks). None if nothing answers at all."""
    host, _, port = address.rpartition(":")
    host = host.strip("[]")
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    context.set_alpn_protocols(["h2"])
    try:
        with socket.create_connection((host, int(port)), timeout=timeout) as raw:
            try:
                with context.wrap_socket(raw, server_hostname=host or None):
                    return True
            except (ssl.SSLError, OSError):
                return False
    except (OSError, ValueError):
        return None


def tls_mismatch(address: str, tls_ca: str | None, timeout: float = 2.0) -> str | None:
    """A message for a person when a connection failed because of TLS, or None if TLS is not the reason.

    gRPC reports both mistakes (plaintext to a TLS server, TLS to a plaintext one) only as "Socket closed"
    or a handshake error; one extra probe tells which, so the message can say what to do.
    """
    tls = speaks_tls(address, timeout)
    if tls is None:
        return None
    if tls and not tls_ca:
        return (
            f"the server at {address} only accepts TLS connections: pass --tls-ca with the server's certificate "
            "(or set TOADSTOOL_TLS_CA)"
        )
    if not tls and tls_ca:
        return f"the server at {address} speaks plaintext, not TLS: leave out --tls-ca (and TOADSTOOL_TLS_CA)"
    if tls and tls_ca:
        return (
            f"the TLS server at {address} was not trusted: its certificate is not the one in {tls_ca}, has "
            "expired, or does not name the host you typed (use a name given to `toadstool cert --host`)"
        )
    return None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of `toadstool cert`."""
    parser.add_argument("--out", default=".", help="directory for the two PEM files (default: here)")
    parser.add_argument(
        "--host",
        action="append",
        default=[],
        metavar="NAME_OR_IP",
        help="a host name or IP address players use to reach the server (repeatable; default: this "
        "machine's name; localhost and 127.0.0.1 are always included)",
    )
    parser.add_argument("--days", type=int, default=DEFAULT_DAYS, help=f"validity (default {DEFAULT_DAYS})")
    parser.add_argument("--force", action="store_true", help="overwrite existing files")


def run(args: argparse.Namespace) -> int:
    """`toadstool cert`: write the pair and explain how to use it."""
    out = Path(args.out)
    hosts = args.host or [socket.gethostname()]
    existing = [p for p in (out / CERT_FILE, out / KEY_FILE) if p.exists()]
    if existing and not args.force:
        print(f"toadstool cert: {existing[0]} exists (use --force to replace it)", file=sys.stderr)
        return 1
    try:
        pair = make_certificate(out, hosts, args.days)
    except (ValueError, OSError) as error:
        print(f"toadstool cert: {error}", file=sys.stderr)
        return 1
    print(f"Wrote {pair.cert} (certificate) and {pair.key} (private key: keep it secret, mode 0600).")
    print(f"Valid for {args.days} days for: {', '.join([*pair.names, *pair.addresses])}")
    print()
    print("Serve with TLS:")
    print(f"  toadstool serve --tls-cert {pair.cert} --tls-key {pair.key}")
    print("Give players the certificate (not the key) and have them connect with it, using one of the names above:")
    print(f"  toadstool join TABLE --server {(pair.names or pair.addresses)[0]}:50051 --tls-ca {pair.cert}")
    print(f"  (or set TOADSTOOL_TLS_CA={pair.cert} once for every client command)")
    return 0


def main(argv: list[str] | None = None) -> int:
    """`python -m toadstool_clients.certs`: the same as `toadstool cert`."""
    parser = argparse.ArgumentParser(
        prog="toadstool cert",
        description="Make a self-signed TLS certificate and key for a Toadstool server on a home LAN.",
    )
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    raise SystemExit(main())
