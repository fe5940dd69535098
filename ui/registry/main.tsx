/**
 * The public registry browser app, loaded by boot.ts: hydrates the page the server rendered (with
 * the data it was rendered from, preload.ts), or renders into an empty page. On a server-rendered
 * page it arrives after the first contentful paint: the browser showed the server's HTML first
 * (links and the search form work natively meanwhile; what the visitor typed is kept,
 * user_input.ts), then the app takes over and marks its root `data-ready`.
 */
import { hydrate, render } from "preact";
import { readPreloadedFromPage } from "../common/preload.ts";
import { hydrateKeepingInput } from "../common/user_input.ts";
import { App } from "./app.tsx";

const root = document.getElementById("app")!;
if (readPreloadedFromPage()) hydrateKeepingInput(root, () => hydrate(<App />, root));
else render(<App />, root);
root.setAttribute("data-ready", "");
