// The relay of one namespaces sandbox (bundled to dist/lab-relay.mjs): the first process in the session's network
// namespace, and the only way across its wall. The namespaces driver starts it as uid 0 without capabilities, so
// the session's user can neither signal it nor reach its socket directory (root's, mode 0700).
//
// `node lab-relay.mjs <dir>` listens on <dir>/in.sock, where the lab server asks, one request per connection, in
// a first line:
//   connect <port>   pipe the rest of this connection to 127.0.0.1:<port> inside the namespace (a member's port);
//   listen <port>    listen on 127.0.0.1:<port> inside the namespace and carry every connection to
//                    <dir>/out-<port>.sock, where the lab server listens (its API, kube-apiserver, S3); answers
//                    "ok" or "error <why>".
// It prints "ready <pid>" once in.sock listens, and exits when stdin closes (the lab server went away).
import { connect, createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { chmodSync, rmSync } from "node:fs";
import { readHeaderLine } from "./relay-protocol.ts";

const dir = process.argv[2];
if (!dir) {
  process.stderr.write("usage: lab-relay <socket dir>\n");
  process.exit(2);
}
const listeners = new Map<number, Server>();

function pipe(a: Socket, b: Socket): void {
  a.on("error", () => b.destroy());
  b.on("error", () => a.destroy());
  a.pipe(b);
  b.pipe(a);
}

function outbound(port: number): Promise<string> {
  if (listeners.has(port)) return Promise.resolve("ok");
  return new Promise((resolve) => {
    const srv = createServer((sock) => {
      pipe(sock, connect(join(dir as string, `out-${port}.sock`)));
    });
    srv.once("error", (err) => resolve(`error ${err.message}`));
    srv.listen(port, "127.0.0.1", () => {
      listeners.set(port, srv);
      resolve("ok");
    });
  });
}

const inSock = join(dir, "in.sock");
rmSync(inSock, { force: true });
const control = createServer((sock) => {
  sock.on("error", () => sock.destroy());
  void readHeaderLine(sock).then(async (line) => {
    const m = /^(connect|listen) (\d{1,5})$/.exec(line ?? "");
    const port = Number(m?.[2]);
    if (!m || port < 1 || port > 65535) return void sock.destroy();
    if (m[1] === "listen") return void sock.end(`${await outbound(port)}\n`);
    pipe(sock, connect(port, "127.0.0.1"));
  });
});
control.listen(inSock, () => {
  chmodSync(inSock, 0o600);
  process.stdout.write(`ready ${process.pid}\n`);
});
process.stdin.on("end", () => process.exit(0));
process.stdin.on("error", () => process.exit(0));
process.stdin.resume();
