/** git's credential protocol: the parser, the writer and host matching of the helper. */
import assert from "node:assert/strict";
import { CredentialFormatError, formatCredential, parseCredential } from "./credential.ts";
import { isForHost } from "./credential_helper.ts";

Deno.test("parseCredential reads key=value lines up to the blank line", () => {
  const attrs = parseCredential(
    "protocol=https\nhost=git.example.com:8443\npath=alice/proj.git\n\nignored=after-blank\n",
  );
  assert.deepEqual(attrs, {
    protocol: "https",
    host: "git.example.com:8443",
    path: "alice/proj.git",
  });
});

Deno.test("parseCredential keeps everything after the first '=' and reads to end of input", () => {
  assert.deepEqual(parseCredential("password=a=b==\nusername=x"), {
    password: "a=b==",
    username: "x",
  });
  assert.deepEqual(parseCredential(""), {});
});

Deno.test("parseCredential: a later value of a plain key wins", () => {
  assert.deepEqual(parseCredential("host=a\nhost=b\n"), { host: "b" });
});

Deno.test("parseCredential collects key[] lists; an empty value clears the list", () => {
  assert.deepEqual(
    parseCredential('wwwauth[]=Basic realm="service"\nwwwauth[]=Bearer\ncapability[]=authtype\n'),
    { "wwwauth[]": ['Basic realm="service"', "Bearer"], "capability[]": ["authtype"] },
  );
  assert.deepEqual(parseCredential("wwwauth[]=a\nwwwauth[]=\nwwwauth[]=b\n"), {
    "wwwauth[]": ["b"],
  });
});

Deno.test("parseCredential rejects lines without a key and NUL bytes", () => {
  assert.throws(() => parseCredential("protocol=https\nnonsense\n"), CredentialFormatError);
  assert.throws(() => parseCredential("=value\n"), CredentialFormatError);
  assert.throws(() => parseCredential("host=a\0b\n"), CredentialFormatError);
});

Deno.test("formatCredential writes one line per value and round-trips through the parser", () => {
  const attrs = {
    username: "alice",
    password: "SERVICE_" + "ab".repeat(32),
    "wwwauth[]": ["Basic realm=x", "Bearer"],
  };
  const text = formatCredential(attrs);
  assert.equal(
    text,
    `username=alice\npassword=SERVICE_${"ab".repeat(32)}\n` +
      "wwwauth[]=Basic realm=x\nwwwauth[]=Bearer\n",
  );
  assert.deepEqual(parseCredential(text), attrs);
  assert.equal(formatCredential({}), "");
});

Deno.test("formatCredential refuses values that would inject protocol lines", () => {
  assert.throws(
    () => formatCredential({ password: "x\nusername=mallory" }),
    CredentialFormatError,
  );
  assert.throws(() => formatCredential({ password: "x\0" }), CredentialFormatError);
  assert.throws(() => formatCredential({ "pass=word": "x" }), CredentialFormatError);
  assert.throws(() => formatCredential({ "list[]": "not-a-list" }), CredentialFormatError);
  assert.throws(() => formatCredential({ plain: ["a"] }), CredentialFormatError);
});

Deno.test("isForHost matches protocol and host:port exactly, default ports aside", () => {
  const local = "http://127.0.0.1:8080";
  assert.ok(isForHost(local, { protocol: "http", host: "127.0.0.1:8080" }));
  assert.ok(!isForHost(local, { protocol: "http", host: "127.0.0.1:8081" }));
  assert.ok(!isForHost(local, { protocol: "https", host: "127.0.0.1:8080" }));
  assert.ok(!isForHost(local, { protocol: "http", host: "localhost:8080" }));
  assert.ok(!isForHost(local, { protocol: "http" }));
  const public_ = "https://git.example.com";
  assert.ok(isForHost(public_, { protocol: "https", host: "git.example.com" }));
  assert.ok(isForHost(public_, { protocol: "https", host: "GIT.example.com:443" }));
  assert.ok(!isForHost(public_, { protocol: "https", host: "git.example.com.evil.test" }));
  assert.ok(!isForHost(public_, { protocol: "http", host: "git.example.com" }));
});
