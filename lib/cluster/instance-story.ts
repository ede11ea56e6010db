/**
 * What lesson 10 says happened among the instances (sections 1, 2 and 4), read from the run: the
 * agent's attempts, the instance each one went to (the balancer's routes), and what the instances
 * told (their events). Each sentence is built from those, so that it says what this run did, not
 * what the lesson expected it to do.
 *
 * The claims (with their fences) and the reports filed are read from the instances' events: from
 * what an event says as data (its `what`, `report`, `fence`, `was`) where the tracker gives it, else
 * from its English words (the PostgreSQL store's "claimed as in_progress, fence N" and "TAKEN OVER
 * …, fence N (was M)", the database's "INSERT report N … · COMMIT" or "… · ROLLBACK"). Which
 * instance replayed, met a held key or lost its answer is read from the attempts and the routes.
 */
import type { Attempt } from "../client/client.ts";
import { currentLang, t } from "../core/i18n.ts";
import type { ClusterRun, InstanceEvent } from "./trackers.ts";

/** A claim of a key, as an instance told it: a new claim, or a take-over of one whose lease ran out. */
export interface ClaimSeen {
  instance: number;
  requestNo: number;
  fence: number;
  /** The fence of the claim it took over (absent: a new claim). */
  takenFrom?: number;
}

/**
 * What a tracker event says as data, where the tracker gives it beside its sentence: the words may be
 * translated, the data is not.
 */
interface EventData {
  what?: string;
  report?: number;
  fence?: number;
  was?: number;
}

/** The claims in `events`, in order. */
export function claimsIn(events: readonly InstanceEvent[]): ClaimSeen[] {
  const claims: ClaimSeen[] = [];
  for (const e of events) {
    const { what, fence, was } = e as InstanceEvent & EventData;
    const at = { instance: e.instance, requestNo: e.requestNo };
    if (what !== undefined) {
      if (what === "take-over" && fence !== undefined && was !== undefined)
        claims.push({ ...at, fence, takenFrom: was });
      else if (what === "claim" && fence !== undefined) claims.push({ ...at, fence });
      continue;
    }
    const over = /TAKEN OVER \(lease ran out\), fence (\d+) \(was (\d+)\)/.exec(e.text);
    const fresh = /claimed as in_progress, fence (\d+)/.exec(e.text);
    if (over) claims.push({ ...at, fence: Number(over[1]), takenFrom: Number(over[2]) });
    else if (fresh) claims.push({ ...at, fence: Number(fresh[1]) });
  }
  return claims;
}

/** A report an instance inserted: kept (its transaction committed) or undone (rolled back). */
export interface FilingSeen {
  instance: number;
  requestNo: number;
  report: number;
  committed: boolean;
}

/** The reports the instances inserted, in order, and whether each transaction committed. */
export function filingsIn(events: readonly InstanceEvent[]): FilingSeen[] {
  const filings: FilingSeen[] = [];
  for (const e of events) {
    if (e.actor !== "database") continue;
    const { what, report } = e as InstanceEvent & EventData;
    const at = { instance: e.instance, requestNo: e.requestNo };
    if (what !== undefined) {
      if ((what === "insert" || what === "rollback") && report !== undefined)
        filings.push({ ...at, report, committed: what === "insert" });
      continue;
    }
    const m = /INSERT report (\d+)\b.*· (COMMIT|ROLLBACK)/.exec(e.text);
    if (m) filings.push({ ...at, report: Number(m[1]), committed: m[2] === "COMMIT" });
  }
  return filings;
}

/** The instances (in order, each once) whose attempts got an answer matching `test`, or none. */
function instancesWhere(run: ClusterRun, test: (a: Attempt) => boolean): number[] {
  const found = run.attempts.flatMap((a, i) =>
    test(a) && run.routes[i] !== undefined ? [run.routes[i]] : [],
  );
  return [...new Set(found)];
}

const replayed = (a: Attempt): boolean =>
  a.outcome.kind === "response" && a.outcome.headers["idempotent-replayed"] === "true";
const refused409 = (a: Attempt): boolean =>
  a.outcome.kind === "response" && a.outcome.status === 409;
const unanswered = (a: Attempt): boolean => a.outcome.kind !== "response";

/** "1", "1 and 2", "1, 2 and 3"; in Chinese "1、2 和 3". */
export function andList(items: readonly (string | number)[]): string {
  const s = items.map(String);
  if (s.length <= 1) return s[0] ?? "";
  const zh = currentLang() === "zh";
  return `${s.slice(0, -1).join(zh ? "、" : ", ")}${zh ? " 和 " : " and "}${s.at(-1)}`;
}

/** Clauses that each say one thing, joined into one line: "a; b" (in Chinese "a；b"). */
export function clauses(parts: readonly string[]): string {
  return parts.join(currentLang() === "zh" ? "；" : "; ");
}

/** The first report kept, by whom, and whether that instance's answer never reached the agent. */
function firstFiling(run: ClusterRun): string {
  const first = filingsIn(run.events).find((f) => f.committed);
  if (first === undefined) return t("no instance filed the report");
  const values = { instance: first.instance, report: first.report };
  return instancesWhere(run, unanswered).includes(first.instance)
    ? t("instance {instance} filed report {report} and lost its answer", values)
    : t("instance {instance} filed report {report}", values);
}

