/** The blame page's age shades: where each commit falls between the oldest and the newest. */
import { assertEquals } from "../../../tests/helpers/assert.ts";
import { ageShades } from "./blame_page.tsx";

const at = (...dates: number[]) => new Map(dates.map((date, i) => [`c${i}`, { date }]));

Deno.test("the oldest commit gets the lightest shade and the newest the darkest", () => {
  assertEquals(
    [...ageShades(at(1_000, 2_000, 1_500, 1_250, 1_800)).values()],
    [0, 4, 2, 1, 3],
  );
});

Deno.test("commits of one date, or one commit, all get the newest shade", () => {
  assertEquals([...ageShades(at(5, 5)).values()], [4, 4]);
  assertEquals([...ageShades(at(7)).values()], [4]);
});
