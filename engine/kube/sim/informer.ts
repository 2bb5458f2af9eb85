// Informer is client-go's reflector + store, small: list (resourceVersion "0", the apiserver's watch cache),
// then watch from the list's resourceVersion, keeping a local cache a component reads without calling the
// API. When the watch ends (410, apiserver down) it relists with backoff and keeps the cache it had: a
// component keeps acting on what it last knew, as the real ones do during an outage.
import type { KubeClient, ListOptions, WatchHandle } from "../api/client.ts";
import type { KubeObject } from "../api/object.ts";
import type { Clock, Timer } from "./clock.ts";
import { errorText } from "./events.ts";

/** InformerOptions say what to watch and how to back off. */
export interface InformerOptions {
  resource: string;
  /** namespace "" watches every namespace. */
  namespace: string;
  selectors?: Pick<ListOptions, "labelSelector" | "fieldSelector">;
  backoffMs: number;
  backoffMaxMs: number;
}

function keyOf(o: KubeObject): string {
  return `${o.metadata.namespace ?? ""}/${o.metadata.name ?? ""}`;
}

/** Informer keeps a cache of one resource and calls onChange after every list and watch event. */
export class Informer {
  private readonly cache = new Map<string, KubeObject>();
  private watch: WatchHandle | null = null;
  private timer: Timer | null = null;
  private backoff: number;
  private stopped = true;
  /** synced is true once a list succeeded (the cache then says what the API said). */
  synced = false;
  /** lastError is the last list error ("" after a successful list). */
  lastError = "";

  constructor(
    private readonly client: () => KubeClient,
    private readonly clock: Clock,
    private readonly opts: InformerOptions,
    private readonly onChange: () => void,
  ) {
    this.backoff = opts.backoffMs;
  }

  /** start lists and watches until stop(). */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    void this.relist();
  }

  /** stop ends the watch; the cache stays readable. */
  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = null;
    this.watch?.stop();
    this.watch = null;
  }

  /** items is the cache, sorted by namespace/name. */
  items(): KubeObject[] {
    return [...this.cache.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, o]) => o);
  }

  /** get reads one cached object. */
  get(namespace: string, name: string): KubeObject | undefined {
    return this.cache.get(`${namespace}/${name}`);
  }

  /** upsert puts an object the component itself just wrote into the cache (its write's answer). */
  upsert(o: KubeObject): void {
    const cur = this.cache.get(keyOf(o));
    if (!cur || Number(cur.metadata.resourceVersion) < Number(o.metadata.resourceVersion)) this.cache.set(keyOf(o), o);
  }

  /** assume overwrites a cached object with what the component knows it will become (the scheduler's
   * assumed pods): the watch event that follows replaces it. */
  assume(o: KubeObject): void {
    this.cache.set(keyOf(o), o);
  }

  private retry(): void {
    if (this.stopped) return;
    const wait = this.backoff;
    this.backoff = Math.min(this.backoff * 2, this.opts.backoffMaxMs);
    this.timer = this.clock.after(wait, () => void this.relist());
  }

  private async relist(): Promise<void> {
    this.timer = null;
    if (this.stopped) return;
    const { resource, namespace, selectors } = this.opts;
    let rv: string;
    try {
      const list = await this.client().list(resource, namespace, { ...selectors, resourceVersion: "0" });
      if (this.stopped) return;
      this.cache.clear();
      for (const o of list.items) this.cache.set(keyOf(o), o);
      rv = list.metadata.resourceVersion;
      this.synced = true;
      this.lastError = "";
      this.backoff = this.opts.backoffMs;
    } catch (err) {
      this.lastError = errorText(err);
      this.retry();
      return;
    }
    this.onChange();
    const w = this.client().watch(resource, namespace, { ...selectors, resourceVersion: rv }, (e) => {
      if (this.stopped || this.watch !== w) return;
      if (e.type === "ERROR") return w.stop();
      if (e.type === "BOOKMARK") return;
      if (e.type === "DELETED") this.cache.delete(keyOf(e.object));
      else this.cache.set(keyOf(e.object), e.object);
      this.onChange();
    });
    this.watch = w;
    void w.done.then(() => {
      if (this.watch === w) {
        this.watch = null;
        this.retry();
      }
    });
  }
}
