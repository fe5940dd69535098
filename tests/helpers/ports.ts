/** Free TCP ports: shared with the bench, in testing/ports.ts. */
export { freePort } from "../../testing/ports.ts";
