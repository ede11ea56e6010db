/**
 * Demo 1's words in English and Chinese, and the strategies' formulas as MathML (which Chromium,
 * Firefox and Safari render natively: no KaTeX, no CDN, never raw LaTeX). The Chinese follows the
 * course page's own wording for this demo where the facts agree with it, and its terms: the AWS
 * strategies keep their English names (Full Jitter…), numbers keep their units (ms).
 */
import { type BackoffParams, exponentialMs } from "../../client/backoff.ts";
import type { ConclusionId } from "../../herd/conclusions.ts";
import type { HerdStrategy } from "../../herd/simulator.ts";
import type { HerdChartLabels } from "../../herd/svg-docs.ts";
import type { Lang, Text } from "../lang.ts";

// --- MathML pieces.
const mi = (x: string): string => `<mi>${x}</mi>`;
const mn = (x: string): string => `<mn>${x}</mn>`;
const mo = (x: string): string => `<mo>${x}</mo>`;
const vn = `<msub>${mi("v")}${mi("n")}</msub>`;
const call = (f: string, ...args: string[]): string =>
  `${mi(f)}${mo("(")}${args.join(mo(","))}${mo(")")}`;
const math = (body: string, display = false): string =>
  `<math${display ? ' display="block"' : ""}><mrow>${body}</mrow></math>`;
const sleep = mi("s");

/** v_n = min(cap, base · 2^n): the capped exponential value every strategy starts from. */
export const VN_DEFINITION = math(
  `${vn}${mo("=")}${call("min", mi("cap"), `${mi("base")}${mo("·")}<msup>${mn("2")}${mi("n")}</msup>`)}`,
);

/** Each strategy's sleep before its n-th retry, as MathML. */
export const FORMULAS: Record<HerdStrategy, string> = {
  "no-backoff": math(`${sleep}${mo("=")}${mn("0")}`),
  exponential: math(`${sleep}${mo("=")}${vn}`),
  full: math(`${sleep}${mo("=")}${call("uniform", mn("0"), vn)}`),
  equal: math(
    `${sleep}${mo("=")}<mfrac>${vn}${mn("2")}</mfrac>${mo("+")}${call("uniform", mn("0"), `<mfrac>${vn}${mn("2")}</mfrac>`)}`,
  ),
  decorrelated: math(
    `${sleep}${mo("=")}${call("min", mi("cap"), call("uniform", mi("base"), `${mn("3")}<msub>${mi("s")}<mtext>prev</mtext></msub>`))}`,
  ),
  "codex-capped": math(`${sleep}${mo("=")}${vn}${mo("·")}${call("uniform", mn("0.9"), mn("1.1"))}`),
};

/** Strategy names for people; the CLI's name is shown beside them. */
export const STRATEGY_NAMES: Record<HerdStrategy, Text> = {
  "no-backoff": { en: "No backoff", zh: "不退避" },
  exponential: { en: "Exponential, no jitter", zh: "指数退避（无抖动）" },
  full: { en: "Full Jitter", zh: "Full Jitter" },
  equal: { en: "Equal Jitter", zh: "Equal Jitter" },
  decorrelated: { en: "Decorrelated Jitter", zh: "Decorrelated Jitter" },
  "codex-capped": { en: "Codex amplitude, capped", zh: "Codex 幅度（同样封顶）" },
};

/**
 * What each formula says, in words, for the page's base and cap: exponential's example waits (before
 * retries 1, 2 and 3) are computed by the function the simulator calls, so they follow the base.
 */
export function formulaCaption(strategy: HerdStrategy, backoff: BackoffParams): Text {
  if (strategy !== "exponential") return FORMULA_CAPTIONS[strategy];
  const waits = [1, 2, 3].map((n) =>
    exponentialMs(n, backoff).toLocaleString("en-US", {
      maximumFractionDigits: 2,
      useGrouping: false,
    }),
  );
  return {
    en: `the same wait for everyone who failed together: ${waits.join(", ")} … ms`,
    zh: `同时失败的客户端等一样久：${waits.join("、")}…… ms`,
  };
}

