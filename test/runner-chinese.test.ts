// The runner in Chinese (issue: the course in its own language): every command takes --lang, or a zh
// LANG, and then says everything in Chinese: --help, the error line, the list, check's verdicts,
// progress, the hint. Every line within the terminal's width by display width (a Chinese character
// takes two columns), and no English sentence left over (test/chinese-output.ts).
import assert from "node:assert/strict";
import { test } from "node:test";
import { displayWidth } from "../lib/core/text.ts";
import { englishRuns } from "./chinese-output.ts";
import { runIn, tempProject } from "./temp-project.ts";

const COMMANDS = [
  "watch-cli",
  "progress-cli",
  "reset-cli",
  "lesson-cli",
  "check-cli",
  "hint-cli",
  "translations-cli",
];

/** Every line at most `width` columns, and no run of four English words. */
function assertChinese(output: string, width: number, what: string): void {
  for (const line of output.split("\n"))
    assert.ok(displayWidth(line) <= width, `${what}: ${displayWidth(line)} columns: ${line}`);
  assert.deepEqual(englishRuns(output), [], `${what}: English left over:\n${output}`);
}

test("every runner command's --help is Chinese with --lang zh, or with LANG=zh_CN.UTF-8, and fits 80 columns", {
  timeout: 120_000,
}, async (t) => {
  const p = tempProject();
  t.after(() => p.remove());
  const help = (command: string, args: string[], env: Record<string, string> = {}) =>
    runIn(p.root, `lib/runner/${command}.ts`, args, "", { COLUMNS: "80", ...env });
  const runs = await Promise.all(
    COMMANDS.map(async (command) => ({
      command,
      flag: await help(command, ["--lang", "zh", "--help"]),
      // The environment, read the way gettext reads it (the tests' own WORKBOOK_LANG=en taken away).
      env: await help(command, ["--help"], {
        WORKBOOK_LANG: "",
        LC_ALL: "",
        LC_MESSAGES: "",
        LANG: "zh_CN.UTF-8",
      }),
    })),
  );
  for (const { command, flag, env } of runs) {
    assert.equal(flag.code, 0, `${command}: ${flag.output}`);
    assert.match(flag.output, /\n选项：\n/, `${command}: ${flag.output}`);
    assert.match(flag.output, /--lang <zh\|en> +输出用的语言/);
    assertChinese(flag.output, 80, `${command} --lang zh --help`);
    assert.equal(env.output, flag.output, `${command}: LANG=zh_CN.UTF-8 is --lang zh`);
  }
});

test("a wrong argument in Chinese is one line: 错误：…（用 --help 查看用法）", {
  timeout: 120_000,
}, async (t) => {
  const p = tempProject();
  t.after(() => p.remove());
  const cases = [
    ["check-cli", ["zz9"], /没有和 "zz9" 对得上的练习/],
    ["watch-cli", ["--bogus"], /没有这个选项：'--bogus'/],
    ["progress-cli", ["extra"], /多余的参数 'extra'/],
    ["hint-cli", ["--step", "x"], /--step 要一个整数，收到的是 "x"/],
    ["lesson-cli", ["42"], /没有这一课："42"/],
    ["reset-cli", [], /写一道练习（/],
  ] as const;
  const runs = await Promise.all(
    cases.map(([command, args]) =>
      runIn(p.root, `lib/runner/${command}.ts`, [...args, "--lang", "zh"]),
    ),
  );
  for (const [i, [command, , valid]] of cases.entries()) {
    const r = runs[i]!;
    assert.equal(r.code, 2, `${command}: ${r.output}`);
    assert.match(r.output, /^错误：.*（用 --help 查看用法）\n$/, `${command}: ${r.output}`);
    assert.match(r.output, valid);
  }
});

test("npm run lesson -- --lang zh lists the lessons in Chinese; npm run lesson 1 -- --lang zh hands the language to the lesson", {
  timeout: 90_000,
}, async (t) => {
  const p = tempProject();
  t.after(() => p.remove());
  const list = await runIn(p.root, "lib/runner/lesson-cli.ts", ["--lang", "zh"], "", {
    COLUMNS: "80",
  });
  assert.equal(list.code, 0, list.output);
  assert.match(list.output, /^所有课程（运行某一课：npm run lesson <n>）/);
  assert.match(
    list.output,
    /01 {2}超时的三种真相/,
    "the lessons' own titles, from their catalogues",
  );
  assert.match(list.output, /练习：✗ \d\d[a-z]/);
  assert.match(list.output, /✓\/✗：每道练习的测试，刚刚跑过/);
  for (const line of list.output.split("\n"))
    assert.ok(displayWidth(line) <= 80, `${displayWidth(line)} columns: ${line}`);
  // After the lesson's number the flags are the lesson's: --lang reaches it, and so it does before.
  for (const args of [
    ["1", "--lang", "zh", "--help"],
    ["--lang", "zh", "1", "--help"],
  ]) {
    const help = await runIn(p.root, "lib/runner/lesson-cli.ts", args, "", { COLUMNS: "80" });
    assert.equal(help.code, 0, help.output);
    assert.match(help.output, /^npm run lesson 1 -- \[选项\]\n\n超时的三种真相：/, help.output);
    assert.match(help.output, /--seed <value> +所有随机数的种子/);
  }
});

test("npm run check and npm run progress in Chinese: the verdict, the labels and the next step", {
  timeout: 90_000,
}, async (t) => {
  const p = tempProject();
  t.after(() => p.remove());
  const [a, b] = p.exercises;
  p.solve(b!);
  const check = await runIn(p.root, "lib/runner/check-cli.ts", ["--lang", "zh"], "", {
    COLUMNS: "80",
  });
  assert.equal(check.code, 1, check.output);
  assert.match(check.output, new RegExp(`✗ ${a!.id} `));
  assert.match(check.output, new RegExp(`修改：${a!.file.replace(/\./g, "\\.")}`));
  assert.match(check.output, new RegExp(`提示：npm run hint ${a!.id}`));
  // A Chinese line may break between any two characters: read the words without the breaks.
  assert.match(
    check.output.replace(/\s+/g, ""),
    new RegExp(`（第\\d\\d课；和${b!.solution.replace(/\./g, "\\.")}对照一下）`),
  );
  assert.match(check.output, /2 道练习里解出了 1 道。/);
  for (const line of check.output.split("\n"))
    assert.ok(displayWidth(line) <= 80, `${displayWidth(line)} columns: ${line}`);

  const progress = await runIn(p.root, "lib/runner/progress-cli.ts", ["--lang", "zh"], "", {
    COLUMNS: "80",
  });
  assert.equal(progress.code, 0, progress.output);
  assert.match(progress.output, /^你的进度（每道练习的测试刚刚跑过，每次 2 个，用时 /);
  assert.match(progress.output, /通过的练习：1\/2 · 完成的课：0\/1/);
  assert.match(progress.output, new RegExp(`下一道练习：${a!.id}，`));
});
