// InProcessClient: the KubeClient (engine/kube/api/client.ts) the simulated components use, calling the
// apiserver's Core directly — the same handlers, storage and caches as the REST API. While the apiserver is
// down every call fails with ConnectionRefused, worded as client-go's dial error. A client made with a timeout
// (client-go's rest.Config.Timeout, which the kubelet's heartbeat client has) gives up on a call still pending
// then, with net/http's Client.Timeout error, while the apiserver goes on waiting for etcd.
import {
  ApiError,
  ConnectionRefused,
  type KubeClient,
  type ListOptions,
  type ObjectList,
  type WatchEvent,
  type WatchHandle,
} from "../api/client.ts";
import type { KubeObject } from "../api/object.ts";
import type { Core } from "./core.ts";
import type { Registry, Served } from "./registry.ts";
import { failure } from "./status.ts";

/** InProcessDeps are what the client needs from its apiserver. */
export interface InProcessDeps {
  core: Core;
  registry: Registry;
  isUp: () => boolean;
  url: () => string;
  /** timeoutMs is the client's own deadline per call (rest.Config.Timeout); none when unset. */
  timeoutMs?: number | undefined;
}

/** ClientTimeout is a call the client gave up on (http.Client.Timeout) before the apiserver answered. */
export class ClientTimeout extends Error {
  override name = "ClientTimeout";
}

/** sub is a name with its subresource as the URL carries it (`k8s-node-1/status`). */
function sub(name: string, subresource: string): string {
  return subresource ? `${name}/${subresource}` : name;
}

/** InProcessClient implements KubeClient over the apiserver's handlers. */
export class InProcessClient implements KubeClient {
  constructor(private readonly d: InProcessDeps) {}

  private path(s: Served | undefined, resource: string, namespace: string, name = ""): string {
    const r = s?.info;
    const base = r && r.group ? `/apis/${r.group}/${r.version}` : "/api/v1";
    const ns = namespace && (r?.namespaced ?? true) ? `/namespaces/${namespace}` : "";
    return `${base}${ns}/${resource}${name ? `/${name}` : ""}`;
  }

  private served(method: string, resource: string, namespace: string, name = ""): Served {
    const s = this.d.registry.byPlural(resource);
    if (!this.d.isUp()) {
      const url = this.d.url();
      const hostPort = url.replace(/^http:\/\//, "");
      throw new ConnectionRefused(
        `${method} "${url}${this.path(s, resource, namespace, name)}": dial tcp ${hostPort}: connect: connection refused`,
      );
    }
    if (!s) throw new ApiError(failure(404, "NotFound", "the server could not find the requested resource", {}));
    return s;
  }

  /** timed settles with `call`, or fails once the client's own timeout passes first. */
  private timed<T>(method: string, resource: string, namespace: string, name: string, call: Promise<T>): Promise<T> {
    const ms = this.d.timeoutMs;
    if (!ms) return call;
    const path = this.path(this.d.registry.byPlural(resource), resource, namespace, name);
    return new Promise<T>((resolve, reject) => {
      const t = setTimeout(() => {
        const timeout = `${ms / 1000}s`;
        reject(
          new ClientTimeout(
            `${method} "${this.d.url()}${path}?timeout=${timeout}": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`,
          ),
        );
      }, ms);
      t.unref();
      call.then(resolve, reject).finally(() => clearTimeout(t));
    });
  }

  get(resource: string, namespace: string, name: string): Promise<KubeObject> {
    const s = this.served("Get", resource, namespace, name);
    return this.timed("Get", resource, namespace, name, this.d.core.get(s, namespace, name));
  }

  list(resource: string, namespace: string, opts: ListOptions = {}): Promise<ObjectList> {
    const s = this.served("Get", resource, namespace);
    return this.timed("Get", resource, namespace, "", this.d.core.list(s, namespace, opts));
  }

  create(resource: string, namespace: string, obj: KubeObject, subresource = ""): Promise<KubeObject> {
    const s = this.served("Post", resource, namespace);
    if (subresource !== "binding")
      return this.timed("Post", resource, namespace, "", this.d.core.create(s, namespace, obj));
    const bound = this.d.core
      .bind(s, namespace, obj)
      .then(
        () =>
          ({ apiVersion: "v1", kind: "Status", metadata: {}, status: "Success", code: 201 }) as unknown as KubeObject,
      );
    return this.timed("Post", resource, namespace, `${obj.metadata.name ?? ""}/binding`, bound);
  }

  update(resource: string, namespace: string, obj: KubeObject, subresource = ""): Promise<KubeObject> {
    const name = obj.metadata.name ?? "";
    const s = this.served("Put", resource, namespace, name);
    return this.timed(
      "Put",
      resource,
      namespace,
      sub(name, subresource),
      this.d.core.update(s, namespace, name, obj, subresource),
    );
  }

  patch(resource: string, namespace: string, name: string, patch: object, subresource = ""): Promise<KubeObject> {
    const s = this.served("Patch", resource, namespace, name);
    return this.timed(
      "Patch",
      resource,
      namespace,
      sub(name, subresource),
      this.d.core.patch(s, namespace, name, "merge", patch as never, subresource),
    );
  }

  async delete(resource: string, namespace: string, name: string): Promise<void> {
    const s = this.served("Delete", resource, namespace, name);
    await this.timed("Delete", resource, namespace, name, this.d.core.delete(s, namespace, name));
  }

  watch(resource: string, namespace: string, opts: ListOptions, onEvent: (e: WatchEvent) => void): WatchHandle {
    let stopFn: (() => void) | undefined;
    let stopped = false;
    let resolveDone!: () => void;
    const done = new Promise<void>((r) => (resolveDone = r));
    const finish = () => {
      if (stopped) return;
      stopped = true;
      stopFn?.();
      resolveDone();
    };
    let s: Served;
    try {
      s = this.served("Get", resource, namespace);
    } catch (err) {
      queueMicrotask(() => {
        if (err instanceof ApiError) onEvent({ type: "ERROR", object: err.status as unknown as KubeObject });
        finish();
      });
      return { stop: finish, done };
    }
    this.d.core
      .watch(s, namespace, opts, {
        send: (e) => {
          if (!stopped) onEvent(e);
        },
        end: (st) => {
          if (st && !stopped) onEvent({ type: "ERROR", object: st as unknown as KubeObject });
          finish();
        },
      })
      .then(
        (stop) => {
          stopFn = stop;
          if (stopped) stop();
        },
        (err: unknown) => {
          if (err instanceof ApiError && !stopped)
            onEvent({ type: "ERROR", object: err.status as unknown as KubeObject });
          finish();
        },
      );
    return { stop: finish, done };
  }
}
