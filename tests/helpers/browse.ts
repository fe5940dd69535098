/** Repositories the repository browser's tests push: an ordinary one and a hostile one. */
import { gitEnv, runOk } from "../../testing/run.ts";

/** A work tree with its git environment. */
export interface Work {
  dir: string;
  env: Record<string, string>;
}

/** A fresh work tree on branch `main` under `home`. */
export async function newWork(home: string, name: string): Promise<Work> {
  const dir = `${home}/${name}`;
  const env = gitEnv(home);
  await runOk("git", ["init", "-q", "-b", "main", dir], { env });
  return { dir, env };
}

/** Writes `files` (path → content) into the work tree and commits them all as `message`. */
export async function commitFiles(
  w: Work,
  files: Record<string, string | Uint8Array>,
  message: string,
): Promise<string> {
  for (const [path, content] of Object.entries(files)) {
    const full = `${w.dir}/${path}`;
    await Deno.mkdir(full.slice(0, full.lastIndexOf("/")), { recursive: true });
    if (typeof content === "string") await Deno.writeTextFile(full, content);
    else await Deno.writeFile(full, content);
  }
  await runOk("git", ["add", "-A"], { cwd: w.dir, env: w.env });
  await runOk("git", ["commit", "-q", "-m", message], { cwd: w.dir, env: w.env });
  return (await runOk("git", ["rev-parse", "HEAD"], { cwd: w.dir, env: w.env })).trim();
}

/** Runs git in the work tree; its output. */
export async function git(w: Work, ...args: string[]): Promise<string> {
  return await runOk("git", args, { cwd: w.dir, env: w.env });
}

/** A README that tries everything a README can try. */
export const HOSTILE_README = [
  "# Hostile readme",
  "",
  "<script>alert('readme')</script>",
  "",
  "[run me](javascript:alert('link')) [data](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
  "",
  '<img src="x" onerror="alert(\'img\')"> <a href="javascript:alert(1)">raw html link</a>',
  "",
  "[guide](docs/guide.md) ![logo](img/logo.png) [outside](https://example.com/x)",
  "",
].join("\n");

/** File names with quotes, HTML, a bidi override and an option-like name. */
export const HOSTILE_NAMES = [
  `"quoted" & 'single'.txt`,
  "<img src=x onerror=alert(1)>.html",
  "evil\u202Etxt.exe",
  "-n",
  "--output=x",
];

/** A branch name with quotes, HTML and a bidi override (git accepts all of them; no spaces). */
export const HOSTILE_BRANCH = `x"<img/src=x/onerror=alert(1)>'\u202Eb`;

/**
 * A fresh work tree `h` under `home` whose first commit (`message`) holds HOSTILE_README as its
 * README, a file for each of HOSTILE_NAMES under `names/`, and `files`.
 */
export async function hostileWork(
  home: string,
  files: Record<string, string | Uint8Array>,
  message: string,
): Promise<Work> {
  const w = await newWork(home, "h");
  const all: Record<string, string | Uint8Array> = { "README.md": HOSTILE_README, ...files };
  for (const name of HOSTILE_NAMES) all[`names/${name}`] = `content of ${name}\n`;
  await commitFiles(w, all, message);
  return w;
}

/** The smallest PNG: one transparent pixel. */
export const PNG_1PX = Uint8Array.from(
  atob(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=",
  ),
  (c) => c.charCodeAt(0),
);

/**
 * Adds `count` files (all one blob) under `dir/` to the index and commits them: a directory of
 * 10,000 files in a second, without writing them to disk.
 */
export async function commitManyFiles(
  w: Work,
  dir: string,
  count: number,
  message: string,
): Promise<void> {
  const blob = (await runOk("git", ["hash-object", "-w", "--stdin"], {
    cwd: w.dir,
    env: w.env,
    stdin: "same content\n",
  })).trim();
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    lines.push(`100644 ${blob}\t${dir}/f${String(i).padStart(5, "0")}.txt`);
  }
  await runOk("git", ["update-index", "--index-info"], {
    cwd: w.dir,
    env: w.env,
    stdin: lines.join("\n") + "\n",
  });
  await runOk("git", ["commit", "-q", "-m", message], { cwd: w.dir, env: w.env });
}

