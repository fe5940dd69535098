/** IP address literals, as settings and transports compare them. */

/** A canonical form of an IP literal for comparison (IPv4-mapped IPv6 becomes IPv4), or null. */
export function normalizeIp(value: string): string | null {
  const text = value.trim();
  if (IPV4.test(text)) {
    const parts = text.split(".").map(Number);
    return parts.every((p) => p <= 255) ? parts.join(".") : null;
  }
  if (!/^[0-9a-fA-F:.]+$/.test(text) || !text.includes(":")) return null;
  let host: string;
  try {
    host = new URL(`http://[${text}]/`).hostname.slice(1, -1);
  } catch {
    return null;
  }
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(host);
  if (mapped) {
    const [hi, lo] = [parseInt(mapped[1], 16), parseInt(mapped[2], 16)];
    return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  }
  return host;
}

const IPV4 = /^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;

/** Open connections per client address, for the per-address caps of both transports. */
export class AddressCounts {
  readonly #counts = new Map<string, number>();

  /** Connections `address` holds now. */
  held(address: string): number {
    return this.#counts.get(address) ?? 0;
  }

  /** Counts one more connection from `address`. */
  add(address: string): void {
    this.#counts.set(address, this.held(address) + 1);
  }

  /** Counts one connection from `address` fewer (forgetting the address at zero). */
  remove(address: string): void {
    const left = this.held(address) - 1;
    if (left > 0) this.#counts.set(address, left);
    else this.#counts.delete(address);
  }
}

/**
 * The network a normalized address belongs to, for caps that one host holding many addresses
 * must not multiply: its /24 for IPv4 (`203.0.113.0/24`), its /64 for IPv6 (`2001:db8:0:1::/64`).
 * Anything else (not an IP literal) is its own prefix.
 */
export function addressPrefix(address: string): string {
  if (IPV4.test(address)) return `${address.slice(0, address.lastIndexOf("."))}.0/24`;
  if (!address.includes(":")) return address;
  const [head, tail] = address.split("::");
  const left = head ? head.split(":") : [];
  const right = tail === undefined ? [] : tail ? tail.split(":") : [];
  const groups = tail === undefined
    ? left
    : [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill("0"), ...right];
  return `${groups.slice(0, 4).map((g) => parseInt(g, 16).toString(16)).join(":")}::/64`;
}
