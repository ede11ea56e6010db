/**
 * Gates: promises that someone else opens. Faults and lessons order events with gates, never with
 * sleeps that hope to win a race: "the slow handler waits until the lesson opens its gate".
 */

/** A one-shot gate: `await gate.passed` waits until somebody calls `gate.open()`. */
export interface Gate<T = void> {
  readonly passed: Promise<T>;
  readonly isOpen: boolean;
  open(value: T): void;
}

export function gate<T = void>(): Gate<T> {
  let resolve!: (value: T) => void;
  let isOpen = false;
  const passed = new Promise<T>((r) => (resolve = r));
  return {
    passed,
    get isOpen() {
      return isOpen;
    },
    open(value: T) {
      isOpen = true;
      resolve(value);
    },
  };
}

/**
 * Gates keyed by a name or number, created on first use by either side: the waiter may come before
 * or after the opener. `signals.when("committed:2")` resolves once `signals.fire("committed:2")`.
 */
export class Signals<T = void> {
  /** Gates someone waits on (or waited on). */
  readonly #gates = new Map<string, Gate<T>>();
  /**
   * Signals fired before anyone waited: just the value. Most signals of a busy server are never
   * awaited, and a promise for each would be work (and garbage) per request for nobody.
   */
  readonly #early = new Map<string, T>();

  when(name: string): Promise<T> {
    if (this.#early.has(name)) return Promise.resolve(this.#early.get(name) as T);
    let g = this.#gates.get(name);
    if (!g) {
      g = gate<T>();
      this.#gates.set(name, g);
    }
    return g.passed;
  }

  fire(name: string, value: T): void {
    const g = this.#gates.get(name);
    if (g) g.open(value);
    else if (!this.#early.has(name)) this.#early.set(name, value);
  }

  fired(name: string): boolean {
    return this.#early.has(name) || (this.#gates.get(name)?.isOpen ?? false);
  }

  /** Forgets a gate (a long-running server must not keep them all). */
  delete(name: string): void {
    this.#gates.delete(name);
    this.#early.delete(name);
  }
}
