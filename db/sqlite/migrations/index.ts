/** The ordered schema migrations; a migration's number is its position (1-based). Never edit a shipped one. */
import { HOSTING_SCHEMA } from "./001_hosting.ts";
import { REGISTRY_SCHEMA } from "./002_registry.ts";
import { SEARCH_SCAN_SCHEMA } from "./003_search_scan.ts";
import { TOKEN_LIFECYCLE_SCHEMA } from "./004_token_lifecycle.ts";
import { RULE_DESCRIPTIONS_SCHEMA } from "./005_rule_descriptions.ts";
import { LISTS_SIZES_EXPIRY_SCHEMA } from "./006_lists_sizes_expiry.ts";
import { SEARCH_SORTS_SCHEMA } from "./007_search_sorts.ts";

/** SQL scripts applied in order; `PRAGMA user_version` records how many have run. */
export const MIGRATIONS: readonly string[] = [
  HOSTING_SCHEMA,
  REGISTRY_SCHEMA,
  SEARCH_SCAN_SCHEMA,
  TOKEN_LIFECYCLE_SCHEMA,
  RULE_DESCRIPTIONS_SCHEMA,
  LISTS_SIZES_EXPIRY_SCHEMA,
  SEARCH_SORTS_SCHEMA,
];
