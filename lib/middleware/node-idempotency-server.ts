/**
 * @node-idempotency/core 1.0.11 with its memory storage (@node-idempotency/storage-adapter-memory
 * 1.0.2), on Express 5. Its README names a plug-and-play Express middleware,
 * @node-idempotency/express,
 * that the npm registry does not have (`npm view @node-idempotency/express`: 404), so this is the
 * smallest thing the core's README shows, and every line of the glue is ours: call `onRequest`
 * before the handler and send back what it returns; call `onResponse` with the handler's answer.
 *
 * Where the README leaves a choice, the glue takes the plain one and says so:
 * - `onResponse` is called from `res.send`, the one function every Express answer of the handler
 *   goes through (`res.json` calls it), with the status as it stands, errors included: the README's
 *   response is `{ body … // or error: your_error, additional: { status } }`.
 * - the errors `onRequest` throws map to the draft's statuses: in progress 409, a different body
 * 422,
 *   a bad key 400.
 */
import { Idempotency, IdempotencyError, IdempotencyErrorCodes } from "@node-idempotency/core";
import { MemoryStorageAdapter } from "@node-idempotency/storage-adapter-memory";
import express, { type NextFunction, type Request, type Response } from "express";
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

/**
 * Ours: the status for each error `onRequest` throws (draft-ietf-httpapi-idempotency-key-header).
 */
const STATUS: Record<IdempotencyErrorCodes, number> = {
  [IdempotencyErrorCodes.REQUEST_IN_PROGRESS]: 409,
  [IdempotencyErrorCodes.IDEMPOTENCY_FINGERPRINT_MISSMATCH]: 422,
  [IdempotencyErrorCodes.IDEMPOTENCY_KEY_LEN_EXEEDED]: 400,
  [IdempotencyErrorCodes.IDEMPOTENCY_KEY_MISSING]: 400,
};

export function nodeIdempotencyApp(setup: ServerSetup): express.Express {
  const { db, plan } = setup;
  const idempotency = new Idempotency(new MemoryStorageAdapter(), {});
  const app = express();
  app.use(express.json());
  // Ours, from here to the handler: the glue the unpublished adapter would have been.
  app.post("/{*path}", async (req: Request, res: Response, next: NextFunction) => {
    const request = {
      method: req.method,
      headers: req.headers,
      body: req.body as Record<string, unknown>,
      path: req.path,
    };
    let stored;
    try {
      stored = await idempotency.onRequest(request);
    } catch (err) {
      if (!(err instanceof IdempotencyError)) throw err;
      endWithProblem(res, STATUS[err.code], err.message);
      return;
    }
    if (stored) {
      const additional = stored.additional as { status: number };
      res.status(additional.status).type("json").send(stored.body);
      return;
    }
    const send = res.send.bind(res);
    res.send = (body?: unknown) => {
      void idempotency.onResponse(request, { body, additional: { status: res.statusCode } });
      return send(body);
    };
    next();
  });
  app.post([REPORT_ROUTE, OTHER_ROUTE], async (req, res) => {
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

export function startNodeIdempotency(setup: ServerSetup, port = 0): Promise<Listening> {
  return serve(nodeIdempotencyApp(setup), port);
}
