/**
 * The seeded random source. Everything random in the workbook (jitter, latency, idempotency keys in
 * traces, chaos schedules) draws from a `Random`, a plain function returning a float in [0, 1), so
 * that the same `--seed` replays the same run and tests can inject fixed draws.
 */

/** A source of uniform floats in [0, 1). `Math.random` is one; `seeded(7)` is a reproducible one. */
export type Random = () => number;

/**
 * A reproducible source: sfc32 (Chris Doty-Humphrey's Small Fast Chaotic generator, 128-bit state),
 * seeded through splitmix32, with 53-bit floats built from two 32-bit outputs.
 */
export function seeded(seed: number): Random {
  if (!Number.isSafeInteger(seed)) throw new RangeError(`seed must be an integer, got ${seed}`);
  let s = seed >>> 0;
  const splitmix32 = (): number => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
  // Fold in the high bits too, so that seeds beyond 2^32 differ.
  s = (s ^ Math.floor(seed / 0x100000000)) >>> 0;
  // The state lives in a Uint32Array: stores wrap modulo 2^32 for free, and V8 keeps the numbers
  // unboxed, which makes a draw several times cheaper (the herd simulator makes millions).
  const st = Uint32Array.of(splitmix32(), splitmix32(), splitmix32(), splitmix32());
  const next32 = (): number => {
    const a = st[0]!,
      b = st[1]!,
      c = st[2]!,
      d = st[3]!;
    const t = (a + b + d) >>> 0;
    st[3] = d + 1;
    st[0] = b ^ (b >>> 9);
    st[1] = c + (c << 3);
    st[2] = ((c << 21) | (c >>> 11)) + t;
    return t;
  };
  for (let i = 0; i < 12; i++) next32();
  return () => ((next32() >>> 5) * 67108864 + (next32() >>> 6)) / 9007199254740992;
}

/** A uniform draw in [lo, hi). */
export function uniform(random: Random, lo: number, hi: number): number {
  return lo + (hi - lo) * random();
}

/** A normal draw (Box–Muller; one of the pair is discarded so each call costs exactly two draws). */
export function normal(random: Random, mean: number, sd: number): number {
  let u = random();
  while (u === 0) u = random();
  const v = random();
  return mean + sd * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/** A version 4 UUID drawn from `random` (reproducible when `random` is seeded). */
export function uuid(random: Random): string {
  const bytes = new Uint8Array(16);
  for (let i = 0; i < 16; i++) bytes[i] = Math.floor(random() * 256);
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = Array.from(bytes, (x) => x.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A fixed sequence of draws, for tests: `scripted(0, 0.5, 0.999)` returns them in turn, then throws. */
export function scripted(...draws: number[]): Random {
  let i = 0;
  return () => {
    if (i >= draws.length)
      throw new Error(`scripted random source ran out after ${draws.length} draws`);
    const x = draws[i++]!;
    if (!(x >= 0 && x < 1)) throw new RangeError(`a draw must be in [0, 1), got ${x}`);
    return x;
  };
}
