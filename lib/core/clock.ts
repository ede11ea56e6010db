/**
 * Timers that count only the time this process was running.
 *
 * A `--step` pause blocks the whole process (server and client alike) until Enter, so nothing moves
 * while the learner reads. Timers keep counting wall time during the pause, though; the timers here
 * subtract the paused time, so a 150 ms client timeout still means 150 ms of running time.
 *
 * The same goes for a stall: on a busy machine the process may get no CPU for a few hundred ms. When
 * it wakes, an expired client timeout would fire before the server in the same process has even read
 * the request, and a lesson would report a timeout that no fault caused. A heartbeat notices such
 * gaps and counts them as paused, so the lessons' scaled-down timeouts measure the system's
 * behaviour, not the host's scheduling.
 */
import { closeSync, openSync, readSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { isatty } from "node:tty";

let pausedTotal = 0;

/** How often the heartbeat looks, and how late it may be before the gap counts as a stall. */
const TICK_MS = 10;
const STALL_MS = 25;
let lastSeen = performance.now();
let heartbeat: NodeJS.Timeout | undefined;

/** Counts the time since the last look as paused when it is far longer than a tick. */
function catchUp(): void {
  if (!heartbeat) return; // nothing to compare with until the first timer starts the heartbeat
  const t = performance.now();
  const gap = t - lastSeen;
  if (gap > TICK_MS + STALL_MS) pausedTotal += gap - TICK_MS;
  lastSeen = t;
}

function ensureHeartbeat(): void {
  if (heartbeat) return;
  lastSeen = performance.now();
  heartbeat = setInterval(catchUp, TICK_MS);
  heartbeat.unref();
}

/**
 * Milliseconds since start-up, not counting time spent paused. A reading taken just after a stall
 * already leaves the stall out (it does not wait for the heartbeat to notice), so the clock never
 * runs backwards.
 */
export function nowMs(): number {
  catchUp(); // a stall not yet recorded must not be counted now and taken back later
  return performance.now() - pausedTotal;
}

/**
 * Blocks until the learner presses Enter on a terminal. Returns false (and does not block) when
 * stdin is not a terminal, so `--step` is ignored in pipes and tests.
 *
 * The wait costs no CPU: it is a blocking read on the terminal, opened afresh because Node puts its
 * own stdin in non-blocking mode (a read there would fail with EAGAIN at once, again and again). The
 * terminal is in raw mode meanwhile, so that Ctrl-C arrives as a key: the pause then passes the
 * interrupt on to the whole process group, as the terminal would have, and the process exits through
 * its 'exit' handlers (which remove the lesson's temporary files).
 */
export function waitForEnter(prompt: string): boolean {
  if (!isatty(0) || !process.stdin.isTTY) return false;
  process.stdout.write(prompt);
  const started = performance.now();
  const key = readEnterOrInterrupt();
  pausedTotal += performance.now() - started;
  lastSeen = performance.now();
  // Erase the prompt line (in raw mode the terminal did not echo the Enter), so the trace reads on.
  process.stdout.write("\r\x1b[2K");
  if (key === "interrupt") {
    process.exitCode = 130;
    try {
      process.kill(0, "SIGINT"); // the lesson's own child processes stop as on any Ctrl-C
    } catch {
      // no process group to signal (Windows)
    }
    process.exit(130);
  }
  return true;
}

/** Reads the terminal until Enter (or Ctrl-C, or the end of input), blocking in the kernel meanwhile. */
function readEnterOrInterrupt(): "enter" | "interrupt" {
  const stdin = process.stdin;
  const wasRaw = stdin.isRaw;
  let fd: number | undefined;
  try {
    fd = openSync("/dev/tty", "r");
  } catch {
    // No /dev/tty (Windows): read stdin itself, sleeping between tries instead of spinning.
  }
  stdin.setRawMode(true);
  const buf = Buffer.alloc(64);
  const nap = new Int32Array(new SharedArrayBuffer(4));
  try {
    for (;;) {
      let n = 0;
      try {
        n = readSync(fd ?? 0, buf, 0, buf.length, null);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "EAGAIN") return "enter";
        Atomics.wait(nap, 0, 0, 25);
        continue;
      }
      const got = buf.subarray(0, n);
      if (got.includes(3)) return "interrupt";
      if (n === 0 || got.includes(10) || got.includes(13)) return "enter";
    }
  } finally {
    stdin.setRawMode(wasRaw);
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Runs `block`, a synchronous wait that holds the whole process still (as waitForEnter does), and
 * leaves its time out of the running clock.
 */
export function standStill(block: () => void): void {
  catchUp();
  const started = performance.now();
  try {
    block();
  } finally {
    pausedTotal += performance.now() - started;
    lastSeen = performance.now();
  }
}

/** Calls `fn` once `ms` of running (unpaused) time has passed. Returns a cancel function. */
export function after(ms: number, fn: () => void): () => void {
  ensureHeartbeat();
  catchUp();
  const due = nowMs() + ms;
  let timer: NodeJS.Timeout | undefined;
  const check = (): void => {
    catchUp(); // whichever timer runs first after a stall records it
    const left = due - nowMs();
    if (left > 0.5) timer = setTimeout(check, Math.ceil(left));
    else fn();
  };
  timer = setTimeout(check, Math.max(0, Math.ceil(ms)));
  return () => clearTimeout(timer);
}

/** Resolves after `ms` of running time; rejects early if `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = (): void => {
      cancel();
      reject(signal?.reason);
    };
    const cancel = after(ms, () => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    });
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** An AbortSignal that aborts with a TimeoutError after `ms` of running time. */
export function timeoutSignal(ms: number): { signal: AbortSignal; cancel: () => void } {
  const controller = new AbortController();
  const cancel = after(ms, () =>
    controller.abort(new DOMException(`no response within ${ms} ms`, "TimeoutError")),
  );
  return { signal: controller.signal, cancel };
}
