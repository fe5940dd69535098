/**
 * The registry pages' script: a few hundred bytes, so nothing of the app is fetched, compiled or
 * run before the page's first paint. It loads the app (main.tsx, the URL in its script element's
 * `data-app`) once the server's HTML is on screen (first_paint.ts), and at once on a page the
 * server did not render (no data to hydrate with: the app renders it).
 */
import { afterFirstPaint } from "../common/first_paint.ts";
import { PRELOAD_ELEMENT_ID } from "../common/preload.ts";

const app = document.querySelector<HTMLScriptElement>("script[data-app]")?.dataset.app;
if (app) {
  const load = () => void import(app);
  if (document.getElementById(PRELOAD_ELEMENT_ID)) afterFirstPaint(load);
  else load();
}
