/** The registry browser shell: top bar and the routed page (landing/search or a bot). */
import type { ComponentChildren } from "preact";
import { Link } from "../common/components.tsx";
import { Icon } from "../common/icons.tsx";
import { location } from "../common/router.ts";
import { NotFound } from "../common/not_found.tsx";
import { Shell } from "../common/shell.tsx";
import { BotPage } from "./bot.tsx";
import { Landing } from "./landing.tsx";
import { LogPage } from "./log_page.tsx";

/** A bot id from the path; a malformed escape is kept as written (no bot has it: a 404). */
function decodeId(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** The registry's frame: top bar with its sections (`current` is marked), and `children`. */
export function RegistryFrame(
  { current, children }: { current?: "browse" | "log" | "docs"; children: ComponentChildren },
) {
  return (
    <Shell
      home="/"
      tag="Registry"
      tabs={
        <>
          <Link href="/" class="tab" aria-current={current === "browse" ? "page" : undefined}>
            <Icon name="search" />
            Browse bots
          </Link>
          <Link href="/log" class="tab" aria-current={current === "log" ? "page" : undefined}>
            <Icon name="clock" />
            Audit log
          </Link>
          <a href="/v1/docs" class="tab" aria-current={current === "docs" ? "page" : undefined}>
            <Icon name="terminal" />
            API docs
          </a>
        </>
      }
      end={
        <span class="topbar-note">
          <Icon name="shield" /> Public, read-only
        </span>
      }
    >
      {children}
    </Shell>
  );
}

/**
 * The whole registry browser, at `url` when the server renders it, else at the browser's location
 * (a signal: the app follows navigation).
 */
export function App({ url }: { url?: { path: string; search: string } }) {
  const { path, search } = url ?? location.value;
  // Exactly `/bots/<id>`, as the server routes it: `/bots/x/` is an unknown path (a 404).
  const bot = /^\/bots\/([^/]+)$/.exec(path);
  const id = bot ? decodeId(bot[1]) : null;
  return (
    <RegistryFrame
      current={id !== null
        ? undefined
        : path === "/"
        ? "browse"
        : path === "/log"
        ? "log"
        : undefined}
    >
      {id !== null
        ? <BotPage key={id} id={id} search={search} />
        : path === "/"
        ? <Landing search={search} />
        : path === "/log"
        ? <LogPage search={search} />
        : (
          <NotFound path={path}>
            <Link href="/" class="btn btn-secondary">Browse bots</Link>
          </NotFound>
        )}
    </RegistryFrame>
  );
}
