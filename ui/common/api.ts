/** Fetching JSON from the Signet APIs, turning `{"error": "..."}` replies into ApiError. */

/** A failed API call: the HTTP status and the server's own error message. */
export class ApiError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

/** Sends a request and parses the JSON reply; non-2xx replies throw ApiError with the message. */
export async function requestJson<T>(url: string, init: RequestInit = {}): Promise<T> {
  let res: Response;
  try {
    res = await fetch(url, {
      ...init,
      headers: { Accept: "application/json", ...init.headers },
      credentials: "omit",
      cache: "no-store",
    });
  } catch {
    throw new ApiError(0, "could not reach the server; check your connection and try again");
  }
  const text = await res.text();
  let body: unknown = undefined;
  try {
    body = text === "" ? undefined : JSON.parse(text);
  } catch {
    // Not JSON: reported below for errors, rejected for successes.
  }
  if (!res.ok) {
    const message = body && typeof body === "object" && "error" in body &&
        typeof (body as { error: unknown }).error === "string"
      ? (body as { error: string }).error
      : `${res.status} ${res.statusText || "request failed"}`;
    throw new ApiError(res.status, message);
  }
  if (body === undefined) {
    throw new ApiError(res.status, "the server sent an empty or non-JSON reply");
  }
  return body as T;
}
