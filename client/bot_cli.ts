/** `signet bot …`: manage bot identities in the registry from the shell, via client/registry.ts. */
import { type FlagSpec, parseArgs, type ParsedArgs, usageFailure } from "./args.ts";
import { unreachableReason } from "./api.ts";
import { clientEnv } from "./env.ts";
import { normalizeHost } from "./config.ts";
import { environment, helpText } from "./cli/help.ts";
import { UsageError } from "./errors.ts";
import type { Bot } from "../protocol/registry/bot.ts";
import {
  generateKeyFile,
  type KeyFile,
  publicKeyOf,
  RegistryClient,
  RegistryError,
  type Signer,
  signerFromKeyFile,
} from "./registry.ts";

/** Help text of `signet bot`. */
export const BOT_USAGE = helpText({
  program: "signet bot",
  usage: "<command> [args] [--registry URL]",
  sections: [
    {
      title: "Commands",
      rows: [
        [
          "keygen KEY_ID [--out FILE] [--bot BOT_ID] [--label TEXT]",
          "create an Ed25519 key file (0600); --bot marks it as that bot's key",
        ],
        [
          "create BOT_ID --key FILE... [--sign FILE...] [--name N] [--description D] " +
          "[--capability C...] [--controller BOT_ID...] [--endpoint TYPE=URL...] [--policy FILE]",
          "register a bot with the given keys (signed by --sign, default the first --key)",
        ],
        ["get BOT_ID", "print a bot record"],
        [
          "update BOT_ID --sign FILE... [--name N] [--description D] [--capability C...] " +
          "[--controller BOT_ID...] [--policy FILE] [--if-match VERSION]",
          "change a bot record",
        ],
        ["add-key BOT_ID --key FILE --sign FILE...", "add a key"],
        ["remove-key BOT_ID KEY_ID --sign FILE... [--reason TEXT]", "remove a key"],
        ["rotate BOT_ID OLD_KEY_ID --key FILE --sign FILE...", "replace a key"],
        ["revoke BOT_ID --sign FILE... [--reason TEXT]", "revoke the bot"],
        [
          "attest ISSUER SUBJECT CLAIM --sign FILE [--evidence TYPE=VALUE...]",
          "sign a claim about another bot",
        ],
        [
          "search [Q] [--status active|revoked] [--capability C] [--limit N] [--cursor C]",
          "search the registry",
        ],
      ],
    },
    `Several --sign files make a multi-signature proof_set. The registry address comes from --registry,
else SERVICE_REGISTRY_URL, else http://127.0.0.1:8081. Output is JSON.`,
    environment("SERVICE_REGISTRY_URL"),
  ],
});

/** Every flag of `signet bot`; each may be given more than once (`one` takes the last). */
const FLAGS: FlagSpec = Object.fromEntries(
  [
    "registry",
    "out",
    "bot",
    "label",
    "key",
    "sign",
    "name",
    "description",
    "capability",
    "controller",
    "endpoint",
    "policy",
    "if-match",
    "reason",
    "evidence",
    "status",
    "limit",
    "cursor",
  ].map((name) => [name, "strings"]),
);

type Parsed = ParsedArgs;

/** The values `search --status` accepts (every status a record can have). */
const STATUSES = ["active", "revoked"] as const satisfies readonly Bot["status"][];

const parse = (args: string[]): Parsed => parseArgs(args, FLAGS, Infinity);

const many = (p: Parsed, name: string) => (p.flags[name] as string[] | undefined) ?? [];
const one = (p: Parsed, name: string) => many(p, name).at(-1);

function need(p: Parsed, count: number, what: string): string[] {
  if (p.positionals.length !== count) throw new UsageError(`expected ${what}`);
  return p.positionals;
}

async function readKeyFile(path: string): Promise<KeyFile> {
  let file: KeyFile;
  try {
    file = JSON.parse(await Deno.readTextFile(path));
  } catch (err) {
    throw new UsageError(`cannot read key file ${path}: ${(err as Error).message}`);
  }
  if (typeof file?.key_id !== "string" || typeof file.private_key !== "string") {
    throw new UsageError(`${path} is not a signet bot key file (make one with signet bot keygen)`);
  }
  return file;
}

function signers(p: Parsed, fallback: string[] = []): Promise<Signer[]> {
  const paths = many(p, "sign").length ? many(p, "sign") : fallback;
  if (paths.length === 0) {
    return Promise.reject(new UsageError("at least one --sign FILE is required"));
  }
  return Promise.all(paths.map(async (path) => signerFromKeyFile(await readKeyFile(path))));
}

async function recordFields(p: Parsed): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  if (one(p, "name") !== undefined) out.name = one(p, "name");
  if (one(p, "description") !== undefined) out.description = one(p, "description");
  if (many(p, "capability").length) out.capabilities = many(p, "capability");
  if (many(p, "controller").length) {
    out.controllers = many(p, "controller").map((bot_id) => ({ bot_id }));
  }
  if (many(p, "endpoint").length) {
    out.endpoints = many(p, "endpoint").map((e) => {
      const eq = e.indexOf("=");
      if (eq < 1) throw new UsageError(`--endpoint must be TYPE=URL, got ${e}`);
      return { type: e.slice(0, eq), url: e.slice(eq + 1) };
    });
  }
  const policy = one(p, "policy");
  if (policy !== undefined) {
    try {
      out.policy = JSON.parse(await Deno.readTextFile(policy));
    } catch (err) {
      throw new UsageError(`cannot read policy ${policy}: ${(err as Error).message}`);
    }
  }
  return out;
}