const FORMULA_CAPTIONS: Record<Exclude<HerdStrategy, "exponential">, Text> = {
  "no-backoff": { en: "retries at once, after one network hop", zh: "立即重试，只隔一次网络单程" },
  full: { en: "anywhere between 0 and the capped value", zh: "在 0 到封顶值之间均匀取值" },
  equal: {
    en: "at least half the capped value, plus up to half again",
    zh: "至少等封顶值的一半，再加上 0 到一半的随机值",
  },
  decorrelated: {
    en: "grows from the client's own last wait, not from n",
    zh: "从自己上一次的等待时间往上长，不看 n",
  },
  "codex-capped": {
    en: "the exponential value ±10 % (Codex's jitter), with the same cap",
    zh: "指数值上下浮动 10 %（Codex 的抖动），同样封顶",
  },
};

export const T = {
  title: { en: "Demo 1 · The thundering herd, live", zh: "演示 1 · 惊群模拟器" },
  intro: {
    en: "A port of the simulator behind the AWS Architecture Blog post “Exponential Backoff And Jitter” (Marc Brooker, 2015), a synthetic experiment: N clients read a row's version at the same moment and write it back; a write whose version moved meanwhile fails, and that client backs off and starts again from the read. Each one-way network hop takes |Normal(mean, deviation)| ms. “Codex amplitude” is the exponential value × uniform(0.9, 1.1), given the same cap so that only the size of the jitter differs.",
    zh: "移植 AWS 博客配套的模拟器（合成实验）：N 个客户端同时读一行的版本号再写回，版本号对不上就失败、退避后从读开始重来。网络单程延迟取正态分布（均值、标准差可调）的绝对值，单位 ms。“Codex 幅度”是指数值 × [0.9, 1.1) 的均匀随机数，为了公平对比也套上同样的封顶值。",
  },
  sameCode: {
    en: "It computes here, in your browser, in Web Workers, with the same simulator module that npm run herd runs: the same seed and parameters give the same numbers as npm run herd -- --csv, to the last digit. Its random numbers are not the Python original's, so the numbers differ a little from the blog's.",
    zh: "浏览器里实时计算（在 Web Worker 中），用的是和 npm run herd 同一个模拟器模块：同样的种子和参数，得到的数字与 npm run herd -- --csv 一位不差。随机数和原版 Python 不是同一串，所以和博客的数字会有小幅差别。",
  },
  calls: {
    en: "“Calls” counts write attempts only (the blog's “work”); “completion” is when the last client has written.",
    zh: "“调用次数”只算写请求（即博客说的“工作量”）；“完成时间”是最后一个客户端写成功的时刻。",
  },
  controls: { en: "Parameters", zh: "参数" },
  clients: { en: "Clients N", zh: "客户端数 N" },
  clientsHint: {
    en: "1 to 200: a list such as 10,50,100 or a sweep such as 10..190:10 (10 to 190 step 10)",
    zh: "1 到 200：列表如 10,50,100，或扫描如 10..190:10（10 到 190，步长 10）",
  },
  strategies: { en: "Strategies", zh: "退避策略" },
  formulaIntro: {
    en: "The sleep s before a client's n-th retry (n counts its failures so far, so n = 1 before the first retry), from the capped exponential value",
    zh: "客户端第 n 次重试前的等待时间 s（n 是到目前为止失败的次数，第一次重试前 n = 1），都从封顶指数值出发：",
  },
  runs: { en: "Runs per point", zh: "每个点的运行次数" },
  seed: { en: "Seed", zh: "种子" },
  base: { en: "Base (ms)", zh: "退避基数（ms）" },
  cap: { en: "Cap (ms)", zh: "封顶值（ms）" },
  mean: { en: "Latency mean (ms)", zh: "网络延迟均值（ms）" },
  sd: { en: "Latency deviation (ms)", zh: "网络延迟标准差（ms）" },
  run: { en: "Run", zh: "运行" },
  original: {
    en: "The original's whole sweep (N = 10..190 step 10, 100 runs a point)",
    zh: "原版的完整扫描（N = 10..190，步长 10，每点 100 次）",
  },
  results: { en: "Results", zh: "结果" },
  progress: { en: "Progress", zh: "进度" },
  idle: { en: "Not run yet.", zh: "还没有运行。" },
  atN: { en: "At the largest N", zh: "最大 N 时" },
  strategy: { en: "Strategy", zh: "策略" },
  formula: { en: "Sleep before retry n", zh: "第 n 次重试前的等待" },
  callsHead: { en: "Write calls per run", zh: "每次运行的写调用数" },
  completionHead: { en: "Completion (ms)", zh: "完成时间（ms）" },
  allPoints: { en: "Every point (the CSV's rows)", zh: "全部数据点（即 CSV 的各行）" },
  clientsHead: { en: "Clients", zh: "客户端数" },
  downloadCsv: { en: "Download CSV", zh: "下载 CSV" },
  downloadSvg: { en: "Download SVG", zh: "下载 SVG" },
  cliSame: { en: "The same rows from the terminal:", zh: "在终端里得到同样的数据：" },
  charts: { en: "Charts", zh: "图表" },
  wavesCaption: {
    en: "One run at the largest N, every write counted as it reaches the server: without jitter the herd comes back in waves, with full jitter it spreads out.",
    zh: "最大 N 时的一次运行，按写请求到达服务端的时间计数：没有抖动时客户端一波一波地回来，Full Jitter 则把它们摊开。",
  },
  conclusions: {
    en: "The blog's conclusions, checked against this run",
    zh: "用这次运行检验博客的结论",
  },
  source: {
    en: "Source: the AWS Architecture Blog, “Exponential Backoff And Jitter” (Marc Brooker, 2015), and its simulator (aws-samples/aws-arch-backoff-simulator); lesson 02 runs the same checks in the terminal (npm run lesson 2).",
    zh: "出处：AWS 架构博客 “Exponential Backoff And Jitter”（Marc Brooker，2015）及其配套模拟器（aws-samples/aws-arch-backoff-simulator）；第 02 课在终端里做同样的检验（npm run lesson 2）。",
  },
  noscript: {
    en: "This demo computes in your browser: it needs JavaScript.",
    zh: "这个演示在浏览器里计算，需要开启 JavaScript。",
  },
} satisfies Record<string, Text>;

