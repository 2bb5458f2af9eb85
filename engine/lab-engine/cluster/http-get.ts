// A bounded HTTP GET for member endpoints (/health, /metrics): node:http with no keep-alive pool, the whole
// exchange (connect, headers, body) cut off at the deadline, and the body capped.
import { request } from "node:http";

/** bodyBytesMax caps a response body (a real etcd's /metrics is ~150 KB). */
export const bodyBytesMax = 4 * 1024 * 1024;

/** httpGet fetches `url` and resolves with status and body, or rejects after `timeoutMs`. */
export function httpGet(url: string, timeoutMs: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: "GET", agent: false, headers: { connection: "close" } }, (res) => {
      const chunks: Buffer[] = [];
      let bytes = 0;
      res.on("data", (c: Buffer) => {
        bytes += c.length;
        if (bytes > bodyBytesMax) req.destroy(new Error(`response over ${bodyBytesMax} bytes`));
        else chunks.push(c);
      });
      res.on("end", () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") });
      });
      res.on("error", (err) => {
        clearTimeout(timer);
        reject(err);
      });
    });
    const timer = setTimeout(() => req.destroy(new Error(`GET ${url}: no answer within ${timeoutMs} ms`)), timeoutMs);
    req.on("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.end();
  });
}
