/**
 * The one thing every middleware server of lesson 11 does: file a bug report, one row in a SQLite
 * file, then answer 201 with it. The row keeps who asked and on which route, so that a reader of
 * the file can tell whose report it is. WAL and synchronous=NORMAL, as the tracker's store: a
 * committed row survives the process being killed (SIGKILL), which the crash case relies on.
 */
import { DatabaseSync } from "node:sqlite";

export interface FiledReport {
  id: number;
  title: string;
  body: string;
  caller: string;
  route: string;
}

export class ReportsDb {
  readonly #db: DatabaseSync;

  constructor(path: string) {
    this.#db = new DatabaseSync(path);
    this.#db.exec(`
      PRAGMA journal_mode = WAL;
      PRAGMA synchronous = NORMAL;
      PRAGMA busy_timeout = 5000;
      CREATE TABLE IF NOT EXISTS reports (
        id INTEGER PRIMARY KEY,
        title TEXT NOT NULL,
        body TEXT NOT NULL,
        caller TEXT NOT NULL,
        route TEXT NOT NULL
      );`);
  }

  /** One INSERT, committed when it returns. */
  insert(r: Omit<FiledReport, "id">): FiledReport {
    const row = this.#db
      .prepare("INSERT INTO reports (title, body, caller, route) VALUES (?, ?, ?, ?) RETURNING id")
      .get(r.title, r.body, r.caller, r.route) as { id: number };
    return { id: Number(row.id), ...r };
  }

  list(): FiledReport[] {
    return this.#db
      .prepare("SELECT id, title, body, caller, route FROM reports ORDER BY id")
      .all() as unknown as FiledReport[];
  }

  count(): number {
    return Number((this.#db.prepare("SELECT count(*) AS n FROM reports").get() as { n: number }).n);
  }

  close(): void {
    this.#db.close();
  }
}

/** Rows in a reports file, read by a connection of its own (the server may be gone). */
export function countReportsInFile(path: string): number {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    return Number((db.prepare("SELECT count(*) AS n FROM reports").get() as { n: number }).n);
  } finally {
    db.close();
  }
}
