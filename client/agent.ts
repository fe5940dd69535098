/**
 * A minimal ssh-agent client over the unix socket in $SSH_AUTH_SOCK: list identities and sign.
 * Protocol: https://datatracker.ietf.org/doc/html/draft-miller-ssh-agent
 */
import { wire, WireReader } from "../protocol/ssh/sshwire.ts";

const SSH_AGENT_FAILURE = 5;
const SSH_AGENTC_REQUEST_IDENTITIES = 11;
const SSH_AGENT_IDENTITIES_ANSWER = 12;
const SSH_AGENTC_SIGN_REQUEST = 13;
const SSH_AGENT_SIGN_RESPONSE = 14;
const MAX_MESSAGE = 256 * 1024;

/** A key the agent holds. */
export interface AgentIdentity {
  blob: Uint8Array;
  comment: string;
}

/** The agent is unreachable, refused, or answered something malformed. */
export class AgentError extends Error {}

/** One connection to an ssh-agent. Close it when done. */
export class AgentClient {
  private constructor(private readonly conn: Deno.UnixConn) {}

  /** Connects to the agent socket at `path`. */
  static async connect(path: string): Promise<AgentClient> {
    try {
      return new AgentClient(await Deno.connect({ transport: "unix", path }));
    } catch (err) {
      throw new AgentError(`cannot connect to ssh-agent at ${path}: ${(err as Error).message}`);
    }
  }

  /** Lists the keys the agent holds. */
  async identities(): Promise<AgentIdentity[]> {
    const [type, body] = await this.request(SSH_AGENTC_REQUEST_IDENTITIES, new Uint8Array(0));
    if (type !== SSH_AGENT_IDENTITIES_ANSWER) {
      throw new AgentError(`ssh-agent refused to list keys (message ${type})`);
    }
    try {
      const r = new WireReader(body);
      const n = r.uint32();
      const out: AgentIdentity[] = [];
      for (let i = 0; i < n; i++) {
        out.push({ blob: r.string(), comment: new TextDecoder().decode(r.string()) });
      }
      return out;
    } catch {
      throw new AgentError("ssh-agent sent a malformed key list");
    }
  }

  /** Asks the agent to sign `data` with the key `blob`; returns the SSH signature blob. */
  async sign(blob: Uint8Array, data: Uint8Array): Promise<Uint8Array> {
    const [type, body] = await this.request(SSH_AGENTC_SIGN_REQUEST, wire(blob, data, 0));
    if (type === SSH_AGENT_FAILURE) throw new AgentError("ssh-agent refused to sign");
    if (type !== SSH_AGENT_SIGN_RESPONSE) {
      throw new AgentError(`ssh-agent answered the sign request with message ${type}`);
    }
    try {
      const r = new WireReader(body);
      const sig = r.string();
      if (!r.done()) throw new Error("trailing data");
      return sig;
    } catch {
      throw new AgentError("ssh-agent sent a malformed signature");
    }
  }

  /** Closes the connection. */
  close(): void {
    try {
      this.conn.close();
    } catch { /* already closed */ }
  }

  private async request(type: number, payload: Uint8Array): Promise<[number, Uint8Array]> {
    const msg = wire({ raw: new Uint8Array([type]) }, { raw: payload });
    await this.write(wire(msg));
    const length = new DataView((await this.readExactly(4)).buffer).getUint32(0);
    if (length < 1 || length > MAX_MESSAGE) {
      throw new AgentError(`ssh-agent sent a message of invalid length ${length}`);
    }
    const reply = await this.readExactly(length);
    return [reply[0], reply.subarray(1)];
  }

  private async write(bytes: Uint8Array): Promise<void> {
    let off = 0;
    while (off < bytes.length) off += await this.conn.write(bytes.subarray(off));
  }

  private async readExactly(n: number): Promise<Uint8Array> {
    const buf = new Uint8Array(n);
    let off = 0;
    while (off < n) {
      const got = await this.conn.read(buf.subarray(off));
      if (got === null) throw new AgentError("ssh-agent closed the connection");
      off += got;
    }
    return buf;
  }
}
