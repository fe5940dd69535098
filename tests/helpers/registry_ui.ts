/** Helpers of the registry browser's Chromium tests. */
import type { Page } from "playwright-core";
import { assertEquals } from "./assert.ts";
import { newKey } from "./registry.ts";
import type { Signer } from "../../client/registry.ts";

/** Waits until the result list shows exactly `expected` bot ids, in order. */
export async function waitForResults(page: Page, expected: string[]): Promise<void> {
  const deadline = Date.now() + 10_000;
  let ids: (string | null)[] = [];
  while (Date.now() < deadline) {
    ids = await page.locator('.results[aria-busy="false"] .bot-card').evaluateAll((els) =>
      els.map((e) => e.getAttribute("data-bot-id"))
    );
    if (JSON.stringify(ids) === JSON.stringify(expected)) return;
    await page.waitForTimeout(50);
  }
  assertEquals(ids, expected, "search results");
}

/** A signer for key `keyId` of bot `botId`. */
export async function signer(keyId: string, botId: string): Promise<Signer> {
  return (await newKey(keyId, botId)).signer;
}
