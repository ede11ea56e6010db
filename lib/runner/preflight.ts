// Run first by `npm test`: a clear message instead of a stack trace when the runtime is wrong.
import { requireRuntime } from "../core/runtime.ts";

requireRuntime();
