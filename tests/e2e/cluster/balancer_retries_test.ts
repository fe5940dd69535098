/**
 * The balancer's retry rules (testing/nginx.ts, the README's recipe), on the real nginx in front of
 * stand-in instances that count what reaches them: a read that reached an instance which then died
 * goes to the next one; a write that reached one is never sent again; a write whose connection was
 * refused goes to the next one; an SSH connection refused by one instance goes to the next.
 */
import { assertEquals } from "../../helpers/assert.ts";
import { SERVER_TEST } from "../../helpers/server.ts";
import { balancerConfig, findNginx, startNginx } from "../../../testing/nginx.ts";
import { freePort } from "../../../testing/ports.ts";

/** A stand-in instance: counts the requests (`METHOD path`) that reach it. */
interface StandIn {
  port: number;
  seen: string[];
  close(): void;
}

/**
 * Listens on a free port; each request is read to the end of its head, counted, and then either
 * answered 200 (`answer`) or cut off with no answer, as an instance killed mid-request would.
 */
function standIn(answer: boolean, banner?: string): StandIn {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: freePort() });
  const seen: string[] = [];
  (async () => {
    for await (const conn of listener) {
      (async () => {
        try {
          if (banner) {
            await conn.write(new TextEncoder().encode(banner));
            seen.push("connection");
            return;
          }
          let head = "";
          const buf = new Uint8Array(4096);
          while (!head.includes("\r\n\r\n")) {
            const n = await conn.read(buf);
            if (n === null) return;
            head += new TextDecoder().decode(buf.subarray(0, n));
          }
          seen.push(head.split(" ").slice(0, 2).join(" "));
          if (answer) {
            await conn.write(new TextEncoder().encode(
              "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok",
            ));
          }
        } catch {
          /* the balancer went away */
        } finally {
          try {
            conn.close();
          } catch { /* closed */ }
        }
      })();
    }
  })().catch(() => {});
  return { port: listener.addr.port, seen, close: () => listener.close() };
}

/** A port nothing listens on: connections are refused, as by an instance that is down. */
function deadPort(): number {
  return freePort();
}

/**
 * Runs `fn` against a fresh balancer whose HTTP, registry and SSH upstreams are `http` (the
 * registry's the same) and `ssh`, in that order.
 */
async function withBalancer(
  http: number[],
  ssh: number[],
  fn: (urls: { http: string; ssh: number }) => Promise<void>,
): Promise<void> {
  const { nginx, streamModule } = findNginx();
  const dir = await Deno.makeTempDir({ prefix: "signet-balancer-" });
  const ports = { http: freePort(), registry: freePort(), ssh: freePort() };
  const proxy = await startNginx(
    nginx,
    dir,
    balancerConfig({
      dir,
      streamModule,
      http: { listen: ports.http, upstreams: http },
      registry: { listen: ports.registry, upstreams: http },
      ssh: { listen: ports.ssh, upstreams: ssh },
    }),
    ports.http,
  );
  try {
    await fn({ http: `http://127.0.0.1:${ports.http}`, ssh: ports.ssh });
  } finally {
    await proxy.stop();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

/** The status of `method path` through the balancer at `url`. */
async function statusOf(url: string, method: string, path: string): Promise<number> {
  const res = await fetch(`${url}${path}`, {
    method,
    body: method === "GET" || method === "HEAD" ? undefined : "{}",
  });
  await res.body?.cancel();
  return res.status;
}

Deno.test({
  name: "balancer: reads move to the next instance; writes that reached one are never resent",
  ...SERVER_TEST,
  async fn(t) {
    for (const [method, reached] of [["GET", 2], ["HEAD", 2], ["POST", 1], ["PATCH", 1]] as const) {
      await t.step(`${method} cut off by an instance: reaches ${reached} of 2`, async () => {
        const [a, b] = [standIn(false), standIn(false)];
        try {
          await withBalancer([a.port, b.port], [deadPort()], async ({ http }) => {
            assertEquals(await statusOf(http, method, "/api/thing"), 502);
          });
          assertEquals([...a.seen, ...b.seen], Array(reached).fill(`${method} /api/thing`));
        } finally {
          a.close();
          b.close();
        }
      });
    }

    await t.step("DELETE cut off by an instance is not sent to another", async () => {
      const [a, b] = [standIn(false), standIn(false)];
      try {
        await withBalancer([a.port, b.port], [deadPort()], async ({ http }) => {
          assertEquals(await statusOf(http, "DELETE", "/api/repos/x/y"), 502);
        });
        assertEquals([...a.seen, ...b.seen], ["DELETE /api/repos/x/y"]);
      } finally {
        a.close();
        b.close();
      }
    });

    await t.step("a write refused at connect goes to the live instance", async () => {
      const live = standIn(true);
      try {
        // The dead instance first: round robin's first pick.
        await withBalancer([deadPort(), live.port], [deadPort()], async ({ http }) => {
          for (let i = 0; i < 4; i++) {
            assertEquals(await statusOf(http, "POST", `/api/w${i}`), 200);
          }
        });
        assertEquals(live.seen, ["POST /api/w0", "POST /api/w1", "POST /api/w2", "POST /api/w3"]);
      } finally {
        live.close();
      }
    });

    await t.step("an SSH connection refused by one instance goes to the next", async () => {
      const live = standIn(true, "SSH-2.0-stand-in\r\n");
      try {
        await withBalancer([deadPort()], [deadPort(), live.port], async ({ ssh }) => {
          for (let i = 0; i < 2; i++) {
            const conn = await Deno.connect({ hostname: "127.0.0.1", port: ssh });
            const buf = new Uint8Array(64);
            const n = await conn.read(buf);
            conn.close();
            assertEquals(new TextDecoder().decode(buf.subarray(0, n ?? 0)), "SSH-2.0-stand-in\r\n");
          }
        });
        assertEquals(live.seen, ["connection", "connection"]);
      } finally {
        live.close();
      }
    });
  },
});
