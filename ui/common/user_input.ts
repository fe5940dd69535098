/**
 * What a visitor typed or chose before the app hydrated the server's HTML (the app arrives after
 * the first paint, so a quick visitor can get there first): Preact leaves the controls' values on
 * screen but its state still holds the server's, so a search would drop them. Taken before
 * hydration and handed back to the app after, as the input and change events it listens to.
 */

type Control = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;

/** The controls under `root` whose value the visitor changed from the one the server sent. */
function changedControls(root: Element): [Control, string][] {
  const out: [Control, string][] = [];
  for (const el of root.querySelectorAll<Control>("input, select, textarea")) {
    const sent = el instanceof HTMLSelectElement
      ? ([...el.options].find((o) => o.defaultSelected) ?? el.options[0])?.value ?? ""
      : el.defaultValue;
    if (el.value !== sent) out.push([el, el.value]);
  }
  return out;
}

/** Runs `hydrate`, then replays the visitor's changes under `root` to the app. */
export function hydrateKeepingInput(root: Element, hydrate: () => void): void {
  const changed = changedControls(root);
  hydrate();
  for (const [el, value] of changed) {
    if (!el.isConnected) continue;
    el.value = value;
    const type = el instanceof HTMLSelectElement ? "change" : "input";
    el.dispatchEvent(new Event(type, { bubbles: true }));
  }
}
