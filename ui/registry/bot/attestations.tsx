/** The bot page's attestations: those it issued and those it received. */
import { useSignal } from "@preact/signals";
import { Link, Time } from "../../common/components.tsx";
import { type AttestationRole, attestationsUrl, getAttestations } from "../api.ts";
import type { Attestation, AttestationList as AttestationPage } from "../types.ts";
import { preloaded } from "../../common/preload.ts";
import { type Page, PagedList, usePaged } from "./paged.tsx";
import { botHref, Section } from "./section.tsx";

function AttestationItem({ a, received }: { a: Attestation; received: boolean }) {
  const other = received ? a.issuer : a.subject;
  return (
    <li class="attestation">
      <div class="attestation-claim">
        <bdi>{a.claim}</bdi>
      </div>
      <div class="attestation-meta muted">
        {received ? "from " : "about "}
        <Link href={botHref(other)}>
          <bdi>{other}</bdi>
        </Link>
        {a.published_at && (
          <>
            {" · "}
            <Time iso={a.published_at} />
          </>
        )}
        {a.signature && (
          <>
            {" · signed with "}
            <code class="mono">{a.signature.key_id}</code>
          </>
        )}
      </div>
      {a.evidence && a.evidence.length > 0 && (
        <ul class="evidence">
          {a.evidence.map((e, i) => (
            <li key={i}>
              <span class="evidence-type">
                <bdi>{e.type}</bdi>
              </span>
              {/^https?:\/\//.test(e.value)
                ? (
                  <a href={e.value} rel="noopener noreferrer nofollow" target="_blank">
                    <bdi>{e.value}</bdi>
                  </a>
                )
                : (
                  <span>
                    <bdi>{e.value}</bdi>
                  </span>
                )}
            </li>
          ))}
        </ul>
      )}
    </li>
  );
}

/** The first page of bot `id`'s attestations in `role`, when the server rendered it. */
function firstAttestations(
  id: string,
  role: AttestationRole,
): Page<Attestation, string> | undefined {
  const answer = preloaded(attestationsUrl(id, role));
  if (!answer || !("data" in answer)) return undefined;
  const page = answer.data as AttestationPage;
  return { items: page.attestations, next: page.next_cursor || null };
}

function AttestationList(
  { id, role, onCount }: { id: string; role: AttestationRole; onCount: (n: number) => void },
) {
  const paged = usePaged(
    async (cursor: string | undefined) => {
      const page = await getAttestations(id, role, cursor);
      return { items: page.attestations, next: page.next_cursor || null };
    },
    [id, role],
    (items) => onCount(items.length),
    firstAttestations(id, role),
  );
  return (
    <div>
      <h3>{role === "subject" ? "Received" : "Issued"}</h3>
      <PagedList
        paged={paged}
        what="attestations"
        empty={
          <p class="muted small">
            {role === "subject"
              ? "No other bot has attested to this one."
              : "This bot has not attested to any other."}
          </p>
        }
      >
        <ul
          class="attestations"
          id={role === "subject" ? "attestations-received" : "attestations-issued"}
        >
          {paged.items.map((a, i) => (
            <AttestationItem key={a.attestation_id ?? i} a={a} received={role === "subject"} />
          ))}
        </ul>
      </PagedList>
    </div>
  );
}

/** The attestations this bot issued and received, loaded on their own. */
export function AttestationsSection({ id }: { id: string }) {
  const received = useSignal(firstAttestations(id, "subject")?.items.length);
  const issued = useSignal(firstAttestations(id, "issuer")?.items.length);
  const total = received.value !== undefined && issued.value !== undefined
    ? received.value + issued.value
    : undefined;
  return (
    <Section id="attestations" title="Attestations" icon="check" count={total}>
      <div class="attestation-cols">
        <AttestationList id={id} role="subject" onCount={(n) => (received.value = n)} />
        <AttestationList id={id} role="issuer" onCount={(n) => (issued.value = n)} />
      </div>
    </Section>
  );
}
