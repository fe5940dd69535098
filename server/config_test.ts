/** Server settings from the environment: bad values are refused with a message naming the variable. */
import { assertEquals, assertStringIncludes } from "../tests/helpers/assert.ts";
import {
  ConfigError,
  loadServerConfig,
  RATE_LIMIT_SETTINGS,
  serveHelp,
  SETTINGS,
} from "./config.ts";

const BASE = { SERVICE_DATA_DIR: "/tmp/signet-config-test" };

function refusal(env: Record<string, string>): string {
  try {
    loadServerConfig({ ...BASE, ...env });
  } catch (err) {
    if (err instanceof ConfigError) return err.message;
    throw err;
  }
  throw new Error(`accepted ${JSON.stringify(env)}`);
}

Deno.test("settings: defaults, accepted values and refused ones", async (t) => {
  await t.step("defaults", () => {
    const config = loadServerConfig(BASE);
    assertEquals(config.shutdownTimeoutMs, 30_000);
    assertEquals(config.sshMaxConnectionsPerIp, null);
    assertEquals(config.httpMaxConnectionsPerIp, null);
    assertEquals(config.trustedProxies, []);
    assertEquals(config.httpHeaderTimeoutMs, 20_000);
    assertEquals(config.httpIdleTimeoutMs, 75_000);
    assertEquals(config.sshMaxStartups, { start: 64, rate: 30, full: 128 });
    assertEquals(config.sshMaxStartupsPerPrefix, 16);
    assertEquals(config.sshIdleTimeoutMs, 600_000);
    assertEquals(config.gitConcurrency, Math.max(8, 8 * navigator.hardwareConcurrency));
    assertEquals(config.gitConcurrencyPerClient, Math.ceil(config.gitConcurrency / 2));
    assertEquals(config.httpBodyMinRate, 1024);
    assertEquals(config.httpBodyTimeoutMs, 20_000);
    assertEquals(config.sshGitIdleTimeoutMs, 120_000);
  });

  await t.step("accepted values", () => {
    const config = loadServerConfig({
      ...BASE,
      SERVICE_SHUTDOWN_TIMEOUT: "2.5",
      SERVICE_SSH_MAX_CONNECTIONS_PER_IP: "4",
      SERVICE_HTTP_MAX_CONNECTIONS_PER_IP: "1000",
      SERVICE_TRUSTED_PROXIES: "127.0.0.1, ::1,10.0.0.02",
      SERVICE_HTTP_HEADER_TIMEOUT: "0",
    });
    assertEquals(config.httpMaxConnectionsPerIp, 1000);
    assertEquals(config.trustedProxies, ["127.0.0.1", "::1", "10.0.0.2"]);
    assertEquals(config.shutdownTimeoutMs, 2_500);
    assertEquals(config.sshMaxConnectionsPerIp, 4);
    assertEquals(config.httpHeaderTimeoutMs, 0);
    const ssh = (env: Record<string, string>) => loadServerConfig({ ...BASE, ...env });
    assertEquals(ssh({ SERVICE_SSH_MAX_STARTUPS: "10:30:100" }).sshMaxStartups, {
      start: 10,
      rate: 30,
      full: 100,
    });
    // One number is a plain cap, as in sshd.
    assertEquals(ssh({ SERVICE_SSH_MAX_STARTUPS: "20" }).sshMaxStartups, {
      start: 20,
      rate: 100,
      full: 20,
    });
    assertEquals(ssh({ SERVICE_SSH_MAX_STARTUPS_PER_PREFIX: "3" }).sshMaxStartupsPerPrefix, 3);
    assertEquals(ssh({ SERVICE_SSH_IDLE_TIMEOUT: "90" }).sshIdleTimeoutMs, 90_000);
    assertEquals(ssh({ SERVICE_SSH_IDLE_TIMEOUT: "0" }).sshIdleTimeoutMs, 0);
    const git = loadServerConfig({
      ...BASE,
      SERVICE_GIT_CONCURRENCY: "5",
      SERVICE_HTTP_BODY_MIN_RATE: "2k",
      SERVICE_HTTP_BODY_TIMEOUT: "7.5",
      SERVICE_SSH_GIT_IDLE_TIMEOUT: "0",
    });
    assertEquals(git.gitConcurrency, 5);
    assertEquals(git.gitConcurrencyPerClient, 3);
    assertEquals(git.httpBodyMinRate, 2048);
    assertEquals(git.httpBodyTimeoutMs, 7_500);
    assertEquals(git.sshGitIdleTimeoutMs, 0);
    const off = loadServerConfig({
      ...BASE,
      SERVICE_GIT_CONCURRENCY_PER_CLIENT: "1",
      SERVICE_HTTP_BODY_MIN_RATE: "off",
    });
    assertEquals(off.gitConcurrencyPerClient, 1);
    assertEquals(off.httpBodyMinRate, 0);
  });

  await t.step("refused values name their variable", () => {
    const cases: [Record<string, string>, string][] = [
      [{ SERVICE_SHUTDOWN_TIMEOUT: "soon" }, "SERVICE_SHUTDOWN_TIMEOUT"],
      [{ SERVICE_SHUTDOWN_TIMEOUT: "-1" }, "SERVICE_SHUTDOWN_TIMEOUT"],
      [{ SERVICE_SSH_MAX_CONNECTIONS_PER_IP: "0" }, "SERVICE_SSH_MAX_CONNECTIONS_PER_IP"],
      [{ SERVICE_SSH_MAX_CONNECTIONS_PER_IP: "2.5" }, "SERVICE_SSH_MAX_CONNECTIONS_PER_IP"],
      [{ SERVICE_HTTP_MAX_CONNECTIONS_PER_IP: "lots" }, "SERVICE_HTTP_MAX_CONNECTIONS_PER_IP"],
      [{ SERVICE_TRUSTED_PROXIES: "127.0.0.1,proxy.local" }, "SERVICE_TRUSTED_PROXIES"],
      [{ SERVICE_TRUSTED_PROXIES: "10.0.0.0/8" }, "SERVICE_TRUSTED_PROXIES"],
      [{ SERVICE_HTTP_IDLE_TIMEOUT: "75s" }, "SERVICE_HTTP_IDLE_TIMEOUT"],
      [{ SERVICE_HTTP_BIND: "localhost" }, "SERVICE_HTTP_BIND"],
      [{ SERVICE_MAX_PUSH_BYTES: "lots" }, "SERVICE_MAX_PUSH_BYTES"],
      [{ SERVICE_SSH_MAX_STARTUPS: "10:30" }, "SERVICE_SSH_MAX_STARTUPS"],
      [{ SERVICE_SSH_MAX_STARTUPS: "100:30:10" }, "SERVICE_SSH_MAX_STARTUPS"],
      [{ SERVICE_SSH_MAX_STARTUPS: "10:130:100" }, "SERVICE_SSH_MAX_STARTUPS"],
      [{ SERVICE_SSH_MAX_STARTUPS: "0:30:100" }, "SERVICE_SSH_MAX_STARTUPS"],
      [{ SERVICE_SSH_MAX_STARTUPS: "-1" }, "SERVICE_SSH_MAX_STARTUPS"],
      [{ SERVICE_SSH_MAX_STARTUPS_PER_PREFIX: "0" }, "SERVICE_SSH_MAX_STARTUPS_PER_PREFIX"],
      [{ SERVICE_SSH_IDLE_TIMEOUT: "10m" }, "SERVICE_SSH_IDLE_TIMEOUT"],
      [{ SERVICE_SSH_IDLE_TIMEOUT: "-5" }, "SERVICE_SSH_IDLE_TIMEOUT"],
      // Longer than a timer can hold (it would fire at once).
      [{ SERVICE_SSH_IDLE_TIMEOUT: "3000000" }, "SERVICE_SSH_IDLE_TIMEOUT"],
      [{ SERVICE_GIT_CONCURRENCY: "0" }, "SERVICE_GIT_CONCURRENCY"],
      [{ SERVICE_GIT_CONCURRENCY: "many" }, "SERVICE_GIT_CONCURRENCY"],
      [{ SERVICE_GIT_CONCURRENCY_PER_CLIENT: "-2" }, "SERVICE_GIT_CONCURRENCY_PER_CLIENT"],
      [{ SERVICE_HTTP_BODY_MIN_RATE: "fast" }, "SERVICE_HTTP_BODY_MIN_RATE"],
      [{ SERVICE_HTTP_BODY_TIMEOUT: "20s" }, "SERVICE_HTTP_BODY_TIMEOUT"],
      [{ SERVICE_SSH_GIT_IDLE_TIMEOUT: "2m" }, "SERVICE_SSH_GIT_IDLE_TIMEOUT"],
    ];
    for (const [env, name] of cases) assertStringIncludes(refusal(env), name);
  });
});

