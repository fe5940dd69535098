/** Baseline: nginx + fcgiwrap + `git http-backend` on a spare loopback port. */
import { cmd, exists, freePort, waitForPort } from "../util.ts";
import type { RepoName, Transport } from "../transport.ts";
import { type Account, chownTree } from "./account.ts";
import { stopNginxFcgi } from "./process.ts";

/** Options for starting the nginx baseline. */
export interface NginxOptions {
  /** A directory of its own (config, socket, temp files); handed to the baseline account. */
  dir: string;
  /** Directory holding small.git, big.git, scratch.git for this transport. */
  reposDir: string;
  account: Account;
  /** fcgiwrap processes to prefork (each runs one CGI request at a time). */
  fcgiChildren: number;
}

/**
 * Our own FastCGI params: Debian's stock `fastcgi_params` sets `REMOTE_USER $remote_user`, which
 * is empty without auth and turns every push into 403. The baseline has no auth at all (the
 * cheapest possible server); git http-backend only needs a non-empty REMOTE_USER to accept pushes.
 */
function fastcgiParams(reposDir: string): string {
  return [
    "fastcgi_param SCRIPT_FILENAME /usr/lib/git-core/git-http-backend;",
    `fastcgi_param GIT_PROJECT_ROOT ${reposDir};`,
    "fastcgi_param GIT_HTTP_EXPORT_ALL 1;",
    "fastcgi_param REMOTE_USER bench;",
    "fastcgi_param PATH_INFO $uri;",
    "fastcgi_param QUERY_STRING $query_string;",
    "fastcgi_param REQUEST_METHOD $request_method;",
    "fastcgi_param CONTENT_TYPE $content_type;",
    "fastcgi_param CONTENT_LENGTH $content_length;",
    "fastcgi_param REQUEST_URI $request_uri;",
    "fastcgi_param SERVER_PROTOCOL $server_protocol;",
    "fastcgi_param GATEWAY_INTERFACE CGI/1.1;",
    "fastcgi_param REMOTE_ADDR $remote_addr;",
    "fastcgi_param SERVER_NAME $server_name;",
    "fastcgi_param SERVER_PORT $server_port;",
    "",
  ].join("\n");
}

/**
 * An nginx.conf for running in the foreground under `dir` (pid file, error log and temp files
 * there) with one server on 127.0.0.1:`port`, its `location /` made of `location` (directives,
 * one a line); `main` and `http` are more directives for those contexts.
 */
export function fastcgiNginxConf(
  dir: string,
  port: number,
  opts: { workers: string; main?: string[]; http?: string[]; location: string[] },
): string {
  const lines = (indent: string, directives: string[] = []) =>
    directives.map((d) => `${indent}${d}\n`).join("");
  return `
worker_processes ${opts.workers};
pid ${dir}/nginx.pid;
error_log ${dir}/error.log error;
${lines("", opts.main)}events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${dir}/tmp/body;
  fastcgi_temp_path ${dir}/tmp/fastcgi;
  proxy_temp_path ${dir}/tmp/proxy;
  uwsgi_temp_path ${dir}/tmp/uwsgi;
  scgi_temp_path ${dir}/tmp/scgi;
${lines("  ", opts.http)}  server {
    listen 127.0.0.1:${port};
    location / {
${lines("      ", opts.location)}    }
  }
}
`;
}

function nginxConf(dir: string, port: number, socket: string): string {
  return fastcgiNginxConf(dir, port, {
    workers: "auto",
    http: ["client_max_body_size 0;"],
    location: [`include ${dir}/fastcgi_git_params;`, `fastcgi_pass unix:${socket};`],
  });
}

/** Starts fcgiwrap and nginx (both as the baseline account); returns the transport. */
export async function startNginx(opts: NginxOptions): Promise<Transport> {
  const { dir, account } = opts;
  const port = freePort();
  const socket = `${dir}/fcgiwrap.sock`;
  await Deno.mkdir(`${dir}/tmp`, { recursive: true });
  await Deno.writeTextFile(`${dir}/fastcgi_git_params`, fastcgiParams(opts.reposDir));
  await Deno.writeTextFile(`${dir}/nginx.conf`, nginxConf(dir, port, socket));
  await chownTree(dir, account);
  await chownTree(opts.reposDir, account);
  if (await exists(socket)) await Deno.remove(socket);

  const fcgi = new Deno.Command("/usr/sbin/fcgiwrap", {
    args: ["-c", String(opts.fcgiChildren), "-s", `unix:${socket}`],
    uid: account.uid,
    gid: account.gid,
    env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" },
    clearEnv: true,
    stdin: "null",
    stdout: "null",
    stderr: "inherit",
  }).spawn();
  const deadline = Date.now() + 10_000;
  while (!(await exists(socket))) {
    if (Date.now() > deadline) throw new Error("fcgiwrap did not create its socket");
    await new Promise((r) => setTimeout(r, 20));
  }

  const nginx = new Deno.Command("/usr/sbin/nginx", {
    args: ["-e", `${dir}/error.log`, "-p", dir, "-c", `${dir}/nginx.conf`, "-g", "daemon off;"],
    uid: account.uid,
    gid: account.gid,
    stdin: "null",
    stdout: "null",
    stderr: "inherit",
  }).spawn();
  await waitForPort(port);
  const version = (await cmd("/usr/sbin/nginx", ["-v"])).stderr.trim().replace(
    /^nginx version: /,
    "",
  );

  return {
    id: "nginx",
    label: `${version} + fcgiwrap (-c ${opts.fcgiChildren}) + git http-backend`,
    kind: "http",
    url: (repo: RepoName) => `http://127.0.0.1:${port}/${repo}.git`,
    env: {},
    gitArgs: [],
    server: {
      name: "nginx+fcgiwrap",
      roots: () => [nginx.pid, fcgi.pid],
      async stop() {
        await stopNginxFcgi(nginx, fcgi);
        if (await exists(socket)) await Deno.remove(socket);
      },
    },
  };
}
