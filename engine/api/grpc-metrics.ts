// GrpcServerMetrics: the grpc_server_* families etcd 3.6 exports through go-grpc-middleware's Prometheus
// provider (started, handled by code, stream messages received and sent), with its names, help texts and
// labels. As etcd's InitializeMetrics does, every method of every registered service starts at zero (for
// handled_total: with every status code), so a scrape lists the whole API before the first call.
import { codeName, toGrpcError } from "../grpc/status.ts";
import type { Counter, LabelValues, Registry } from "../metrics/registry.ts";
import type { MethodInfo } from "../proto/message-type.ts";

/** GRPC_CODE_COUNT is the number of gRPC status codes (OK .. Unauthenticated). */
const GRPC_CODE_COUNT = 17;

type AnyHandler = (input: unknown, call: { signal: AbortSignal; write?: (m: unknown) => Promise<void> }) => unknown;

/** GrpcServerMetrics counts the calls of the client-port gRPC server. */
export class GrpcServerMetrics {
  private readonly started: Counter;
  private readonly handled: Counter;
  private readonly received: Counter;
  private readonly sent: Counter;

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
  }

  /**
   * instrument registers a service's methods at zero and wraps its handlers so that each call counts:
   * started, every message received and sent, and handled with the call's final code (Canceled when the
   * client went away).
   */
  instrument<S extends object, H extends object>(service: S, handlers: H): H {
    const out: Record<string, unknown> = {};
    for (const [name, info] of Object.entries(service) as [string, MethodInfo<unknown, unknown>][]) {
      const labels = methodLabels(info);
      this.started.inc(0, labels);
      this.received.inc(0, labels);
      this.sent.inc(0, labels);
      for (let code = 0; code < GRPC_CODE_COUNT; code++) this.handled.inc(0, { ...labels, grpc_code: codeName(code) });
      const h = (handlers as Record<string, AnyHandler | undefined>)[name];
      if (h) out[name] = this.wrap(info, labels, h);
    }
    return out as H;
  }

  private wrap(info: MethodInfo<unknown, unknown>, labels: LabelValues, h: AnyHandler): AnyHandler {
    return async (input, call) => {
      this.started.inc(1, labels);
      let arg = input;
      if (info.requestStream) arg = this.counting(input as AsyncIterable<unknown>, labels);
      else this.received.inc(1, labels);
      if (info.responseStream && call.write) {
        const write = call.write.bind(call);
        call.write = async (m) => {
          await write(m);
          this.sent.inc(1, labels);
        };
      }
      try {
        const res = await h(arg, call);
        if (!info.responseStream) this.sent.inc(1, labels);
        this.handled.inc(1, { ...labels, grpc_code: call.signal.aborted ? "Canceled" : "OK" });
        return res;
      } catch (err) {
        this.handled.inc(1, { ...labels, grpc_code: codeName(toGrpcError(err).code) });
        throw err;
      }
    };
  }

  private async *counting(requests: AsyncIterable<unknown>, labels: LabelValues): AsyncGenerator<unknown> {
    for await (const r of requests) {
      this.received.inc(1, labels);
      yield r;
    }
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
