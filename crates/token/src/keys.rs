//! Key files: a JWKS (RFC 7517) of verification keys, and private JWKs that sign. Each problem
//! names the key and member it is about, so the loader can point at file:line:col.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::jwk::Jwk;
use jsonwebtoken::{DecodingKey, EncodingKey};
use serde_json::Value;

use super::algorithm::{Alg, Family};

/// A problem in a key file: `key` is the index into `keys` (None for the document itself or a
/// lone JWK), `member` the offending member.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyError {
    pub key: Option<usize>,
    pub member: Option<String>,
    pub message: String,
}

fn err(key: Option<usize>, member: Option<&str>, message: impl Into<String>) -> KeyError {
    KeyError {
        key,
        member: member.map(str::to_string),
        message: message.into(),
    }
}

/// A verification key.
#[derive(Clone)]
pub struct Key {
    pub kid: String,
    pub family: Family,
    /// The JWK's own `alg`, when it pins one.
    pub alg: Option<String>,
    pub decoding: DecodingKey,
}

impl std::fmt::Debug for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the key material: an `oct` key is a secret.
        f.debug_struct("Key")
            .field("kid", &self.kid)
            .field("family", &self.family)
            .finish_non_exhaustive()
    }
}

#[derive(Debug, Clone, Default)]
pub struct KeySet {
    pub keys: Vec<Key>,
}

impl KeySet {
    pub fn find(&self, kid: &str) -> Option<&Key> {
        self.keys.iter().find(|k| k.kid == kid)
    }

    /// Parses a JWKS document: every problem, not the first.
    pub fn from_jwks(doc: &Value) -> Result<KeySet, Vec<KeyError>> {
        let Some(obj) = doc.as_object() else {
            return Err(vec![err(
                None,
                None,
                "a JWKS is a JSON object `{\"keys\": [...]}`",
            )]);
        };
        let Some(list) = obj.get("keys").and_then(Value::as_array) else {
            return Err(vec![err(None, None, "a JWKS needs `keys`: a list of JWKs")]);
        };
        let mut errors = Vec::new();
        let mut set = KeySet::default();
        for (i, v) in list.iter().enumerate() {
            match public_key(v) {
                Ok(key) if set.find(&key.kid).is_some() => errors.push(err(
                    Some(i),
                    Some("kid"),
                    format!("duplicate kid `{}`: a kid names one key", key.kid),
                )),
                Ok(key) => set.keys.push(key),
                Err((member, message)) => errors.push(KeyError {
                    key: Some(i),
                    member,
                    message,
                }),
            }
        }
        if errors.is_empty() {
            Ok(set)
        } else {
            Err(errors)
        }
    }

    /// Adds the public half of a signing key, unless its kid is taken.
    pub fn add_public(&mut self, key: &PrivateKey) {
        if self.find(&key.kid).is_none() {
            self.keys.push(Key {
                kid: key.kid.clone(),
                family: key.alg.family,
                alg: Some(key.alg.name.to_string()),
                decoding: key.public.clone(),
            });
        }
    }
}

type MemberError = (Option<String>, String);

fn member_err(member: &str, message: impl Into<String>) -> MemberError {
    (Some(member.to_string()), message.into())
}

fn str_member<'a>(v: &'a Value, member: &str) -> Result<Option<&'a str>, MemberError> {
    match v.get(member) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(member_err(member, format!("`{member}` must be a string"))),
    }
}

/// The family a JWK's `kty` (and `crv`) names, after the checks every JWK needs.
fn family(v: &Value) -> Result<Family, MemberError> {
    if !v.is_object() {
        return Err((None, "a JWK is a JSON object".to_string()));
    }
    let kty = str_member(v, "kty")?.ok_or_else(|| (None, "a JWK needs `kty`".to_string()))?;
    let family = Family::of_kty(kty).ok_or_else(|| {
        member_err(
            "kty",
            format!("unknown kty `{kty}`; the key types are `oct`, `RSA`, `EC`, `OKP`"),
        )
    })?;
    if family == Family::Okp && str_member(v, "crv")? != Some("Ed25519") {
        return Err(member_err("crv", "an OKP key must have `crv: Ed25519`"));
    }
    if let Some(alg) = str_member(v, "alg")? {
        match Alg::parse(alg) {
            Some(a) if a.family == family => {}
            Some(_) => {
                return Err(member_err(
                    "alg",
                    format!("alg `{alg}` is not for a `{kty}` key"),
                ));
            }
            None => {
                return Err(member_err(
                    "alg",
                    format!(
                        "unknown alg `{alg}`; the algorithms are {}",
                        list(Alg::names())
                    ),
                ));
            }
        }
    }
    Ok(family)
}

fn list(names: impl Iterator<Item = &'static str>) -> String {
    names.collect::<Vec<_>>().join(", ")
}

