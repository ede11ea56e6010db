/**
 * Exercise tests are written once and run against either the learner's file in `exercises/` or the
 * reference answer in `solutions/`. `WORKBOOK_TARGET=solutions` picks the second; the default is the
 * learner's.
 */
export type Target = "exercises" | "solutions";

export function currentTarget(): Target {
  const t = process.env.WORKBOOK_TARGET ?? "exercises";
  if (t !== "exercises" && t !== "solutions")
    throw new Error(`WORKBOOK_TARGET must be "exercises" or "solutions", got "${t}"`);
  return t;
}

/**
 * Imports the exercise module `name` (e.g. "01a-retry-rule") from the current target. Use it as
 * `await loadExercise<typeof import("./01a-retry-rule.ts")>("01a-retry-rule")` so the test is typed
 * against the exercise's exports.
 */
export async function loadExercise<Module>(name: string): Promise<Module> {
  const url = new URL(`../../${currentTarget()}/${name}.ts`, import.meta.url);
  return (await import(url.href)) as Module;
}
