/** The admin dashboard shell: sign-in gate, top bar with sections, and the routed page. */
import type { JSX } from "preact";
import { useEffect } from "preact/hooks";
import { errorMessage, ErrorNotice, Link } from "../common/components.tsx";
import { Icon, type IconName, Logo } from "../common/icons.tsx";
import { location, navigate } from "../common/router.ts";
import { InvitesPage } from "./invites.tsx";
import { ReposPage } from "./repos.tsx";
import { adminKey, loadServiceInfo, serviceInfo, signOut } from "./session.ts";
import { SignIn } from "./signin.tsx";
import { UsersPage } from "./users.tsx";
import { useSignal } from "@preact/signals";

const SECTIONS: { path: string; label: string; icon: IconName; page: () => JSX.Element }[] = [
  { path: "/admin/invites", label: "Invites", icon: "ticket", page: InvitesPage },
  { path: "/admin/users", label: "Users", icon: "users", page: UsersPage },
  { path: "/admin/repos", label: "Repositories", icon: "repo", page: ReposPage },
];

function TopBar({ current }: { current: string }) {
  const registry = serviceInfo.value?.registry_url;
  return (
    <header class="topbar">
      <div class="topbar-inner container">
        <Link href="/admin/invites" class="brand">
          <Logo />
          <span class="brand-name">Signet</span>
          <span class="brand-tag">Admin</span>
        </Link>
        <nav class="tabs" aria-label="Sections">
          {SECTIONS.map((s) => (
            <Link
              key={s.path}
              href={s.path}
              class="tab"
              aria-current={current === s.path ? "page" : undefined}
            >
              <Icon name={s.icon} />
              {s.label}
            </Link>
          ))}
          {registry && (
            <a href={`${registry}/`} class="tab" rel="noopener">
              <Icon name="bot" />
              Registry
              <Icon name="external" class="icon-xs" />
            </a>
          )}
        </nav>
        <button type="button" class="btn btn-ghost btn-sm signout" onClick={() => signOut()}>
          <Icon name="logout" />
          Sign out
        </button>
      </div>
    </header>
  );
}

function NotFound({ path }: { path: string }) {
  return (
    <div class="page-header">
      <div>
        <h1>Page not found</h1>
        <p class="page-description">
          There is nothing at <code>{path}</code>. <Link href="/admin/invites">Go to invites</Link>.
        </p>
      </div>
    </div>
  );
}

/** The whole dashboard. */
export function App() {
  const path = location.value.path.replace(/\/+$/, "") || "/";
  const infoError = useSignal<string | null>(null);

  useEffect(() => {
    if (path === "/admin") navigate("/admin/invites", true);
  }, [path]);

  useEffect(() => {
    if (adminKey.value && !serviceInfo.value) {
      loadServiceInfo().catch((err) => (infoError.value = errorMessage(err)));
    }
  }, [adminKey.value]);

  useEffect(() => {
    const section = SECTIONS.find((s) => s.path === path);
    document.title = adminKey.value
      ? `${section?.label ?? "Not found"} · Signet admin`
      : "Sign in · Signet admin";
  }, [path, adminKey.value]);

  if (!adminKey.value) return <SignIn />;

  const section = SECTIONS.find((s) => s.path === path);
  const Page = section?.page;
  return (
    <>
      <a href="#main" class="skip-link">Skip to content</a>
      <TopBar current={path} />
      <main id="main" class="container main" tabIndex={-1}>
        {infoError.value && (
          <ErrorNotice title="Could not load server details" message={infoError.value} />
        )}
        {Page ? <Page key={path} /> : path === "/admin" ? null : <NotFound path={path} />}
      </main>
    </>
  );
}
