/**
 * Admission of unauthenticated SSH connections: random early drop (sshd's MaxStartups), the cap
 * per network prefix, a newcomer network's slot at `full`, and the deadline for the client's
 * identification line. The rules alone with an injected random source, then an in-process server.
 */
import { addressPrefix } from "../ip.ts";
import { DEFAULT_SSH_LIMITS, startSshServer } from "./server.ts";
import { dropProbability, type MaxStartups, StartupSlots } from "./startups.ts";
import { assert, assertEquals } from "../../tests/helpers/assert.ts";
import { inProcessSsh } from "../../tests/helpers/in_process.ts";
import { rawSshFrom } from "../../tests/helpers/ssh_raw.ts";
import { spawnSsh } from "../../tests/helpers/ssh.ts";
import { SERVER_TEST } from "../../tests/helpers/server.ts";
import { resolvesWithin } from "../../tests/helpers/wait.ts";

const OPENSSH: MaxStartups = { start: 10, rate: 30, full: 100 };

Deno.test("startups: drop probability follows sshd's start:rate:full", () => {
  assertEquals(dropProbability(OPENSSH, 0), 0);
  assertEquals(dropProbability(OPENSSH, 9), 0);
  assertEquals(dropProbability(OPENSSH, 10), 0.3);
  assertEquals(dropProbability(OPENSSH, 55), 0.65);
  assertEquals(dropProbability(OPENSSH, 99).toFixed(6), (0.3 + 0.7 * 89 / 90).toFixed(6));
  assertEquals(dropProbability(OPENSSH, 100), 1);
  // start = full: a plain cap, no random drop below it.
  assertEquals(dropProbability({ start: 20, rate: 100, full: 20 }, 19), 0);
});

Deno.test("startups: admission with an injected random source", async (t) => {
  /**
   * Slots holding `n` connections, the first from prefix "a" and the others from prefixes of
   * their own (never dropped at random); draws `draws` in turn, then 0 (always drops).
   */
  const filled = (limits: MaxStartups, n: number, draws: number[], perPrefix = 1000) => {
    const slots = new StartupSlots<string>(limits, perPrefix, () => draws.shift() ?? 0);
    for (let i = 0; i < n; i++) {
      assert(slots.admit(i === 0 ? "a" : `p${i}`, `a${i}`).admitted, `a${i}`);
    }
    return slots;
  };

  await t.step("below start nothing is dropped, even by a draw of 0", () => {
    const slots = filled(OPENSSH, 9, []);
    assertEquals(slots.admit("a", "x"), { admitted: true });
    assertEquals(slots.admit("a", "y"), { admitted: false, reason: "random" });
  });

  await t.step("between start and full a draw below the probability drops", () => {
    const at10 = filled(OPENSSH, 10, [0.29, 0.31]);
    assertEquals(at10.admit("a", "x"), { admitted: false, reason: "random" });
    assertEquals(at10.admit("a", "y"), { admitted: true });
    const at55 = filled(OPENSSH, 55, [0.64, 0.66]);
    assertEquals(at55.admit("a", "x"), { admitted: false, reason: "random" });
    assertEquals(at55.admit("a", "y"), { admitted: true });
    assertEquals(at55.held, 56);
  });

  await t.step("a network holding no slot is never dropped at random", () => {
    const slots = filled(OPENSSH, 98, []);
    assertEquals(slots.admit("b", "b0"), { admitted: true });
    assertEquals(slots.admit("b", "b1"), { admitted: false, reason: "random" });
  });

  await t.step("the per-prefix cap", () => {
    const slots = new StartupSlots<string>(OPENSSH, 3, () => 0.99);
    for (const item of ["a0", "a1", "a2"]) assert(slots.admit("a", item).admitted);
    assertEquals(slots.admit("a", "a3"), { admitted: false, reason: "prefix" });
    slots.release("a0");
    slots.release("a0"); // twice: no effect
    assertEquals(slots.heldBy("a"), 2);
    assertEquals(slots.admit("a", "a3"), { admitted: true });
  });

  await t.step("at full a newcomer network takes the largest network's oldest slot", () => {
    const limits = { start: 2, rate: 30, full: 4 };
    const slots = new StartupSlots<string>(limits, 10, () => 0.99);
    for (const [prefix, item] of [["a", "a0"], ["b", "b0"], ["a", "a1"], ["b", "b1"]]) {
      assert(slots.admit(prefix, item).admitted);
    }
    assertEquals(slots.admit("b", "b2"), { admitted: false, reason: "full" });
    assertEquals(slots.admit("c", "c0"), { admitted: true, evicted: "a0" });
    assertEquals([slots.held, slots.heldBy("a"), slots.heldBy("c")], [4, 1, 1]);
    slots.release("a0"); // the evicted connection's close: already released
    assertEquals(slots.held, 4);
    assertEquals(slots.admit("d", "d0"), { admitted: true, evicted: "b0" });
    // Every network holds one slot now: nobody's is taken.
    assertEquals(slots.admit("e", "e0"), { admitted: false, reason: "full" });
  });

  await t.step("with Math.random the drop rate matches the probability", () => {
    // 20,000 draws at 65%: the standard deviation is 0.34 points; the margin is 3 points.
    const real = new StartupSlots<string>(OPENSSH, 1000);
    for (let i = 0; i < 55; i++) real.admit(i === 0 ? "a" : `p${i}`, `a${i}`);
    let dropped = 0;
    for (let i = 0; i < 20_000; i++) {
      const decision = real.admit("a", "x");
      if (decision.admitted) real.release("x");
      else dropped++;
    }
    assertEquals(real.held, 55);
    assert(Math.abs(dropped / 20_000 - 0.65) < 0.03, `dropped ${dropped} of 20000`);
  });
});

