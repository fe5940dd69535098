import { assertEquals } from "../../../tests/helpers/assert.ts";
import { PageCache } from "./page_cache.ts";

const page = (body: string, status = 200) => ({ status, body });

Deno.test("a kept page is served again; identical requests share one making", async () => {
  const cache = new PageCache(1000);
  let made = 0;
  const make = async () => {
    made++;
    await Promise.resolve();
    return page("x".repeat(50));
  };
  await Promise.all([cache.get("a", make), cache.get("a", make), cache.get("a", make)]);
  await cache.get("a", make);
  assertEquals(made, 1);
});

Deno.test("only 200s are kept, none over an eighth of the budget, oldest out first", async () => {
  const cache = new PageCache(1000);
  let made = 0;
  const make = (body: string, status = 200) => () => {
    made++;
    return Promise.resolve(page(body, status));
  };
  await cache.get("missing", make("no", 404));
  await cache.get("missing", make("no", 404));
  assertEquals(made, 2);
  await cache.get("huge", make("x".repeat(200)));
  await cache.get("huge", make("x".repeat(200)));
  assertEquals(made, 4);
  for (let i = 0; i < 10; i++) await cache.get(`k${i}`, make("y".repeat(120)));
  assertEquals(cache.bytes <= 1000, true);
  made = 0;
  await cache.get("k9", make("y".repeat(120)));
  assertEquals(made, 0);
  await cache.get("k0", make("y".repeat(120)));
  assertEquals(made, 1);
});

Deno.test("a budget of 0 keeps nothing", async () => {
  const cache = new PageCache(0);
  let made = 0;
  const make = () => Promise.resolve(page(`${++made}`));
  await cache.get("a", make);
  assertEquals((await cache.get("a", make)).body, "2");
});
