import { assertEquals } from "../../tests/helpers/assert.ts";
import { isConnectionError, isUnreachable } from "./sql.ts";

Deno.test("a missing socket is a connection error; any other missing file is not", () => {
  const socketGone = Object.assign(new Error("connect ENOENT /run/pg/.s.PGSQL.5432"), {
    code: "ENOENT",
    syscall: "connect",
  });
  assertEquals(isConnectionError(socketGone), true);
  assertEquals(isUnreachable(socketGone), true);
  const fileGone = new Deno.errors.NotFound("open '/tmp/x'");
  assertEquals(isConnectionError(fileGone), false);
  assertEquals(isConnectionError(Object.assign(new Error("x"), { code: "ENOENT" })), false);
});

Deno.test("a statement timeout or a full pool is unavailable but not unreachable", () => {
  for (const code of ["57014", "25P03", "53300"]) {
    const err = Object.assign(new Error(code), { code });
    assertEquals([isConnectionError(err), isUnreachable(err)], [true, false], code);
  }
  const refused = Object.assign(new Error("refused"), { code: "ECONNREFUSED" });
  assertEquals(isUnreachable(refused), true);
});
