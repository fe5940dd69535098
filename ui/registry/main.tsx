/**
 * The public registry browser app, loaded by boot.ts: hydrates the page the server rendered (with
 * the data it was rendered from, preload.ts), or renders into an empty page. On a server-rendered
 * page it arrives after the first contentful paint: the browser showed the server's HTML first
 * (links and the search form work natively meanwhile), then the app takes over.
 */
import { hydrate, render } from "preact";
import { readPreloadedFromPage } from "../common/preload.ts";
import { App } from "./app.tsx";

const root = document.getElementById("app")!;
if (readPreloadedFromPage()) hydrate(<App />, root);
else render(<App />, root);
