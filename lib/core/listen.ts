/**
 * Listening on loopback only. Every server of the workbook binds 127.0.0.1 (never all interfaces)
 * and takes port 0 unless told otherwise, so the system picks a free port and no two runs collide.
 */
import type { AddressInfo, Server } from "node:net";

/** Starts `server` on 127.0.0.1; resolves with its port and base URL, rejects if it cannot listen. */
export function listenOnLoopback(server: Server, port = 0): Promise<{ port: number; url: string }> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", reject);
      const p = (server.address() as AddressInfo).port;
      resolve({ port: p, url: `http://127.0.0.1:${p}` });
    });
  });
}
