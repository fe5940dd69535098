/**
 * Entry point of the public registry browser bundle: hydrates the page the server rendered (with
 * the data it was rendered from, preload.ts), or renders into an empty page. Hydration waits for
 * the first contentful paint (first_paint.ts): the browser shows the server's HTML first (links and
 * the search form work natively meanwhile), then the app takes over.
 */
import { hydrate, render } from "preact";
import { afterFirstPaint } from "../common/first_paint.ts";
import { readPreloadedFromPage } from "../common/preload.ts";
import { App } from "./app.tsx";

const root = document.getElementById("app")!;
if (readPreloadedFromPage()) {
  afterFirstPaint(() => hydrate(<App />, root));
} else {
  render(<App />, root);
}
