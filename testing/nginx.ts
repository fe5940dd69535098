/**
 * nginx as Signet's load balancer (testing/cluster.ts, bench): the configuration the README's
 * "Running on several machines" recipe prints, on loopback ports, with every path nginx writes in
 * a throwaway prefix directory, run in the foreground (`nginx -p DIR -c DIR/nginx.conf`).
 */

/** Where Debian's nginx and its stream module (libnginx-mod-stream) are installed. */
export const NGINX_PATHS = ["/usr/sbin/nginx", "/usr/bin/nginx"];
export const STREAM_MODULE_PATHS = [
  "/usr/lib/nginx/modules/ngx_stream_module.so",
  "/usr/share/nginx/modules/ngx_stream_module.so",
];

/** What to install when nginx or its stream module is missing. */
export const NGINX_INSTALL_HINT =
  "install Debian's nginx and its stream module: apt-get install -y nginx libnginx-mod-stream";

/** The first of `paths` that is a file, if any. */
export function firstFile(paths: string[]): string | undefined {
  return paths.find((p) => {
    try {
      return Deno.statSync(p).isFile;
    } catch {
      return false;
    }
  });
}

/** nginx and its stream module, or an error saying what to install. */
export function findNginx(): { nginx: string; streamModule: string } {
  const nginx = firstFile(NGINX_PATHS);
  const streamModule = firstFile(STREAM_MODULE_PATHS);
  if (!nginx || !streamModule) {
    throw new Error(`nginx${nginx ? "'s stream module" : ""} not found: ${NGINX_INSTALL_HINT}`);
  }
  return { nginx, streamModule };
}

/** One balanced listener: the public port and the instances' ports behind it. */
export interface Balanced {
  listen: number;
  upstreams: number[];
}

/** What the balancer's configuration is made of. */
export interface BalancerConfig {
  /** The prefix directory: pid file, logs and temporary files go there. */
  dir: string;
  /** The stream module's file (`load_module`). */
  streamModule: string;
  /** Hosting HTTP, registry HTTP and SSH. */
  http: Balanced;
  registry: Balanced;
  ssh: Balanced;
  /** nginx worker processes (default 1). */
  workers?: number;
  /** Seconds an instance that failed is left out before nginx tries it again (default 10). */
  failTimeoutSeconds?: number;
  /** Writes `<dir>/access.log` (method, path, status, which upstreams answered); off by default. */
  accessLog?: boolean;
  /**
   * Adds `X-Signet-Upstream: <the upstream addresses tried>` to every answer, so a test sees which
   * instance answered (never in production: it names internal addresses).
   */
  upstreamHeader?: boolean;
}

/**
 * The proxy settings of one balanced HTTP server (hosting or registry). GET and HEAD change
 * nothing, so an error or timeout before the answer began sends them to the next instance. POST
 * and PATCH go on only when they never reached an instance (nginx's own rule for non-idempotent
 * methods: a connection refused or not opened in time); every other method (DELETE) is never
 * passed on, though HTTP calls it idempotent: sent twice, the second answer (404) would hide the
 * first. docs/decisions/operations.md says why.
 */
function httpServer(listen: string, upstream: string, header: boolean): string {
  return `  server {
    listen ${listen};
    # Git pushes can be large and must stream, both ways.
    client_max_body_size 0;
    proxy_request_buffering off;
    proxy_buffering off;
    proxy_http_version 1.1;
    proxy_set_header Connection "";
    proxy_set_header Host $http_host;
    proxy_set_header X-Forwarded-For $remote_addr;
    proxy_connect_timeout 2s;
    proxy_read_timeout 3600s;
    proxy_send_timeout 3600s;${
    header ? "\n    add_header X-Signet-Upstream $upstream_addr always;" : ""
  }
    location / {
      error_page 418 = @once;
      if ($request_method !~ ^(GET|HEAD|POST|PATCH)$) {
        return 418;
      }
      proxy_next_upstream error timeout;
      proxy_pass http://${upstream};
    }
    location @once {
      proxy_next_upstream off;
      proxy_pass http://${upstream};
    }
  }
`;
}

/** The servers of an upstream block, each left out for `failTimeout` s after one failure. */
function upstreamServers(ports: number[], failTimeout: number): string {
  return ports.map((p) => `    server 127.0.0.1:${p} max_fails=1 fail_timeout=${failTimeout}s;\n`)
    .join("");
}

