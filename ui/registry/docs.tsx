/**
 * The registry's documentation pages for browsers, rendered on the server only (no script): the
 * field reference and the signing protocol (Markdown the server renders to HTML) and the API's
 * operations and schemas, from its OpenAPI document.
 */
import { type ComponentChildren, Fragment, type JSX } from "preact";
import { RegistryFrame } from "./app.tsx";
import { HeadRow } from "../common/table.tsx";

/** The documentation pages, in the order the docs navigation lists them. */
export const DOC_PAGES = [
  { href: "/v1/docs", label: "Reference" },
  { href: "/v1/docs/protocol", label: "Signing protocol" },
  { href: "/v1/docs/api", label: "API operations" },
] as const;

function DocsNav({ current }: { current: string }) {
  return (
    <nav class="docs-nav" aria-label="Documentation">
      <ul>
        {DOC_PAGES.map((p) => (
          <li key={p.href}>
            <a href={p.href} aria-current={p.href === current ? "page" : undefined}>{p.label}</a>
          </li>
        ))}
        <li>
          <a href="/v1/openapi.json">OpenAPI JSON</a>
        </li>
      </ul>
    </nav>
  );
}

function DocFrame({ current, children }: { current: string; children: ComponentChildren }) {
  return (
    <RegistryFrame current="docs">
      <DocsNav current={current} />
      {children}
    </RegistryFrame>
  );
}

/** A Markdown document rendered to `html` by the server (raw HTML in the source is escaped). */
export function MarkdownPage({ current, html }: { current: string; html: string }) {
  return (
    <DocFrame current={current}>
      <article class="doc" dangerouslySetInnerHTML={{ __html: html }} />
    </DocFrame>
  );
}

/** The parts of an OpenAPI 3.1 document the operations page reads. */
export interface OpenApiSchema {
  $ref?: string;
  type?: string | string[];
  items?: OpenApiSchema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: OpenApiSchema[];
  oneOf?: OpenApiSchema[];
  allOf?: OpenApiSchema[];
  properties?: Record<string, OpenApiSchema>;
  additionalProperties?: OpenApiSchema | boolean;
  required?: string[];
  description?: string;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  maxItems?: number;
}

interface OpenApiParameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: OpenApiSchema;
}

interface OpenApiOperation {
  operationId?: string;
  summary?: string;
  description?: string;
  parameters?: OpenApiParameter[];
  requestBody?: {
    description?: string;
    content?: Record<string, { schema?: OpenApiSchema }>;
  };
  responses?: Record<string, {
    description?: string;
    content?: Record<string, { schema?: OpenApiSchema }>;
  }>;
}

/** An OpenAPI 3.1 document, as far as the page reads it. */
export interface OpenApiDoc {
  info: { title: string; version: string; description?: string };
  paths: Record<string, Record<string, OpenApiOperation>>;
  components?: { schemas?: Record<string, OpenApiSchema> };
}

const METHODS = ["get", "post", "put", "patch", "delete"];

/** The anchor of schema `name`. */
function schemaAnchor(name: string): string {
  return `schema-${name}`;
}

/** A schema's type in a few words, with links to named schemas. */
function TypeOf({ s }: { s: OpenApiSchema | undefined }): JSX.Element {
  if (!s) return <span>any</span>;
  if (s.$ref) {
    const name = s.$ref.split("/").pop()!;
    return <a href={`#${schemaAnchor(name)}`}>{name}</a>;
  }
  const alts = s.anyOf ?? s.oneOf;
  if (alts) {
    return (
      <>
        {alts.map((a, i) => (
          <Fragment key={i}>
            {i > 0 && " | "}
            <TypeOf s={a} />
          </Fragment>
        ))}
      </>
    );
  }
  if (s.enum) return <span>{s.enum.map((v) => JSON.stringify(v)).join(" | ")}</span>;
  if (s.const !== undefined) return <span>{JSON.stringify(s.const)}</span>;
  const types = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
  if (types.includes("array")) {
    return (
      <>
        <TypeOf s={s.items} />[]{types.includes("null") ? " | null" : ""}
      </>
    );
  }
  if (types.includes("object") && s.additionalProperties && !s.properties) {
    const value = typeof s.additionalProperties === "object" ? s.additionalProperties : undefined;
    return (
      <>
        map of <TypeOf s={value} />
      </>
    );
  }
  return <span>{types.join(" | ") || "any"}</span>;
}

/** Constraints of a schema in words: pattern, length, range, format. */
function constraints(s: OpenApiSchema | undefined): string {
  if (!s) return "";
  const out: string[] = [];
  if (s.format) out.push(s.format);
  if (s.minLength !== undefined || s.maxLength !== undefined) {
    out.push(`length ${s.minLength ?? 0}–${s.maxLength ?? "∞"}`);
  }
  if (s.minimum !== undefined || s.maximum !== undefined) {
    out.push(`${s.minimum ?? "−∞"} to ${s.maximum ?? "∞"}`);
  }
  if (s.maxItems !== undefined) out.push(`at most ${s.maxItems} items`);
  if (s.pattern) out.push(`pattern ${s.pattern}`);
  return out.join("; ");
}

