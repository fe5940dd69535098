/** The SSH algorithms Signet offers (and the bench's thin server, bench/baselines/thin_server.ts). */
import type { Algorithms } from "./ssh2.ts";

/**
 * Algorithms offered. The client's preference picks among them; OpenSSH picks chacha20 first,
 * which measured fastest under Deno (docs/decisions/ssh.md). No CBC, no SHA-1 MACs.
 */
export const ALGORITHMS: Algorithms = {
  kex: [
    "curve25519-sha256",
    "curve25519-sha256@libssh.org",
    "ecdh-sha2-nistp256",
    "ecdh-sha2-nistp384",
    "ecdh-sha2-nistp521",
    "diffie-hellman-group16-sha512",
    "diffie-hellman-group14-sha256",
  ],
  cipher: [
    "chacha20-poly1305@openssh.com",
    "aes128-gcm@openssh.com",
    "aes256-gcm@openssh.com",
    "aes128-ctr",
    "aes192-ctr",
    "aes256-ctr",
  ],
  hmac: [
    "hmac-sha2-256-etm@openssh.com",
    "hmac-sha2-512-etm@openssh.com",
    "hmac-sha2-256",
    "hmac-sha2-512",
  ],
  compress: ["none"],
};
