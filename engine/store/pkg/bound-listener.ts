// A listening socket bound before anything serves it. etcd's embed.StartEtcd binds every peer and client
// listener first and only then creates the server, so a port that is taken fails the start before the data
// directory is touched, with Go's `listen tcp 127.0.0.1:2380: bind: address already in use`. Connections
// that arrive in between wait, unread, until serve() hands them on.
import { createServer as netCreateServer, type AddressInfo, type Server, type Socket } from "node:net";
import { createServer as tlsCreateServer, type TlsOptions } from "node:tls";
import { errnoText } from "../../go/go-errors.ts";
import { joinHostPort } from "../../common/host-port.ts";

/** BoundListener is one bound TCP (or TLS) listener. */
export class BoundListener {
  private onSocket: ((s: Socket) => void) | undefined;
  private waiting: Socket[] = [];

  private constructor(readonly server: Server) {}

  /** bind listens on the URL's host and port (TLS when `tls` is given); it fails with Go's text. */
  static async bind(url: URL, tls?: TlsOptions): Promise<BoundListener> {
    const self = new BoundListener(tls ? tlsCreateServer(tls) : netCreateServer({ noDelay: true }));
    const server = self.server;
    server.on(tls ? "secureConnection" : "connection", (s: Socket) => {
      if (self.onSocket) return self.onSocket(s);
      s.on("error", () => s.destroy()); // a reset while it waits
      self.waiting.push(s);
    });
    const host = url.hostname.replace(/^\[|\]$/g, "");
    await new Promise<void>((resolve, reject) => {
      server.once("error", (err: NodeJS.ErrnoException) => reject(goListenError(err, url)));
      server.listen(Number(url.port), host, () => {
        server.removeAllListeners("error");
        resolve();
      });
    });
    return self;
  }

  /** serve hands every connection, those that waited first, to `onSocket`. */
  serve(onSocket: (s: Socket) => void): void {
    this.onSocket = onSocket;
    const waiting = this.waiting;
    this.waiting = [];
    for (const s of waiting) if (!s.destroyed) onSocket(s);
  }

  /** address is the bound address. */
  address(): AddressInfo {
    return this.server.address() as AddressInfo;
  }

  /** close stops listening (connections already handed on are their server's to end). */
  close(): Promise<void> {
    for (const s of this.waiting) s.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * bindAll binds every URL in order, https ones with `tls` (as etcd's transport.NewListener); when one fails,
 * those already bound are closed again.
 */
export async function bindAll(urls: readonly URL[], tls?: TlsOptions): Promise<BoundListener[]> {
  const bound: BoundListener[] = [];
  try {
    for (const url of urls) bound.push(await BoundListener.bind(url, url.protocol === "https:" ? tls : undefined));
    return bound;
  } catch (err) {
    await Promise.all(bound.map((l) => l.close()));
    throw err;
  }
}

/** goListenError words a failed listen as Go's net.Listen does: `listen tcp <host:port>: bind: <reason>`. */
function goListenError(err: NodeJS.ErrnoException, url: URL): Error {
  const { address, port } = err as { address?: string; port?: number };
  const addr = address === undefined || port === undefined ? url.host : joinHostPort(address, port);
  return new Error(`listen tcp ${addr}: bind: ${errnoText(err)}`);
}