/** The reports kept after the first one: one clause each. */
function againFilings(run: ClusterRun, sharedKeys: boolean): string[] {
  const again = filingsIn(run.events)
    .filter((f) => f.committed)
    .slice(1);
  if (again.length === 0) return [t("no other instance filed it")];
  return again.map(({ instance }) =>
    sharedKeys
      ? t("instance {instance} filed it again", { instance })
      : t("instance {instance} found the key in no table it can see and filed it again", {
          instance,
        }),
  );
}

/** Section 1: keys in each instance's own file, and the reports each file holds. */
export function ownFiles(run: ClusterRun, perInstance: readonly number[]): string {
  return t("{story} (reports per instance: {counts})", {
    story: clauses([firstFiling(run), ...againFilings(run, false)]),
    counts: perInstance.join(", "),
  });
}

/** Section 2: keys in the shared PostgreSQL; who filed, and who answered from the key table. */
export function sharedKeys(run: ClusterRun): string {
  const filers = new Set(filingsIn(run.events).map((f) => f.instance));
  const replayers = instancesWhere(run, replayed).map((instance) =>
    filers.has(instance)
      ? t("instance {instance} replayed the stored 201 from the shared key table", { instance })
      : t(
          "instance {instance}, which did none of the work, replayed the stored 201 from the shared key table",
          { instance },
        ),
  );
  const rest = replayers.length > 0 ? replayers : againFilings(run, true);
  return clauses([firstFiling(run), ...rest]);
}

/** Section 4: who took the key over, and what the holder did when it woke (`heldFence`: the key's). */
export function paused(run: ClusterRun & { heldFence: number }): string {
  const { heldFence } = run;
  const claims = claimsIn(run.events);
  const filings = filingsIn(run.events);
  const first = claims.find((c) => c.takenFrom === undefined);
  const over = claims.find((c) => c.takenFrom !== undefined);
  if (first === undefined || over === undefined) {
    const seen = claims.map((c) =>
      t("instance {instance}, fence {fence}", { instance: c.instance, fence: c.fence }),
    );
    return seen.length === 0
      ? t("no claim seen, and no take-over")
      : t("claims seen: {claims}; no take-over", { claims: clauses(seen) });
  }
  const filed = filings.find((f) => f.instance === over.instance && f.committed);
  const overPart = filed
    ? t("instance {instance} took the key over and filed report {report}", {
        instance: over.instance,
        report: filed.report,
      })
    : t("instance {instance} took the key over and filed nothing", { instance: over.instance });
  const woke = filings.find((f) => f.instance === first.instance);
  const values = {
    instance: first.instance,
    report: woke?.report ?? 0,
    fence: first.fence,
    held: heldFence,
    drawn: over.fence,
  };
  const wokePart =
    woke === undefined
      ? t("instance {instance} woke and filed nothing", values)
      : woke.committed
        ? t(
            "instance {instance} woke, completed the key whoever held it, and filed a second, report {report}",
            values,
          )
        : heldFence === over.fence
          ? t(
              "instance {instance} woke with fence {fence} while the key held fence {held}: its UPDATE changed 0 rows, its transaction rolled back, report {report} included",
              values,
            )
          : t(
              "instance {instance} woke with fence {fence} while the key held fence {held} (the take-over drew {drawn}): its UPDATE changed 0 rows, its transaction rolled back, report {report} included",
              values,
            );
  return clauses([overPart, wokePart]);
}

/**
 * Section 4, fenced: why the take-over's fence is not the next number after the first claim's. The
 * claim's nextval runs before ON CONFLICT looks at the index, so a claim that inserts nothing still
 * uses up a number: the numbers no claim was seen holding are the gap, and the requests that met
 * the held key (a 409 while the lease ran, and the take-over's own INSERT) are the ones that used it.
 */
export function fenceGap(run: ClusterRun): string {
  const claims = claimsIn(run.events);
  const first = claims.find((c) => c.takenFrom === undefined);
  const over = claims.find((c) => c.takenFrom !== undefined);
  if (first === undefined || over === undefined)
    return t("No claim took the key over in this run, so there is no fence to explain.");
  const held = new Set(claims.map((c) => c.fence));
  const skipped = Array.from(
    { length: Math.max(over.fence - first.fence - 1, 0) },
    (_, i) => first.fence + 1 + i,
  ).filter((n) => !held.has(n));
  const met = [...new Set([...instancesWhere(run, refused409), over.instance])].filter(
    (i) => i !== first.instance,
  );
  const values = {
    fence: over.fence,
    next: first.fence + 1,
    holder: first.instance,
    taker: over.instance,
    count: met.length,
    met: andList(met),
    skipped: andList(skipped),
  };
  if (skipped.length === 0)
    return t(
      "Fence {fence}: no number was used up between instance {holder}'s claim and instance {taker}'s take-over.",
      values,
    );
  return met.length === skipped.length
    ? t(
        "Fence {fence}, not {next}: the claim's nextval('idempotency_fence') runs even when ON CONFLICT DO NOTHING then inserts nothing, so the claims of {count, plural, one {instance} other {instances}} {met} that met instance {holder}'s row used up {skipped} before instance {taker}'s take-over drew {fence}. The gap is harmless: a fencing token only has to grow.",
        values,
      )
    : t(
        "Fence {fence}, not {next}: the claim's nextval('idempotency_fence') runs even when ON CONFLICT DO NOTHING then inserts nothing, so claims that inserted nothing used up {skipped} ({count, plural, one {instance} other {instances}} {met} met instance {holder}'s row) before instance {taker}'s take-over drew {fence}. The gap is harmless: a fencing token only has to grow.",
        values,
      );
}
