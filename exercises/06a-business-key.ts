/**
 * Exercise 06a · A business key for a bug report
 *
 * Goal: when the harness gives up and the model files the report again, it makes a new tool_use with
 * a new id, so a key built from the id (`run_id:tool_use_id`) misses. Derive the key from what the
 * report is about instead: the evaluation run, the module and the title. The model may change the
 * title's case, punctuation and spacing when it tries again ("Login Button does nothing."), so
 * normalise the title (and the module, which the model writes too) the way the tracker does for
 * `GET /reports?title=`: NFKC, lower case, every run of non-letters-and-digits folded to one space,
 * trimmed. Then "the key matches" and "the lookup finds it" mean the same.
 *
 * Constraints: pure functions, no I/O. The run is the harness's own identifier: take it exactly as
 * given. The key must be a valid Idempotency-Key in both forms lesson 04 taught (printable ASCII, at most
 * 255 characters, no space, double quote or comma), whatever the title's length or script. Different
 * runs, modules or (normalised) titles must give different keys. Lesson 06, section 3, shows the key
 * at work (run `npm run lesson 6`). Check your answer with `npm run check 06a`.
 *
 * 练习 06a · 给 Bug 报告一个业务键
 *
 * 目标：harness 放弃之后，模型再提交一次报告，会生成新的 tool_use 和新的 id，所以用 id 做的键
 * （`run_id:tool_use_id`）认不出来。改用报告讲的是什么来推导键：这次评测、模块和标题。模型重试时可
 * 能改标题的大小写、标点和空格（"Login Button does nothing."），所以标题（还有模型同样会写的模块
 * 名）要像 Bug 库处理 `GET /reports?title=` 那样规范化：NFKC，转小写，每段连续的非字母非数字字符折
 * 成一个空格，去掉首尾空白。这样，“键对得上”和“按标题查得到”就是一回事。
 *
 * 约束：纯函数，不做 I/O。评测的 run 是 harness 自己的标识：原样使用。不管标题多长、用什么文字，键
 * 都必须是第 04 课讲的两种写法下都合法的 Idempotency-Key（可打印 ASCII，最多 255 个字符，不含空格、
 * 双引号和逗号）。不同的 run、模块或（规范化后的）标题，必须得到不同的键。第 06 课第 3 节演示这个键
 * 怎么起作用（`npm run lesson 6`）。用 `npm run check 06a` 检查你的答案。
 */

/** The title as the tracker compares titles: "Login Button: does NOTHING!" → "login button does nothing". */
export function normalizeTitle(title: string): string {
  // TODO: NFKC, lower case, fold every run of non-letters/digits to one space, trim.
  // 待办：NFKC，转小写，每段连续的非字母/数字折成一个空格，去掉首尾空白。
  throw new Error("TODO: write normalizeTitle (exercise 06a)");
}

/** The idempotency key for "this report in this run": the same for every wording that normalises alike. */
export function businessKey(run: string, module: string, title: string): string {
  // TODO: combine run, normalised module and normalised title unambiguously, then hash into a valid key.
  // 待办：把 run、规范化后的模块和规范化后的标题无歧义地拼在一起，再哈希成一个合法的键。
  throw new Error("TODO: write businessKey (exercise 06a)");
}
