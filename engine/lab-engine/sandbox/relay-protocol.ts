// The relay's one framing rule (relay-main.ts): a connection starts with one header line; what follows is the
// piped stream.
import type { Socket } from "node:net";

/** headerBytesMax bounds the header line ("connect 65535"). */
const headerBytesMax = 64;

/**
 * readHeaderLine reads the first line of `sock` (without the newline) and puts back what came after it, so the
 * rest can be piped or handed to an HTTP server. Null when the connection ends or sends no line in 64 bytes.
 */
export function readHeaderLine(sock: Socket): Promise<string | null> {
  return new Promise((resolve) => {
    let buf = Buffer.alloc(0);
    const done = (line: string | null, rest?: Buffer): void => {
      sock.off("data", onData);
      sock.off("end", onEnd);
      sock.off("close", onEnd);
      sock.pause();
      if (rest?.length) sock.unshift(rest);
      resolve(line);
    };
    const onData = (chunk: Buffer): void => {
      buf = Buffer.concat([buf, chunk]);
      const nl = buf.indexOf(10);
      if (nl >= 0) return done(buf.subarray(0, nl).toString("latin1"), buf.subarray(nl + 1));
      if (buf.length > headerBytesMax) done(null);
    };
    const onEnd = (): void => done(null);
    sock.on("data", onData);
    sock.on("end", onEnd);
    sock.on("close", onEnd);
  });
}
