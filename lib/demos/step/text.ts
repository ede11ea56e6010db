/**
 * Demo 2's words, in English and Chinese, for the server's HTML and the page's script alike: the
 * labels, the choices, and one sentence per kind of step, written from the step's data
 * (lib/matrix/cell-events.ts). The terminal's own line (as lesson 08 prints it, in the page's language:
 * the cell's process is started with it) is shown beside each step as well. The Chinese uses the
 * workbook's terms (the course page's): 占键, 服务端, 处理函数, fencing token…
 */
import type { PolicyName } from "../../client/client.ts";
import type { CellEvent } from "../../matrix/cell-events.ts";
import type { StepFault } from "../../matrix/matrix.ts";
import { VARIANT_KEEPS, type VariantName } from "../../tracker/variant.ts";
import type { Lang, Text } from "../lang.ts";

// The choices themselves are not listed here: the page offers the variants, faults and policies the
// code has (VARIANT_NAMES, STEP_FAULTS, POLICY_NAMES), and each needs its words below, no more, no
// fewer (the Records are keyed by their types). Types only, and the variants' plain table of what they
// keep, so the page's bundle takes in no server code.

export const UI = {
  title: {
    en: "Demo 2 · Step through a fault on the real tracker",
    zh: "演示 2 · 在真实的 Bug 库服务上单步看一次故障",
  },
  summary: {
    en: "Pick a service, a fault and a client, then step through every request: what the agent sent and heard, what the server did, the SQL that ran, and how many reports the SQLite file holds after each step. Every step is lesson 08 running live on this machine.",
    zh: "选一种服务实现、一种故障和一种客户端，然后单步看每一次请求：Agent 发了什么、收到了什么，服务端做了什么，执行了哪条 SQL，每一步之后 SQLite 文件里有几份报告。每一步都是第 08 课在这台机器上真实地跑。",
  },
  lead: {
    en: "Nothing here is simulated: each tab runs its own bug tracker (real node:http, a real SQLite file, crash cells in real processes killed with SIGKILL), the same code as npm run lesson 8 -- --step.",
    zh: "这里没有任何模拟：每个标签页都有自己的 Bug 库服务（真的 node:http、真的 SQLite 文件；崩溃类故障在真的进程里跑，用 SIGKILL 杀掉），跑的代码和 npm run lesson 8 -- --step 是同一份。",
  },
  variant: { en: "Service", zh: "服务实现" },
  fault: { en: "Fault", zh: "故障" },
  policy: { en: "Client", zh: "客户端" },
  load: { en: "Load this cell", zh: "载入这一格" },
  step: { en: "Step", zh: "单步" },
  run: { en: "Run to the end", zh: "运行到结束" },
  restart: { en: "Start again", zh: "重新开始" },
  reports: { en: "Reports in the database", zh: "库里的报告" },
  readFrom: {
    en: "read from the session's SQLite file after each step",
    zh: "每一步之后从本会话的 SQLite 文件里读出",
  },
  sequence: { en: "Sequence", zh: "时序" },
  agent: { en: "agent", zh: "Agent" },
  server: { en: "server", zh: "服务端" },
  database: { en: "database", zh: "数据库" },
  lesson: { en: "lesson", zh: "课程" },
  knows: { en: "What the agent knows", zh: "Agent 知道的" },
  happened: { en: "What really happened", zh: "实际发生的" },
  keyRow: { en: "The idempotency-key row", zh: "幂等键的那一行" },
  colKey: { en: "key", zh: "键" },
  colState: { en: "state", zh: "状态" },
  colFence: { en: "fence", zh: "fence" },
  colLease: { en: "lease until (ms)", zh: "租约到期（ms）" },
  colAnswer: { en: "stored answer", zh: "存下的响应" },
  noKeys: { en: "No key row yet.", zh: "还没有键的记录。" },
  naiveNoKeys: { en: "This service keeps no idempotency keys.", zh: "这种服务实现不保存幂等键。" },
  log: { en: "Step log", zh: "单步记录" },
  terminal: { en: "terminal", zh: "终端" },
  starting: { en: "Starting this tab's tracker…", zh: "正在启动本标签页的 Bug 库……" },
  ready: { en: "Ready: press Step.", zh: "准备好了：按“单步”。" },
  full: {
    en: "Too many sessions: at most 8 tabs can step at once on this server. Close another tab of this page, then Start again.",
    zh: "会话太多：这台演示服务器最多同时单步 8 个标签页。关掉这个页面的另一个标签页，再按“重新开始”。",
  },
  gone: {
    en: "This session is over (finished, idle for 10 minutes, or stopped): its tracker and files are gone. Press Start again.",
    zh: "这个会话已经结束（跑完了、空闲了 10 分钟，或被停掉了）：它的 Bug 库和文件都已删除。请按“重新开始”。",
  },
  failed: { en: "The cell failed: ", zh: "这次运行出错：" },
  inProcess: { en: "tracker in this session's process, PID", zh: "Bug 库在本会话的进程里，PID" },
  trackerPid: { en: "tracker process PID", zh: "Bug 库进程 PID" },
  clock: { en: "tracker clock", zh: "Bug 库的时钟" },
  doneOk: { en: "One logical call, one report.", zh: "一次逻辑调用，一份报告。" },
  doneDup: {
    en: "One logical call, and the report was filed more than once.",
    zh: "一次逻辑调用，库里却存了不止一份报告。",
  },
  doneLost: {
    en: "One logical call, and no report at all.",
    zh: "一次逻辑调用，却一份报告都没有。",
  },
  secondCall: { en: "second call: ", zh: "第二次调用：" },
  finalKnows: { en: "At the end the agent holds:", zh: "最后 Agent 知道的是：" },
} satisfies Record<string, Text>;

