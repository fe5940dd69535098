/** Names shared by the registry seeder and the load scripts (ids and search words). */

/** Words seeded bots' names and descriptions are built from (and searched for). */
export const SEED_WORDS = (
  "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november " +
  "oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu amber azure " +
  "coral ivory jade onyx pearl ruby slate topaz umber violet willow cedar maple aspen birch"
).split(" ");

/** The id of seeded bot number `i`. */
export function seedBotId(i: number): string {
  return `seed-${String(i).padStart(6, "0")}`;
}