/** The whole nginx.conf of a balancer on loopback (see BalancerConfig). */
export function balancerConfig(c: BalancerConfig): string {
  const failTimeout = c.failTimeoutSeconds ?? 10;
  const header = c.upstreamHeader ?? false;
  // As root, nginx's workers would switch to `nobody`, who cannot write the prefix directory.
  const user = Deno.uid() === 0 ? "user root;\n" : "";
  return `${user}load_module ${c.streamModule};
worker_processes ${c.workers ?? 1};
pid ${c.dir}/nginx.pid;
error_log ${c.dir}/error.log warn;
events {
  worker_connections 4096;
}
http {
  log_format signet '$request_method $uri $status upstream=$upstream_addr';
  access_log ${c.accessLog ? `${c.dir}/access.log signet` : "off"};
  client_body_temp_path ${c.dir}/tmp/body;
  proxy_temp_path ${c.dir}/tmp/proxy;
  fastcgi_temp_path ${c.dir}/tmp/fastcgi;
  uwsgi_temp_path ${c.dir}/tmp/uwsgi;
  scgi_temp_path ${c.dir}/tmp/scgi;
  upstream signet_http {
${upstreamServers(c.http.upstreams, failTimeout)}    keepalive 32;
  }
  upstream signet_registry {
${upstreamServers(c.registry.upstreams, failTimeout)}    keepalive 32;
  }
${httpServer(`127.0.0.1:${c.http.listen}`, "signet_http", header)}${
    httpServer(`127.0.0.1:${c.registry.listen}`, "signet_registry", header)
  }}
stream {
  upstream signet_ssh {
${upstreamServers(c.ssh.upstreams, failTimeout)}  }
  server {
    listen 127.0.0.1:${c.ssh.listen};
    # A TCP connection moves on only when it could not be opened: nothing was sent yet.
    proxy_pass signet_ssh;
    proxy_connect_timeout 2s;
    proxy_timeout 3600s;
  }
}
`;
}

/** A running nginx. */
export interface RunningNginx {
  pid: number;
  /** The error log so far. */
  errors(): string;
  /** Stops it (SIGTERM: open connections are cut) and waits for it. */
  stop(): Promise<void>;
}

/**
 * Writes `config` as `<dir>/nginx.conf`, checks it with `nginx -t` (a clear error when it fails)
 * and runs nginx in the foreground until `stop`. Resolves once it listens on `readyPort`.
 */
export async function startNginx(
  nginx: string,
  dir: string,
  config: string,
  readyPort: number,
): Promise<RunningNginx> {
  await Deno.mkdir(`${dir}/tmp`, { recursive: true });
  await Deno.mkdir(`${dir}/logs`, { recursive: true });
  const conf = `${dir}/nginx.conf`;
  await Deno.writeTextFile(conf, config);
  const base = ["-p", dir, "-e", `${dir}/error.log`, "-c", conf];
  const test = await new Deno.Command(nginx, { args: ["-t", ...base], stderr: "piped" }).output();
  if (test.code !== 0) {
    throw new Error(`nginx -t failed:\n${new TextDecoder().decode(test.stderr)}\n${config}`);
  }
  const child = new Deno.Command(nginx, {
    args: [...base, "-g", "daemon off;"],
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  let exited = false;
  child.status.then(() => (exited = true));
  const errors = () => {
    try {
      return Deno.readTextFileSync(`${dir}/error.log`);
    } catch {
      return "";
    }
  };
  const deadline = Date.now() + 20_000;
  while (true) {
    if (exited) throw new Error(`nginx exited at start:\n${errors()}`);
    try {
      (await Deno.connect({ hostname: "127.0.0.1", port: readyPort })).close();
      break;
    } catch { /* not listening yet */ }
    if (Date.now() > deadline) {
      try {
        child.kill("SIGKILL");
      } catch { /* gone */ }
      await child.status;
      throw new Error(`nginx did not listen on ${readyPort}:\n${errors()}`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  return {
    pid: child.pid,
    errors,
    async stop() {
      if (!exited) {
        try {
          child.kill("SIGTERM");
        } catch { /* gone */ }
      }
      await child.status;
    },
  };
}
