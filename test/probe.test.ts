// npm run probe: lesson 11's cases against a service seen only from outside. Against the tracker's
// four variants (naive fails the lost-response check, fenced holds every check it can run), against
// a package's server (express-idempotency leaks across callers), the crash check through a restart
// command, and the command line: a remote URL refused, bad arguments one line each, the exit codes.
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { tempFolder } from "../lib/core/scratch.ts";
import { startCaseServer } from "../lib/middleware/servers.ts";
import type { CaseRun } from "../lib/probe/checks.ts";
import { DEFAULT_BODY, type ProbeOptions, runProbe } from "../lib/probe/probe.ts";
import { stateOf } from "../lib/probe/report.ts";
import { startTracker } from "../lib/tracker/service.ts";
import { VARIANT_NAMES } from "../lib/tracker/variant.ts";
import { runTs } from "./run-helpers.ts";

const scratch = tempFolder("probe-test-");
after(() => scratch.remove());

const PROBE = "lib/probe/cli.ts";

/** The probe's options for a service at `base`, counted by GET /reports. */
function against(base: string, extra: Partial<ProbeOptions> = {}): ProbeOptions {
  return {
    url: `${base}/reports`,
    countUrl: `${base}/reports`,
    headers: { authorization: "Bearer alice" },
    callerHeaders: { authorization: "Bearer bob" },
    body: DEFAULT_BODY,
    seed: 7,
    ...extra,
  };
}

const states = (runs: readonly CaseRun[]): Record<string, string> =>
  Object.fromEntries(runs.map((r) => [r.case, stateOf(r)]));

test(
  "the probe against the tracker's four variants: naive fails the lost-response check, " +
    "fenced holds every check it can run",
  async () => {
    const found: Record<string, Record<string, string>> = {};
    for (const variant of VARIANT_NAMES) {
      const tracker = await startTracker({ variant, db: `${scratch.dir}/${variant}.sqlite` });
      try {
        found[variant] = states((await runProbe(against(tracker.url))).runs);
      } finally {
        await tracker.close();
      }
    }
    assert.equal(
      found.naive?.["lost-response"],
      "failed",
      "naive stores a second report after a lost response",
    );
    assert.equal(found.naive?.["same-key-twice"], "failed", "naive ignores the key");
    for (const variant of ["key-after", "keyed", "fenced"]) {
      assert.equal(
        found[variant]?.["lost-response"],
        "held",
        `${variant} replays after a lost response`,
      );
    }
    const fenced = found.fenced ?? {};
    assert.deepEqual(
      Object.entries(fenced).filter(([, s]) => s === "failed"),
      [],
      "fenced fails no check",
    );
    assert.deepEqual(
      Object.keys(fenced).filter((c) => fenced[c] === "not run"),
      ["different-path", "handler-500", "handler-throws", "crash"],
      "without --other-url and --restart-cmd, and with no way into the handler, these four are " +
        "not run",
    );
  },
);

test(
  "the probe against express-idempotency's server: the second caller gets the first caller's " +
    "answer",
  async () => {
    const server = await startCaseServer("express-idempotency", `${scratch.dir}/express.sqlite`);
    try {
      const s = states(
        (await runProbe(against(server.url, { otherUrl: `${server.url}/triage` }))).runs,
      );
      assert.equal(s["other-caller"], "failed", "keys are not scoped to the caller");
      assert.equal(s["quoted-key"], "failed", '"k" and k are two keys to it');
      assert.equal(s["lost-response"], "held", "a lost response is replayed");
      assert.equal(s["different-path"], "held", "the key on another route is refused (417)");
    } finally {
      await server.close();
    }
  },
);

