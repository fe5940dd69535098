/**
 * Admission of SSH connections that have not authenticated yet ("startups", as sshd calls them):
 * a cap per network prefix, random early drop between `start` and `full` as sshd's
 * `MaxStartups start:rate:full`, and at `full` a newcomer network takes a slot from the network
 * holding the most (docs/decisions/ssh.md "SSH: pre-authentication slots").
 */

/** sshd's `MaxStartups start:rate:full`. */
export interface MaxStartups {
  /** Unauthenticated connections held before random early drop begins. */
  start: number;
  /** Percent of new connections dropped at `start`; rises linearly to 100 at `full`. */
  rate: number;
  /** Unauthenticated connections at most. */
  full: number;
}

/** Why a connection was not admitted. */
export type Refusal = "prefix" | "random" | "full";

/** The decision on one new connection; `evicted` was holding a slot and must be closed. */
export type Admission<T> = { admitted: true; evicted?: T } | { admitted: false; reason: Refusal };

/**
 * The probability (0–1) that sshd's random early drop refuses a new connection while `held`
 * unauthenticated connections are open: 0 below `start`, `rate`% at `start`, rising linearly to
 * 100% at `full`.
 */
export function dropProbability(limits: MaxStartups, held: number): number {
  if (held >= limits.full) return 1;
  if (held < limits.start || limits.start >= limits.full) return 0;
  const rate = limits.rate + (100 - limits.rate) * (held - limits.start) /
      (limits.full - limits.start);
  return rate / 100;
}

/** The unauthenticated connections held now, by network prefix, oldest first. */
export class StartupSlots<T> {
  readonly #byPrefix = new Map<string, Set<T>>();
  readonly #prefixOf = new Map<T, string>();

  /**
   * `perPrefix` caps the slots one network prefix holds; `random` returns a number in [0, 1)
   * (tests pass their own to make the drop deterministic).
   */
  constructor(
    readonly limits: MaxStartups,
    readonly perPrefix: number,
    readonly random: () => number = Math.random,
  ) {}

  /** Unauthenticated connections held now. */
  get held(): number {
    return this.#prefixOf.size;
  }

  /** Slots `prefix` holds now. */
  heldBy(prefix: string): number {
    return this.#byPrefix.get(prefix)?.size ?? 0;
  }

  /**
   * Decides on a new connection `item` from `prefix` and, when admitted, gives it a slot until
   * `release(item)`. A prefix holding no slot is never dropped at random; at `full` it takes the
   * oldest slot of the prefix holding the most, if that one holds two or more.
   */
  admit(prefix: string, item: T): Admission<T> {
    const mine = this.heldBy(prefix);
    if (mine >= this.perPrefix) return { admitted: false, reason: "prefix" };
    let evicted: T | undefined;
    if (this.held >= this.limits.full) {
      evicted = mine === 0 ? this.#oldestOfLargest() : undefined;
      if (evicted === undefined) return { admitted: false, reason: "full" };
      this.release(evicted);
    } else if (mine > 0 && this.random() < dropProbability(this.limits, this.held)) {
      return { admitted: false, reason: "random" };
    }
    let set = this.#byPrefix.get(prefix);
    if (!set) this.#byPrefix.set(prefix, set = new Set());
    set.add(item);
    this.#prefixOf.set(item, prefix);
    return evicted === undefined ? { admitted: true } : { admitted: true, evicted };
  }

  /** Frees `item`'s slot (it authenticated or closed); does nothing when it holds none. */
  release(item: T): void {
    const prefix = this.#prefixOf.get(item);
    if (prefix === undefined) return;
    this.#prefixOf.delete(item);
    const set = this.#byPrefix.get(prefix)!;
    set.delete(item);
    if (set.size === 0) this.#byPrefix.delete(prefix);
  }

  /** The oldest connection of the prefix holding the most slots, when that is two or more. */
  #oldestOfLargest(): T | undefined {
    let largest: Set<T> | undefined;
    for (const set of this.#byPrefix.values()) {
      if (!largest || set.size > largest.size) largest = set;
    }
    return largest && largest.size >= 2 ? largest.values().next().value : undefined;
  }
}
