/** The bot identifier rule, on its own so the guard thread can use it without the schemas. */

/** Bot identifiers: lowercase letters, digits, `.`, `_`, `-`; 1–64 chars; starts and ends alphanumeric. */
export const BOT_ID_PATTERN = /^[a-z0-9](?:[a-z0-9._-]{0,62}[a-z0-9])?$/;
