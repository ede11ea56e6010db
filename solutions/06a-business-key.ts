/**
 * Exercise 06a · A business key for a bug report (reference answer)
 *
 * The reference answer is the harness's own: read it in lib/agent/business-key.ts (businessKey, and
 * normalizeTitle, which is the tracker's own from lib/tracker/store.ts, so that the key and
 * `GET /reports?title=` normalise alike).
 */
export { businessKey, normalizeTitle } from "../lib/agent/business-key.ts";
