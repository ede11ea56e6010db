/**
 * The workbook needs a Node with `node:sqlite` (22.13 or later). `npm install` brings Node 26 as a
 * dev dependency and npm scripts put it first on PATH; this check explains what is wrong when a
 * script is started some other way, instead of failing with a stack trace.
 */
import { createRequire } from "node:module";

export function runtimeProblem(): string | undefined {
  const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
  if (major < 22 || (major === 22 && minor < 13)) {
    return `this is Node ${process.versions.node}; the workbook needs Node 22.13 or later for node:sqlite.
Run it through npm (npm run lesson 1, npm test), which uses the Node that npm install put in node_modules/.bin.`;
  }
  try {
    createRequire(import.meta.url)("node:sqlite");
  } catch {
    return `node:sqlite is not available in Node ${process.versions.node}. Run "npm install" and use the npm scripts.`;
  }
  return undefined;
}

/** Exits with a clear message when the runtime cannot run the workbook. */
export function requireRuntime(): void {
  const problem = runtimeProblem();
  if (problem) {
    process.stderr.write(`error: ${problem}\n`);
    process.exit(1);
  }
}
