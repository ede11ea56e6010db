/**
 * What lesson 10 says happened among the instances (sections 1, 2 and 4), read from the run: the
 * agent's attempts, the instance each one went to (the balancer's routes), and what the instances
 * told (their events). Each sentence is built from those, so that it says what this run did, not
 * what the lesson expected it to do.
 *
 * The claims (with their fences) and the reports filed are read from the instances' events: the
 * PostgreSQL store's "claimed as in_progress, fence N" and "TAKEN OVER …, fence N (was M)", and the
 * database's "INSERT report N … · COMMIT" or "… · ROLLBACK". Which instance replayed, met a held key
 * or lost its answer is read from the attempts and the routes.
 */
import type { Attempt } from "../client/client.ts";
import type { ClusterRun, InstanceEvent } from "./trackers.ts";

/** A claim of a key, as an instance told it: a new claim, or a take-over of one whose lease ran out. */
export interface ClaimSeen {
  instance: number;
  requestNo: number;
  fence: number;
  /** The fence of the claim it took over (absent: a new claim). */
  takenFrom?: number;
}

/** The claims in `events`, in order. */
export function claimsIn(events: readonly InstanceEvent[]): ClaimSeen[] {
  const claims: ClaimSeen[] = [];
  for (const e of events) {
    const over = /TAKEN OVER \(lease ran out\), fence (\d+) \(was (\d+)\)/.exec(e.text);
    const fresh = /claimed as in_progress, fence (\d+)/.exec(e.text);
    if (over)
      claims.push({
        instance: e.instance,
        requestNo: e.requestNo,
        fence: Number(over[1]),
        takenFrom: Number(over[2]),
      });
    else if (fresh)
      claims.push({ instance: e.instance, requestNo: e.requestNo, fence: Number(fresh[1]) });
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
    const m = /INSERT report (\d+)\b.*· (COMMIT|ROLLBACK)/.exec(e.text);
    if (m)
      filings.push({
        instance: e.instance,
        requestNo: e.requestNo,
        report: Number(m[1]),
        committed: m[2] === "COMMIT",
      });
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

/** "1", "1 and 2", "1, 2 and 3". */
export function andList(items: readonly (string | number)[]): string {
  const s = items.map(String);
  return s.length <= 1 ? (s[0] ?? "") : `${s.slice(0, -1).join(", ")} and ${s.at(-1)}`;
}

/** The first report kept, by whom, and whether that instance's answer never reached the agent. */
function firstFiling(run: ClusterRun): string {
  const first = filingsIn(run.events).find((f) => f.committed);
  if (first === undefined) return "no instance filed the report";
  return instancesWhere(run, unanswered).includes(first.instance)
    ? `instance ${first.instance} filed report ${first.report} and lost its answer`
    : `instance ${first.instance} filed report ${first.report}`;
}

/** The reports kept after the first one: one clause each. */
function againFilings(run: ClusterRun, sharedKeys: boolean): string[] {
  const again = filingsIn(run.events)
    .filter((f) => f.committed)
    .slice(1);
  if (again.length === 0) return ["no other instance filed it"];
  return again.map((f) =>
    sharedKeys
      ? `instance ${f.instance} filed it again`
      : `instance ${f.instance} found the key in no table it can see and filed it again`,
  );
}

/** Section 1: keys in each instance's own file, and the reports each file holds. */
export function ownFilesStory(run: ClusterRun, perInstance: readonly number[]): string {
  const story = [firstFiling(run), ...againFilings(run, false)].join("; ");
  return `${story} (reports per instance: ${perInstance.join(", ")})`;
}

/** Section 2: keys in the shared PostgreSQL; who filed, and who answered from the key table. */
export function sharedKeysStory(run: ClusterRun): string {
  const filers = new Set(filingsIn(run.events).map((f) => f.instance));
  const replayers = instancesWhere(run, replayed).map((i) =>
    filers.has(i)
      ? `instance ${i} replayed the stored 201 from the shared key table`
      : `instance ${i}, which did none of the work, replayed the stored 201 from the shared key table`,
  );
  const rest = replayers.length > 0 ? replayers : againFilings(run, true);
  return [firstFiling(run), ...rest].join("; ");
}

/** Section 4: who took the key over, and what the holder did when it woke (`heldFence`: the key's). */
export function pausedStory(run: ClusterRun & { heldFence: number }): string {
  const { heldFence } = run;
  const claims = claimsIn(run.events);
  const filings = filingsIn(run.events);
  const first = claims.find((c) => c.takenFrom === undefined);
  const over = claims.find((c) => c.takenFrom !== undefined);
  if (first === undefined || over === undefined) {
    const seen = claims.map((c) => `instance ${c.instance}, fence ${c.fence}`).join("; ");
    return `claims seen: ${seen || "none"}; no take-over`;
  }
  const filed = filings.find((f) => f.instance === over.instance && f.committed);
  const overPart = filed
    ? `instance ${over.instance} took the key over and filed report ${filed.report}`
    : `instance ${over.instance} took the key over and filed nothing`;
  const woke = filings.find((f) => f.instance === first.instance);
  const wokePart =
    woke === undefined
      ? `instance ${first.instance} woke and filed nothing`
      : woke.committed
        ? `instance ${first.instance} woke, completed the key whoever held it, and filed a second, report ${woke.report}`
        : heldFence === over.fence
          ? `instance ${first.instance} woke with fence ${first.fence} while the key held fence ${heldFence}: its UPDATE changed 0 rows, its transaction rolled back, report ${woke.report} included`
          : `instance ${first.instance} woke with fence ${first.fence} while the key held fence ${heldFence} (the take-over drew ${over.fence}): its UPDATE changed 0 rows, its transaction rolled back, report ${woke.report} included`;
  return `${overPart}; ${wokePart}`;
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
    return "No claim took the key over in this run, so there is no fence to explain.";
  const held = new Set(claims.map((c) => c.fence));
  const skipped = Array.from(
    { length: Math.max(over.fence - first.fence - 1, 0) },
    (_, i) => first.fence + 1 + i,
  ).filter((n) => !held.has(n));
  if (skipped.length === 0)
    return `Fence ${over.fence}: no number was used up between instance ${first.instance}'s claim and instance ${over.instance}'s take-over.`;
  const met = [...new Set([...instancesWhere(run, refused409), over.instance])].filter(
    (i) => i !== first.instance,
  );
  const who = `${met.length === 1 ? "instance" : "instances"} ${andList(met)}`;
  const usedUp =
    met.length === skipped.length
      ? `so the claims of ${who} that met instance ${first.instance}'s row used up ${andList(skipped)}`
      : `so claims that inserted nothing used up ${andList(skipped)} (${who} met instance ${first.instance}'s row)`;
  return `Fence ${over.fence}, not ${first.fence + 1}: the claim's nextval('idempotency_fence') runs even when ON CONFLICT DO NOTHING then inserts nothing, ${usedUp} before instance ${over.instance}'s take-over drew ${over.fence}. The gap is harmless: a fencing token only has to grow.`;
}
