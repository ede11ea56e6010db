/**
 * What PostgreSQL says to a person, in the workbook's language: why it could not be started or
 * reached (server.ts's PostgresUnavailable, whose own message is English: that module is loaded by
 * the bundled tracker child, which has no catalogues), and the server's own error messages that a
 * lesson shows. The server speaks English here (it is started with LC_ALL=C, and a learner's own
 * server may speak anything); the messages a lesson shows are said again in Chinese, the others
 * are shown as the server sent them.
 */
import { t } from "../core/i18n.ts";
import type { PostgresUnavailable } from "./server.ts";

/** Why PostgreSQL is unavailable, one line, in this process's language. */
export function unavailableText(err: PostgresUnavailable): string {
  const v = err.values;
  switch (err.reason) {
    case "no-binaries":
      return t(
        "no PostgreSQL binaries for {platform} ({name} is not installed; run npm install, or set DATABASE_URL)",
        v,
      );
    case "could-not-spawn":
      return t("{file} could not start: {why}", v);
    case "initdb-failed":
      return t("initdb failed (exit {code}): {line}", v);
    case "url-scheme":
      return t('DATABASE_URL must start with postgres:// (got "{got}")', v);
    case "url-invalid":
      return t(
        "DATABASE_URL is not a valid URL (expected postgres://user:password@host:port/database)",
      );
    case "not-executable":
      return t("the PostgreSQL binary {file} is not executable", v);
    case "nobody-cannot-reach":
      return t(
        "PostgreSQL runs as the user nobody here, who can reach neither the binaries in node_modules nor a copy in {folder}; put the project where every user can read it, or set DATABASE_URL",
        v,
      );
    case "nobody-cannot-use":
      return t(
        "PostgreSQL runs as the user nobody here, who cannot use the binaries in node_modules ({why}); put the project where every user can read it, or set DATABASE_URL",
        v,
      );
    case "start-timeout":
      return t("PostgreSQL did not start within {ms} ms: {line}", v);
    case "exited-while-starting":
      return t("postgres exited ({how}) while starting: {line}", v);
    case "no-schema":
      return t("cannot create a schema on {where}: {why}", v);
    default:
      return err.message;
  }
}

/** The server's error messages a lesson shows, each with its translation. */
const SERVER_SAYS: Record<string, () => string> = {
  "could not serialize access due to concurrent update": () =>
    t("could not serialize access due to concurrent update"),
  "could not serialize access due to read/write dependencies among transactions": () =>
    t("could not serialize access due to read/write dependencies among transactions"),
};

/** An error message from the server, in this process's language where it is a known one. */
export function serverMessage(message: string): string {
  return SERVER_SAYS[message]?.() ?? message;
}
