// A watch as client-go's watcher reads it: `GET ...?watch=1&resourceVersion=RV` answered with one JSON event
// per line. ADDED/MODIFIED/DELETED events go to the callback, BOOKMARKs are skipped, an ERROR event ends the
// watch with the Status it carries (410 Expired after compaction).

import type { Status } from "../../kube/api/client.ts";
import { ApiError } from "../../kube/api/client.ts";
import type { JsonValue, KubeObject } from "../../kube/api/object.ts";
import type { Kube } from "./ctx.ts";
import { responseError } from "./rest.ts";

/** WatchEvent is metav1.WatchEvent. */
export interface WatchEvent {
  type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";
  object: KubeObject | Status | { [k: string]: JsonValue };
}

/** watchEvents runs one watch until the server ends it (or the request timeout does). */
export async function watchEvents(
  kube: Kube,
  path: string,
  query: Record<string, string | undefined>,
  accept: string | undefined,
  onEvent: (e: WatchEvent) => void,
): Promise<void> {
  const { res, url } = await kube
    .client()
    .open(path, { query: { ...query, watch: "true" }, ...(accept ? { accept } : {}) });
  const status = res.statusCode ?? 0;
  const chunks: Buffer[] = [];
  if (status < 200 || status > 299) {
    for await (const c of res) chunks.push(c as Buffer);
    throw responseError(status, Buffer.concat(chunks), "GET", url);
  }
  let pending = "";
  try {
    for await (const c of res) {
      pending += (c as Buffer).toString("utf8");
      let nl = pending.indexOf("\n");
      while (nl >= 0) {
        const line = pending.slice(0, nl).trim();
        pending = pending.slice(nl + 1);
        nl = pending.indexOf("\n");
        if (line === "") continue;
        const ev = JSON.parse(line) as WatchEvent;
        if (ev.type === "BOOKMARK") continue;
        if (ev.type === "ERROR") throw new ApiError(ev.object as Status);
        onEvent(ev);
      }
    }
  } catch (e) {
    if (e instanceof ApiError) throw e;
    // The connection ended (request timeout or server gone): the watch is over, as kubectl's is.
  }
}
