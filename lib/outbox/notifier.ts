/**
 * A third-party notification service: the maintainer is told of each new bug report through it. It
 * lives outside the tracker's database, so no transaction of the tracker can include it: that is
 * the point of lesson 07. It is a real `node:http` server on 127.0.0.1, with idempotency keys of its
 * own, the way a payment or messaging API offers them:
 *
 *   POST /notifications    {"subject": string, "reportId"?: number, "text"?: string}
 *                          → 201 delivered; with an Idempotency-Key seen before and the same body,
 *                          the stored answer again with Idempotent-Replayed: true, delivered nothing;
 *                          the same key with another body → 422
 *   GET  /notifications    what the maintainer received, in order
 *
 * The key is read as the tracker reads it (the draft's sf-string or Stripe's bare token) and scoped
 * to the caller (`Authorization: Bearer <name>`). Handling one notification is one synchronous step
 * after the body is read, so two requests with one key can never be in progress together here: the
 * notifier needs no 409.
 *
 * It counts what matters for the lesson: notifications delivered, and among them duplicates, a
 * notification whose content the maintainer had already received (only possible without keys, or
 * with a new key for the same content).
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import { describeOutcome, type Outcome } from "../client/client.ts";
import { t } from "../core/i18n.ts";
import { listenOnLoopback } from "../core/listen.ts";
import { callerOf } from "../protocol/caller.ts";
import { canonicalJson, requestFingerprint } from "../protocol/fingerprint.ts";
import {
  type Answer,
  answerFromError,
  HttpError,
  problem,
  readBody,
  send,
  targetPath,
} from "../protocol/http.ts";
import { keyHeaderValues, parseIdempotencyKey } from "../protocol/idempotency-key.ts";
import { shortKey } from "../protocol/key-answers.ts";

/** What a caller asks the notifier to deliver. */
export interface NotificationRequest {
  /** One line the maintainer reads, e.g. "New bug report: Login button does nothing". */
  subject: string;
  /** The report it is about, when the sender knows its id. */
  reportId?: number;
  text?: string;
}

/** A notification the maintainer received. */
export interface Notification extends NotificationRequest {
  /** 1 for the first notification delivered. */
  id: number;
  /** The Idempotency-Key it came with, if any. */
  key?: string;
  /** True when the maintainer had already received one with the same content. */
  duplicate: boolean;
}

/** One line of the notifier's story, for the trace. */
export interface NotifierEvent {
  text: string;
  mark?: "ok" | "bad" | "warn";
}

export interface NotifierOptions {
  onEvent?: (event: NotifierEvent) => void;
}

export interface Notifier {
  readonly url: string;
  /** Notifications delivered to the maintainer, in order. */
  delivered(): Notification[];
  /** How many requests were answered from a key instead of delivering again. */
  readonly deduplicated: number;
  /** Stops listening and cuts open connections. */
  close(): Promise<void>;
}

