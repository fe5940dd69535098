/** Shared building blocks of both UIs: links, badges, copy buttons, states and page headers. */
import type { ComponentChildren, JSX } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { ApiError } from "./api.ts";
import { formatDateTime, timeAgo } from "./format.ts";
import { Icon, type IconName } from "./icons.tsx";
import { onLinkClick } from "./router.ts";
import type { Preloaded } from "./preload.ts";

/** An in-app link that navigates without a reload. */
export function Link(
  props: JSX.AnchorHTMLAttributes<HTMLAnchorElement> & { href: string },
): JSX.Element {
  const { onClick, ...rest } = props;
  return (
    <a
      {...rest}
      onClick={(e) => {
        if (typeof onClick === "function") onClick(e);
        onLinkClick(e);
      }}
    />
  );
}

/** Colour of a badge. */
export type Tone = "neutral" | "success" | "warning" | "danger" | "info";

/** A small status pill. */
export function Badge(
  { tone = "neutral", children }: { tone?: Tone; children: ComponentChildren },
) {
  return <span class={`badge badge-${tone}`}>{children}</span>;
}

/** A relative time ("5 minutes ago") with the exact time as tooltip; a dash for null. */
export function Time({ iso, empty = "—" }: { iso: string | null | undefined; empty?: string }) {
  if (!iso) return <span class="muted">{empty}</span>;
  return <time dateTime={iso} title={formatDateTime(iso)}>{timeAgo(iso)}</time>;
}

