/**
 * File and line of a package's source, found at run time in the installed copy: the lesson names
 * `node_modules/<package>/<file>:<line>` only after finding the line there, so an upgrade that
 * moves or removes it shows as "not found" instead of a stale number.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { t } from "../core/i18n.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/**
 * Where to look: a file under node_modules/<pkg>/ (or, with pkg "", under the project), and what.
 */
export interface SourceRef {
  pkg: string;
  file: string;
  pattern: RegExp;
}

/**
 * "pkg file:line" for a file under node_modules/pkg/ ("file:line" for one of the project's), or the
 * place with "(line not found: the package has changed)" ("the workbook's code has moved" for one
 * of the project's).
 */
export function locate(ref: SourceRef): string {
  const path = join(ROOT, ref.pkg === "" ? "" : join("node_modules", ref.pkg), ref.file);
  const shown = ref.pkg === "" ? ref.file : `${ref.pkg} ${ref.file}`;
  const ours = ref.pkg === "";
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return ours
      ? t("{shown} (file not found: the workbook's code has moved)", { shown })
      : t("{shown} (file not found: the package has changed)", { shown });
  }
  const line = text.split("\n").findIndex((l) => ref.pattern.test(l));
  if (line >= 0) return `${shown}:${line + 1}`;
  return ours
    ? t("{shown} (line not found: the workbook's code has moved)", { shown })
    : t("{shown} (line not found: the package has changed)", { shown });
}

/** The installed version of a package ("?" if it is not installed). */
export function installedVersion(pkg: string): string {
  try {
    return (
      JSON.parse(readFileSync(join(ROOT, "node_modules", pkg, "package.json"), "utf8")) as {
        version: string;
      }
    ).version;
  } catch {
    return "?";
  }
}
