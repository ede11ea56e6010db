/**
 * express-idempotency 1.0.6 on Express 5, wired as its README says: the middleware on POST, and the
 * handler asks `isHit(req)` first and does nothing when the middleware has answered from its store.
 * Its default data adapter (in memory), response validator (2xx only) and intent validator (URL,
 * method, query and body).
 *
 * One line differs from the README, and is ours: the README mounts it with `app.post('*', …)`, an
 * Express 4 path that Express 5's router refuses ("Missing parameter name"); `/{*path}` is the same
 * "every path" in Express 5's syntax.
 */
import express from "express";
import { getSharedIdempotencyService, idempotency } from "express-idempotency";
import { fileReport } from "./handler.ts";
import {
  callerOf,
  endWithProblem,
  expressErrorHandler,
  type Listening,
  OTHER_ROUTE,
  REPORT_ROUTE,
  type ServerSetup,
  serve,
} from "./server-kit.ts";

export function expressIdempotencyApp(setup: ServerSetup): express.Express {
  const { db, plan } = setup;
  const app = express();
  app.use(express.json());
  if (setup.rewrite) {
    const rewrite = setup.rewrite;
    app.use((req, res, next) => {
      const refused = req.method === "POST" ? rewrite(req) : undefined;
      if (refused) endWithProblem(res, refused.status, refused.detail);
      else next();
    });
  }
  app.post("/{*path}", idempotency()); // README: app.post('*', idempotency());
  app.post([REPORT_ROUTE, OTHER_ROUTE], async (req, res) => {
    if (getSharedIdempotencyService().isHit(req)) return; // README: "Check if there was a hit!"
    const answer = await fileReport(
      db,
      plan,
      { caller: callerOf(req), route: req.path, body: req.body },
      setup.crash,
    );
    res.status(answer.status).json(answer.body);
  });
  app.get(REPORT_ROUTE, (_req, res) => {
    res.json(db.list());
  });
  app.use(expressErrorHandler);
  return app;
}

export function startExpressIdempotency(setup: ServerSetup, port = 0): Promise<Listening> {
  return serve(expressIdempotencyApp(setup), port);
}
