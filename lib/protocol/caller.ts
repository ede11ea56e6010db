/**
 * Who is calling: idempotency keys are scoped to the caller, so that two callers may use one key
 * without seeing each other's answers. The caller is named by `Authorization: Bearer <name>`; a
 * request without the header is the one anonymous caller.
 */
import type { IncomingMessage } from "node:http";
import { HttpError } from "./http.ts";

/**
 * The scope of the callers who send no Authorization header. It holds a space, which no Bearer name
 * may, so no one can reach it by name (`Authorization: Bearer anonymous` is a caller of its own).
 */
export const ANONYMOUS_CALLER = "anonymous caller";

/** The caller named by `Authorization: Bearer <name>`; absent means one anonymous caller. */
export function callerOf(req: IncomingMessage): string {
  let lines = 0;
  for (let i = 0; i < req.rawHeaders.length; i += 2)
    if (req.rawHeaders[i]!.toLowerCase() === "authorization") lines++;
  // node:http keeps the first of two Authorization lines and drops the other: which caller is it?
  if (lines > 1)
    throw new HttpError(
      400,
      "Bad Request",
      `the Authorization header came ${lines} times; send it once`,
    );
  const auth = req.headers.authorization;
  if (auth === undefined) return ANONYMOUS_CALLER;
  const m = /^Bearer\s+([\x21-\x7e]{1,200})$/i.exec(auth.trim());
  if (!m)
    throw new HttpError(
      401,
      "Unauthorized",
      'use "Authorization: Bearer <your name>", or no Authorization header',
      {
        // RFC 9110 §11.6.1: a 401 MUST say which scheme the server accepts.
        "www-authenticate": 'Bearer realm="retry-workbook"',
      },
    );
  return m[1]!;
}
