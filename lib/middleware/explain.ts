/**
 * Why a cell came out as it did, from the package's own source: one explanation per surprising
 * cell, each a few complete sentences with the places in the installed source filled in (found at
 * run time, sources.ts), written for the verdict it explains. The lesson prints the explanation of
 * every cell that is not safe, and of the safe cells whose statuses need one; a cell whose verdict
 * differs from the one its explanation was written for says so, instead of explaining the wrong
 * thing.
 */
import { t } from "../core/i18n.ts";
import type { CaseName, Verdict } from "../probe/verdict.ts";
import { FUNCTION_TIMEOUT_MS } from "./powertools-server.ts";
import type { ServerName } from "./servers.ts";
import { locate, type SourceRef } from "./sources.ts";
import { verdictName } from "./table.ts";

interface Explanation {
  server: ServerName;
  case: CaseName;
  /** The verdict the text explains. */
  verdict: Verdict;
  /** Places in the source, by name, for the text. */
  refs: Record<string, SourceRef>;
  text(at: Record<string, string>): string;
}

const EXPRESS_SERVICE = "express-idempotency";
const service = (pattern: RegExp): SourceRef => ({
  pkg: EXPRESS_SERVICE,
  file: "dist/services/idempotencyService.js",
  pattern,
});
const core = (pattern: RegExp): SourceRef => ({
  pkg: "@node-idempotency/core",
  file: "dist/idempotency.js",
  pattern,
});
const powertools = (file: string, pattern: RegExp): SourceRef => ({
  pkg: "@aws-lambda-powertools/idempotency",
  file: `lib/esm/${file}`,
  pattern,
});
const workbook = (file: string, pattern: RegExp): SourceRef => ({ pkg: "", file, pattern });
const failureSaved = workbook(
  "lib/tracker/variants/keyed.ts",
  /Execution began, so the failure is the key's result/,
);

