/**
 * The reference: a bare `Deno.serve` answering one fixed JSON document (the size of a bot record).
 * Usage: deno run -A bench/load/bare_server.ts <port> <json-file>
 */
const [port, file] = Deno.args;
const body = await Deno.readTextFile(file);
Deno.serve(
  { hostname: "127.0.0.1", port: Number(port), onListen: () => console.error("listening") },
  () => new Response(body, { headers: { "content-type": "application/json" } }),
);
