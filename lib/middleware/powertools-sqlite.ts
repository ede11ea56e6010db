/**
 * A persistence layer for @aws-lambda-powertools/idempotency on SQLite, through the package's own
 * extension point (`BasePersistenceLayer`, "bring your own persistence layer" in its README). Every
 * rule is the DynamoDB layer's (lib/esm/persistence/DynamoDBPersistenceLayer.js), translated:
 *
 * - the record for a new key is written only if the key is absent, or its record has expired
 *   (`expiration < now`, in seconds), or it is INPROGRESS with an `in_progress_expiration` that has
 *   passed (in ms): DynamoDB's conditional PutItem, here one INSERT … ON CONFLICT DO UPDATE …
 * WHERE,
 *   atomic in SQLite as the condition is in DynamoDB;
 * - when the condition fails, the record that is there is handed back inside
 *   IdempotencyItemAlreadyExistsError (DynamoDB's ReturnValuesOnConditionCheckFailure: ALL_OLD);
 * - completing sets expiration, status and the response data; a failure deletes the record.
 * The attribute names are DynamoDB's defaults (constants.js, PERSISTENCE_ATTRIBUTE_KEY_MAPPINGS).
 */
import { DatabaseSync } from "node:sqlite";
import {
  IdempotencyItemAlreadyExistsError,
  IdempotencyItemNotFoundError,
} from "@aws-lambda-powertools/idempotency";
import {
  BasePersistenceLayer,
  IdempotencyRecord,
} from "@aws-lambda-powertools/idempotency/persistence";

type RecordOptions = ConstructorParameters<typeof IdempotencyRecord>[0];

interface Row {
  id: string;
  status: string;
  expiration: number | null;
  in_progress_expiration: number | null;
  data: string | null;
  validation: string | null;
}

export class SqlitePersistenceLayer extends BasePersistenceLayer {
  readonly #db: DatabaseSync;

  constructor(path: string) {
    super();
    this.#db = new DatabaseSync(path);
    this.#db.exec(`
      PRAGMA journal_mode = WAL;
      PRAGMA synchronous = NORMAL;
      PRAGMA busy_timeout = 5000;
      CREATE TABLE IF NOT EXISTS idempotency (
        id TEXT PRIMARY KEY,
        status TEXT NOT NULL,
        expiration REAL,
        in_progress_expiration INTEGER,
        data TEXT,
        validation TEXT
      );`);
  }

  close(): void {
    this.#db.close();
  }

  protected async _putRecord(record: IdempotencyRecord): Promise<void> {
    const now = Date.now();
    const validation = this.isPayloadValidationEnabled() ? (record.payloadHash ?? null) : null;
    const written = this.#db
      .prepare(
        `INSERT INTO idempotency (id, status, expiration, in_progress_expiration, data, validation)
         VALUES (?, ?, ?, ?, NULL, ?)
         ON CONFLICT (id) DO UPDATE SET status = excluded.status, expiration = excluded.expiration,
           in_progress_expiration = excluded.in_progress_expiration, data = NULL,
           validation = excluded.validation
         WHERE idempotency.expiration < ?
            OR (idempotency.status = 'INPROGRESS' AND idempotency.in_progress_expiration IS NOT NULL
                AND idempotency.in_progress_expiration < ?)`,
      )
      .run(
        record.idempotencyKey,
        record.getStatus(),
        record.expiryTimestamp ?? null,
        record.inProgressExpiryTimestamp ?? null,
        validation,
        now / 1000,
        now,
      );
    if (written.changes === 0) {
      const existing = this.#row(record.idempotencyKey);
      throw new IdempotencyItemAlreadyExistsError(
        `Failed to put record for already existing idempotency key: ${record.idempotencyKey}`,
        existing && toRecord(existing),
      );
    }
  }

  protected async _getRecord(idempotencyKey: string): Promise<IdempotencyRecord> {
    const row = this.#row(idempotencyKey);
    if (!row) throw new IdempotencyItemNotFoundError();
    return toRecord(row);
  }

  protected async _updateRecord(record: IdempotencyRecord): Promise<void> {
    const data =
      record.responseData === undefined ? undefined : JSON.stringify(record.responseData);
    this.#db
      .prepare(
        `UPDATE idempotency SET expiration = ?, status = ?, data = coalesce(?, data),
           validation = CASE WHEN ? THEN ? ELSE validation END WHERE id = ?`,
      )
      .run(
        record.expiryTimestamp ?? null,
        record.getStatus(),
        data ?? null,
        this.isPayloadValidationEnabled() ? 1 : 0,
        record.payloadHash ?? null,
        record.idempotencyKey,
      );
  }

  protected async _deleteRecord(record: IdempotencyRecord): Promise<void> {
    this.#db.prepare("DELETE FROM idempotency WHERE id = ?").run(record.idempotencyKey);
  }

  #row(id: string): Row | undefined {
    return this.#db.prepare("SELECT * FROM idempotency WHERE id = ?").get(id) as Row | undefined;
  }
}

function toRecord(row: Row): IdempotencyRecord {
  return new IdempotencyRecord({
    idempotencyKey: row.id,
    status: row.status as RecordOptions["status"],
    ...(row.expiration === null ? {} : { expiryTimestamp: row.expiration }),
    ...(row.in_progress_expiration === null
      ? {}
      : { inProgressExpiryTimestamp: row.in_progress_expiration }),
    ...(row.data === null
      ? {}
      : { responseData: JSON.parse(row.data) as RecordOptions["responseData"] }),
    ...(row.validation === null ? {} : { payloadHash: row.validation }),
  });
}
