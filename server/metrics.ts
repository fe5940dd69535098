/** In-process metrics, rendered in the Prometheus text format at `GET /metrics`. */

type Labels = Record<string, string>;

class Counter {
  readonly values = new Map<string, number>();
  constructor(readonly name: string, readonly help: string) {}
  inc(labels: Labels = {}, by = 1): void {
    const key = labelKey(labels);
    this.values.set(key, (this.values.get(key) ?? 0) + by);
  }

  /** The sum over every label set. */
  total(): number {
    let sum = 0;
    for (const v of this.values.values()) sum += v;
    return sum;
  }

  /** An incrementer for one fixed label set (its label text built once), for hot paths. */
  series(labels: Labels): () => void {
    const key = labelKey(labels);
    return () => void this.values.set(key, (this.values.get(key) ?? 0) + 1);
  }
}

class Gauge extends Counter {
  dec(labels: Labels = {}): void {
    this.inc(labels, -1);
  }
}

function labelKey(labels: Labels): string {
  // Label names are ASCII identifiers: a plain comparison orders them (localeCompare is slow).
  const entries = Object.entries(labels).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0);
  if (entries.length === 0) return "";
  return `{${entries.map(([k, v]) => `${k}="${v.replace(/["\\\n]/g, "_")}"`).join(",")}}`;
}

/** HTTP requests by app, route pattern, method and status. */
export const httpRequests = new Counter("signet_http_requests_total", "HTTP requests handled");
/** Git transfers by transport, service and outcome. */
export const gitTransfers = new Counter("signet_git_transfers_total", "git transfers");
/** SSH sessions currently open. */
export const sshSessionsActive = new Gauge("signet_ssh_sessions_active", "open SSH sessions");
/** Logins by outcome. */
export const logins = new Counter("signet_logins_total", "login verifications by outcome");
/** Registry mutations by operation and result. */
export const registryOperations = new Counter(
  "signet_registry_operations_total",
  "registry mutations by operation and result",
);
/** HTTP connections the connection guard closed, by reason (timeouts, refused framing). */
export const httpConnectionsClosed = new Counter(
  "signet_http_connections_closed_total",
  "HTTP connections closed by the guard: header_timeout, idle_timeout, refused, per_address_limit",
);

const ALL = [
  httpRequests,
  gitTransfers,
  sshSessionsActive,
  logins,
  registryOperations,
  httpConnectionsClosed,
];
const startedAt = Date.now();

/** `signet_instance_info`'s labels, once the instance is named. */
let instanceInfo = "";

/**
 * Adds `signet_instance_info{instance_name="<name>",version="<v>"} 1` to the metrics. The series
 * carry no instance label of their own: Prometheus labels every series it scrapes with `instance`
 * (the target's address), and joins this info metric on it (docs/decisions/scaling.md).
 */
export function setMetricsInstance(name: string, version: string): void {
  instanceInfo = labelKey({ instance_name: name, version });
}

/** Renders every metric in the Prometheus exposition format. */
export function renderMetrics(): string {
  const lines: string[] = [];
  if (instanceInfo !== "") {
    lines.push("# HELP signet_instance_info the instance that answered (SERVICE_INSTANCE_NAME)");
    lines.push("# TYPE signet_instance_info gauge");
    lines.push(`signet_instance_info${instanceInfo} 1`);
  }
  for (const m of ALL) {
    lines.push(`# HELP ${m.name} ${m.help}`);
    lines.push(`# TYPE ${m.name} ${m instanceof Gauge ? "gauge" : "counter"}`);
    if (m.values.size === 0 && m instanceof Gauge) lines.push(`${m.name} 0`);
    for (const [key, value] of m.values) lines.push(`${m.name}${key} ${value}`);
  }
  lines.push("# HELP signet_uptime_seconds seconds since start");
  lines.push("# TYPE signet_uptime_seconds gauge");
  lines.push(`signet_uptime_seconds ${Math.round((Date.now() - startedAt) / 1000)}`);
  const mem = Deno.memoryUsage();
  lines.push("# HELP signet_resident_memory_bytes resident set size");
  lines.push("# TYPE signet_resident_memory_bytes gauge");
  lines.push(`signet_resident_memory_bytes ${mem.rss}`);
  const heap: [string, string, number][] = [
    ["signet_heap_used_bytes", "JavaScript heap in use (main thread)", mem.heapUsed],
    ["signet_heap_total_bytes", "JavaScript heap reserved (main thread)", mem.heapTotal],
    [
      "signet_external_memory_bytes",
      "buffers held by JavaScript objects (main thread)",
      mem.external,
    ],
  ];
  for (const [name, help, value] of heap) {
    lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} gauge`, `${name} ${value}`);
  }
  return lines.join("\n") + "\n";
}
