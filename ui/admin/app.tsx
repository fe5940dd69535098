/** The admin dashboard shell: sign-in gate, top bar with sections, and the routed page. */
import type { JSX } from "preact";
import { useEffect } from "preact/hooks";
import { errorMessage, ErrorNotice, Link } from "../common/components.tsx";
import { Icon, type IconName } from "../common/icons.tsx";
import { location, navigate } from "../common/router.ts";
import { NotFound, Shell } from "../common/shell.tsx";
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

/** The section tabs, and a link to the registry when the server has one. */
function Tabs({ current }: { current: string }) {
  const registry = serviceInfo.value?.registry_url;
  return (
    <>
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
    </>
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
    <Shell
      home="/admin/invites"
      tag="Admin"
      tabs={<Tabs current={path} />}
      end={
        <button type="button" class="btn btn-ghost btn-sm signout" onClick={() => signOut()}>
          <Icon name="logout" />
          Sign out
        </button>
      }
    >
      {infoError.value && (
        <ErrorNotice title="Could not load server details" message={infoError.value} />
      )}
      {Page ? <Page key={path} /> : path === "/admin" ? null : (
        <NotFound path={path}>
          <Link href="/admin/invites">Go to invites</Link>
        </NotFound>
      )}
    </Shell>
  );
}