function Text({ text, markdown }: { text?: string; markdown: (s: string) => string }) {
  return text ? <span dangerouslySetInnerHTML={{ __html: markdown(text) }} /> : null;
}

function Operation(
  { path, method, op, markdown }: {
    path: string;
    method: string;
    op: OpenApiOperation;
    markdown: (s: string) => string;
  },
) {
  const body = op.requestBody?.content?.["application/json"]?.schema;
  return (
    <section class="api-op card" id={op.operationId}>
      <h3 class="api-op-title">
        <span class={`api-method api-method-${method}`}>{method.toUpperCase()}</span>{" "}
        <code>{path}</code>
      </h3>
      {op.summary && <p class="api-op-summary">{op.summary}</p>}
      {op.description && (
        <p class="muted small">
          <Text text={op.description} markdown={markdown} />
        </p>
      )}
      {op.parameters && op.parameters.length > 0 && (
        <div class="table-wrap" tabIndex={0}>
          <table class="doc-table">
            <caption>Parameters</caption>
            <HeadRow labels={["Name", "In", "Type", "Notes"]} />
            <tbody>
              {op.parameters.map((p) => (
                <tr key={`${p.in}:${p.name}`}>
                  <td>
                    <code>{p.name}</code>
                    {p.required ? " (required)" : ""}
                  </td>
                  <td>{p.in}</td>
                  <td>
                    <TypeOf s={p.schema} />
                  </td>
                  <td>
                    <Text text={p.description ?? p.schema?.description} markdown={markdown} />
                    {constraints(p.schema) && <span class="muted">{constraints(p.schema)}</span>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {body && (
        <p>
          Request body: <TypeOf s={body} />
          {op.requestBody?.description ? ` (${op.requestBody.description})` : ""}
        </p>
      )}
      {op.responses && (
        <ul class="api-responses">
          {Object.entries(op.responses).map(([status, r]) => (
            <li key={status}>
              <strong>{status}</strong> {r.description}
              {r.content?.["application/json"]?.schema && (
                <>
                  {": "}
                  <TypeOf s={r.content["application/json"].schema} />
                </>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function Schema(
  { name, s, markdown }: { name: string; s: OpenApiSchema; markdown: (s: string) => string },
) {
  const props = Object.entries(s.properties ?? {});
  const required = new Set(s.required ?? []);
  return (
    <section class="api-schema" id={schemaAnchor(name)}>
      <h3>{name}</h3>
      {s.description && (
        <p class="muted small">
          <Text text={s.description} markdown={markdown} />
        </p>
      )}
      {props.length === 0
        ? (
          <p>
            <TypeOf s={{ ...s, $ref: undefined }} />
            {constraints(s) && <span class="muted">({constraints(s)})</span>}
          </p>
        )
        : (
          <div class="table-wrap" tabIndex={0}>
            <table class="doc-table">
              <HeadRow labels={["Field", "Type", "Notes"]} />
              <tbody>
                {props.map(([field, p]) => (
                  <tr key={field}>
                    <td>
                      <code>{field}</code>
                      {required.has(field) ? " (required)" : ""}
                    </td>
                    <td>
                      <TypeOf s={p} />
                    </td>
                    <td>
                      <Text text={p.description} markdown={markdown} />
                      {constraints(p) && <span class="muted">{constraints(p)}</span>}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
    </section>
  );
}

/**
 * The API's operations (method, path, parameters, body, responses) and its schemas (fields, types,
 * constraints), linked to each other; `markdown` renders a description's inline Markdown.
 */
export function ApiPage({ doc, markdown }: { doc: OpenApiDoc; markdown: (s: string) => string }) {
  const ops: [string, string, OpenApiOperation][] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) if (item[method]) ops.push([path, method, item[method]]);
  }
  const schemas = Object.entries(doc.components?.schemas ?? {});
  return (
    <DocFrame current="/v1/docs/api">
      <article class="doc api-doc">
        <h1>{doc.info.title}: API operations</h1>
        <p>
          Version {doc.info.version}. <Text text={doc.info.description} markdown={markdown} />{" "}
          The same document as JSON: <a href="/v1/openapi.json">/v1/openapi.json</a>.
        </p>
        <nav aria-label="Operations">
          <ul class="api-toc">
            {ops.map(([path, method, op]) => (
              <li key={`${method} ${path}`}>
                <a href={`#${op.operationId}`}>
                  <span class="api-method">{method.toUpperCase()}</span> <code>{path}</code>
                </a>{" "}
                {op.summary}
              </li>
            ))}
          </ul>
        </nav>
        <h2>Operations</h2>
        {ops.map(([path, method, op]) => (
          <Operation
            key={`${method} ${path}`}
            path={path}
            method={method}
            op={op}
            markdown={markdown}
          />
        ))}
        <h2>Schemas</h2>
        {schemas.map(([name, s]) => <Schema key={name} name={name} s={s} markdown={markdown} />)}
      </article>
    </DocFrame>
  );
}
