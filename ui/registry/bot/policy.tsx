/** The bot page's policy section: who must sign what, in plain words. */
import { Link } from "../../common/components.tsx";
import type { Bot } from "../types.ts";
import { defaultSentence, keyRefText, ruleSentence } from "../words.ts";
import { botHref, Section } from "./section.tsx";

/** The bot's policy in plain words. */
export function PolicySection({ bot }: { bot: Bot }) {
  const policy = bot.policy;
  if (!policy) return null;
  const signers = Object.entries(policy.signers ?? {});
  return (
    <Section id="policy" title="Policy" icon="shield">
      <ul class="rules">
        {policy.rules.map((r) => (
          <li key={r.operation} class="rule">
            <span class="rule-text">{ruleSentence(r)}</span>
            {r.description && (
              <span class="muted rule-desc">
                <bdi>{r.description}</bdi>
              </span>
            )}
          </li>
        ))}
        <li class="rule rule-default">
          <span class="rule-text">{defaultSentence(policy)}</span>
        </li>
      </ul>
      {signers.length > 0 && (
        <div class="signers">
          <h3>Named signers</h3>
          <dl class="signer-list">
            {signers.map(([name, ref]) => (
              <div key={name} class="signer">
                <dt>
                  <code class="mono">{name}</code>
                </dt>
                <dd>
                  {ref.bot_id && ref.bot_id !== bot.bot_id
                    ? (
                      <>
                        key <code class="mono">{ref.key_id}</code> of controller{" "}
                        <Link href={botHref(ref.bot_id)}>{ref.bot_id}</Link>
                      </>
                    )
                    : (
                      <>
                        key <code class="mono">{keyRefText(ref)}</code> of this bot
                      </>
                    )}
                </dd>
              </div>
            ))}
          </dl>
        </div>
      )}
    </Section>
  );
}
