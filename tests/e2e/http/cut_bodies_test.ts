/**
 * A request body the client cuts short (it promised more with Content-Length or its chunks, then
 * closed) is the client's fault: the hosting API answers 400 when it still can, never a 5xx, and
 * logs nothing at error level. With the connection guard and without it (both timeouts 0).
 */
import { assertEquals } from "../../helpers/assert.ts";
import { createUser, login } from "../../../testing/accounts.ts";
import { RawHttp } from "../../helpers/raw_http.ts";
import { errorLines, serverTest } from "../../helpers/server.ts";

for (const guard of [true, false]) {
  serverTest(
    `hosting API: a body cut short is a 400, never a 5xx (guard ${guard ? "on" : "off"})`,
    {
      env: guard ? {} : { SERVICE_HTTP_HEADER_TIMEOUT: "0", SERVICE_HTTP_IDLE_TIMEOUT: "0" },
    },
    async (server) => {
      const token = await login(server, await createUser(server, "alice"));
      const routes: [string, string, string][] = [
        ["POST", "/api/signup", ""],
        ["POST", "/api/login/challenge", ""],
        ["POST", "/api/login/verify", ""],
        ["POST", "/api/repos", `Authorization: Bearer ${token}\r\n`],
        ["DELETE", "/api/tokens/1", `Authorization: Bearer ${token}\r\n`],
        ["POST", "/api/admin/invites", `Authorization: Bearer ${server.adminKey}\r\n`],
        ["POST", "/api/nothing", ""],
      ];
      const framings = {
        "Content-Length": 'Content-Length: 100\r\n\r\n{"username":"al',
        chunked: 'Transfer-Encoding: chunked\r\n\r\n10\r\n{"username":"ali\r\n5\r\n',
      };
      const outcomes: string[] = [];
      for (const [method, path, auth] of routes) {
        for (const [framing, rest] of Object.entries(framings)) {
          const head = `${method} ${path} HTTP/1.1\r\nHost: test\r\n${auth}` +
            `Content-Type: application/json\r\n${rest}`;
          // The client stops sending but still listens: it gets the answer.
          const halfClosed = await RawHttp.open(server.httpPort);
          await halfClosed.send(head);
          await halfClosed.conn.closeWrite();
          const res = await halfClosed.response(10_000);
          halfClosed.close();
          outcomes.push(`${method} ${path} ${framing}: ${res.status} ${res.body}`);
          // The client goes away entirely: nothing to answer, nothing to log as an error.
          const gone = await RawHttp.open(server.httpPort);
          await gone.send(head);
          gone.close();
        }
      }
      const error = JSON.stringify({ error: "could not read request body: it ended early" });
      assertEquals(
        outcomes,
        routes.flatMap(([method, path]) =>
          Object.keys(framings).map((f) => `${method} ${path} ${f}: 400 ${error}`)
        ),
      );
      await new Promise((r) => setTimeout(r, 500));
      const health = await fetch(`${server.httpUrl}/api/health`);
      assertEquals(health.status, 200, await health.text());
      const errors = errorLines(server);
      assertEquals(errors, [], "logged at error level");
    },
  );
}
