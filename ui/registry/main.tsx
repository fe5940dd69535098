/** Entry point of the public registry browser bundle. */
import { render } from "preact";
import { App } from "./app.tsx";

render(<App />, document.getElementById("app")!);