const EXPLANATIONS: Explanation[] = [
  {
    server: "express-idempotency",
    case: "handler-throws",
    verdict: "stuck",
    refs: {
      hook: service(/res\.send = \(body\) =>/),
      conflict: service(/res\.status\(HttpStatus\.CONFLICT\)/),
      memory: {
        pkg: EXPRESS_SERVICE,
        file: "dist/defaults/inMemoryDataAdapter.js",
        pattern: /this\.idempotencyResources = \[\]/,
      },
    },
    text: (at) =>
      t(
        'The middleware stores the key as "in progress" before the handler runs, and learns the answer only by wrapping res.send ({hook}). The handler threw, and the error handler answered with res.end, as Express\'s own does: res.send was never called, so the key stayed in progress with no answer, and every retry got 409 ({conflict}). The in-memory adapter never expires a key ({memory}): the key is stuck until the process restarts. This is issue #32 of VilledeMontreal/express-idempotency, "Orphaned \'in progress\' resources cause permanent 409".',
        at,
      ),
  },
  {
    server: "express-idempotency",
    case: "crash",
    verdict: "duplicate",
    refs: {
      memory: {
        pkg: EXPRESS_SERVICE,
        file: "dist/defaults/inMemoryDataAdapter.js",
        pattern: /this\.idempotencyResources = \[\]/,
      },
    },
    text: (at) =>
      t(
        'The keys live in an array in the process\'s memory ({memory}); its README says this default "is not recommended for production". The process died after the INSERT, the restarted one knew no key, and the retry filed the report again.',
        at,
      ),
  },
  {
    server: "express-idempotency",
    case: "other-caller",
    verdict: "leak",
    refs: {
      find: service(/findByIdempotencyKey\(idempotencyKey\)/),
      intent: {
        pkg: EXPRESS_SERVICE,
        file: "dist/defaults/defaultIntentValidator.js",
        pattern: /req\.url === idempotencyRequest\.url/,
      },
    },
    text: (at) =>
      t(
        "A key is looked up by its value alone ({find}), and the intent check compares the URL, the method, the query and the body ({intent}), never who is asking. The second caller sent the same key and the same report, and got the first caller's stored answer, report id included.",
        at,
      ),
  },
  {
    server: "express-idempotency",
    case: "quoted-key",
    verdict: "duplicate",
    refs: { key: service(/return req\.get\(this\._options\.idempotencyKeyHeader\)/) },
    text: (at) =>
      t(
        "The key is the header's text as sent ({key}). The draft's form \"k\" (a Structured Field string, quotes included) and Stripe's bare k are two different keys to it, so the same operation ran twice.",
        at,
      ),
  },
  {
    server: "node-idempotency",
    case: "handler-500",
    verdict: "stuck",
    refs: {
      complete: core(/status: types_1\.RequestStatusEnum\.COMPLETE/),
      replay: core(/return data\.response;/),
    },
    text: (at) =>
      t(
        "onResponse stores whatever answer it is given as the key's result ({complete}), and our glue gives it the 500, as the README's \"error: your_error\" invites. Every retry got the stored 500 back ({replay}) for the key's 24 hours, though nothing was stored by the failed call.",
        at,
      ),
  },
  {
    server: "node-idempotency",
    case: "handler-throws",
    verdict: "stuck",
    refs: {
      claim: core(/ttl: reqInternal\.options\.cacheTTLMS \}\);/),
      outstanding: core(/A request is outstanding/),
      ttl: {
        pkg: "@node-idempotency/core",
        file: "dist/constants.js",
        pattern: /IDEMPOTENCY_CACHE_TTL_MS = 1000/,
      },
    },
    text: (at) =>
      t(
        "onRequest marks the key IN_PROGRESS with the cache's whole TTL ({claim}; 24 hours by default, {ttl}), not with a shorter lease. The handler threw, onResponse was never called, and every retry was refused as outstanding ({outstanding}), answered 409 by our glue: the key is stuck for a day, or until the process restarts.",
        at,
      ),
  },
  {
    server: "node-idempotency",
    case: "crash",
    verdict: "duplicate",
    refs: {
      memory: {
        pkg: "@node-idempotency/storage-adapter-memory",
        file: "dist/adapter-memory.js",
        pattern: /this\.cache = new Map\(\)/,
      },
    },
    text: (at) =>
      t(
        "The memory storage is a Map in the process ({memory}). After the restart the key was unknown and the retry filed the report again. A store outside the process (its Redis adapter, for one) would have kept the key.",
        at,
      ),
  },
  {
    server: "node-idempotency",
    case: "other-caller",
    verdict: "leak",
    refs: {
      key: core(
        /return `\$\{req\.options\.cacheKeyPrefix\}:\$\{method\}:\$\{path\}:\$\{idempotencyKey\}`/,
      ),
    },
    text: (at) =>
      t(
        "The cache key is prefix, method, path and the key ({key}): no caller. The second caller's request matched the first's fingerprint (same body) and got the first caller's answer.",
        at,
      ),
  },
  {
    server: "node-idempotency",
    case: "quoted-key",
    verdict: "duplicate",
    refs: { key: core(/return key \? req\.headers\[key\] : undefined/) },
    text: (at) =>
      t(
        'The key is the header\'s value as sent ({key}): "k" and k are two keys, and the report was filed twice.',
        at,
      ),
  },
  {
    server: "node-idempotency",
    case: "different-path",
    verdict: "safe",
    refs: {
      key: core(
        /return `\$\{req\.options\.cacheKeyPrefix\}:\$\{method\}:\$\{path\}:\$\{idempotencyKey\}`/,
      ),
    },
    text: (at) =>
      t(
        "Two rows, and safe: the path is part of the cache key ({key}), so the key on another route is another operation, done once.",
        at,
      ),
  },
  {
    server: "powertools",
    case: "different-body",
    verdict: "error",
    refs: {
      enabled: powertools(
        "persistence/BasePersistenceLayer.js",
        /this\.payloadValidationEnabled =$/,
      ),
      response: powertools(
        "IdempotencyHandler.js",
        /const response = idempotencyRecord\.getResponse\(\);/,
      ),
    },
    text: (at) =>
      t(
        "The key is made from the Idempotency-Key header alone, and the payload is compared only when payloadValidationJmesPath is set ({enabled}), which it is not by default. The second report, another title under the same key, got the first report's stored answer ({response}): 201 for a report that was never filed. With payloadValidationJmesPath set to the body, it would be refused (IdempotencyValidationError) instead.",
        at,
      ),
  },
  {
    server: "powertools",
    case: "different-path",
    verdict: "error",
    refs: { key: powertools("persistence/BasePersistenceLayer.js", /idempotencyKeyPrefix\}#/) },
    text: (at) =>
      t(
        "The record's key is a prefix and a hash of what eventKeyJmesPath selects ({key}); the prefix names the function, and one function serves both routes here. So the request to /triage got the /reports answer, and nothing was filed for it.",
        at,
      ),
  },
  {
    server: "powertools",
    case: "handler-500",
    verdict: "stuck",
    refs: {
      save: powertools("IdempotencyHandler.js", /await this\.#saveSuccessfulResult\(result\);/),
      hour: powertools(
        "IdempotencyConfig.js",
        /expiresAfterSeconds = config\.expiresAfterSeconds \?\? 3600/,
      ),
    },
    text: (at) =>
      t(
        "A handler that returns is a success to the package, whatever statusCode it returns ({save}). The 500 was stored and replayed to every retry, for the record's hour ({hour}).",
        at,
      ),
  },
  {
    server: "powertools",
    case: "handler-throws",
    verdict: "safe",
    refs: {
      remove: powertools("IdempotencyHandler.js", /await this\.#deleteInProgressRecord\(\);/),
    },
    text: (at) =>
      t(
        "A handler that throws is a failure: the in-progress record is deleted ({remove}) and the retry runs the handler again. Nothing was stored by the failed call, so that is right here.",
        at,
      ),
  },
  {
    server: "powertools",
    case: "crash",
    verdict: "stuck",
    refs: {
      expiry: powertools(
        "persistence/BasePersistenceLayer.js",
        /Date\.now\(\) \+ remainingTimeInMillis/,
      ),
      condition: powertools(
        "persistence/DynamoDBPersistenceLayer.js",
        /const inProgressExpiryExpired = \[/,
      ),
      millis: powertools("IdempotencyHandler.js", /new Date\(\)\.getUTCMilliseconds\(\)\) \{/),
    },
    text: (at) =>
      t(
        "The record survived the crash as INPROGRESS, with an in-progress expiry at the claim plus the invocation's remaining time ({expiry}), {seconds} s in our runtime. Until then the conditional put refuses every retry ({condition}); the package's own check of that expiry compares it with new Date().getUTCMilliseconds(), a number from 0 to 999 ({millis}), so it never fires. After it, by the same condition, the next retry takes the record over and runs the handler again: a second report, stuck first and then a duplicate. The in-progress expiry was added for a Lambda that times out mid-work (aws-powertools/powertools-lambda issue #53, \"Idempotency and Lambda timeouts\").",
        { ...at, seconds: FUNCTION_TIMEOUT_MS / 1000 },
      ),
  },
  {
    server: "powertools",
    case: "other-caller",
    verdict: "leak",
    refs: { key: powertools("persistence/BasePersistenceLayer.js", /idempotencyKeyPrefix\}#/) },
    text: (at) =>
      t(
        'The record\'s key hashes only what eventKeyJmesPath selects ({key}), here the header. Selecting the caller too, [headers.authorization, headers."idempotency-key"], would scope it.',
        at,
      ),
  },
  {
    server: "powertools",
    case: "quoted-key",
    verdict: "duplicate",
    refs: { key: powertools("persistence/BasePersistenceLayer.js", /idempotencyKeyPrefix\}#/) },
    text: (at) =>
      t(
        'The hash is of the header\'s text ({key}): "k" and k hash apart, and the report was filed twice.',
        at,
      ),
  },
  {
    server: "powertools",
    case: "concurrent",
    verdict: "safe",
    refs: {
      busy: powertools("IdempotencyHandler.js", /throw new IdempotencyAlreadyInProgressError/),
    },
    text: (at) =>
      t(
        "Safe, but the second request was told 500: the package throws IdempotencyAlreadyInProgressError ({busy}), and a Lambda error reaches the client as a 5xx unless the handler catches it and answers 409 itself.",
        at,
      ),
  },
  {
    server: "fenced",
    case: "handler-500",
    verdict: "stuck",
    refs: {
      saved: failureSaved,
    },
    text: (at) =>
      t(
        "The reference is stuck too, on purpose: once the work began, a failure is the key's result and is replayed, as Stripe's API v1 does ({saved}). A failure after a partial effect is never run twice; the price is that the caller needs a new key to try again. The tracker has one failure, its work throwing, so its two failure cells are the same run.",
        at,
      ),
  },
  {
    server: "fenced",
    case: "handler-throws",
    verdict: "stuck",
    refs: {
      saved: failureSaved,
    },
    text: (at) => t("The same rule as the 500 above ({saved}).", at),
  },
  {
    server: "fenced",
    case: "different-path",
    verdict: "safe",
    refs: { route: workbook("lib/protocol/fingerprint.ts", /createHash\("sha256"\)/) },
    text: (at) =>
      t(
        "The tracker has no /triage route: 404, nothing stored. Its fingerprint covers the method and the route ({route}), so the key on a second route of its own would be refused with 422.",
        at,
      ),
  },
];

/**
 * What the lesson prints under a cell: the explanation with its places filled in; for a cell whose
 * verdict is not the one its explanation was written for, a warning first; for a surprising cell
 * with no explanation, a sentence that says so. Undefined for a safe cell that needs none.
 */
export function noteFor(server: ServerName, name: CaseName, verdict: Verdict): string | undefined {
  const e = EXPLANATIONS.find((x) => x.server === server && x.case === name);
  if (!e)
    return verdict === "safe"
      ? undefined
      : t(
          "No explanation was written for this result: the package may have changed since this lesson.",
        );
  const at = Object.fromEntries(Object.entries(e.refs).map(([k, ref]) => [k, locate(ref)]));
  if (e.verdict === verdict) return e.text(at);
  return t(
    'This explanation was written for "{expected}", and this run found "{found}": the package may have changed. {text}',
    { expected: verdictName(e.verdict), found: verdictName(verdict), text: e.text(at) },
  );
}

/** Every place the explanations name, located now (for the test that they are all found). */
export function allPlaces(): string[] {
  return EXPLANATIONS.flatMap((e) => Object.values(e.refs).map(locate));
}