/**
 * Writes a blob of `bytes` bytes of repeated text lines into the git directory `gitDir` (streamed
 * from `yes`, never held in memory here); its id.
 */
export async function bigTextBlob(
  gitDir: string,
  env: Record<string, string>,
  bytes: number,
): Promise<string> {
  const out = await new Deno.Command("sh", {
    args: [
      "-c",
      `yes "a line of text that repeats, again and again" | head -c ${bytes} | git --git-dir "$1" hash-object -w --stdin`,
      "sh",
      gitDir,
    ],
    env,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
  return new TextDecoder().decode(out.stdout).trim();
}

/** What `pushSite` made: the commits by name. */
export interface Site {
  work: Work;
  /** The first commit, the second (on main), the one on feature/x. */
  first: string;
  second: string;
  feature: string;
}

/** The code of src/main.ts in the first commit. */
export const MAIN_TS = [
  "// The entry point.",
  "export function greet(name: string): string {",
  "  return `hello ${name}`;",
  "}",
  "",
  "console.log(greet('world'));",
  "",
].join("\n");

/**
 * Builds the ordinary repository: a README linking inside the repository, code, a guide, an image,
 * two commits on main, a branch `feature/x` with one more, an annotated tag `v1.0` on the first
 * commit, and `extra` more commits on main (for paging); pushes main and the tag to `httpRemote`
 * and feature/x over SSH (`sshEnv`, `sshRemote`).
 */
export async function pushSite(
  home: string,
  httpRemote: string,
  ssh: { env: Record<string, string>; remote: string },
  extra = 0,
): Promise<Site> {
  const work = await newWork(home, "site");
  const first = await commitFiles(work, {
    "README.md": "# Site\n\nRead the [guide](docs/guide.md) and see `src/`.\n",
    "src/main.ts": MAIN_TS,
    // A task list, a highlighted fence, alerts, a footnote and raw HTML: the Markdown page's
    // checks (axe's contrast, light and dark, among them) see them all.
    "docs/guide.md":
      "# Guide\n\nBack to the [readme](../README.md).\n\n- [x] read\n- [ ] write\n\n" +
      "```ts\nconst answer = 42;\n```\n\n" +
      ["NOTE", "TIP", "IMPORTANT", "WARNING", "CAUTION"].map((k) => `> [!${k}]\n> Text.\n\n`)
        .join("") +
      "A claim[^1] :tada:\n\n[^1]: Its source.\n\n" +
      "<details><summary>More</summary>\n\nPress <kbd>Ctrl</kbd>.\n\n</details>\n",
    "img/logo.png": PNG_1PX,
    "page.html": "<!doctype html><script>alert('raw')</script>\n",
    "icon.svg": '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>\n',
  }, "First commit\n\nWith a body line.");
  await git(work, "tag", "-a", "v1.0", "-m", "version 1.0", first);
  for (let i = 0; i < extra; i++) {
    await git(work, "commit", "-q", "--allow-empty", "-m", `filler ${i}`);
  }
  const second = await commitFiles(work, {
    "src/main.ts": MAIN_TS.replace("hello", "hello there"),
  }, "Greet more warmly");
  await git(work, "checkout", "-q", "-b", "feature/x");
  const feature = await commitFiles(work, { "src/feature.ts": "export const x = 1;\n" }, "Add x");
  await git(work, "checkout", "-q", "main");
  await git(work, "push", "-q", httpRemote, "main", "refs/tags/v1.0");
  await runOk("git", ["push", "-q", ssh.remote, "feature/x"], { cwd: work.dir, env: ssh.env });
  return { work, first, second, feature };
}