export const VARIANT_HELP: Record<VariantName, Text> = {
  naive: { en: "every POST inserts a report", zh: "每个 POST 都插入一份报告" },
  "key-after": {
    en: "insert and commit, then record the key in a second commit",
    zh: "先插入并提交，再用第二次提交记录键",
  },
  keyed: {
    en: "claim the key with a lease, work, store report and answer in one transaction",
    zh: "先占键（带租约），做事，再把报告和响应放进同一个事务存下",
  },
  fenced: {
    en: "keyed plus a fencing token checked by the completing write",
    zh: "keyed 再加上 fencing token，完成写入时检查它",
  },
};

export const FAULT_HELP: Record<StepFault, Text> = {
  none: {
    en: "no fault: the request is handled and answered",
    zh: "没有故障：请求照常处理、照常响应",
  },
  "drop-request": {
    en: "the request is swallowed before any handler runs",
    zh: "请求在任何处理函数运行之前就被吞掉",
  },
  "lose-response": {
    en: "committed, then the answer is lost on the way back",
    zh: "提交了，响应在回来的路上丢了",
  },
  slow: {
    en: "the handler stalls past the agent's timeout",
    zh: "处理函数卡住，直到 Agent 超时",
  },
  concurrent: {
    en: "two calls for one report at once, with one key",
    zh: "同键并发：同一份报告的两次调用同时到达",
  },
  "crash-between-commits": {
    en: "the tracker process is killed (SIGKILL) right after the report's commit",
    zh: "报告提交之后 Bug 库进程立刻被杀（SIGKILL）",
  },
  "crash-after-claim": {
    en: "the tracker process is killed right after claiming the key",
    zh: "占键之后 Bug 库进程立刻被杀",
  },
  "pause-past-lease": {
    en: "the holder stops until another request has taken its key over",
    zh: "持有者停住，直到另一个请求接管了它的键",
  },
};

export const POLICY_HELP: Record<PolicyName, Text> = {
  "no-retry": { en: "one attempt, never again", zh: "只试一次" },
  "blind-retry": { en: "resends with no key", zh: "盲目重试：不带键重发" },
  "fresh-key": {
    en: "a new Idempotency-Key each attempt",
    zh: "每次尝试换一个新的 Idempotency-Key",
  },
  "same-key": {
    en: "one key per logical call, on every retry",
    zh: "一次逻辑调用一个键，每次重试都复用它",
  },
};

/** The key row's columns, in the order the table shows them. */
export const KEY_COLUMNS = ["key", "state", "fence", "lease", "answer"] as const;
export type KeyColumn = (typeof KEY_COLUMNS)[number];

