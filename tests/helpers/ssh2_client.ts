/**
 * An ssh2 (npm) client for attacks the OpenSSH client will not make: an agent that offers one
 * public key and signs with another private key, and password authentication.
 */
import ssh2 from "ssh2";

/** The few members of an ssh2 exec stream the helper uses. */
interface ExecStream {
  on(event: string, listener: (...args: never[]) => void): void;
  stderr: { on(event: string, listener: (...args: never[]) => void): void };
}

/** What happened on a connection attempt. */
export interface AuthAttempt {
  authenticated: boolean;
  error?: string;
  stdout?: string;
  stderr?: string;
  code?: number;
}

/**
 * Connects as `git` to 127.0.0.1:`port` offering `offeredPublicLine` and signing the session
 * with `signingPrivateKey` (OpenSSH private key text); runs `command` if it gets in.
 */
export function connectWithSwappedSigner(
  port: number,
  offeredPublicLine: string,
  signingPrivateKey: string,
  command: string,
): Promise<AuthAttempt> {
  class SwappingAgent extends ssh2.BaseAgent {
    getIdentities(cb: (err: Error | null, keys?: string[]) => void): void {
      cb(null, [offeredPublicLine]);
    }
    sign(
      _offered: unknown,
      data: Uint8Array,
      options: unknown,
      cb?: (err: Error | null, signature?: Uint8Array) => void,
    ): void {
      const done = typeof options === "function" ? options : cb!;
      done(null, ssh2.utils.parseKey(signingPrivateKey).sign(data));
    }
  }
  return attempt(port, { agent: new SwappingAgent(), authHandler: ["agent"] }, command);
}

/** Connects as `git` with a password, which the server must refuse. */
export function connectWithPassword(
  port: number,
  password: string,
  command: string,
): Promise<AuthAttempt> {
  return attempt(port, { password, authHandler: ["password"] }, command);
}

function attempt(
  port: number,
  auth: Record<string, unknown>,
  command: string,
): Promise<AuthAttempt> {
  return new Promise((resolve) => {
    const client = new ssh2.Client();
    client.on("ready", () => {
      client.exec(command, (err: Error | undefined, stream: ExecStream) => {
        if (err) {
          client.end();
          return resolve({ authenticated: true, error: err.message });
        }
        let stdout = "";
        let stderr = "";
        stream.on("data", (d: Uint8Array) => (stdout += new TextDecoder().decode(d)));
        stream.stderr.on("data", (d: Uint8Array) => (stderr += new TextDecoder().decode(d)));
        stream.on("close", (code: number) => {
          client.end();
          resolve({ authenticated: true, stdout, stderr, code });
        });
      });
    });
    client.on("error", (err: Error) => {
      client.end();
      resolve({ authenticated: false, error: err.message });
    });
    client.on("close", () => resolve({ authenticated: false, error: "connection closed" }));
    client.connect({
      host: "127.0.0.1",
      port,
      username: "git",
      readyTimeout: 15_000,
      ...auth,
    });
  });
}
