"""Signed agent cards of `a2a-sim serve`, checked by the official a2a-sdk's own verifier.

    python conformance/serve/test_signed_cards.py BIN

Starts `BIN serve tests/card-signing/signed.yaml` (its cards signed with a test ES256 key; the
`ledger` agent has a `tampered_card` fault) on a free port, and fetches each card with the SDK's
A2ACardResolver and the verifier of `a2a.utils.signing` (the `a2a-sdk[signing]` extra, PyJWT),
its keys the public JWKS beside the scenario:

- the screener's and the partner bank's cards verify (the bank's file was signed with EdDSA by
  the bank; the server signs the card it serves, its interfaces included);
- the ledger's card does not (InvalidSignaturesError): a client's verification catches it;
- with a key set lacking the server's key, no card verifies (the check is a real one).

Exit status 1 on any failed check, 0 when all pass; every wait is bounded (under 20 s).
"""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from cryptography.hazmat.primitives.asymmetric import ec
from jwt.api_jwk import PyJWKSet

from a2a.client import A2ACardResolver
from a2a.utils.signing import SignatureVerificationError, create_signature_verifier

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = ROOT / "tests" / "card-signing" / "signed.yaml"
JWKS = ROOT / "tests" / "card-signing" / "public.jwks.json"
ALGORITHMS = ["ES256", "ES384", "RS256", "EdDSA"]
READY_TIMEOUT_S = 10

failures: list[str] = []


def check(ok: bool, what: str, detail: object = "") -> None:
    if ok:
        print(f"PASS {what}")
    else:
        print(f"FAIL {what}: {detail}")
        failures.append(what)


def verifier(jwks: dict):
    keys = PyJWKSet.from_dict(jwks)

    def provider(kid, _jku):
        # A kid the set lacks raises KeyError, which the verifier does not catch: answer with a
        # stranger's key instead, which verifies nothing.
        try:
            return keys[kid]
        except KeyError:
            return ec.generate_private_key(ec.SECP256R1()).public_key()

    return create_signature_verifier(provider, ALGORITHMS)


async def resolve(base: str, agent: str, verify) -> str | None:
    """None when the card resolves and verifies; the error's name when not."""
    async with httpx.AsyncClient(timeout=5) as http:
        try:
            await A2ACardResolver(http, f"{base}/agents/{agent}").get_agent_card(
                signature_verifier=verify
            )
            return None
        except SignatureVerificationError as e:
            return type(e).__name__


async def drive(base: str) -> None:
    jwks = json.loads(JWKS.read_text())
    good = verifier(jwks)
    for agent in ["screener", "partner-bank"]:
        got = await resolve(base, agent, good)
        check(got is None, f"the SDK verifies the served card of {agent}", got)
    got = await resolve(base, "ledger", good)
    check(
        got == "InvalidSignaturesError",
        "the SDK rejects the tampered card of ledger (InvalidSignaturesError)",
        got,
    )
    others = {"keys": [k for k in jwks["keys"] if k["kid"] != "card-test-es256"]}
    got = await resolve(base, "screener", verifier(others))
    check(got == "InvalidSignaturesError", "without the server's key, no card verifies", got)


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    work = Path(tempfile.mkdtemp(prefix="a2a-signed-cards."))
    ready = work / "ready"
    proc = subprocess.Popen(
        [sys.argv[1], "serve", str(SCENARIO), "--listen", "127.0.0.1:0",
         "--ready-file", str(ready), "--idle-exit", "30"],
        stdout=subprocess.DEVNULL,
        stderr=open(work / "serve.stderr", "wb"),
    )
    try:
        deadline = time.monotonic() + READY_TIMEOUT_S
        while not (ready.exists() and ready.read_text().endswith("\n")):
            if proc.poll() is not None or time.monotonic() > deadline:
                print(f"serve did not start; stderr in {work}", file=sys.stderr)
                return 1
            time.sleep(0.05)
        base = f"http://{ready.read_text().strip()}"
        asyncio.run(asyncio.wait_for(drive(base), timeout=15))
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    if failures:
        print(f"\nsigned cards: {len(failures)} check(s) failed")
        return 1
    print("\nsigned cards: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
