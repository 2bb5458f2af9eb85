import { describe, expect, it } from "vitest";
import { GrpcError, GrpcStatus } from "../grpc/status.ts";
import { Registry } from "../metrics/registry.ts";
import { KVService, WatchService } from "../proto/gen/etcdserverpb.ts";
import { GrpcServerMetrics } from "./grpc-metrics.ts";

type Handler = (input: unknown, call: { signal: AbortSignal; write?: (m: unknown) => Promise<void> }) => unknown;

const kv = 'grpc_method="Range",grpc_service="etcdserverpb.KV",grpc_type="unary"';
const watch = 'grpc_method="Watch",grpc_service="etcdserverpb.Watch",grpc_type="bidi_stream"';

function sample(r: Registry, line: string): number | undefined {
  const hit = r
    .expose()
    .split("\n")
    .find((l) => l.startsWith(`${line} `));
  return hit === undefined ? undefined : Number(hit.slice(line.length + 1));
}

describe("GrpcServerMetrics", () => {
  it("counts unary calls by code and stream messages both ways, as go-grpc-middleware does", async () => {
    const r = new Registry();
    const m = new GrpcServerMetrics(r);
    let fail = false;
    const kvHandlers = m.instrument(KVService, {
      Range: () => {
        if (fail)
          throw new GrpcError(GrpcStatus.OUT_OF_RANGE, "etcdserver: mvcc: required revision is a future revision");
        return {};
      },
    }) as unknown as Record<string, Handler>;
    const watchHandlers = m.instrument(WatchService, {
      Watch: async (requests: AsyncIterable<unknown>, call: { write: (x: unknown) => Promise<void> }) => {
        for await (const q of requests) await call.write(q);
      },
    }) as unknown as Record<string, Handler>;
    expect(sample(r, `grpc_server_handled_total{grpc_code="DataLoss",${kv}}`)).toBe(0);

    const live = new AbortController();
    await kvHandlers["Range"]?.({}, { signal: live.signal });
    fail = true;
    await expect(kvHandlers["Range"]?.({}, { signal: live.signal })).rejects.toThrow("future revision");
    async function* three(): AsyncGenerator<number> {
      yield* [1, 2, 3];
    }
    const gone = new AbortController();
    const written: unknown[] = [];
    const call = { signal: gone.signal, write: async (x: unknown) => void written.push(x) };
    gone.abort();
    await watchHandlers["Watch"]?.(three(), call);

    expect(written).toEqual([1, 2, 3]);
    expect(sample(r, `grpc_server_started_total{${kv}}`)).toBe(2);
    expect(sample(r, `grpc_server_msg_received_total{${kv}}`)).toBe(2);
    expect(sample(r, `grpc_server_msg_sent_total{${kv}}`)).toBe(1);
    expect(sample(r, `grpc_server_handled_total{grpc_code="OK",${kv}}`)).toBe(1);
    expect(sample(r, `grpc_server_handled_total{grpc_code="OutOfRange",${kv}}`)).toBe(1);
    expect(sample(r, `grpc_server_msg_received_total{${watch}}`)).toBe(3);
    expect(sample(r, `grpc_server_msg_sent_total{${watch}}`)).toBe(3);
    expect(sample(r, `grpc_server_handled_total{grpc_code="Canceled",${watch}}`)).toBe(1);
    // A second scrape does not count again.
    expect(sample(r, `grpc_server_started_total{${kv}}`)).toBe(2);
  });
});
