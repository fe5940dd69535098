/** Entry point of the public registry browser bundle. */
import { render } from "preact";

render(<p>Registry browser</p>, document.getElementById("app")!);