fn public_key(v: &Value) -> Result<Key, MemberError> {
    let family = family(v)?;
    let kid = str_member(v, "kid")?
        .filter(|k| !k.is_empty())
        .ok_or_else(|| {
            (
                None,
                "a verification key needs a non-empty `kid`".to_string(),
            )
        })?;
    if family != Family::Hmac && v.get("d").is_some() {
        return Err(member_err(
            "d",
            "a private member `d` in a JWKS of verification keys: publish public keys only",
        ));
    }
    public_members(v, family)?;
    let jwk: Jwk = serde_json::from_value(v.clone())
        .map_err(|e| (None, format!("not a valid {} JWK: {e}", family.kty())))?;
    let decoding = DecodingKey::from_jwk(&jwk)
        .map_err(|e| (None, format!("not a usable {} key: {e}", family.kty())))?;
    Ok(Key {
        kid: kid.to_string(),
        family,
        alg: str_member(v, "alg")?.map(str::to_string),
        decoding,
    })
}

/// The public members a verification key of `family` needs, each a base64url string (and an EC
/// key's curve one we verify with), so a bad one is reported at the member, not as the crate's
/// generic refusal.
fn public_members(v: &Value, family: Family) -> Result<(), MemberError> {
    let members: &[&str] = match family {
        Family::Okp => &["x"],
        Family::Rsa => &["n", "e"],
        Family::Ec => &["x", "y"],
        Family::Hmac => &["k"],
    };
    if family == Family::Ec {
        let crv = str_member(v, "crv")?.unwrap_or_default();
        if !["P-256", "P-384"].contains(&crv) {
            return Err(member_err(
                "crv",
                format!(
                    "unknown EC curve `{crv}`; the curves are `P-256` (ES256) and `P-384` (ES384)"
                ),
            ));
        }
    }
    for member in members {
        let s = str_member(v, member)?
            .ok_or_else(|| (None, format!("a `{}` key needs `{member}`", family.kty())))?;
        if URL_SAFE_NO_PAD.decode(s.trim_end_matches('=')).is_err() {
            return Err(member_err(member, format!("`{member}` is not base64url")));
        }
    }
    Ok(())
}

/// A signing key from a private JWK: Ed25519 (`OKP` with `d`), RSA (`n e d p q`), EC (`crv d`) or
/// HMAC (`oct`).
#[derive(Clone)]
pub struct PrivateKey {
    pub kid: String,
    pub alg: Alg,
    pub encoding: EncodingKey,
    pub public: DecodingKey,
}

impl std::fmt::Debug for PrivateKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PrivateKey")
            .field("kid", &self.kid)
            .field("alg", &self.alg.name)
            .finish_non_exhaustive()
    }
}

/// The PKCS #8 prefix of an Ed25519 private key (RFC 8410 §7): a fixed encoding of the 32-byte seed.
const ED25519_PKCS8_PREFIX: [u8; 16] = [
    0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
];

fn b64_member(v: &Value, member: &str) -> Result<Vec<u8>, KeyError> {
    let s = str_member(v, member)
        .map_err(|(m, msg)| err(None, m.as_deref(), msg))?
        .ok_or_else(|| err(None, None, format!("a private key needs `{member}`")))?;
    URL_SAFE_NO_PAD
        .decode(s.trim_end_matches('='))
        .map_err(|_| err(None, Some(member), format!("`{member}` is not base64url")))
}

impl PrivateKey {
    /// `kid_required`: the platform key must name itself, so callees find it.
    pub fn from_jwk(v: &Value, kid_required: bool) -> Result<PrivateKey, KeyError> {
        if v.get("keys").is_some_and(Value::is_array) && v.get("kty").is_none() {
            return Err(err(
                None,
                None,
                "a JWK needs `kty`; this is a JWKS (a `keys` list), where one private JWK is expected: give the key itself",
            ));
        }
        let family = family(v).map_err(|(m, msg)| err(None, m.as_deref(), msg))?;
        let kid = str_member(v, "kid")
            .map_err(|(m, msg)| err(None, m.as_deref(), msg))?
            .unwrap_or("")
            .to_string();
        if kid_required && kid.is_empty() {
            return Err(err(None, None, "a signing key needs a non-empty `kid`"));
        }
        let pinned = v.get("alg").and_then(Value::as_str).and_then(Alg::parse);
        match family {
            Family::Okp => {
                let seed = b64_member(v, "d")?;
                if seed.len() != 32 {
                    return Err(err(None, Some("d"), "an Ed25519 `d` is 32 bytes"));
                }
                let x = str_member(v, "x")
                    .map_err(|(m, msg)| err(None, m.as_deref(), msg))?
                    .ok_or_else(|| err(None, None, "an Ed25519 key needs `x`"))?;
                let public = DecodingKey::from_ed_components(x)
                    .map_err(|_| err(None, Some("x"), "`x` is not an Ed25519 public key"))?;
                let der = [&ED25519_PKCS8_PREFIX[..], &seed].concat();
                Ok(PrivateKey {
                    kid,
                    alg: pinned.unwrap_or(super::algorithm::TABLE[0]),
                    encoding: EncodingKey::from_ed_der(&der),
                    public,
                })
            }
            Family::Hmac => {
                let secret = b64_member(v, "k")?;
                if secret.is_empty() {
                    return Err(err(None, Some("k"), "an HMAC secret must not be empty"));
                }
                let encoding = EncodingKey::from_secret(&secret)
                    .map_err(|e| err(None, Some("k"), format!("not a usable secret: {e}")))?;
                let public = DecodingKey::from_secret(&secret)
                    .map_err(|e| err(None, Some("k"), format!("not a usable secret: {e}")))?;
                Ok(PrivateKey {
                    kid,
                    alg: pinned.unwrap_or(super::algorithm::TABLE[9]),
                    encoding,
                    public,
                })
            }
            Family::Rsa => {
                let (encoding, public) = rsa_keys(v)?;
                Ok(PrivateKey {
                    kid,
                    alg: pinned.unwrap_or(super::algorithm::TABLE[1]),
                    encoding,
                    public,
                })
            }
            Family::Ec => {
                let (alg, encoding, public) = ec_keys(v)?;
                Ok(PrivateKey {
                    kid,
                    alg: pinned.unwrap_or(alg),
                    encoding,
                    public,
                })
            }
        }
    }
}