async function keygen(p: Parsed): Promise<unknown> {
  const [keyId] = need(p, 1, "KEY_ID");
  const out = one(p, "out") ?? `${keyId}.key.json`;
  const file = await generateKeyFile(keyId, { botId: one(p, "bot"), label: one(p, "label") });
  try {
    await Deno.writeTextFile(out, JSON.stringify(file, null, 2) + "\n", {
      createNew: true,
      mode: 0o600,
    });
  } catch (err) {
    if (err instanceof Deno.errors.AlreadyExists) {
      throw new UsageError(`${out} already exists; not overwriting it`);
    }
    throw err;
  }
  return { key_id: file.key_id, algorithm: file.algorithm, public_key: file.public_key, file: out };
}

/** Runs `signet bot <args>`; returns the exit code. */
export async function runBotCommand(args: string[]): Promise<number> {
  const [command, ...rest] = args;
  if (command === undefined || command === "help" || command === "--help" || command === "-h") {
    console.log(BOT_USAGE);
    return 0;
  }
  let registry = "";
  try {
    const p = parse(rest);
    registry = normalizeHost(
      one(p, "registry") ?? clientEnv().registryUrl ?? "http://127.0.0.1:8081",
      "registry",
    );
    const c = new RegistryClient(registry);
    const result = await dispatch(command, p, c);
    console.log(JSON.stringify(result, null, 2));
    return 0;
  } catch (err) {
    if (err instanceof UsageError) {
      return usageFailure(`signet bot ${command}`, err.message, "signet bot help");
    }
    if (err instanceof RegistryError) {
      console.error(`signet bot ${command}: registry answered ${err.message}`);
      return 1;
    }
    if (err instanceof TypeError && /fetch|connect/i.test(err.message)) {
      console.error(
        `signet bot ${command}: cannot reach the registry at ${registry}: ${
          unreachableReason(err)
        }` +
          " (set --registry or SERVICE_REGISTRY_URL)",
      );
      return 1;
    }
    throw err;
  }
}

async function dispatch(command: string, p: Parsed, c: RegistryClient): Promise<unknown> {
  switch (command) {
    case "keygen":
      return keygen(p);
    case "create": {
      const [botId] = need(p, 1, "BOT_ID");
      const keyPaths = many(p, "key");
      if (keyPaths.length === 0) throw new UsageError("at least one --key FILE is required");
      const keys = await Promise.all(keyPaths.map(async (k) => {
        const f = await readKeyFile(k);
        return publicKeyOf(f, f.label);
      }));
      const bot = await signers(p, keyPaths.slice(0, 1));
      return c.createBot(
        { bot_id: botId, keys, ...await recordFields(p) },
        bot.map((s) => ({ ...s, botId })),
      );
    }
    case "get":
      return c.getBot(need(p, 1, "BOT_ID")[0]);
    case "update": {
      const [botId] = need(p, 1, "BOT_ID");
      const ifMatch = one(p, "if-match");
      return c.updateBot(botId, await recordFields(p), await signers(p), {
        ifMatch: ifMatch === undefined ? undefined : Number(ifMatch),
      });
    }
    case "add-key": {
      const [botId] = need(p, 1, "BOT_ID");
      const key = one(p, "key");
      if (!key) throw new UsageError("--key FILE is required");
      const f = await readKeyFile(key);
      return c.addKey(botId, publicKeyOf(f, f.label), await signers(p));
    }
    case "remove-key": {
      const [botId, keyId] = need(p, 2, "BOT_ID KEY_ID");
      return c.removeKey(botId, keyId, await signers(p), one(p, "reason"));
    }
    case "rotate": {
      const [botId, oldKeyId] = need(p, 2, "BOT_ID OLD_KEY_ID");
      const key = one(p, "key");
      if (!key) throw new UsageError("--key FILE is required");
      const f = await readKeyFile(key);
      return c.rotateKey(botId, oldKeyId, publicKeyOf(f, f.label), await signers(p));
    }
    case "revoke": {
      const [botId] = need(p, 1, "BOT_ID");
      return c.revokeBot(botId, await signers(p), one(p, "reason"));
    }
    case "attest": {
      const [issuer, subject, claim] = need(p, 3, "ISSUER SUBJECT CLAIM");
      const [signer] = await signers(p);
      const evidence = many(p, "evidence").map((e) => {
        const eq = e.indexOf("=");
        if (eq < 1) throw new UsageError(`--evidence must be TYPE=VALUE, got ${e}`);
        return { type: e.slice(0, eq), value: e.slice(eq + 1) };
      });
      return c.attest({ issuer, subject, claim, ...(evidence.length ? { evidence } : {}) }, signer);
    }
    case "search": {
      if (p.positionals.length > 1) throw new UsageError("expected at most one query");
      const limit = one(p, "limit");
      const status = one(p, "status");
      if (status !== undefined && !(STATUSES as readonly string[]).includes(status)) {
        throw new UsageError(`--status must be ${STATUSES.join(" or ")}, got ${status}`);
      }
      if (limit !== undefined && !/^[1-9][0-9]*$/.test(limit)) {
        throw new UsageError(`--limit must be a positive integer, got ${limit}`);
      }
      return c.search({
        q: p.positionals[0],
        status,
        capability: one(p, "capability"),
        limit: limit === undefined ? undefined : Number(limit),
        cursor: one(p, "cursor"),
      });
    }
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}
