// Claims found wrong in a fact check of the lessons, kept from coming back where they are not
// printed (a lesson's header or a source comment). Printed claims are checked in each lesson's test.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { stripeDefaultRetries } from "../lib/http-clients/probes/stripe.ts";
import { shippedText } from "./temp-project.ts";

const flat = (text: string): string => text.replace(/\s*\n\s*(\/\/|\*)?\s*/g, " ");
/** A project file, its lines joined; an exercise as shipped, never the learner's working copy. */
const read = (file: string): string => flat(file.startsWith("exercises/") ? shippedText(file) : readFileSync(new URL(`../${file}`, import.meta.url), "utf8"));

test("SQLite: WAL is not what lets processes share a file; it keeps readers and the writer from blocking each other", () => {
  for (const file of ["lessons/07-outbox.ts", "lib/tracker/store.ts"]) {
    const text = read(file);
    assert.doesNotMatch(text, /WAL lets two processes share|several processes share the file safely/, file);
  }
  assert.match(read("lessons/07-outbox.ts"), /readers do not block the writer, the writer does not block readers/);
});

test("lesson 05 names the edition of Kleppmann's book it cites", () => {
  assert.match(read("lessons/05-leases-and-fencing.ts"), /Designing Data-Intensive Applications" \(1st edition, O'Reilly, 2017\), ch\. 8/);
});

test("the AWS quota: lesson 03 and exercise 03a charge 10 for a transient error such as a 503", () => {
  assert.match(read("exercises/03a-retry-quota.ts"), /a transient error \(HTTP 500, 502, 503 or 504, a timeout, a reset connection\) costs TIMEOUT_RETRY_COST/);
  assert.match(read("lib/client/token-bucket.ts"), /So a 503 retry costs 10/);
});

test("the README's lesson table leaves exercise 02a's answer to the learner, and names stripe-node's key", () => {
  const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
  const row = (n: string) => readme.split("\n").find((l) => l.startsWith(`| ${n} |`)) ?? "";
  assert.doesNotMatch(row("02"), /1600|1,600/);
  assert.match(row("09"), /only stripe-node sends an Idempotency-Key of its own/);
  assert.doesNotMatch(row("09"), /no Idempotency-Key sent/);
});

test("exercise 02a says in one line what Codex's sampling layer is", () => {
  assert.match(read("exercises/02a-codex-backoff.ts"), /Codex's sampling layer, the loop that sends a whole model request again when its answer's stream fails/);
});

test("stripe-node's default retries: 2 in the code the lesson runs, 1 in its README; the lesson and the probe name both", () => {
  const retries = stripeDefaultRetries();
  assert.deepEqual([retries.node.text, retries.platform.text, retries.readme.text], ["2", "2", "1"]);
  for (const file of ["lessons/09-your-http-client.ts", "lib/http-clients/probes/stripe.ts"]) {
    const text = read(file);
    assert.match(text, /PlatformFunctions\.js/, file);
    assert.match(text, /README/, file);
    assert.match(text, /CHANGELOG/, file);
  }
});
