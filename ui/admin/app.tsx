/** The admin dashboard shell: sign-in gate, top bar with sections, and the routed page. */
import type { JSX } from "preact";
import { useEffect } from "preact/hooks";
import { errorMessage, ErrorNotice, Link } from "../common/components.tsx";
import { Icon, type IconName } from "../common/icons.tsx";
import { location, navigate } from "../common/router.ts";
import { NotFound } from "../common/not_found.tsx";
import { Shell } from "../common/shell.tsx";
import { InvitesPage } from "./invites.tsx";
import { ReposPage } from "./repos.tsx";
import { adminKey, loadServiceInfo, serviceInfo, signOut } from "./session.ts";
import { SignIn } from "./signin.tsx";
import { UsersPage } from "./users.tsx";
import { UserPage } from "./user.tsx";
import { useSignal } from "@preact/signals";

const SECTIONS: { path: string; label: string; icon: IconName; page: () => JSX.Element }[] = [
  { path: "/admin/invites", label: "Invites", icon: "ticket", page: InvitesPage },
  { path: "/admin/users", label: "Users", icon: "users", page: UsersPage },
  { path: "/admin/repos", label: "Repositories", icon: "repo", page: ReposPage },
];

/** Pages without a tab of their own, and the tab they belong under. */
const SUBPAGES: { path: string; label: string; tab: string; page: () => JSX.Element }[] = [
  { path: "/admin/user", label: "User", tab: "/admin/users", page: UserPage },
];

/** The section (or page under a section) at `path`. */
function pageAt(path: string) {
  return SECTIONS.find((s) => s.path === path) ?? SUBPAGES.find((s) => s.path === path);
}

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

  // The user page names its user (`/admin/user?name=alice`: "User alice · Signet admin").
  const userName = path === "/admin/user"
    ? new URLSearchParams(location.value.search).get("name")
    : null;
  useEffect(() => {
    const section = pageAt(path);
    const label = `${section?.label ?? "Not found"}${userName ? ` ${userName}` : ""}`;
    document.title = adminKey.value ? `${label} · Signet admin` : "Sign in · Signet admin";
  }, [path, userName, adminKey.value]);

  if (!adminKey.value) return <SignIn />;

  const section = pageAt(path);
  const Page = section?.page;
  const tab = section && "tab" in section ? section.tab : path;
  return (
    <Shell
      home="/admin/invites"
      tag="Admin"
      tabs={<Tabs current={tab} />}
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
