/** Interactive signup for a key no account uses: username, invite code, account. */
import { checkUsernameAvailable, findUserBySshKey, signup } from "../domain/accounts.ts";
import { DomainError } from "../../protocol/errors.ts";
import { log } from "../log.ts";
import { RateLimitError } from "../ratelimit.ts";
import type { Signet } from "../context.ts";
import { type Ed25519PublicKey, fingerprint } from "../../protocol/ssh/sshkey.ts";
import type { ChannelIO } from "./io.ts";
import { capabilities, sshCommandLine } from "./messages.ts";
import { LineReader } from "./terminal.ts";

/** How many answers (usernames and invite codes together) one signup session accepts. */
export const MAX_SIGNUP_ANSWERS = 10;

/** Who is signing up: the verified key from the handshake. */
export interface SignupPeer {
  ctx: Signet;
  key: Ed25519PublicKey;
  remote: string;
}

/**
 * Runs the signup dialogue on `io` and returns the exit status: 0 when the account was created,
 * 1 when the person cancelled (Ctrl-C, Ctrl-D, end of input) or gave up; nothing is created then.
 */
export async function runSignup(
  peer: SignupPeer,
  io: ChannelIO,
  onInput: () => void,
): Promise<number> {
  const { ctx } = peer;
  const reader = new LineReader(io, onInput);
  await io.out(intro(peer, await fingerprint(peer.key.blob)));
  let username: string | null = null;
  for (let answers = 0; answers < MAX_SIGNUP_ANSWERS; answers++) {
    if (username === null) {
      await io.out("Username: ");
      const line = await reader.readLine();
      if (line === null) return await cancelled(io);
      try {
        username = await checkUsernameAvailable(ctx, line.trim());
      } catch (err) {
        if (!(err instanceof DomainError)) throw err;
        await io.out(`  ${err.message}. Please choose another.\n`);
      }
      continue;
    }
    await io.out("Invite code: ");
    const code = await reader.readLine();
    if (code === null) return await cancelled(io);
    try {
      const user = await signup(
        ctx,
        { username, public_key: peer.key.line, invite_code: code.trim() },
        peer.remote,
      );
      log("info", "ssh signup", { user: user.username, remote_addr: peer.remote });
      await io.out(
        `\nWelcome, ${user.username}! Your account is ready and this SSH key signs you in.\n\n` +
          `Next steps:\n${capabilities(ctx, user.username)}`,
      );
      return 0;
    } catch (err) {
      if (err instanceof RateLimitError) {
        await io.out(`  ${err.message}; no account was created.\n`);
        return 1;
      }
      if (!(err instanceof DomainError)) throw err;
      const owner = await findUserBySshKey(ctx, peer.key.line);
      if (owner) {
        await io.out(`  This key was just registered as ${owner.username}; reconnect to use it.\n`);
        return 1;
      }
      try {
        await checkUsernameAvailable(ctx, username);
        await io.out(`  ${err.message}. Please check the code and try again.\n`);
      } catch (taken) {
        if (!(taken instanceof DomainError)) throw taken;
        await io.out(`  ${taken.message}. Please choose another.\n`);
        username = null;
      }
    }
  }
  await io.out("Too many attempts; no account was created.\n");
  return 1;
}

function intro(peer: SignupPeer, fingerprint: string): string {
  const ssh = sshCommandLine(peer.ctx).replace(/^ssh /, "ssh -i <key file> -o IdentitiesOnly=yes ");
  return `Welcome to Signet!\n\n` +
    `This SSH key (${fingerprint}) is not registered yet. Create an account for it now;\n` +
    `you need an invite code from an administrator. Press Ctrl-C to cancel.\n` +
    `If you already have an account, connect with its key instead:\n  ${ssh}\n\n`;
}

async function cancelled(io: ChannelIO): Promise<number> {
  await io.out(`${io.pty ? "" : "\n"}Signup cancelled; no account was created.\n`);
  return 1;
}
