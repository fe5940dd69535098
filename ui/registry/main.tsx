/**
 * Entry point of the public registry browser bundle: hydrates the page the server rendered (with
 * the data it was rendered from, preload.ts), or renders into an empty page.
 */
import { hydrate, render } from "preact";
import { readPreloadedFromPage } from "../common/preload.ts";
import { App } from "./app.tsx";

const root = document.getElementById("app")!;
if (readPreloadedFromPage()) hydrate(<App />, root);
else render(<App />, root);
