import { assertEquals } from "../../tests/helpers/assert.ts";
import { phasesOf } from "./timeline.ts";

Deno.test("ssh phases: the connection's steps on its first command only, then each command's", () => {
  const connection = {
    accepted: 100,
    identified: 101.5,
    authenticated: 110,
    authMs: 2.25,
    reported: false,
  };
  const marks = { exec: 111, user: 111.5, held: 112, spawned: 114, exited: 120 };
  assertEquals(phasesOf(connection, marks, 121), {
    phase_ident: 1.5,
    phase_handshake: 8.5,
    phase_auth: 2.25,
    phase_to_exec: 1,
    phase_user: 0.5,
    phase_repo: 0.5,
    phase_spawn: 2,
    phase_git: 6,
    phase_finish: 1,
  });
  // A second command on the same connection: its own steps only; missing ones are left out.
  assertEquals(phasesOf(connection, { exec: 130, user: 131 }, 133), {
    phase_user: 1,
    phase_finish: 2,
  });
});
