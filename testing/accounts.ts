/** Creating keys, accounts and tokens against a running server (test or bench) with the real ssh-keygen. */
import type { LaunchedServer } from "./launch.ts";

/** What these helpers use of a server (a launched one, an instance of a cluster, its balancer). */
export type TestServer = Pick<LaunchedServer, "httpUrl" | "adminKey">;
import { runOk } from "./run.ts";

/** An ed25519 key pair on disk. */
export interface TestKey {
  privatePath: string;
  publicLine: string;
}

/** Generates an unencrypted ed25519 key with `ssh-keygen` in a fresh temp dir. */
export async function makeKey(comment = "test"): Promise<TestKey> {
  const dir = await Deno.makeTempDir({ prefix: "signet-key-" });
  const privatePath = `${dir}/id_ed25519`;
  await runOk("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", privatePath]);
  return { privatePath, publicLine: (await Deno.readTextFile(`${privatePath}.pub`)).trim() };
}

/** Signs `message` with `ssh-keygen -Y sign` under `namespace`; returns the armored signature. */
export async function sshSign(
  key: TestKey,
  message: string,
  namespace = "service",
): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "signet-sig-" });
  const file = `${dir}/msg`;
  await Deno.writeTextFile(file, message);
  await runOk("ssh-keygen", ["-Y", "sign", "-q", "-n", namespace, "-f", key.privatePath, file]);
  const sig = await Deno.readTextFile(`${file}.sig`);
  await Deno.remove(dir, { recursive: true });
  return sig;
}

/** POSTs JSON and returns status and parsed body. */
export async function postJson(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: Record<string, unknown> = {};
  try {
    parsed = JSON.parse(text);
  } catch { /* leave empty */ }
  return { status: res.status, body: parsed, headers: res.headers };
}

/** Mints an invite with the server's admin key. */
export async function mintInvite(server: TestServer): Promise<string> {
  const r = await postJson(`${server.httpUrl}/api/admin/invites`, "", {
    Authorization: `Bearer ${server.adminKey}`,
  });
  if (r.status !== 201) throw new Error(`invite failed: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.code as string;
}

/** A registered test user with their key. */
export interface TestUser {
  id: number;
  username: string;
  key: TestKey;
}

/** Creates a key, an invite and an account. */
export async function createUser(server: TestServer, username: string): Promise<TestUser> {
  const key = await makeKey(username);
  const code = await mintInvite(server);
  const r = await postJson(`${server.httpUrl}/api/signup`, {
    username,
    public_key: key.publicLine,
    invite_code: code,
  });
  if (r.status !== 201) throw new Error(`signup failed: ${r.status} ${JSON.stringify(r.body)}`);
  return { id: (r.body.user as { id: number }).id, username, key };
}

/** Logs in with challenge → ssh-keygen signature → verify; returns the token. */
export async function login(server: TestServer, user: TestUser): Promise<string> {
  const ch = await postJson(`${server.httpUrl}/api/login/challenge`, { username: user.username });
  const nonce = ch.body.nonce as string;
  const signature = await sshSign(user.key, nonce);
  const r = await postJson(`${server.httpUrl}/api/login/verify`, {
    username: user.username,
    nonce,
    signature,
  });
  if (r.status !== 200) throw new Error(`login failed: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.token as string;
}

/** `token` with its last character changed: well formed, but no token the server issued. */
export function alteredToken(token: string): string {
  return token.slice(0, -1) + (token.endsWith("0") ? "1" : "0");
}

/** Creates a repository over the API with `token`. */
export async function createRepo(server: TestServer, token: string, name: string): Promise<void> {
  const r = await postJson(`${server.httpUrl}/api/repos`, { name }, {
    Authorization: `Bearer ${token}`,
  });
  if (r.status !== 201) {
    throw new Error(`repo create failed: ${r.status} ${JSON.stringify(r.body)}`);
  }
}

/** Creates the account `username`, logs it in and creates its repository `repo`. */
export async function userWithRepo(
  server: TestServer,
  username: string,
  repo: string,
): Promise<{ user: TestUser; token: string }> {
  const { user, token } = await signedIn(server, username);
  await createRepo(server, token, repo);
  return { user, token };
}

/** Creates the account `username` and logs it in. */
export async function signedIn(
  server: TestServer,
  username: string,
): Promise<{ user: TestUser; token: string }> {
  const user = await createUser(server, username);
  return { user, token: await login(server, user) };
}
