/** The bot page's attestations: those it issued and those it received. */
import { useSignal } from "@preact/signals";
import { Link, Time } from "../../common/components.tsx";
import { type AttestationRole, attestationsUrl, getAttestations } from "../api.ts";
import type { Attestation, AttestationList as AttestationPage } from "../types.ts";
import {
  embedded,
  embeddedCount,
  type Page,
  PagedList,
  type PageSource,
  usePaged,
} from "./paged.tsx";
import type { MoreList } from "./more.ts";
import { botHref, Section } from "./section.tsx";

function AttestationItem(
  { a, received, id }: { a: Attestation; received: boolean; id?: string },
) {
  const other = received ? a.issuer : a.subject;
  return (
    <li class="attestation" id={id}>
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

/** A page of attestations, as the list holds it. */
function page(answer: AttestationPage): Page<Attestation> {
  return { items: answer.attestations, next: answer.next_cursor || null };
}

/** Bot `id`'s attestations in `role`, from the API or from what the server embedded. */
function attestationSource(id: string, role: AttestationRole): PageSource<Attestation> {
  return {
    fetch: async (cursor, limit) => page(await getAttestations(id, role, cursor, limit)),
    preloaded: (cursor, limit) => embedded(attestationsUrl(id, role, cursor, limit), page),
  };
}

/** The lists of attestations in the page URL: those received and those issued. */
const LIST: Record<AttestationRole, MoreList> = { subject: "received", issuer: "issued" };

function AttestationList(
  { id, role, search, onCount }: {
    id: string;
    role: AttestationRole;
    search: string;
    onCount: (n: number) => void;
  },
) {
  const paged = usePaged(
    attestationSource(id, role),
    { list: LIST[role], path: botHref(id), search },
    [id, role],
    (items) => onCount(items.length),
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
            <AttestationItem
              key={a.attestation_id ?? i}
              a={a}
              received={role === "subject"}
              id={paged.anchor(i)}
            />
          ))}
        </ul>
      </PagedList>
    </div>
  );
}

/** The attestations this bot issued and received, as many pages as the page URL says. */
export function AttestationsSection({ id, search }: { id: string; search: string }) {
  const count = (role: AttestationRole) =>
    embeddedCount(attestationSource(id, role), LIST[role], search);
  const received = useSignal(count("subject"));
  const issued = useSignal(count("issuer"));
  const total = received.value !== undefined && issued.value !== undefined
    ? received.value + issued.value
    : undefined;
  return (
    <Section id="attestations" title="Attestations" icon="check" count={total}>
      <div class="attestation-cols">
        <AttestationList
          id={id}
          role="subject"
          search={search}
          onCount={(n) => (received.value = n)}
        />
        <AttestationList
          id={id}
          role="issuer"
          search={search}
          onCount={(n) => (issued.value = n)}
        />
      </div>
    </Section>
  );
}
