/** The connection guard's request framer: where requests start and end, whatever the chunking. */
import { assert, assertEquals, assertThrows } from "../../tests/helpers/assert.ts";
import { CONNECTION_HEADER, FramingError, RequestFramer } from "./request_framing.ts";

const enc = (s: string) => new TextEncoder().encode(s);

/** Feeds `text` in pieces of `size` bytes; returns the framer and the request-line ends seen. */
function feedAll(text: string, size: number, max = 64 * 1024) {
  const bytes = enc(text);
  const framer = new RequestFramer(max, 0);
  const lineEnds: number[] = [];
  for (let i = 0; i < bytes.length; i += size) {
    framer.feed(bytes.subarray(i, i + size), 1);
    for (const end of framer.requestLineEnds) lineEnds.push(i + end);
  }
  return { framer, lineEnds };
}

const PIPELINE = "GET /a HTTP/1.1\r\nHost: x\r\n\r\n" +
  "POST /b HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello" +
  "\r\n" + // a stray CRLF between requests is allowed
  "POST /c HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n" +
  "3;ext=1\r\nabc\r\n10\r\n0123456789abcdef\r\n0\r\nX-Trailer: t\r\n\r\n" +
  "GET /d HTTP/1.0\n\n"; // bare LF line ends, as Deno's parser accepts them

Deno.test("framer: pipelined requests end where they end, however the bytes are split", () => {
  const expected: number[] = [];
  for (const m of PIPELINE.matchAll(/(GET|POST) \/[a-d] HTTP\/1\.[01]\r?\n/g)) {
    expected.push(m.index! + m[0].length);
  }
  for (const size of [1, 2, 3, 7, 16, 1000]) {
    const { framer, lineEnds } = feedAll(PIPELINE, size);
    assertEquals(framer.requests, 4, `size ${size}`);
    assertEquals(framer.midRequest, false, `size ${size}`);
    assertEquals(framer.headerStartedAt, null);
    assertEquals(lineEnds, expected, `size ${size}`);
  }
});

Deno.test("framer: mid-request while headers or body are incomplete; header clock", () => {
  const framer = new RequestFramer(1024, 100);
  assertEquals(framer.headerStartedAt, 100, "the first header block is timed from accept");
  framer.feed(enc("POST / HTTP/1.1\r\nContent-Length: 4\r\n"), 200);
  assertEquals([framer.midRequest, framer.headerStartedAt], [true, 100]);
  framer.feed(enc("\r\nab"), 300);
  assertEquals([framer.midRequest, framer.headerStartedAt, framer.requests], [true, null, 1]);
  framer.feed(enc("cd"), 400);
  assertEquals([framer.midRequest, framer.headerStartedAt], [false, null]);
  framer.feed(enc("\r\n"), 500);
  assertEquals(framer.headerStartedAt, 500, "empty lines before a request start its clock");
  framer.feed(enc("GET / HTTP/1.1\r\n\r\n"), 600);
  assertEquals([framer.midRequest, framer.headerStartedAt, framer.requests], [false, null, 2]);
});

Deno.test("framer: refuses oversized or ambiguous framing", () => {
  const refuse = (text: string, status: number, max = 1024) => {
    const err = assertThrows(() => feedAll(text, 5, max), FramingError);
    assertEquals((err as FramingError).status, status, text);
  };
  refuse(`GET / HTTP/1.1\r\nX: ${"a".repeat(2000)}\r\n\r\n`, 431);
  refuse(
    `POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n0\r\n${"T: x\r\n".repeat(300)}`,
    431,
  );
  refuse("POST / HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n", 400);
  refuse("POST / HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n", 400);
  refuse("POST / HTTP/1.1\r\nContent-Length: 3, 4\r\n\r\n", 400);
  refuse("POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", 400);
  refuse("POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 400);
  refuse(
    "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n",
    400,
  );
  refuse("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400);
  refuse("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nab\r\n", 400);
  refuse("GET / HTTP/1.1\r\nX: a\r\n  folded\r\n\r\n", 400);
  refuse("GET / HTTP/1.1\r\nno colon\r\n\r\n", 400);
  refuse(`GET / HTTP/1.1\r\n${CONNECTION_HEADER}: 1\r\n\r\n`, 400);
  refuse(`GET / HTTP/1.1\r\n${CONNECTION_HEADER} : 1\r\n\r\n`, 400);
  refuse("POST / HTTP/1.1\r\nContent-Length : 5\r\n\r\n", 400);
  refuse("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 400);
  // Identical repeated Content-Length values are one length.
  const ok = feedAll("POST / HTTP/1.1\r\nContent-Length: 2\r\ncontent-length: 2\r\n\r\nab", 3);
  assert(!ok.framer.midRequest);
});