Deno.test("startups: network prefixes", () => {
  assertEquals(addressPrefix("203.0.113.77"), "203.0.113.0/24");
  assertEquals(addressPrefix("127.0.0.1"), "127.0.0.0/24");
  assertEquals(addressPrefix("2001:db8:0:1:aa::5"), "2001:db8:0:1::/64");
  assertEquals(addressPrefix("2001:db8::1"), "2001:db8:0:0::/64");
  assertEquals(addressPrefix("::1"), "0:0:0:0::/64");
  assertEquals(addressPrefix("2001:db8:1:2:3:4:5:6"), "2001:db8:1:2::/64");
  assertEquals(addressPrefix("fe80:0:0:0::"), "fe80:0:0:0::/64");
});

const { ctx, aliceKey, withServer } = await inProcessSsh("signet-ssh-startups-");

/** `ssh -N` as alice to `port` (a connection that authenticates, then only stays open). */
function sshHeldOpen(port: number): { child: Deno.ChildProcess; exited: () => boolean } {
  const child = spawnSsh(port, aliceKey, ["-N"], { stdin: "null", stdout: "null", stderr: "null" });
  let exited = false;
  child.status.then(() => (exited = true));
  return { child, exited: () => exited };
}

/** Milliseconds until `conn` closes, or null when it is still open after `waitMs`. */
async function closesWithin(conn: { closed: Promise<void> }, waitMs: number) {
  const start = Date.now();
  return await resolvesWithin(conn.closed, waitMs) ? Date.now() - start : null;
}

const IDENT = "SSH-2.0-OpenSSH_9.6\r\n";

