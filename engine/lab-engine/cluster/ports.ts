// Ports from the OS: bind port 0 on 127.0.0.1, read the port, close. All sockets of one call stay open
// until every port is known, so one call never returns the same port twice.
import { createServer, type Server } from "node:net";

/** freePorts returns `n` distinct TCP ports on 127.0.0.1 that were free a moment ago. */
export async function freePorts(n: number): Promise<number[]> {
  const servers: Server[] = [];
  try {
    const ports: number[] = [];
    for (let i = 0; i < n; i++) {
      const srv = createServer();
      servers.push(srv);
      ports.push(
        await new Promise<number>((resolve, reject) => {
          srv.once("error", reject);
          srv.listen(0, "127.0.0.1", () => {
            const addr = srv.address();
            if (addr && typeof addr === "object") resolve(addr.port);
            else reject(new Error("freePorts: listening socket has no port"));
          });
        }),
      );
    }
    return ports;
  } finally {
    await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  }
}
