/**
 * Clone requests of protocol v2, answered the same way on both transports: by one
 * `git upload-pack --stateless-rpc` per request (in a git slot), through the clone cache when it
 * is on. Smart HTTP sends every such request here; SSH sends the clone requests of a v2 session.
 */
import type { RepoRow } from "../../db/repos.ts";
import type { Signet } from "../context.ts";
import type { CloneSource, Produced } from "./clone_cache.ts";
import { gitProgram, gitServerEnv, gitSlots } from "./git.ts";
import { repoDir } from "./repos.ts";
import { refState } from "./ref_state.ts";

/** A clone response on its way: its bytes, where they came from, and when they were all read. */
export interface CloneAnswer {
  stream: ReadableStream<Uint8Array>;
  source: CloneSource;
  /** Resolves once the stream ended (true) or was cancelled or failed (false). */
  done: Promise<boolean>;
}

/**
 * The response to the v2 clone request `request` for `repo`. `slotHeld`: the caller's transfer
 * already holds a git slot (an SSH session's upload-pack), so git runs in it rather than waiting
 * for another one, which a storm of sessions could otherwise hold all of.
 */
export async function answerClone(
  ctx: Signet,
  repo: RepoRow,
  request: Uint8Array,
  gitProtocol: string | null | undefined,
  slotHeld = false,
): Promise<CloneAnswer> {
  const produce = () => statelessUploadPack(ctx, repo, request, gitProtocol, slotHeld);
  const { stream, source } = ctx.cloneCache
    ? await ctx.cloneCache.respond(
      repo.id,
      request,
      produce,
      () => refState(repoDir(ctx, repo.owner, repo.name)),
    )
    : { stream: (await produce()).stream, source: "made" as const };
  return { source, ...watchEnd(stream) };
}

/** Runs `git upload-pack --stateless-rpc` on `request`, in a git slot. */
async function statelessUploadPack(
  ctx: Signet,
  repo: RepoRow,
  request: Uint8Array,
  gitProtocol: string | null | undefined,
  slotHeld: boolean,
): Promise<Produced> {
  const release = slotHeld ? () => {} : await gitSlots(ctx).acquire();
  try {
    const child = new Deno.Command(gitProgram("git-upload-pack"), {
      args: ["--stateless-rpc", repoDir(ctx, repo.owner, repo.name)],
      env: gitServerEnv(ctx, gitProtocol),
      clearEnv: true,
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
    }).spawn();
    child.status.finally(release);
    const writer = child.stdin.getWriter();
    writer.write(request).then(() => writer.close()).catch(() => {});
    return { stream: child.stdout, succeeded: child.status.then((s) => s.success) };
  } catch (err) {
    release();
    throw err;
  }
}

/** `stream` passed through, with a promise of how it ended. */
function watchEnd(
  stream: ReadableStream<Uint8Array>,
): { stream: ReadableStream<Uint8Array>; done: Promise<boolean> } {
  let settle!: (ok: boolean) => void;
  const done = new Promise<boolean>((resolve) => (settle = resolve));
  const reader = stream.getReader();
  return {
    done,
    stream: new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const chunk = await reader.read();
          if (chunk.done) {
            controller.close();
            settle(true);
          } else controller.enqueue(chunk.value);
        } catch (err) {
          controller.error(err);
          settle(false);
        }
      },
      async cancel(reason) {
        settle(false);
        await reader.cancel(reason).catch(() => {});
      },
    }),
  };
}