export interface Numbers {
  /** A count or a time, grouped; `d` decimals at most. */
  n(value: number, d?: number): string;
  /** a / b as a percentage. */
  pct(a: number, b: number): string;
  /** a / b as "×2.3". */
  times(a: number, b: number): string;
  /** a / b as "2.3" (for "2.3 倍"). */
  ratio(a: number, b: number): string;
}

/** The status line (an aria-live region). */
export const STATUS = {
  computing: (lang: Lang, strategies: number, counts: number, runs: number): string =>
    lang === "zh"
      ? `计算中：${strategies} 种策略 × ${counts} 个客户端数 × 每点 ${runs} 次……`
      : `Computing: ${strategies} strateg${strategies === 1 ? "y" : "ies"} × ${counts} client count${counts === 1 ? "" : "s"} × ${runs} run${runs === 1 ? "" : "s"}…`,
  points: (lang: Lang, done: number, total: number): string =>
    lang === "zh" ? `已完成 ${done}/${total} 个点` : `${done} of ${total} points`,
  restarted: (lang: Lang): string =>
    lang === "zh"
      ? "参数变了：取消正在进行的计算，重新开始。"
      : "The parameters changed: the run in flight was cancelled; starting again.",
  done: (
    lang: Lang,
    seconds: string,
    points: number,
    calls: string,
    workers: number,
    supported: number,
    checked: number,
  ): string =>
    lang === "zh"
      ? `完成，用时 ${seconds} s（${workers} 个 Web Worker）：${points} 个点，共模拟 ${calls} 次写调用。本次运行支持博客 ${checked} 条结论中的 ${supported} 条。`
      : `Done in ${seconds} s (${workers} Web Worker${workers === 1 ? "" : "s"}): ${points} points, ${calls} write calls simulated. This run supports ${supported} of the ${checked} conclusions it could check.`,
  invalid: (lang: Lang): string =>
    lang === "zh" ? "参数有误，请先改正：" : "Please correct the parameters first:",
  failed: (lang: Lang, message: string): string =>
    lang === "zh" ? `计算出错：${message}` : `The computation failed: ${message}`,
};

export const VERDICT = {
  yes: { en: "✓ supported", zh: "✓ 支持" },
  no: { en: "✗ not supported by this run", zh: "✗ 本次运行不支持" },
  unknown: { en: "? not checked", zh: "? 未检验" },
  noisy: {
    en: "With few clients or runs the differences between the strategies are small next to the noise of the simulation: read these verdicts with care.",
    zh: "客户端数或运行次数较少时，策略之间的差别比模拟本身的噪声还小，这些判断仅供参考。",
  },
  missing: (lang: Lang, names: string): string =>
    lang === "zh" ? `需要 ${names}，本次运行没有选。` : `Needs ${names}, left out of this run.`,
} as const;

