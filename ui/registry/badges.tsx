/** Status badges of bots and keys. */
import { Badge } from "../common/components.tsx";

/** `active` in green, `revoked` in red, anything else neutral. */
export function StatusBadge({ status }: { status: string | undefined }) {
  if (!status) return null;
  return (
    <Badge tone={status === "active" ? "success" : status === "revoked" ? "danger" : "neutral"}>
      {status}
    </Badge>
  );
}
