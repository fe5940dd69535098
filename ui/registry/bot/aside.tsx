/** The bot page's side column: owner, endpoints, capabilities, controllers, delegation. */
import { Link } from "../../common/components.tsx";
import type { Bot } from "../types.ts";
import { botHref, ListSection, Section } from "./section.tsx";
import { ControlsSection } from "./controls.tsx";

/** The side column of the bot page (`search`, the page URL's query, says how much it lists). */
export function Aside({ bot, search }: { bot: Bot; search: string }) {
  return (
    <aside class="bot-aside">
      <Section id="owner" title="Owner" icon="users">
        {bot.owner
          ? (
            <div class="owner">
              <strong>
                <bdi>{bot.owner.name}</bdi>
              </strong>
              {bot.owner.url && (
                <a href={bot.owner.url} rel="noopener noreferrer nofollow" target="_blank">
                  {bot.owner.url.replace(/^https?:\/\//, "")}
                </a>
              )}
              {bot.owner.email && <a href={`mailto:${bot.owner.email}`}>{bot.owner.email}</a>}
            </div>
          )
          : <p class="muted small">No owner given.</p>}
      </Section>
      <ListSection
        id="endpoints"
        title="Endpoints"
        icon="link"
        items={bot.endpoints}
        listClass="endpoints"
        empty="No endpoints published."
        item={(e, i) => (
          <li key={i}>
            <span class="endpoint-type">
              <bdi>{e.type}</bdi>
            </span>
            <code class="mono endpoint-url">{e.url}</code>
            {e.description && (
              <span class="muted small">
                <bdi>{e.description}</bdi>
              </span>
            )}
          </li>
        )}
      />
      <ListSection
        id="capabilities"
        title="Capabilities"
        icon="ticket"
        items={bot.capabilities}
        listClass="chips"
        empty="No capabilities declared."
        item={(c) => (
          <li key={c}>
            <Link class="chip" href={`/?capability=${encodeURIComponent(c)}`}>
              <bdi>{c}</bdi>
            </Link>
          </li>
        )}
      />
      <ListSection
        id="controllers"
        title="Controlled by"
        icon="shield"
        items={bot.controllers}
        listClass="controllers"
        empty="No other bot can sign for this one."
        item={(c) => (
          <li key={c.bot_id}>
            <Link href={botHref(c.bot_id)}>
              <bdi>{c.bot_id}</bdi>
            </Link>
            {c.label && (
              <span class="muted small">
                <bdi>{c.label}</bdi>
              </span>
            )}
          </li>
        )}
      />
      <ControlsSection id={bot.bot_id} search={search} />
      {bot.delegation && (
        <Section id="delegation" title="Delegated by" icon="users">
          <p class="delegation">
            <bdi>{bot.delegation.principal}</bdi>
          </p>
          {bot.delegation.scopes && bot.delegation.scopes.length > 0 && (
            <ul class="chips">
              {bot.delegation.scopes.map((s) => (
                <li key={s}>
                  <span class="chip chip-static">
                    <bdi>{s}</bdi>
                  </span>
                </li>
              ))}
            </ul>
          )}
        </Section>
      )}
    </aside>
  );
}
