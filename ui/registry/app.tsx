/** The registry browser shell: top bar and the routed page (landing/search or a bot). */
import { Link } from "../common/components.tsx";
import { Icon, Logo } from "../common/icons.tsx";
import { location } from "../common/router.ts";
import { BotPage } from "./bot.tsx";
import { Landing } from "./landing.tsx";

function TopBar({ onBot }: { onBot: boolean }) {
  return (
    <header class="topbar">
      <div class="topbar-inner container">
        <Link href="/" class="brand">
          <Logo />
          <span class="brand-name">Signet</span>
          <span class="brand-tag">Registry</span>
        </Link>
        <nav class="tabs" aria-label="Sections">
          <Link href="/" class="tab" aria-current={onBot ? undefined : "page"}>
            <Icon name="search" />
            Browse bots
          </Link>
          <a href="/v1" class="tab">
            <Icon name="terminal" />
            API
          </a>
        </nav>
        <span class="topbar-note">
          <Icon name="shield" /> Public, read-only
        </span>
      </div>
    </header>
  );
}

/** The whole registry browser. */
export function App() {
  const path = location.value.path;
  const bot = /^\/bots\/([^/]+)\/?$/.exec(path);
  const id = bot ? decodeURIComponent(bot[1]) : null;
  return (
    <>
      <a href="#main" class="skip-link">Skip to content</a>
      <TopBar onBot={id !== null} />
      <main id="main" class="container main" tabIndex={-1}>
        {id !== null
          ? <BotPage key={id} id={id} />
          : path === "/"
          ? <Landing />
          : (
            <div class="page-header">
              <div>
                <h1>Page not found</h1>
                <p class="page-description">
                  There is nothing at <code>{path}</code>. <Link href="/">Browse bots</Link>.
                </p>
              </div>
            </div>
          )}
      </main>
    </>
  );
}
