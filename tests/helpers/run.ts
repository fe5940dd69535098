/** Running real command-line tools from tests: shared with the bench, in testing/run.ts. */
export { gitEnv, run, runOk, type RunResult } from "../../testing/run.ts";
