/** Keys, accounts and tokens against a test server: shared with the bench, in testing/accounts.ts. */
export * from "../../testing/accounts.ts";