/**
 * The key table's columns for a variant: only what the variant has (lib/tracker/variant.ts's
 * VARIANT_KEEPS): a lease from keyed on (lesson 04's claim), a fencing token only for fenced
 * (lesson 05); key-after records a key and its answer.
 */
export function keyColumns(variant: VariantName): KeyColumn[] {
  const keeps = VARIANT_KEEPS[variant];
  return KEY_COLUMNS.filter(
    (c) => (c !== "fence" || keeps.fence) && (c !== "lease" || keeps.lease),
  );
}

export const KEY_COLUMN_TITLE: Record<KeyColumn, Text> = {
  key: UI.colKey,
  state: UI.colState,
  fence: UI.colFence,
  lease: UI.colLease,
  answer: UI.colAnswer,
};

/** "1 report", "2 reports · duplicate": begins with the number, as #report-count must. */
export function countText(reports: number, lang: Lang, final: boolean): string {
  const verdict =
    !final || reports === 1
      ? ""
      : reports > 1
        ? lang === "zh"
          ? " · 重复"
          : " · duplicate"
        : lang === "zh"
          ? " · 丢失"
          : " · lost";
  if (lang === "zh") return `${reports} 份报告${verdict}`;
  return `${reports} report${reports === 1 ? "" : "s"}${verdict}`;
}

const L = (lang: Lang, en: string, zh: string): string => (lang === "zh" ? zh : en);

/**
 * One sentence for a step, in the page's language, from the step's data. Given the cell's variant,
 * a fencing token is named only where the variant has one (fenced).
 */
