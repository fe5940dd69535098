/**
 * Which methods the routes of a Hono app answer at a path, so that a request with another method
 * gets 405 with `Allow` (as HTTP says) instead of "no route", and a request to no route at all is
 * known before its body is read.
 */

/** A route as Hono lists it (`app.routes`). */
export interface RouteEntry {
  method: string;
  path: string;
}

/**
 * A look-up of the methods the routes in `routes` take at a path (GET brings HEAD); middleware
 * (method ALL) and wildcard patterns are not routes. Segments `:name` match one path segment.
 */
export function methodsAt(routes: readonly RouteEntry[]): (path: string) => string[] {
  const patterns = new Map<string, { re: RegExp; methods: Set<string> }>();
  for (const { method, path } of routes) {
    if (method === "ALL" || path.includes("*")) continue;
    let entry = patterns.get(path);
    if (!entry) {
      const source = path.split("/").map((segment) =>
        segment.startsWith(":") ? "[^/]+" : segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
      ).join("/");
      entry = { re: new RegExp(`^${source}$`), methods: new Set() };
      patterns.set(path, entry);
    }
    entry.methods.add(method);
    if (method === "GET") entry.methods.add("HEAD");
  }
  return (path) => {
    const found = new Set<string>();
    for (const { re, methods } of patterns.values()) {
      if (re.test(path)) { for (const m of methods) found.add(m); }
    }
    return [...found].sort();
  };
}

/** The error body and headers of a 405 for `method` at `path`, which takes `allowed`. */
export function methodNotAllowed(
  method: string,
  path: string,
  allowed: string[],
): { body: { error: string }; headers: { Allow: string } } {
  return {
    body: { error: `${method} is not allowed on ${path}: it takes ${allowed.join(", ")}` },
    headers: { Allow: allowed.join(", ") },
  };
}