async function writeClipboard(text: string): Promise<boolean> {
  try {
    if (navigator.clipboard && globalThis.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // Fall through to the selection-based copy.
  }
  const area = document.createElement("textarea");
  area.value = text;
  area.setAttribute("readonly", "");
  area.className = "offscreen";
  document.body.appendChild(area);
  area.select();
  let ok = false;
  try {
    ok = document.execCommand("copy");
  } catch {
    ok = false;
  }
  area.remove();
  return ok;
}

/** A button that copies `text` and confirms with "Copied". */
export function CopyButton(
  { text, label = "Copy", what }: { text: string; label?: string; what?: string },
) {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  const timer = useRef<ReturnType<typeof setTimeout>>();
  useEffect(() => () => clearTimeout(timer.current), []);
  const copy = async () => {
    setState(await writeClipboard(text) ? "copied" : "failed");
    clearTimeout(timer.current);
    timer.current = setTimeout(() => setState("idle"), 2000);
  };
  return (
    <button
      type="button"
      class={`btn btn-ghost btn-sm copy-btn ${state === "copied" ? "is-copied" : ""}`}
      onClick={copy}
      aria-label={what ? `${label} ${what}` : label}
    >
      <Icon name={state === "copied" ? "check" : "copy"} />
      <span class="copy-label" aria-live="polite">
        {state === "copied" ? "Copied" : state === "failed" ? "Press Ctrl+C" : label}
      </span>
    </button>
  );
}

/** A monospace value on one line with a copy button beside it. */
export function CopyField(
  { value, what, prompt }: { value: string; what: string; prompt?: string },
) {
  return (
    <div class="copy-field">
      <code class="copy-field-value">
        {prompt && <span class="prompt" aria-hidden="true">{prompt}</span>}
        {value}
      </code>
      <CopyButton text={value} what={what} />
    </div>
  );
}

/** A spinner with a label, announced to screen readers. */
export function Loading({ label = "Loading…" }: { label?: string }) {
  return (
    <div class="state state-loading" role="status">
      <span class="spinner" aria-hidden="true" />
      <span>{label}</span>
    </div>
  );
}

/** What to show when a list has nothing in it. */
export function Empty(
  { icon = "search", title, children }: {
    icon?: IconName;
    title: string;
    children?: ComponentChildren;
  },
) {
  return (
    <div class="state state-empty">
      <span class="state-icon">
        <Icon name={icon} />
      </span>
      <p class="state-title">{title}</p>
      {children && <div class="state-body">{children}</div>}
    </div>
  );
}

/** An error from the API, shown with its message as sent, and an optional retry. */
export function ErrorNotice(
  { title = "Something went wrong", message, onRetry }: {
    title?: string;
    message: string;
    onRetry?: () => void;
  },
) {
  return (
    <div class="notice notice-danger" role="alert">
      <Icon name="alert" class="notice-icon" />
      <div class="notice-text">
        <strong>{title}</strong>
        <p>{message}</p>
      </div>
      {onRetry && (
        <button type="button" class="btn btn-secondary btn-sm" onClick={onRetry}>
          <Icon name="refresh" /> Retry
        </button>
      )}
    </div>
  );
}

/** A resource's loading spinner or error notice (with Retry); nothing once it is ready. */
export function ResourceStatus(
  { resource, loading, failed, onRetry, padded = false }: {
    resource: Resource<unknown>;
    loading: string;
    failed: string;
    onRetry?: () => void;
    padded?: boolean;
  },
) {
  if (resource.status === "loading") return <Loading label={loading} />;
  if (resource.status !== "error") return null;
  const notice = <ErrorNotice title={failed} message={resource.error} onRetry={onRetry} />;
  return padded ? <div class="card-pad">{notice}</div> : notice;
}

/** The title row of a page, with optional description and actions. */
export function PageHeader(
  { title, description, actions }: {
    title: ComponentChildren;
    description?: ComponentChildren;
    actions?: ComponentChildren;
  },
) {
  return (
    <div class="page-header">
      <div>
        <h1>{title}</h1>
        {description && <p class="page-description">{description}</p>}
      </div>
      {actions && <div class="page-actions">{actions}</div>}
    </div>
  );
}

/** The state of something loaded asynchronously. */
export type Resource<T> =
  | { status: "loading"; data?: undefined; error?: undefined }
  | {
    status: "error";
    data?: undefined;
    error: string;
    /** The HTTP status of a failed API call (ApiError), 0 when the server was not reached. */
    code?: number;
  }
  | { status: "ready"; data: T; error?: undefined };

/** A preloaded API answer (preload.ts) as a Resource. */
export function preloadedResource<T>(answer: Preloaded): Resource<T> {
  return "data" in answer
    ? { status: "ready", data: answer.data as T }
    : { status: "error", error: answer.error, code: answer.status };
}

/**
 * Loads `load()` whenever `deps` change; `reload` fetches again keeping the old data shown. With
 * `initial` (what the server rendered the page from), the first render shows it and nothing is
 * fetched until `deps` change.
 */
export function useResource<T>(
  load: () => Promise<T>,
  deps: unknown[],
  initial?: Preloaded,
): [Resource<T>, () => void] {
  const [state, setState] = useState<Resource<T>>(() =>
    initial ? preloadedResource<T>(initial) : { status: "loading" }
  );
  const [tick, setTick] = useState(0);
  const lastTick = useRef(tick);
  const skipFirst = useRef(initial !== undefined);
  useEffect(() => {
    if (skipFirst.current) {
      skipFirst.current = false;
      return;
    }
    let live = true;
    if (lastTick.current === tick) setState({ status: "loading" });
    lastTick.current = tick;
    load().then(
      (data) => live && setState({ status: "ready", data }),
      (err) =>
        live && setState({
          status: "error",
          error: errorMessage(err),
          code: err instanceof ApiError ? err.status : undefined,
        }),
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  return [state, () => setTick((t) => t + 1)];
}

/** The message of an error, for display. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** A search field with its magnifier icon; `onInput` gets the typed text. */
export function SearchInput(
  { value, placeholder, label, onInput, name, class: extra, maxLength }: {
    value: string;
    placeholder: string;
    /** The longest text the server accepts. */
    maxLength?: number;
    /** The field's accessible name. */
    label: string;
    onInput: (value: string) => void;
    name?: string;
    class?: string;
  },
) {
  return (
    <div class={extra ? `search-input ${extra}` : "search-input"}>
      <Icon name="search" />
      <input
        type="search"
        class="input"
        name={name}
        placeholder={placeholder}
        aria-label={label}
        maxLength={maxLength}
        value={value}
        onInput={(e) => onInput((e.currentTarget as HTMLInputElement).value)}
      />
    </div>
  );
}
