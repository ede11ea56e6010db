// The keyed tracker's behaviour suite (test/tracker-store-cases.ts) on SQLite, in memory. The same
// suite on PostgreSQL is test/full/tracker-stores-postgres.test.ts (npm run test:full).
import { startTracker } from "../lib/tracker/service.ts";
import { storeSuite } from "./tracker-store-cases.ts";

storeSuite("sqlite", (options) => startTracker(options));