type V = Record<string, number>;

/** Each conclusion: the claim, and the numbers of this run behind the verdict. */
export const CONCLUSIONS: Record<
  ConclusionId,
  { claim: Text; detail: (lang: Lang, v: V, f: Numbers) => string }
> = {
  "no-backoff-n-squared": {
    claim: {
      en: "Without backoff, work grows roughly with N².",
      zh: "不退避时，工作量大约随 N² 增长。",
    },
    detail: (lang, v, f) =>
      v.growth === undefined
        ? lang === "zh"
          ? `需要至少两个客户端数才能比较；这次只有 ${v.n}（试试 10,50,100）。`
          : `Needs two client counts to compare; this run has only ${v.n} (try 10,50,100).`
        : lang === "zh"
          ? `不退避：${v.nLow} 个客户端时 ${f.n(v.low!, 1)} 次调用，${v.n} 个时 ${f.n(v.high!, 1)} 次：客户端增加到 ${f.n(v.clientsRatio!, 1)} 倍，调用增加到 ${f.n(v.growth, 1)} 倍，约为 N^${f.n(v.exponent!, 2)}（若是 N² 应为 ${f.n(v.clientsRatio! ** 2)} 倍，若是线性则为 ${f.n(v.clientsRatio!, 1)} 倍）。`
          : `no-backoff: ${f.n(v.low!, 1)} calls at ${v.nLow} clients, ${f.n(v.high!, 1)} at ${v.n}: ×${f.n(v.growth, 1)} for ×${f.n(v.clientsRatio!, 1)} clients, i.e. like N^${f.n(v.exponent!, 2)} (N² would be ×${f.n(v.clientsRatio! ** 2)}, linear ×${f.n(v.clientsRatio!, 1)}).`,
  },
  "exponential-work": {
    claim: {
      en: "Backoff without jitter barely helps with the work.",
      zh: "没有抖动的退避几乎不减少工作量。",
    },
    detail: (lang, v, f) =>
      lang === "zh"
        ? `指数退避的调用次数是不退避的 ${f.pct(v.exponential!, v.none!)}（${f.n(v.exponential!, 1)} 对 ${f.n(v.none!, 1)}）；Full Jitter 只有 ${f.pct(v.full!, v.none!)}。指数退避离“什么都不做”更近，离 Full Jitter 更远。`
        : `exponential used ${f.pct(v.exponential!, v.none!)} of no-backoff's calls (${f.n(v.exponential!, 1)} against ${f.n(v.none!, 1)}); full jitter used ${f.pct(v.full!, v.none!)}. Exponential is closer to doing nothing than to full jitter.`,
  },
  "exponential-time": {
    claim: {
      en: "Backoff without jitter is the clear loser on time.",
      zh: "没有抖动的退避在完成时间上明显最差。",
    },
    detail: (lang, v, f) =>
      lang === "zh"
        ? `指数退避用了 ${f.n(v.exponential!)} ms，是 Full Jitter（${f.n(v.full!)} ms）的 ${f.ratio(v.exponential!, v.full!)} 倍，不退避（${f.n(v.none!)} ms）的 ${f.ratio(v.exponential!, v.none!)} 倍。`
        : `exponential took ${f.n(v.exponential!)} ms to finish: ${f.times(v.exponential!, v.full!)} full jitter's ${f.n(v.full!)} ms and ${f.times(v.exponential!, v.none!)} no-backoff's ${f.n(v.none!)} ms.`,
  },
  "full-equal-work": {
    claim: {
      en: "Full and Equal jitter cost about the same work.",
      zh: "Full Jitter 和 Equal Jitter 的工作量差不多。",
    },
    detail: (lang, v, f) =>
      lang === "zh"
        ? `Full Jitter ${f.n(v.full!, 1)} 次调用，Equal Jitter ${f.n(v.equal!, 1)} 次，相差 ${f.pct(Math.abs(v.equal! - v.full!), v.full!)}。`
        : `full ${f.n(v.full!, 1)} calls, equal ${f.n(v.equal!, 1)}: ${f.pct(Math.abs(v.equal! - v.full!), v.full!)} apart.`,
  },
  "decorrelated-work": {
    claim: {
      en: "Decorrelated jitter costs somewhat more.",
      zh: "Decorrelated Jitter 的工作量稍多一些。",
    },
    detail: (lang, v, f) =>
      lang === "zh"
        ? `Decorrelated Jitter ${f.n(v.decorrelated!, 1)} 次调用：是 Full Jitter 的 ${f.pct(v.decorrelated!, v.full!)}，Equal Jitter 的 ${f.pct(v.decorrelated!, v.equal!)}。`
        : `decorrelated ${f.n(v.decorrelated!, 1)} calls: ${f.pct(v.decorrelated!, v.full!)} of full's, ${f.pct(v.decorrelated!, v.equal!)} of equal's.`,
  },
  "equal-slowest": {
    claim: {
      en: "Equal jitter is the slowest of the jittered ones.",
      zh: "带抖动的几种里，Equal Jitter 最慢。",
    },
    detail: (lang, v, f) =>
      lang === "zh"
        ? `完成时间：Equal Jitter ${f.n(v.equal!)} ms，Full Jitter ${f.n(v.full!)} ms，Decorrelated Jitter ${f.n(v.decorrelated!)} ms。`
        : `completion: equal ${f.n(v.equal!)} ms, full ${f.n(v.full!)} ms, decorrelated ${f.n(v.decorrelated!)} ms.`,
  },
  "jitter-default": {
    claim: { en: "Jittered backoff should be the default.", zh: "默认应该用带抖动的退避。" },
    detail: (lang, v, f) =>
      lang === "zh"
        ? `Full Jitter 的调用次数是不退避的 ${f.pct(v.full!, v.none!)}、指数退避的 ${f.pct(v.full!, v.exponential!)}，完成时间是指数退避的 ${f.pct(v.fullTime!, v.exponentialTime!)}。`
        : `full jitter used ${f.pct(v.full!, v.none!)} of no-backoff's calls and ${f.pct(v.full!, v.exponential!)} of exponential's, and finished in ${f.pct(v.fullTime!, v.exponentialTime!)} of exponential's time.`,
  },
  "codex-herd": {
    claim: {
      en: "The course's point: ±10 % jitter does not break up the herd.",
      zh: "课程的观点：±10 % 的抖动拆不散惊群。",
    },
    detail: (lang, v, f) =>
      lang === "zh"
        ? `Codex 幅度（指数值 × [0.9, 1.1)）用了 ${f.n(v.codexTime!)} ms，是 Full Jitter 的 ${f.ratio(v.codexTime!, v.fullTime!)} 倍，调用次数是 Full Jitter 的 ${f.pct(v.codexCalls!, v.fullCalls!)}。它比不抖动好（完成时间是指数退避的 ${f.pct(v.codexTime!, v.exponentialTime!)}），但远不如 Full Jitter。`
        : `codex-capped (exponential × uniform(0.9, 1.1)) took ${f.n(v.codexTime!)} ms, ${f.times(v.codexTime!, v.fullTime!)} full jitter's time, with ${f.pct(v.codexCalls!, v.fullCalls!)} of full's calls. It did better than no jitter (${f.pct(v.codexTime!, v.exponentialTime!)} of exponential's time), but nowhere near full jitter.`,
  },
};

/** The chart texts in each language (the charts themselves are lib/herd/svg-docs.ts). */
export const CHART_LABELS_ZH: HerdChartLabels = {
  callsTitle: "每次运行的写调用数与客户端数",
  callsSubtitle: "每次运行平均的写请求次数，即服务端的工作量；每条线一种退避策略",
  callsY: "每次运行的写调用数",
  completionTitle: "完成时间与客户端数",
  completionSubtitle: "直到最后一个客户端写成功的平均时间（ms）；每条线一种退避策略",
  completionY: "完成时间（ms）",
  clientsX: "客户端数",
  logNote: "（对数刻度）",
  writeTimesTitle: (clients) => `写请求到达服务端的时间，${clients} 个客户端`,
  writeTimesSubtitle: (bucketMs, runs, untilMs) =>
    `每 ${bucketMs} ms 一格，${runs} 次运行，前 ${untilMs} ms；每行按自己的峰值缩放，高度取平方根`,
  timeX: "从客户端开始算起的时间（ms）",
  peak: (peak, perRun) => `峰值 ${peak}${perRun ? " / 次" : ""}`,
  barTooltip: (name, from, to, count, runs) =>
    `${name}，${from}-${to} ms：${runs} 次运行共 ${count} 次写`,
};
