// GrpcServerMetrics: the grpc_server_* families etcd 3.6 exports through go-grpc-middleware's Prometheus
// provider (started, handled by code, stream messages received and sent), with its names, help texts and
// labels. As etcd's InitializeMetrics does, every method of every registered service starts at zero (for
// handled_total: with every status code), so a scrape lists the whole API before the first call. The zero
// series (about 700) are written at the first scrape rather than at start-up, which they would slow.
import { codeName, GrpcStatus, toGrpcError } from "../grpc/status.ts";
import type { Counter, LabelValues, Registry } from "../metrics/registry.ts";
import type { MethodInfo } from "../proto/message-type.ts";

/** GRPC_CODE_COUNT is the number of gRPC status codes (OK .. Unauthenticated). */
const GRPC_CODE_COUNT = 17;

type AnyHandler = (input: unknown, call: { signal: AbortSignal; write?: (m: unknown) => Promise<void> }) => unknown;

/** MethodCounts are one method's counts since the last scrape (plain numbers: the call path stays cheap). */
interface MethodCounts {
  labels: LabelValues;
  started: number;
  received: number;
  sent: number;
  /** handled counts by status code (index = code). */
  handled: number[];
}

/** GrpcServerMetrics counts the calls of the client-port gRPC server. */
export class GrpcServerMetrics {
  private readonly started: Counter;
  private readonly handled: Counter;
  private readonly received: Counter;
  private readonly sent: Counter;
  private readonly methods: MethodCounts[] = [];
  /** zeroed is how many of `methods` have their zero series in the families already. */
  private zeroed = 0;

  constructor(r: Registry) {
    this.handled = r.counter(
      "grpc_server_handled_total",
      "Total number of RPCs completed on the server, regardless of success or failure.",
    );
    this.received = r.counter(
      "grpc_server_msg_received_total",
      "Total number of RPC stream messages received on the server.",
    );
    this.sent = r.counter("grpc_server_msg_sent_total", "Total number of gRPC stream messages sent by the server.");
    this.started = r.counter("grpc_server_started_total", "Total number of RPCs started on the server.");
    // Calls count into plain numbers; a scrape moves them into the families first.
    for (const family of [this.handled, this.received, this.sent, this.started]) {
      const lines = family.lines.bind(family);
      family.lines = (): string[] => {
        this.flush();
        return lines();
      };
    }
  }

  /**
   * instrument registers a service's methods (at zero from the first scrape on) and wraps its handlers so that each call counts:
   * started, every message received and sent, and handled with the call's final code (Canceled when the
   * client went away).
   */
  instrument<S extends object, H extends object>(service: S, handlers: H): H {
    const out: Record<string, unknown> = {};
    for (const [name, info] of Object.entries(service) as [string, MethodInfo<unknown, unknown>][]) {
      const counts: MethodCounts = {
        labels: methodLabels(info),
        started: 0,
        received: 0,
        sent: 0,
        handled: new Array<number>(GRPC_CODE_COUNT).fill(0),
      };
      this.methods.push(counts);
      const h = (handlers as Record<string, AnyHandler | undefined>)[name];
      if (h) out[name] = wrap(info, counts, h);
    }
    return out as H;
  }

  /** flush moves the counts since the last scrape into the metric families. */
  private flush(): void {
    for (const m of this.methods.slice(this.zeroed)) {
      this.started.inc(0, m.labels);
      this.received.inc(0, m.labels);
      this.sent.inc(0, m.labels);
      for (let code = 0; code < GRPC_CODE_COUNT; code++)
        this.handled.inc(0, { ...m.labels, grpc_code: codeName(code) });
    }
    this.zeroed = this.methods.length;
    for (const m of this.methods) {
      if (m.started > 0) this.started.inc(m.started, m.labels);
      if (m.received > 0) this.received.inc(m.received, m.labels);
      if (m.sent > 0) this.sent.inc(m.sent, m.labels);
      m.handled.forEach((n, code) => {
        if (n > 0) this.handled.inc(n, { ...m.labels, grpc_code: codeName(code) });
      });
      m.started = m.received = m.sent = 0;
      m.handled.fill(0);
    }
  }
}

function wrap(info: MethodInfo<unknown, unknown>, counts: MethodCounts, h: AnyHandler): AnyHandler {
  const handled = counts.handled;
  return async (input, call) => {
    counts.started++;
    let arg = input;
    if (info.requestStream) arg = counting(input as AsyncIterable<unknown>, counts);
    else counts.received++;
    if (info.responseStream && call.write) {
      const write = call.write.bind(call);
      call.write = async (m) => {
        await write(m);
        counts.sent++;
      };
    }
    try {
      const res = await h(arg, call);
      if (!info.responseStream) counts.sent++;
      count(handled, call.signal.aborted ? GrpcStatus.CANCELLED : GrpcStatus.OK);
      return res;
    } catch (err) {
      const code = toGrpcError(err).code;
      count(handled, code < GRPC_CODE_COUNT ? code : GrpcStatus.UNKNOWN);
      throw err;
    }
  };
}

function count(byCode: number[], code: number): void {
  byCode[code] = (byCode[code] ?? 0) + 1;
}

async function* counting(requests: AsyncIterable<unknown>, counts: MethodCounts): AsyncGenerator<unknown> {
  for await (const r of requests) {
    counts.received++;
    yield r;
  }
}

/** methodLabels are grpc_type, grpc_service and grpc_method of a method (from its `/pkg.Service/Method` path). */
function methodLabels(info: MethodInfo<unknown, unknown>): LabelValues {
  const [, service = "", method = ""] = info.path.split("/");
  const type = info.requestStream
    ? info.responseStream
      ? "bidi_stream"
      : "client_stream"
    : info.responseStream
      ? "server_stream"
      : "unary";
  return { grpc_method: method, grpc_service: service, grpc_type: type };
}
