/**
 * The PostgreSQL server a lesson runs on: the learner's own if DATABASE_URL is set, else a fresh
 * one from the binaries npm install brought (server.ts), stopped and deleted when the lesson stops
 * it. A server that cannot be started or reached ends the lesson at once, with one line saying why,
 * rather than half-way through.
 */
import { t } from "../core/i18n.ts";
import { unavailableText } from "./messages.ts";
import { createSchema } from "./schema.ts";
import { type PostgresServer, PostgresUnavailable, startPostgres } from "./server.ts";

export interface LessonPostgres extends PostgresServer {
  /** How long starting it took, ms. */
  readonly startedInMs: number;
}

/** Starts (or reaches) the server; on failure, one line on stderr, `cleanUp()`, and exit code 1. */
export async function postgresForLesson(cleanUp: () => void): Promise<LessonPostgres> {
  const started = performance.now();
  let server: PostgresServer | undefined;
  try {
    server = await startPostgres();
    // A learner's own server may be unreachable, or refuse to create a schema: find out now.
    await (await createSchema(server.url, "lesson_probe")).drop();
  } catch (err) {
    if (!(err instanceof PostgresUnavailable)) throw err;
    process.stderr.write(`${t("error: {message}", { message: unavailableText(err) })}\n`);
    await server?.stop();
    cleanUp();
    process.exit(1);
  }
  const startedInMs = Math.round(performance.now() - started);
  return { ...server, stop: server.stop, startedInMs };
}

/** The trace's line for the server the lesson runs on. */
export function startedLine(server: LessonPostgres): string {
  return server.external
    ? t("PostgreSQL: the server DATABASE_URL names")
    : t("PostgreSQL started on 127.0.0.1 in {ms} ms (a fresh cluster in a scratch folder)", {
        ms: server.startedInMs,
      });
}
