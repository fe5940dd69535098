/** SSH authentication: user `git`, ed25519 public keys only, signatures verified here. */
import { type Ed25519PublicKey, parseEd25519Blob } from "../../protocol/ssh/sshkey.ts";
import { log } from "../log.ts";
import { type RateLimiter, RateLimitError } from "../ratelimit.ts";
import { type AuthContext, parseKey } from "./ssh2.ts";

/** The only SSH user name. */
export const SSH_USER = "git";

/** Per-connection authentication state. */
export interface AuthState {
  /** The key whose signature verified; set once authentication succeeded. */
  key?: Ed25519PublicKey;
  /** Rejected attempts that count toward the limit (everything but the `none` probe). */
  failures: number;
  /** Whether a failure line was already logged for this connection. */
  logged: boolean;
  /** Types of the keys offered that are not ssh-ed25519 (for the failure line). */
  otherKeyTypes: Set<string>;
}

/** Creates the state of a fresh connection. */
export function newAuthState(): AuthState {
  return { failures: 0, logged: false, otherKeyTypes: new Set() };
}

/** Why a connection that never authenticated failed, for its closing line. */
export function noUsableKeyReason(state: AuthState): string {
  if (state.otherKeyTypes.size === 0) return "no usable key";
  return `no usable key (offered only ${[...state.otherKeyTypes].join(", ")}; ` +
    "accounts use ssh-ed25519 keys)";
}

/**
 * The fixed line fail2ban matches, e.g. with
 * `"msg":"ssh authentication failed","remote_addr":"<HOST>"`. Never carries key material.
 */
export function logAuthFailure(state: AuthState, remote: string, reason: string): void {
  state.logged = true;
  log("warn", "ssh authentication failed", { remote_addr: remote, reason });
}

/**
 * Answers one authentication request. A key counts only when it is ssh-ed25519 and its
 * signature over the session verifies with that same key: ssh2 does not check signatures, and a
 * client may offer one key and sign with another. Registered or not is decided later.
 * Returns (or resolves to, once a failure is counted against the rate limit) false when the
 * connection should be dropped: it used up its `maxFailures`, or its address ran out of failed
 * attempts (rate limit `ssh_auth_fail_ip`).
 */
export function authenticate(
  auth: AuthContext,
  state: AuthState,
  remote: string,
  maxFailures: number,
  limiter: RateLimiter,
): boolean | Promise<boolean> {
  const reject = (reason: string | null): boolean | Promise<boolean> => {
    state.failures++;
    const answer = () => {
      auth.reject(["publickey"]);
      return state.failures < maxFailures;
    };
    if (!reason) return answer();
    logAuthFailure(state, remote, reason);
    return limiter.take("ssh_auth_fail_ip", remote).then(answer, (err) => {
      if (!(err instanceof RateLimitError)) {
        // The shared buckets are unreachable: the failure still counts against maxFailures.
        log("warn", "ssh authentication rate limit unavailable", { error: String(err) });
        return answer();
      }
      // Over the limit: no answer at all, the connection is simply dropped.
      log("warn", "ssh authentication rate limited", { remote_addr: remote });
      return false;
    });
  };
  if (auth.username !== SSH_USER) return reject(state.logged ? null : "invalid user");
  if (auth.method === "none") {
    auth.reject(["publickey"]);
    return true;
  }
  if (auth.method !== "publickey") return reject(`method ${auth.method} not allowed`);
  let key: Ed25519PublicKey;
  const offered = auth.key;
  if (!offered) return reject("malformed publickey request");
  try {
    if (offered.algo !== "ssh-ed25519") throw new Error("not ed25519");
    key = parseEd25519Blob(new Uint8Array(offered.data));
  } catch {
    // Not an error yet: clients offer every key they have; only ed25519 ones can match.
    if (offered.algo !== "ssh-ed25519" && state.otherKeyTypes.size < 8) {
      // The client's own string: only a key type's characters reach the log.
      const type = String(offered.algo);
      state.otherKeyTypes.add(/^[a-z0-9@.+-]{1,40}$/i.test(type) ? type : "other");
    }
    return reject(null);
  }
  if (!auth.signature || !auth.blob) {
    auth.accept(); // "this key is acceptable": the client must still sign with it
    return true;
  }
  const parsed = parseKey(offered.data);
  const verified = !(parsed instanceof Error) && !Array.isArray(parsed) &&
    parsed.verify(auth.blob, auth.signature, auth.hashAlgo) === true;
  if (!verified) return reject("bad signature");
  state.key = key;
  auth.accept();
  return true;
}