Deno.test("every setting in the table refuses a bad value, naming it and its form", () => {
  // Variables that take any text (a path, a search path) have no bad value.
  const anyText = new Set(["SERVICE_DATA_DIR", "SERVICE_SSH_HOST_KEY", "PATH"]);
  const bad: Record<string, string> = {
    SERVICE_ADMIN_KEY: "short",
    SERVICE_HTTP_BIND: "8080",
    SERVICE_SSH_BIND: "localhost",
    SERVICE_REGISTRY_BIND: "host:99999",
    SERVICE_BASE_URL: "ftp://example.com",
    SERVICE_DATABASE_URL: "mysql://db.example/signet",
    SERVICE_MAX_PUSH_BYTES: "1t",
    SERVICE_SSH_MAX_CONNECTIONS_PER_IP: "0",
    SERVICE_SSH_MAX_STARTUPS: "10:30",
    SERVICE_SSH_MAX_STARTUPS_PER_PREFIX: "x",
    SERVICE_SSH_IDLE_TIMEOUT: "10m",
    SERVICE_HTTP_MAX_CONNECTIONS_PER_IP: "-1",
    SERVICE_TRUSTED_PROXIES: "proxy.example",
    SERVICE_GIT_CONCURRENCY: "eight",
    SERVICE_GIT_CONCURRENCY_PER_CLIENT: "0",
    SERVICE_HTTP_BODY_MIN_RATE: "1 kb",
    SERVICE_HTTP_BODY_TIMEOUT: "-1",
    SERVICE_SSH_GIT_IDLE_TIMEOUT: "forever",
    SERVICE_CLONE_CACHE_BYTES: "big",
    SERVICE_BROWSE_CACHE_BYTES: "lots",
    SERVICE_SHUTDOWN_TIMEOUT: "soon",
    SERVICE_HTTP_HEADER_TIMEOUT: "1h",
    SERVICE_HTTP_IDLE_TIMEOUT: "never",
    SERVICE_RATE_LIMITS: "yes",
    SERVICE_INSTANCE_NAME: "../web",
    SERVICE_SSH_PUBLIC_PORT: "70000",
  };
  for (const name of Object.keys(RATE_LIMIT_SETTINGS)) bad[name] = "10";
  const help = serveHelp();
  for (const name of [...Object.keys(SETTINGS), ...Object.keys(RATE_LIMIT_SETTINGS)]) {
    assertStringIncludes(help, `  ${name}\n`);
    if (anyText.has(name)) continue;
    assertEquals(typeof bad[name], "string", `no bad value tested for ${name}`);
    const message = refusal({ [name]: bad[name] });
    assertStringIncludes(message, name);
  }
  // The message says what is accepted.
  assertStringIncludes(refusal({ SERVICE_SHUTDOWN_TIMEOUT: "soon" }), "seconds");
  assertStringIncludes(refusal({ SERVICE_GIT_CONCURRENCY: "eight" }), "positive integer");
  assertStringIncludes(refusal({ SERVICE_RATE_LIMIT_LOGIN_IP: "10" }), "<burst>/<per minute>");
  assertStringIncludes(refusal({ SERVICE_RATE_LIMITS: "yes" }), "on or off");
});

