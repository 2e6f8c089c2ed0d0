#!/usr/bin/env python3
"""TEST MATERIAL. Writes the two attack tokens `a2a-sim token mint` will not make:
alg-none.jwt (unsigned) and hs256-confusion.jwt (HS256 keyed with the RSA public key of
jwks.json, PEM-encoded, as a confused verifier would use it). Needs `cryptography`."""
import base64, hashlib, hmac, json
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.rsa import RSAPublicNumbers

def b64(b): return base64.urlsafe_b64encode(b).rstrip(b"=").decode()
def unb64(s): return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))
def seg(o): return b64(json.dumps(o, separators=(",", ":")).encode())

EPOCH = 1767225600  # 2026-01-01T00:00:00Z, tick 0 of the default scenario clock
claims = {"iss": "https://idp.acme.example", "aud": "a2a-sim.acme.example", "iat": EPOCH, "nbf": EPOCH,
          "exp": EPOCH + 3600, "tenant": "acme", "classification": "confidential",
          "scope": "payments:release sanctions:screen", "sub": "orchestrator"}
rsa = next(k for k in json.load(open("jwks.json"))["keys"] if k["kty"] == "RSA")
pub = RSAPublicNumbers(int.from_bytes(unb64(rsa["e"]), "big"), int.from_bytes(unb64(rsa["n"]), "big")).public_key()
pem = pub.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
open("alg-none.jwt", "w").write(seg({"alg": "none", "typ": "JWT"}) + "." + seg(claims) + ".\n")
signing_input = seg({"alg": "HS256", "typ": "JWT", "kid": rsa["kid"]}) + "." + seg(claims)
mac = hmac.new(pem, signing_input.encode(), hashlib.sha256).digest()
open("hs256-confusion.jwt", "w").write(signing_input + "." + b64(mac) + "\n")
