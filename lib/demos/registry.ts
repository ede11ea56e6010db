/**
 * The demos the server offers, in the index's order. A new demo is one line here (see demo.ts).
 */
import type { Demo } from "./demo.ts";
import { herdDemo } from "./herd/demo.ts";
import { stepDemo } from "./step/demo.ts";

export const DEMOS: readonly Demo[] = [herdDemo, stepDemo];