Deno.test("the instance name: the host name by default, its private directory under run/", () => {
  const byDefault = loadServerConfig(BASE);
  assertEquals(byDefault.instanceName, Deno.hostname());
  assertEquals(byDefault.instanceDir, `/tmp/signet-config-test/run/${Deno.hostname()}`);
  const named = loadServerConfig({ ...BASE, SERVICE_INSTANCE_NAME: "web-2.eu_west" });
  assertEquals(named.instanceName, "web-2.eu_west");
  assertEquals(named.instanceDir, "/tmp/signet-config-test/run/web-2.eu_west");
  // Names that would leave run/ or make an odd path or label are refused.
  for (const bad of ["..", ".hidden", "a/b", "-x", "a b", "x".repeat(64), "é"]) {
    assertStringIncludes(refusal({ SERVICE_INSTANCE_NAME: bad }), "SERVICE_INSTANCE_NAME");
  }
});

Deno.test("rate limits and git's PATH come from the same configuration", () => {
  const config = loadServerConfig({
    ...BASE,
    SERVICE_RATE_LIMITS: "off",
    SERVICE_RATE_LIMIT_SIGNUP_IP: "3/2",
    PATH: "/opt/git/bin:/usr/bin",
  });
  assertEquals(config.rateLimitsEnabled, false);
  assertEquals(config.rateLimitRules.signup_ip, { burst: 3, perMinute: 2 });
  assertEquals(config.rateLimitRules.login_ip, { burst: 30, perMinute: 30 });
  assertEquals(config.gitPath, "/opt/git/bin:/usr/bin");
  const defaults = loadServerConfig(BASE);
  assertEquals(defaults.rateLimitsEnabled, true);
  assertEquals(defaults.gitPath, "/usr/bin:/bin");
});
