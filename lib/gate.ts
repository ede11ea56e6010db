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
  readonly #gates = new Map<string, Gate<T>>();

  #get(name: string): Gate<T> {
    let g = this.#gates.get(name);
    if (!g) this.#gates.set(name, (g = gate<T>()));
    return g;
  }

  when(name: string): Promise<T> {
    return this.#get(name).passed;
  }

  fire(name: string, value: T): void {
    this.#get(name).open(value);
  }

  fired(name: string): boolean {
    return this.#gates.get(name)?.isOpen ?? false;
  }

  /** Forgets a gate (a long-running server must not keep them all). */
  delete(name: string): void {
    this.#gates.delete(name);
  }
}