export function stepText(e: CellEvent, lang: Lang, variant?: VariantName): string {
  const fenced = variant === undefined || variant === "fenced";
  // A restarted tracker numbers its requests from #1 again: say which process it was.
  const again =
    e.generation !== undefined && e.generation > 1 && e.actor !== "lesson"
      ? L(lang, "[restarted] ", "[重启后] ")
      : "";
  const r = e.request !== undefined ? `${again}#${e.request} ` : "";
  switch (e.what) {
    case "send":
      return L(
        lang,
        `attempt ${e.attempt} → POST /reports${e.key ? ` (key ${e.key}…)` : " (no key)"}`,
        `第 ${e.attempt} 次尝试 → POST /reports${e.key ? `（键 ${e.key}…）` : "（不带键）"}`,
      );
    case "receive":
      return L(
        lang,
        `attempt ${e.attempt} ← ${outcomeText(e, "en")}`,
        `第 ${e.attempt} 次尝试 ← ${outcomeText(e, "zh")}`,
      );
    case "arrived":
      return L(lang, `${r}POST /reports arrives`, `${r}POST /reports 到达`);
    case "dropped":
      return L(
        lang,
        `${r}dropped: no handler runs, nothing is said`,
        `${r}被丢弃：处理函数没有运行，也没有任何响应`,
      );
    case "stall":
      return L(lang, `${r}the handler stalls`, `${r}处理函数卡住`);
    case "wake":
      return L(lang, `${r}the handler wakes up and carries on`, `${r}处理函数醒来，接着往下做`);
    case "look-up":
      return L(lang, `${r}key not recorded yet: go ahead`, `${r}键还没有记录：接着做`);
    case "claim":
      return fenced && e.fence !== undefined
        ? L(
            lang,
            `${r}claim the key: in_progress, fence ${e.fence} · COMMIT`,
            `${r}占键：in_progress，fence ${e.fence} · COMMIT`,
          )
        : L(lang, `${r}claim the key: in_progress · COMMIT`, `${r}占键：in_progress · COMMIT`);
    case "take-over":
      return fenced && e.fence !== undefined
        ? L(
            lang,
            `${r}lease ran out: TAKE OVER, fence ${e.fence} (was ${e.was}) · COMMIT`,
            `${r}租约到期：接管，fence ${e.fence}（原来是 ${e.was}）· COMMIT`,
          )
        : L(lang, `${r}lease ran out: TAKE OVER · COMMIT`, `${r}租约到期：接管 · COMMIT`);
    case "insert":
      return L(
        lang,
        `${r}INSERT report ${e.report} · COMMIT`,
        `${r}INSERT 报告 ${e.report} · COMMIT`,
      );
    case "record-key":
      return L(
        lang,
        `${r}record the key with the answer · COMMIT (second commit)`,
        `${r}记下键和响应 · COMMIT（第二次提交）`,
      );
    case "store-error":
      return L(lang, `${r}store the 500 under the key · COMMIT`, `${r}把 500 记在键下 · COMMIT`);
    case "rollback":
      return L(
        lang,
        `${r}fence check changed 0 rows · ROLLBACK${e.report ? ` (report ${e.report} undone)` : ""}`,
        `${r}fence 检查改动了 0 行 · ROLLBACK${e.report ? `（报告 ${e.report} 被撤销）` : ""}`,
      );
    case "replay":
      return L(
        lang,
        `${r}key completed before: replay the stored ${e.status}`,
        `${r}键已完成：重放存下的 ${e.status}`,
      );
    case "409":
      return L(lang, `${r}key in progress: 409, retry later`, `${r}键还在处理中：409，稍后重试`);
    case "422":
      return L(lang, `${r}key used for another request: 422`, `${r}键被另一个请求用过：422`);
    case "fenced-out":
      return L(
        lang,
        `${r}fenced out: the key belongs to fence ${e.fence ?? "–"} now`,
        `${r}被 fence 挡住：键现在属于 fence ${e.fence ?? "–"}`,
      );
    case "crash":
      return L(
        lang,
        `${r}process ${e.pid ?? ""} killed: SIGKILL`,
        `${r}进程 ${e.pid ?? ""} 被杀：SIGKILL`,
      );
    case "lost":
      return L(
        lang,
        `${r}the answer (${e.status}) is lost on the way back`,
        `${r}响应（${e.status}）在回来的路上丢了`,
      );
    case "answer":
      return L(lang, `${r}→ ${e.status}`, `${r}→ ${e.status}`);
    case "hung-up":
      return L(
        lang,
        `${r}→ ${e.status}, but the agent had already hung up`,
        `${r}→ ${e.status}，但 Agent 早就断开了`,
      );
    case "failed":
      return L(lang, `${r}the handler fails`, `${r}处理函数出错`);
    case "process-start":
      return L(lang, `tracker process started, PID ${e.pid}`, `Bug 库进程启动，PID ${e.pid}`);
    case "restart":
      return L(
        lang,
        `PID ${e.oldPid} is gone (${e.signal ?? "exit"}); PID ${e.pid} starts on the same file`,
        `PID ${e.oldPid} 已经没了（${e.signal ?? "退出"}）；PID ${e.pid} 在同一个文件上启动`,
      );
    case "clock":
      return L(
        lang,
        `the tracker's clock: ${e.from} → ${e.to} ms (what the agent waited)`,
        `Bug 库的时钟：${e.from} → ${e.to} ms（Agent 等待的时间）`,
      );
    case "release":
      return L(lang, "the lesson lets #1 go on", "课程放行 #1，让它接着做");
    case "other":
      return e.text;
  }
}

/** What an attempt's outcome tells the agent. */
export function outcomeText(e: CellEvent, lang: Lang): string {
  const o = e.outcome ?? "";
  if (o === "timeout")
    return L(
      lang,
      "no answer in time: filed or not, it cannot tell",
      "超时，没有响应：到底提交了没有，它无从知道",
    );
  if (o === "error")
    return L(
      lang,
      "connection cut: filed or not, it cannot tell",
      "连接被切断：到底提交了没有，它无从知道",
    );
  if (o.endsWith("replayed"))
    return L(
      lang,
      `${e.status}, report ${e.report}, replayed: the same call as before`,
      `${e.status}，报告 ${e.report}，重放：和之前是同一次调用`,
    );
  if (e.status !== undefined && e.status < 300)
    return L(
      lang,
      `${e.status}, report ${e.report}: filed`,
      `${e.status}，报告 ${e.report}：已提交`,
    );
  if (e.status === 409)
    return L(lang, "409: the key is busy, wait and ask again", "409：键正忙，等一等再问");
  if (e.status === 422)
    return L(lang, "422: the key was used for another request", "422：键被另一个请求用过");
  if (e.status === 400)
    return L(
      lang,
      "400: refused (this service wants an Idempotency-Key)",
      "400：被拒绝（这种服务要求 Idempotency-Key）",
    );
  return `${o}`;
}