Deno.test({
  name: "startups: the SSH server",
  ...SERVER_TEST,
  async fn(t) {
    await t.step("silence, or half an identification line, is cut at the deadline", async () => {
      await withServer({ identTimeoutMs: 1000, handshakeTimeoutMs: 60_000 }, async (port) => {
        // Each connection's time is counted from before it was opened: the server's deadline
        // starts at its accept, after that, so however slow the machine it cannot come sooner.
        const silentOpened = Date.now();
        const silent = await rawSshFrom("127.0.0.1", port);
        const halfOpened = Date.now();
        const half = await rawSshFrom("127.0.0.1", port, "SSH-2.0-Open");
        const identified = await rawSshFrom("127.0.0.1", port, IDENT);
        assert(silent.served && half.served && identified.served);
        for (const [conn, opened] of [[silent, silentOpened], [half, halfOpened]] as const) {
          assert(await closesWithin(conn, 20_000) !== null, "still open after 20 s");
          const ms = Date.now() - opened;
          // A timer may fire a millisecond before its time.
          assert(ms >= 990, `closed ${ms} ms after it was opened (deadline 1000 ms)`);
        }
        // A client that identified itself has until the authentication deadline.
        assertEquals(await closesWithin(identified, 2000), null, "identified client cut early");
        identified.close();
      });
    });

    await t.step("random early drop with a draw that always drops", async () => {
      const maxStartups = { start: 2, rate: 30, full: 10 };
      await withServer({ maxStartups, random: () => 0 }, async (port) => {
        const held = [
          await rawSshFrom("127.0.0.1", port, IDENT),
          await rawSshFrom("127.0.0.1", port, IDENT),
        ];
        assert(held.every((c) => c.served), "below start: served");
        const dropped = await rawSshFrom("127.0.0.1", port, IDENT);
        assert(!dropped.served, "above start, from a network holding slots: dropped");
        const other = await rawSshFrom("127.0.3.1", port, IDENT);
        assert(other.served, "another network holding none: served");
        for (const c of [...held, other]) c.close();
      });
      // The same with a draw that never drops.
      await withServer({ maxStartups, random: () => 0.999 }, async (port) => {
        const conns = [];
        for (let i = 0; i < 4; i++) conns.push(await rawSshFrom("127.0.0.1", port, IDENT));
        assert(conns.every((c) => c.served));
        for (const c of conns) c.close();
      });
    });

    await t.step("the per-prefix cap counts a /24, not an address", async () => {
      await withServer({ maxStartupsPerPrefix: 2 }, async (port) => {
        const a = await rawSshFrom("127.0.4.1", port, IDENT);
        const b = await rawSshFrom("127.0.4.2", port, IDENT);
        const c = await rawSshFrom("127.0.4.3", port);
        assert(a.served && b.served && !c.served, "third from the /24 served");
        const d = await rawSshFrom("127.0.5.3", port);
        assert(d.served, "another /24 refused");
        a.close();
        await new Promise((r) => setTimeout(r, 200));
        const e = await rawSshFrom("127.0.4.3", port);
        assert(e.served, "a freed slot is reusable");
        for (const conn of [b, d, e]) conn.close();
      });
    });

    await t.step("an authenticated connection frees its slot", async () => {
      await withServer({ maxStartups: { start: 1, rate: 100, full: 1 } }, async (port) => {
        // ssh runs LocalCommand once it has authenticated; -N then keeps the connection open.
        const child = spawnSsh(
          port,
          aliceKey,
          ["-N", "-o", "PermitLocalCommand=yes", "-o", "LocalCommand=echo in"],
          { stdin: "null", stdout: "piped", stderr: "null" },
        );
        const reader = child.stdout.getReader();
        try {
          const { value } = await reader.read();
          assertEquals(new TextDecoder().decode(value).trim(), "in");
          // The one slot is free again, though that connection is open: another network gets it
          // (no eviction here: a network holding one slot keeps it).
          const probe = await rawSshFrom("127.0.6.1", port);
          assert(probe.served, "slot still held after authentication");
          const second = await rawSshFrom("127.0.7.1", port);
          assert(!second.served, "the cap of 1 holds");
          probe.close();
          second.close();
        } finally {
          try {
            child.kill();
          } catch { /* already exited */ }
          await reader.cancel();
          await child.status;
        }
      });
    });

    await t.step(
      "on a dual-stack listener, authentication ends the handshake deadline",
      async () => {
        // IPv4 clients appear as ::ffff:127.0.0.1 there; both sides must name them alike.
        const server = await startSshServer(ctx, { hostname: "::", port: 0 }, {
          ...DEFAULT_SSH_LIMITS,
          handshakeTimeoutMs: 1500,
        });
        const { child, exited } = sshHeldOpen(server.port);
        try {
          await new Promise((r) => setTimeout(r, 4000));
          assert(!exited(), "an authenticated connection was cut at the handshake deadline");
        } finally {
          child.kill();
          await child.status;
          await server.close();
        }
      },
    );

    await t.step("an idle timeout of 0 never closes an authenticated connection", async () => {
      await withServer({ idleTimeoutMs: 0 }, async (port) => {
        const { child, exited } = sshHeldOpen(port);
        await new Promise((r) => setTimeout(r, 3000));
        assert(!exited(), "ssh -N ended with the idle timeout off");
        child.kill();
        await child.status;
      });
    });

    await ctx.store.close();
  },
});
