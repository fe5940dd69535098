/**
 * Waiting for the page's first contentful paint: hydration runs after it, so the server's HTML is
 * on screen before the app's work (formatters, components, event handlers) takes the CPU the
 * browser needs to raster and show that first frame (docs/decisions/ui.md, "First contentful paint
 * of the public pages").
 */

/** How long to wait for a paint before running anyway (a hidden tab paints nothing). */
export const FIRST_PAINT_WAIT_MS = 1000;

/**
 * Runs `fn` once, in a task after the first contentful paint is reported (the Paint Timing API);
 * where the browser reports no paints, after the next frame; at the latest after
 * FIRST_PAINT_WAIT_MS.
 */
export function afterFirstPaint(fn: () => void): void {
  let done = false;
  let observer: PerformanceObserver | undefined;
  const run = () => {
    if (done) return;
    done = true;
    observer?.disconnect();
    clearTimeout(timer);
    fn();
  };
  const timer = setTimeout(run, FIRST_PAINT_WAIT_MS);
  if (PerformanceObserver.supportedEntryTypes?.includes("paint")) {
    observer = new PerformanceObserver((list) => {
      if (list.getEntriesByName("first-contentful-paint").length > 0) setTimeout(run, 0);
    });
    observer.observe({ type: "paint", buffered: true });
  } else {
    requestAnimationFrame(() => setTimeout(run, 0));
  }
}
