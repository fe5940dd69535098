/** Generates the bench repositories locally with `git fast-import` (never downloaded). */
import { concatBytes } from "../protocol/bytes.ts";
import { cmdOk, gitClientEnv, randomBytes } from "./util.ts";

/** Sizes of the generated repositories. */
export interface RepoSizes {
  /** Files in the "small" repository (spread over `commits` commits). */
  files: number;
  commits: number;
  /** Size of the incompressible blob in the "big" repository, in bytes. */
  blobBytes: number;
}

/** Paths of the generated bare repositories. */
export interface GeneratedRepos {
  small: string;
  big: string;
  sizes: RepoSizes;
}

const enc = new TextEncoder();

/** A deterministic xorshift32 generator, so every run produces the same small repository. */
function prng(seed: number): () => number {
  let x = seed | 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 0x1_0000_0000;
  };
}

const WORDS = (
  "alpha beta gamma delta signet commit branch merge tree blob object packet line ref push " +
  "fetch clone remote origin index stage patch diff hunk token key sign verify bot registry"
).split(" ");

function textFile(rand: () => number, lines: number): string {
  const out: string[] = [];
  for (let i = 0; i < lines; i++) {
    const n = 4 + Math.floor(rand() * 8);
    const words: string[] = [];
    for (let j = 0; j < n; j++) words.push(WORDS[Math.floor(rand() * WORDS.length)]);
    out.push(words.join(" "));
  }
  return out.join("\n") + "\n";
}

function dataCmd(body: Uint8Array): Uint8Array[] {
  return [enc.encode(`data ${body.length}\n`), body, enc.encode("\n")];
}

function commitHeader(n: number, message: string): Uint8Array[] {
  const when = 1_700_000_000 + n * 60;
  return [
    enc.encode(
      `commit refs/heads/main\ncommitter Bench <bench@example.com> ${when} +0000\n`,
    ),
    ...dataCmd(enc.encode(message)),
  ];
}

function filePath(i: number): string {
  return `src/dir${String(i % 40).padStart(2, "0")}/file${String(i).padStart(4, "0")}.txt`;
}

/** The fast-import stream of the small repository: `files` files added over `commits` commits. */
function smallStream(sizes: RepoSizes): Uint8Array[] {
  const rand = prng(0x5167);
  const parts: Uint8Array[] = [];
  const perCommit = Math.ceil(sizes.files / sizes.commits);
  let added = 0;
  for (let c = 0; c < sizes.commits; c++) {
    parts.push(...commitHeader(c, `commit ${c + 1}\n`));
    for (let k = 0; k < perCommit && added < sizes.files; k++, added++) {
      parts.push(enc.encode(`M 100644 inline ${filePath(added)}\n`));
      parts.push(...dataCmd(enc.encode(textFile(rand, 10 + Math.floor(rand() * 30)))));
    }
    // Also edit a few earlier files, so history has real deltas.
    for (let k = 0; k < 5 && added > perCommit; k++) {
      const i = Math.floor(rand() * (added - perCommit));
      parts.push(enc.encode(`M 100644 inline ${filePath(i)}\n`));
      parts.push(...dataCmd(enc.encode(textFile(rand, 10 + Math.floor(rand() * 30)))));
    }
  }
  return parts;
}

/** The fast-import stream of the big repository: a README and one incompressible blob. */
function bigStream(sizes: RepoSizes): Uint8Array[] {
  return [
    ...commitHeader(0, "big blob\n"),
    enc.encode("M 100644 inline README\n"),
    ...dataCmd(enc.encode("A repository with one large incompressible file.\n")),
    enc.encode("M 100644 inline blob.bin\n"),
    ...dataCmd(randomBytes(sizes.blobBytes)),
  ];
}

async function importRepo(path: string, stream: Uint8Array[], home: string): Promise<void> {
  const env = gitClientEnv(home);
  await cmdOk("git", ["init", "-q", "--bare", "--initial-branch=main", path], { env });
  await cmdOk("git", ["-C", path, "fast-import", "--quiet"], { env, stdin: concatBytes(stream) });
  await cmdOk("git", ["-C", path, "repack", "-adq"], { env });
}

/** Creates `small.git` and `big.git` under `dir`. */
export async function generateRepos(
  dir: string,
  sizes: RepoSizes,
  home: string,
): Promise<GeneratedRepos> {
  const small = `${dir}/small.git`;
  const big = `${dir}/big.git`;
  await importRepo(small, smallStream(sizes), home);
  await importRepo(big, bigStream(sizes), home);
  return { small, big, sizes };
}

/** Copies every ref and object of `source` into the existing bare repository `target`. */
export async function mirrorInto(source: string, target: string, home: string): Promise<void> {
  await cmdOk("git", ["-C", source, "push", "-q", "--mirror", target], {
    env: gitClientEnv(home),
  });
}
