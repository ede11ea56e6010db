/**
 * @aws-lambda-powertools/idempotency 2.35.0's `makeIdempotent` around a Lambda handler, as its
 * README shows it for an API Gateway event, with the key taken from the Idempotency-Key header
 * (`eventKeyJmesPath`, the README's own example in its Middy section) and a persistence layer that
 * runs here: SQLite through its `BasePersistenceLayer` (powertools-sqlite.ts). Everything else is
 * the package's default: no payload validation, records kept one hour, no local cache.
 *
 * Ours: the smallest Lambda runtime, a `node:http` server that turns each request into an API
 * Gateway (HTTP API, payload 2.0) event, calls the handler with a context whose
 * `getRemainingTimeInMillis` counts down from a 30 s function timeout, and writes back the
 * `{ statusCode, headers, body }` it returns. An error the function throws, the package's own
 * included, becomes a 500, as a Lambda integration turns a function error into a 5xx: no mapping
 * of the package's errors to 409 or 422 (that would be more of ours). One function serves both
 * routes (one `{proxy+}` integration), so both share the key's prefix.
 *
 * The package's other shipped layer, the cache layer (Redis or Valkey), needs a running server and
 * its client: none is installed here and none can be fetched, so it is left out.
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { IdempotencyConfig, makeIdempotent } from "@aws-lambda-powertools/idempotency";
import { targetPath } from "../protocol/http.ts";
import { fileReport } from "./handler.ts";
import { SqlitePersistenceLayer } from "./powertools-sqlite.ts";
import {
  endWithProblem,
  type Listening,
  OTHER_ROUTE,
  REPORT_ROUTE,
  type ServerSetup,
  serve,
} from "./server-kit.ts";

/**
 * The function timeout our runtime gives each invocation (Lambda's default is 3 s; 30 s outlasts
 * every case).
 */
export const FUNCTION_TIMEOUT_MS = 30_000;

/** The part of API Gateway's payload 2.0 event the handler reads. */
interface HttpApiEvent {
  version: "2.0";
  rawPath: string;
  headers: Record<string, string>;
  body: string;
  isBase64Encoded: false;
  requestContext: { requestId: string; http: { method: string; path: string } };
}

/** The part of Lambda's context the package reads (`getRemainingTimeInMillis`). */
interface LambdaContext {
  functionName: string;
  awsRequestId: string;
  getRemainingTimeInMillis(): number;
}

interface LambdaResult {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

export interface PowertoolsServer extends Listening {
  /** The idempotency records' own SQLite file is the reports file: one file, two tables. */
  readonly persistence: SqlitePersistenceLayer;
}

export async function startPowertools(
  setup: ServerSetup & { dbPath: string },
  port = 0,
): Promise<PowertoolsServer> {
  const { db, plan } = setup;
  const persistence = new SqlitePersistenceLayer(setup.dbPath);

  const handler = async (event: HttpApiEvent, _context: LambdaContext): Promise<LambdaResult> => {
    let body: unknown;
    try {
      body = JSON.parse(event.body);
    } catch {
      body = undefined;
    }
    const answer = await fileReport(
      db,
      plan,
      { caller: event.headers.authorization ?? "", route: event.rawPath, body },
      setup.crash,
    );
    return {
      statusCode: answer.status,
      headers: { "content-type": "application/json" },
      body: JSON.stringify(answer.body),
    };
  };
  const idempotentHandler = makeIdempotent(handler, {
    persistenceStore: persistence,
    config: new IdempotencyConfig({ eventKeyJmesPath: 'headers."idempotency-key"' }),
  });

  const listening = await serve((req, res) => void invoke(req, res), port);

  async function invoke(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const text = await readText(req);
    const path = targetPath(req.url)?.path;
    if (path === undefined)
      return endWithProblem(res, 400, "the request target is not a valid URL");
    if (req.method === "GET" && path === REPORT_ROUTE) {
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify(db.list()));
      return;
    }
    if (req.method !== "POST" || (path !== REPORT_ROUTE && path !== OTHER_ROUTE)) {
      endWithProblem(res, 404, `no route for ${req.method} ${path}`);
      return;
    }
    if (setup.rewrite) {
      const refused = setup.rewrite(req);
      if (refused) return endWithProblem(res, refused.status, refused.detail);
    }
    const deadline = Date.now() + FUNCTION_TIMEOUT_MS;
    const requestId = randomUUID();
    const event: HttpApiEvent = {
      version: "2.0",
      rawPath: path,
      headers: Object.fromEntries(
        Object.entries(req.headers).map(([k, v]) => [
          k,
          Array.isArray(v) ? v.join(",") : (v ?? ""),
        ]),
      ),
      body: text,
      isBase64Encoded: false,
      requestContext: { requestId, http: { method: req.method, path } },
    };
    const context: LambdaContext = {
      functionName: "file-report",
      awsRequestId: requestId,
      getRemainingTimeInMillis: () => deadline - Date.now(),
    };
    try {
      const result = await idempotentHandler(event, context);
      res.writeHead(result.statusCode, result.headers);
      res.end(result.body);
    } catch (err) {
      endWithProblem(
        res,
        500,
        err instanceof Error ? `${err.name}: ${err.message}` : "the function failed",
      );
    }
  }

  return {
    ...listening,
    persistence,
    async close() {
      await listening.close();
      persistence.close();
    },
  };
}

function readText(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}
