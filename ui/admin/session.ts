/** The admin session: the key lives in sessionStorage and goes out only as a Bearer header. */
import { signal } from "@preact/signals";
import { ApiError, requestJson } from "../common/api.ts";
import type { ServiceInfo } from "./types.ts";

const STORAGE_KEY = "signet.adminKey";

function readStoredKey(): string | null {
  try {
    return sessionStorage.getItem(STORAGE_KEY);
  } catch {
    return null;
  }
}

/** The signed-in admin key, or null when signed out. */
export const adminKey = signal<string | null>(readStoredKey());

/** Why the session ended, shown on the sign-in screen (e.g. the key stopped working). */
export const signOutReason = signal<string | null>(null);

/** Public addresses of this server, known once signed in. */
export const serviceInfo = signal<ServiceInfo | null>(null);

/** Calls the admin API with the key; a 401 ends the session. */
export async function adminApi<T>(path: string, init: RequestInit = {}): Promise<T> {
  const key = adminKey.value;
  if (!key) throw new ApiError(401, "signed out");
  try {
    return await requestJson<T>(`/api/admin${path}`, {
      ...init,
      headers: { ...init.headers, Authorization: `Bearer ${key}` },
    });
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) {
      signOut(`Your session ended: ${err.message}.`);
    }
    throw err;
  }
}

/** Checks `key` against the server; stores it on success, throws ApiError otherwise. */
export async function signIn(key: string): Promise<void> {
  const info = await requestJson<ServiceInfo>("/api/admin/info", {
    headers: { Authorization: `Bearer ${key}` },
  });
  try {
    sessionStorage.setItem(STORAGE_KEY, key);
  } catch {
    // Private mode without storage: the session lasts until reload.
  }
  serviceInfo.value = info;
  signOutReason.value = null;
  adminKey.value = key;
}

/** Forgets the key; `reason` is shown on the sign-in screen. */
export function signOut(reason: string | null = null): void {
  try {
    sessionStorage.removeItem(STORAGE_KEY);
  } catch {
    // Nothing stored.
  }
  serviceInfo.value = null;
  signOutReason.value = reason;
  adminKey.value = null;
}

/** Loads the service addresses for a session restored from storage. */
export async function loadServiceInfo(): Promise<void> {
  if (serviceInfo.value) return;
  serviceInfo.value = await adminApi<ServiceInfo>("/info");
}