/** Starts the notifier on 127.0.0.1 (a free port) and resolves once it listens. */
export async function startNotifier(options: NotifierOptions = {}): Promise<Notifier> {
  const emit = options.onEvent ?? (() => {});
  const inbox: Notification[] = [];
  /** caller + key → the request's fingerprint and the answer given. */
  const keys = new Map<string, { fingerprint: string; answer: Answer }>();
  const seen = new Set<string>();
  let deduplicated = 0;

  function deliver(req: IncomingMessage, rawBody: Buffer): Answer {
    const body = parseNotification(req.headers["content-type"], rawBody);
    const values = keyHeaderValues(req.rawHeaders);
    let key: string | undefined;
    if (values.length > 0) {
      const parsed = parseIdempotencyKey(values);
      if (!parsed.ok) throw new HttpError(400, "Bad Request", parsed.detail);
      key = parsed.key;
    }
    const scope = key === undefined ? undefined : `${callerOf(req)}\n${key}`;
    const fingerprint = requestFingerprint("POST", "/notifications", rawBody);
    const before = scope === undefined ? undefined : keys.get(scope);
    if (before) {
      if (before.fingerprint !== fingerprint) {
        emit({
          text: t("key {key} was used for another notification: 422", { key: shortKey(key!) }),
          mark: "bad",
        });
        throw new HttpError(
          422,
          "Unprocessable Content",
          `Idempotency-Key ${shortKey(key!)} was first used for a different notification`,
        );
      }
      deduplicated += 1;
      emit({
        text: t('key {key} seen before: "{subject}" NOT delivered again (stored answer replayed)', {
          key: shortKey(key!),
          subject: body.subject,
        }),
        mark: "ok",
      });
      return {
        ...before.answer,
        headers: { ...before.answer.headers, "idempotent-replayed": "true" },
      };
    }
    const content = canonicalJson(body);
    const duplicate = seen.has(content);
    seen.add(content);
    const notification: Notification = {
      id: inbox.length + 1,
      ...body,
      ...(key !== undefined ? { key } : {}),
      duplicate,
    };
    inbox.push(notification);
    const told = { id: String(notification.id), subject: body.subject };
    emit({
      text:
        key === undefined
          ? duplicate
            ? t(
                'delivered #{id} "{subject}" (no key): the maintainer already had this one, a DUPLICATE',
                told,
              )
            : t('delivered #{id} "{subject}" (no key)', told)
          : duplicate
            ? t(
                'delivered #{id} "{subject}" (key {key}): the maintainer already had this one, a DUPLICATE',
                { ...told, key: shortKey(key) },
              )
            : t('delivered #{id} "{subject}" (key {key})', { ...told, key: shortKey(key) }),
      mark: duplicate ? "bad" : "ok",
    });
    const answer: Answer = {
      status: 201,
      body: notification,
      headers: { location: `/notifications/${notification.id}` },
    };
    if (scope !== undefined) keys.set(scope, { fingerprint, answer });
    return answer;
  }

  const server: Server = createServer(
    { headersTimeout: 10_000, requestTimeout: 30_000 },
    (req, res) => {
      const path = targetPath(req.url)?.path;
      const answer = async (): Promise<Answer> => {
        if (path === undefined)
          throw new HttpError(400, "Bad Request", "the request target is not a valid URL");
        if (path !== "/notifications")
          throw new HttpError(404, "Not Found", `no route for ${path} (try /notifications)`);
        if (req.method === "GET" || req.method === "HEAD") return { status: 200, body: inbox };
        if (req.method !== "POST")
          throw new HttpError(
            405,
            "Method Not Allowed",
            `${req.method} is not allowed on /notifications`,
            { allow: "GET, HEAD, POST" },
          );
        return deliver(req, await readBody(req));
      };
      answer()
        .catch((err: unknown) =>
          err instanceof HttpError
            ? answerFromError(err)
            : problem(500, "Internal Server Error", "the notifier failed"),
        )
        .then((a) => {
          if (!res.destroyed) send(res, a);
        });
    },
  );

  const { port } = await listenOnLoopback(server);
  let closing: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    delivered: () => inbox.map((n) => ({ ...n })),
    get deduplicated() {
      return deduplicated;
    },
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

/** Runs `run` with a fresh notifier (its events to `onEvent`), and closes the notifier after it. */
export async function withNotifier<T>(
  onEvent: (event: NotifierEvent) => void,
  run: (notifier: Notifier) => Promise<T>,
): Promise<T> {
  const notifier = await startNotifier({ onEvent });
  try {
    return await run(notifier);
  } finally {
    await notifier.close();
  }
}

/** The notifier's answer in a few words, for traces: "201, notification #1 (a replay)". */
export function describeDelivery(o: Outcome): string {
  if (o.kind !== "response") return describeOutcome(o);
  const body = o.body as { id?: unknown } | undefined;
  const replayed = o.headers["idempotent-replayed"] === "true";
  const status = o.status;
  if (status < 300 && body && typeof body.id === "number") {
    const id = String(body.id);
    return replayed
      ? t("{status}, notification #{id} (Idempotent-Replayed: true)", { status, id })
      : t("{status}, notification #{id}", { status, id });
  }
  return replayed ? t("{status} (Idempotent-Replayed: true)", { status }) : String(status);
}

/** A notification request's body: JSON with a non-empty `subject`; 415 or 400 otherwise. */
function parseNotification(contentType: string | undefined, raw: Buffer): NotificationRequest {
  if (!/^application\/json\b/i.test(contentType ?? ""))
    throw new HttpError(415, "Unsupported Media Type", "send application/json");
  let value: unknown;
  try {
    value = JSON.parse(raw.toString("utf8"));
  } catch {
    throw new HttpError(400, "Bad Request", "the body is not valid JSON");
  }
  const v = value as Partial<NotificationRequest> | null;
  if (!v || typeof v !== "object" || typeof v.subject !== "string" || v.subject.trim() === "") {
    throw new HttpError(
      400,
      "Bad Request",
      'a notification needs a "subject" (a non-empty string)',
    );
  }
  if (v.reportId !== undefined && !Number.isSafeInteger(v.reportId))
    throw new HttpError(400, "Bad Request", '"reportId" must be a whole number');
  if (v.text !== undefined && typeof v.text !== "string")
    throw new HttpError(400, "Bad Request", '"text" must be a string');
  return {
    subject: v.subject,
    ...(v.reportId !== undefined ? { reportId: v.reportId } : {}),
    ...(v.text !== undefined ? { text: v.text } : {}),
  };
}