/// An EC private JWK (`crv`, `d`, and `x`, `y` when given, which must be `d`'s public point) as
/// the PKCS #8 DER `jsonwebtoken` signs with, its default alg, and its public half. ECDSA signs
/// with RFC 6979 nonces there, so ES256/ES384 signatures are deterministic too.
fn ec_keys(v: &Value) -> Result<(Alg, EncodingKey, DecodingKey), KeyError> {
    use p256::pkcs8::EncodePrivateKey;
    let d = b64_member(v, "d")?;
    let crv = str_member(v, "crv")
        .map_err(|(m, msg)| err(None, m.as_deref(), msg))?
        .unwrap_or("");
    let bad_d = |curve: &str| {
        err(
            None,
            Some("d"),
            format!("`d` is not a {curve} private scalar"),
        )
    };
    let (alg, der, point) = match crv {
        "P-256" => {
            let k = p256::SecretKey::from_slice(&d).map_err(|_| bad_d("P-256"))?;
            let der = k.to_pkcs8_der().map_err(|_| bad_d("P-256"))?;
            (
                super::algorithm::TABLE[7],
                der,
                k.public_key().to_sec1_bytes(),
            )
        }
        "P-384" => {
            let k = p384::SecretKey::from_slice(&d).map_err(|_| bad_d("P-384"))?;
            let der = k.to_pkcs8_der().map_err(|_| bad_d("P-384"))?;
            (
                super::algorithm::TABLE[8],
                der,
                k.public_key().to_sec1_bytes(),
            )
        }
        other => {
            return Err(err(
                None,
                Some("crv"),
                format!(
                    "unknown EC curve `{other}`; signing keys are `P-256` (ES256) or `P-384` (ES384)"
                ),
            ));
        }
    };
    // An uncompressed SEC1 point: 0x04, then x and y of equal length.
    let half = (point.len() - 1) / 2;
    let (x, y) = (&point[1..1 + half], &point[1 + half..]);
    for (member, mine) in [("x", x), ("y", y)] {
        if v.get(member).is_some() && b64_member(v, member)? != mine {
            return Err(err(
                None,
                Some(member),
                format!("`{member}` is not the public point of this key's `d`"),
            ));
        }
    }
    let public =
        DecodingKey::from_ec_components(&URL_SAFE_NO_PAD.encode(x), &URL_SAFE_NO_PAD.encode(y))
            .map_err(|e| err(None, Some("x"), format!("not a usable EC public key: {e}")))?;
    Ok((alg, EncodingKey::from_ec_der(der.as_bytes()), public))
}

/// An RSA private JWK (`n`, `e`, `d`, `p`, `q`) as the PKCS #1 DER `jsonwebtoken` signs with, and
/// its public half. PKCS #1 v1.5 signatures (RS*) are deterministic; PSS ones are not.
fn rsa_keys(v: &Value) -> Result<(EncodingKey, DecodingKey), KeyError> {
    use rsa::BoxedUint;
    use rsa::pkcs1::EncodeRsaPrivateKey;
    let mut parts = Vec::new();
    for member in ["n", "e", "d", "p", "q"] {
        parts.push(BoxedUint::from_be_slice_vartime(&b64_member(v, member)?));
    }
    let [n, e, d, p, q]: [BoxedUint; 5] = parts
        .try_into()
        .map_err(|_| err(None, None, "an RSA key needs `n`, `e`, `d`, `p` and `q`"))?;
    let key = rsa::PrivateKey::from_components(n, e, d, vec![p, q])
        .map_err(|e| err(None, None, format!("not a valid RSA private key: {e}")))?;
    let der = key
        .to_pkcs1_der()
        .map_err(|e| err(None, None, format!("cannot encode the RSA key: {e}")))?;
    let public = DecodingKey::from_rsa_components(
        str_member(v, "n").ok().flatten().unwrap_or_default(),
        str_member(v, "e").ok().flatten().unwrap_or_default(),
    )
    .map_err(|e| err(None, Some("n"), format!("not a usable RSA public key: {e}")))?;
    Ok((EncodingKey::from_rsa_der(der.as_bytes()), public))
}
