/**
 * The chaos run's agents in a worker thread (run.ts starts it): agents.ts over the thread's port.
 * Not meant to be started by hand.
 */
import { parentPort, workerData } from "node:worker_threads";
import { Signals } from "../core/gate.ts";
import { type AgentsConfig, type FromAgents, runAgents, type ToAgents } from "./agents.ts";

const port = parentPort;
if (!port) throw new Error("agents-worker.ts runs in a worker thread that run.ts starts");
const opened = new Signals();
let settle!: () => void;
const settling = new Promise<void>((resolve) => (settle = resolve));
port.on("message", (m: ToAgents) => {
  if (m.type === "opened") opened.fire(String(m.index));
  else settle();
});

await runAgents(workerData as AgentsConfig, {
  tell: (message: FromAgents) => port.postMessage(message),
  opened(index) {
    const name = String(index);
    return opened.when(name).then(() => opened.delete(name));
  },
  settle: () => settling,
});
port.close(); // nothing more to hear: the thread ends
