/** The variant registry: name → implementation. */
import type { Variant, VariantName } from "../variant.ts";
import { fenced } from "./fenced.ts";
import { keyAfter } from "./key-after.ts";
import { keyed } from "./keyed.ts";
import { naive } from "./naive.ts";

const implemented: Partial<Record<VariantName, Variant>> = {
  naive,
  "key-after": keyAfter,
  keyed,
  fenced,
};

/** The variant with this name, or an error saying it does not exist yet. */
export function variantByName(name: VariantName): Variant {
  const v = implemented[name];
  if (!v)
    throw new Error(
      `the "${name}" variant is not built yet (available: ${Object.keys(implemented).join(", ")})`,
    );
  return v;
}

export function availableVariants(): VariantName[] {
  return Object.keys(implemented) as VariantName[];
}
