/** The sign-in screen: paste the admin key, checked against the server before it is kept. */
import { useSignal } from "@preact/signals";
import { ErrorNotice } from "../common/components.tsx";
import { errorMessage } from "../common/components.tsx";
import { ApiError } from "../common/api.ts";
import { Icon, Logo } from "../common/icons.tsx";
import { signIn, signOutReason } from "./session.ts";

/** Full-page sign-in form. */
export function SignIn() {
  const key = useSignal("");
  const busy = useSignal(false);
  const error = useSignal<{ title: string; message: string } | null>(null);

  const submit = async (e: Event) => {
    e.preventDefault();
    const value = key.value.trim();
    if (!value) {
      error.value = { title: "Enter the admin key", message: "The admin key field is empty." };
      return;
    }
    busy.value = true;
    error.value = null;
    try {
      await signIn(value);
    } catch (err) {
      error.value = err instanceof ApiError && err.status === 401
        ? { title: "Wrong admin key", message: err.message }
        : { title: "Could not sign in", message: errorMessage(err) };
      busy.value = false;
    }
  };

  return (
    <main id="main" class="signin">
      <div class="signin-card card">
        <div class="signin-brand">
          <Logo class="logo-lg" />
          <div>
            <h1>Signet admin</h1>
            <p class="muted">Sign in with the server's admin key.</p>
          </div>
        </div>
        {signOutReason.value && !error.value && (
          <div class="notice notice-info" role="status">
            <Icon name="alert" class="notice-icon" />
            <div class="notice-text">
              <p>{signOutReason.value}</p>
            </div>
          </div>
        )}
        {error.value && <ErrorNotice title={error.value.title} message={error.value.message} />}
        <form onSubmit={submit} class="stack" noValidate>
          <div class="field">
            <label for="admin-key">Admin key</label>
            <input
              id="admin-key"
              name="admin-key"
              type="password"
              class="input input-mono"
              autoComplete="off"
              spellcheck={false}
              autoFocus
              placeholder="adm_…"
              value={key.value}
              onInput={(e) => (key.value = (e.currentTarget as HTMLInputElement).value)}
              aria-invalid={error.value ? "true" : undefined}
              aria-describedby="admin-key-help"
            />
            <p id="admin-key-help" class="field-help">
              Set by <code>SERVICE_ADMIN_KEY</code>, or generated into{" "}
              <code>&lt;data dir&gt;/admin_key</code> on first start. It stays in this tab only.
            </p>
          </div>
          <button type="submit" class="btn btn-primary btn-block" disabled={busy.value}>
            {busy.value
              ? <span class="spinner spinner-sm" aria-hidden="true" />
              : <Icon name="key" />}
            {busy.value ? "Checking…" : "Sign in"}
          </button>
        </form>
      </div>
    </main>
  );
}