test(
  "the crash check through --restart-cmd: the answer is held while the command runs, then " +
    "lost; the retry is counted",
  async () => {
    for (const [variant, expected] of [
      ["naive", "failed"],
      ["fenced", "held"],
    ] as const) {
      const tracker = await startTracker({
        variant,
        db: `${scratch.dir}/restart-${variant}.sqlite`,
      });
      try {
        // A command that restarts nothing: what is measured is whether the key outlives the loss.
        const result = await runProbe({
          ...against(tracker.url),
          restartCmd: "true",
          cases: ["crash"],
        });
        const run = result.runs[0]!;
        assert.ok(run.ran, "the crash check runs when a restart command is given");
        assert.deepEqual(
          run.facts.attempts.map((a) => a.seen).slice(0, 1),
          ["reset"],
          "the first answer never reaches the client",
        );
        assert.equal(stateOf(run), expected, `${variant}: ${JSON.stringify(run.facts)}`);
      } finally {
        await tracker.close();
      }
    }
  },
);

test("npm run probe exits 0 against fenced, 1 against naive, naming the failed check", async () => {
  for (const [variant, code] of [
    ["fenced", 0],
    ["naive", 1],
  ] as const) {
    const tracker = await startTracker({ variant, db: `${scratch.dir}/cli-${variant}.sqlite` });
    try {
      const r = await runTs(
        [
          PROBE,
          "--url",
          `${tracker.url}/reports`,
          "--count-url",
          `${tracker.url}/reports`,
          "--seed",
          "3",
        ],
        { timeoutMs: 60_000 },
      );
      assert.equal(r.code, code, `${variant}: ${r.stdout}${r.stderr}`);
      assert.equal(r.stderr, "", "nothing on stderr");
      if (variant === "naive") {
        assert.match(
          r.stdout,
          /✗ lost-response .*\n\s+your service stored 2 rows for one key after a lost response/,
        );
      }
      assert.match(r.stdout, /– other-caller\s+not run: no second caller: give --caller-header/);
      assert.match(r.stdout, /^checks: \d+ held, \d+ failed, \d+ not run/m);
    } finally {
      await tracker.close();
    }
  }
});

test("npm run probe refuses an address off this machine, saying why", async () => {
  const r = await runTs([
    PROBE,
    "--url",
    "http://example.com/orders",
    "--count-url",
    "http://example.com/orders",
  ]);
  assert.equal(r.code, 2);
  assert.match(
    r.stderr,
    /^error: refusing --url http:\/\/example\.com\/orders: the probe sends duplicates on purpose/,
  );
  assert.match(r.stderr, /add --allow-remote for a service you own/, "it says how to allow it");
  assert.equal(r.stderr.trim().split("\n").length, 1, "one line");
  assert.equal(r.stdout, "", "nothing was sent, nothing printed");
});

test("npm run probe: each bad argument gets one clear line and exit code 2", async () => {
  const cases: Array<[string[], RegExp]> = [
    [[], /--url is required/],
    [["--url", "not a url"], /--url takes an http:\/\/ URL, got "not a url"/],
    [
      ["--url", "http://127.0.0.1:9/x", "--header", "no colon"],
      /--header takes "Name: value", got "no colon"/,
    ],
    [
      [
        "--url",
        "http://127.0.0.1:9/x",
        "--count-url",
        "http://127.0.0.1:9/x",
        "--count-cmd",
        "echo 1",
      ],
      /give --count-url or --count-cmd, not both/,
    ],
    [
      ["--url", "http://127.0.0.1:9/x", "--body", `${scratch.dir}/missing.json`],
      /--body: cannot read/,
    ],
    [["--url", "http://127.0.0.1:9/x", "--seed", "x"], /--seed takes a whole number/],
    [["--url", "http://127.0.0.1:9/x", "--bogus"], /unknown option '--bogus'/],
  ];
  for (const [args, message] of cases) {
    const r = await runTs([PROBE, ...args]);
    assert.equal(r.code, 2, `${args.join(" ")}: exit 2`);
    assert.match(r.stderr, message, `${args.join(" ")}`);
    assert.equal(r.stderr.trim().split("\n").length, 1, `${args.join(" ")}: one line`);
  }
});
