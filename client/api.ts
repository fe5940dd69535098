/** A typed client for the hosting HTTP API (`/api/...`); failures become ApiError. */
import type { RepoView } from "../protocol/repos.ts";

/** A user as the API shows it. */
export interface ApiUser {
  id: number;
  username: string;
}

/** A failed API call: `status` is the HTTP status (0 when the host was unreachable). */
export class ApiError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

const TIMEOUT_MS = 30_000;

/** Calls the API of the host at `host` (a normalized base URL). */
export class Api {
  constructor(readonly host: string) {}

  /** Sends one request; returns the parsed JSON body of a 2xx answer, else throws ApiError. */
  async call<T>(
    method: string,
    path: string,
    opts: { body?: unknown; token?: string } = {},
  ): Promise<T> {
    const headers: Record<string, string> = { Accept: "application/json" };
    if (opts.body !== undefined) headers["Content-Type"] = "application/json";
    if (opts.token) headers.Authorization = `Bearer ${opts.token}`;
    let res: Response;
    try {
      res = await fetch(`${this.host}${path}`, {
        method,
        headers,
        body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (err) {
      throw new ApiError(0, `cannot reach ${this.host}: ${unreachableReason(err)}`);
    }
    const text = await res.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    if (!res.ok) {
      const message = typeof (body as { error?: unknown })?.error === "string"
        ? (body as { error: string }).error
        : `HTTP ${res.status} ${res.statusText}`.trim();
      throw new ApiError(res.status, message);
    }
    if (typeof body !== "object" || body === null) {
      throw new ApiError(res.status, `${this.host} answered ${path} with something not JSON`);
    }
    return body as T;
  }

  /** True when `GET /api/health` answers 2xx. */
  async healthy(): Promise<boolean> {
    try {
      await this.call("GET", "/api/health");
      return true;
    } catch {
      return false;
    }
  }

  /** Creates an account. */
  async signup(username: string, publicKey: string, inviteCode: string): Promise<ApiUser> {
    const r = await this.call<{ user: ApiUser }>("POST", "/api/signup", {
      body: { username, public_key: publicKey, invite_code: inviteCode },
    });
    return r.user;
  }

  /** Requests a login nonce for `username`. */
  async challenge(username: string): Promise<string> {
    const r = await this.call<{ nonce: string }>("POST", "/api/login/challenge", {
      body: { username },
    });
    if (typeof r.nonce !== "string" || !/^[0-9a-f]{64}$/.test(r.nonce)) {
      throw new ApiError(200, `${this.host} sent a malformed login nonce`);
    }
    return r.nonce;
  }

  /** Exchanges a signed nonce for a token. */
  async verify(
    username: string,
    nonce: string,
    signature: string,
  ): Promise<{ token: string; user: ApiUser }> {
    const r = await this.call<{ token: string; user: ApiUser }>("POST", "/api/login/verify", {
      body: { username, nonce, signature },
    });
    if (typeof r.token !== "string" || !r.user) {
      throw new ApiError(200, `${this.host} sent a malformed login answer`);
    }
    return r;
  }

  /** The user the token belongs to. */
  async me(token: string): Promise<ApiUser> {
    return (await this.call<{ user: ApiUser }>("GET", "/api/user", { token })).user;
  }

  /** Creates a repository owned by the token's user. */
  async createRepo(token: string, name: string): Promise<RepoView> {
    return (await this.call<{ repo: RepoView }>("POST", "/api/repos", { token, body: { name } }))
      .repo;
  }

  /** Lists the repositories of `owner`, every page of them (a server that pages says `next`). */
  async listRepos(owner: string): Promise<RepoView[]> {
    const q = encodeURIComponent(owner);
    const all: RepoView[] = [];
    let after: string | null = null;
    do {
      const page: { repos: RepoView[]; next?: string | null } = await this.call(
        "GET",
        `/api/repos?owner=${q}&limit=100${after ? `&after=${encodeURIComponent(after)}` : ""}`,
      );
      all.push(...page.repos);
      after = page.next ?? null;
    } while (after);
    return all;
  }

  /** One repository. */
  async getRepo(owner: string, name: string): Promise<RepoView> {
    return (await this.call<{ repo: RepoView }>("GET", `/api/repos/${repoPath(owner, name)}`)).repo;
  }

  /** Deletes a repository of the token's user; returns `owner/name`. */
  async deleteRepo(token: string, owner: string, name: string): Promise<string> {
    const r = await this.call<{ deleted: string }>(
      "DELETE",
      `/api/repos/${repoPath(owner, name)}`,
      {
        token,
      },
    );
    return r.deleted;
  }
}

function repoPath(owner: string, name: string): string {
  return `${encodeURIComponent(owner)}/${encodeURIComponent(name)}`;
}

/**
 * Why a request got no answer, in the words of the failure underneath: Deno's fetch says only
 * "fetch failed" and keeps the reason (connection refused, a name that does not resolve, a
 * certificate) in its `cause`.
 */
export function unreachableReason(err: unknown): string {
  if (err instanceof DOMException && err.name === "TimeoutError") {
    return `no answer within ${TIMEOUT_MS / 1000}s`;
  }
  const cause = err instanceof Error && err.cause instanceof Error ? err.cause.message : "";
  // e.g. "error sending request for url (…): client error (Connect): tcp connect error:
  // Connection refused (os error 111)"
  const detail = /client error \([^)]*\): (.*)$/.exec(cause)?.[1] ?? cause;
  const reason = detail.replace(/^tcp connect error: /, "").replace(/ \(os error \d+\)$/, "");
  return reason || (err instanceof Error ? err.message : String(err));
}
