/**
 * The titles the run has seen stored so far, for the progress line's "duplicates so far": one bit of
 * state per planned operation, whatever the number of rows read, instead of a set of every title.
 * A title is its operation's when it is exactly the title the plan gave that operation (the title
 * names the operation's number, "… (chaos op 17)"); any other title, a stray that no operation filed,
 * is kept by its text (none are expected).
 */
const OP_NUMBER = /\(chaos op (\d+)\)$/;

export class SeenTitles {
  readonly #seen: Uint8Array;
  readonly #strays = new Set<string>();
  readonly #titleOf: (index: number) => string;
  #duplicates = 0;

  /** `titleOf(i)` is the title the plan gives operation i (1…ops). */
  constructor(ops: number, titleOf: (index: number) => string) {
    this.#seen = new Uint8Array(ops + 1);
    this.#titleOf = titleOf;
  }

  /** A stored row's title: counts a duplicate if this title was seen before. */
  add(title: string): void {
    const m = OP_NUMBER.exec(title);
    const index = m ? Number(m[1]) : 0;
    if (index >= 1 && index < this.#seen.length && this.#titleOf(index) === title) {
      if (this.#seen[index] === 1) this.#duplicates += 1;
      this.#seen[index] = 1;
    } else if (this.#strays.has(title)) this.#duplicates += 1;
    else this.#strays.add(title);
  }

  get duplicates(): number {
    return this.#duplicates;
  }

  /** Titles held as text (strays only): 0 in a run where every row is an operation's. */
  get heldTitles(): number {
    return this.#strays.size;
  }
}
