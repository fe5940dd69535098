/**
 * Reading OpenSSH private key files (`openssh-key-v1`, as `ssh-keygen` writes them) holding one
 * ssh-ed25519 key. Format: https://github.com/openssh/openssh-portable/blob/master/PROTOCOL.key
 */
import { decodeBase64 } from "../protocol/secrets.ts";
import { dearmor } from "../protocol/ssh/armor.ts";
import { type Ed25519PublicKey, parseEd25519Blob } from "../protocol/ssh/sshkey.ts";
import { bytesEqual, WireReader } from "../protocol/ssh/sshwire.ts";

const LABEL = "OPENSSH PRIVATE KEY";
const MAGIC = "openssh-key-v1\0";

/** A parsed private key file. `seed` is present only when the file is not passphrase-protected. */
export interface OpenSshPrivateKey {
  /** The public half, readable even when the private part is encrypted. */
  publicKey: Ed25519PublicKey;
  /** True when the private part is encrypted with a passphrase. */
  encrypted: boolean;
  /** The 32-byte Ed25519 seed (unencrypted keys only). */
  seed?: Uint8Array;
  /** The key's comment (unencrypted keys only). */
  comment?: string;
}

/** A key file that cannot be used; the message says why in terms a user can act on. */
export class KeyFileError extends Error {}

/** Parses the text of an OpenSSH private key file; throws KeyFileError when it is unusable. */
export function parseOpenSshPrivateKey(text: string): OpenSshPrivateKey {
  const armor = dearmor(text, LABEL);
  if (!armor.ok && armor.problem === "armor") {
    throw new KeyFileError(
      armor.found && armor.found !== LABEL
        ? `the key is in "${armor.found}" format; signet needs an ssh-ed25519 key in OpenSSH format (ssh-keygen -t ed25519)`
        : `the file is not an OpenSSH private key (it must begin with -----BEGIN ${LABEL}-----)`,
    );
  }
  if (!armor.ok) throw new KeyFileError("the private key's base64 body is corrupt");
  const bytes = armor.bytes;
  try {
    return parseKeyBytes(bytes);
  } catch (err) {
    if (err instanceof KeyFileError) throw err;
    throw new KeyFileError("the private key file is truncated or corrupt");
  }
}

function parseKeyBytes(bytes: Uint8Array): OpenSshPrivateKey {
  const text = (b: Uint8Array) => new TextDecoder().decode(b);
  const r = new WireReader(bytes);
  if (text(r.raw(MAGIC.length)) !== MAGIC) {
    throw new KeyFileError("the private key is not in openssh-key-v1 format");
  }
  const cipher = text(r.string());
  const kdf = text(r.string());
  r.string(); // kdf options
  const count = r.uint32();
  if (count !== 1) throw new KeyFileError(`the key file holds ${count} keys; expected exactly one`);
  const publicBlob = r.string();
  const keyType = text(new WireReader(publicBlob).string());
  if (keyType !== "ssh-ed25519") {
    throw new KeyFileError(
      `the key type is ${keyType}; signet accounts use ssh-ed25519 keys (ssh-keygen -t ed25519)`,
    );
  }
  const publicKey = parseEd25519Blob(publicBlob);
  const privateSection = r.string();
  if (!r.done()) throw new KeyFileError("trailing data after the private key");
  if (cipher !== "none" || kdf !== "none") return { publicKey, encrypted: true };

  const p = new WireReader(privateSection);
  if (p.uint32() !== p.uint32()) throw new KeyFileError("the private key's check bytes differ");
  if (text(p.string()) !== "ssh-ed25519") {
    throw new KeyFileError("the private key's type does not match its public key");
  }
  const pub = p.string();
  const priv = p.string();
  const comment = new TextDecoder().decode(p.string());
  if (
    pub.length !== 32 || priv.length !== 64 || !bytesEqual(pub, publicKey.raw) ||
    !bytesEqual(priv.subarray(32), pub)
  ) {
    throw new KeyFileError("the private key does not match its public key");
  }
  for (let i = 1; !p.done(); i++) {
    if (p.raw(1)[0] !== (i & 0xff)) throw new KeyFileError("the private key's padding is corrupt");
  }
  return { publicKey, encrypted: false, seed: priv.slice(0, 32), comment };
}

/** DER prefix of a PKCS#8 Ed25519 private key (RFC 8410); the 32-byte seed follows. */
const PKCS8_ED25519_PREFIX = Uint8Array.from(
  "302e020100300506032b657004220420".match(/../g)!,
  (h) => parseInt(h, 16),
);

/**
 * Imports a 32-byte Ed25519 seed into WebCrypto as a signing key, checking that it yields
 * `expectedPublic` (so a damaged file fails here, not at the server).
 */
export async function importEd25519Seed(
  seed: Uint8Array,
  expectedPublic: Uint8Array,
): Promise<CryptoKey> {
  const pkcs8 = new Uint8Array(PKCS8_ED25519_PREFIX.length + 32);
  pkcs8.set(PKCS8_ED25519_PREFIX);
  pkcs8.set(seed, PKCS8_ED25519_PREFIX.length);
  const extractable = await crypto.subtle.importKey("pkcs8", pkcs8, "Ed25519", true, ["sign"]);
  const jwk = await crypto.subtle.exportKey("jwk", extractable);
  const derived = decodeBase64(jwk.x!.replace(/-/g, "+").replace(/_/g, "/"));
  pkcs8.fill(0);
  if (!bytesEqual(derived, expectedPublic)) {
    throw new KeyFileError("the private key does not match its public key");
  }
  const key = await crypto.subtle.importKey(
    "jwk",
    { kty: "OKP", crv: "Ed25519", d: jwk.d, x: jwk.x },
    "Ed25519",
    false,
    ["sign"],
  );
  return key;
}
