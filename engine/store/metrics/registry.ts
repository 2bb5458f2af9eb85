// A small Prometheus registry that prints what etcd's client_golang prints: families sorted by name,
// `# HELP` / `# TYPE` lines, label pairs sorted by name, floats in Go's shortest %g form.

/** LabelValues maps label names to values for one series. */
export type LabelValues = Readonly<Record<string, string>>;

type Kind = "counter" | "gauge" | "histogram";

interface Family {
  name: string;
  help: string;
  kind: Kind;
  /** lines renders the family's sample lines (without HELP/TYPE). */
  lines(): string[];
}

/** Registry holds metric families and renders them in the Prometheus text format (version 0.0.4). */
export class Registry {
  private readonly families = new Map<string, Family>();

  /** counter registers a monotonically increasing value (counted with `inc`, or read at scrape time with `collect`). */
  counter(name: string, help: string, collect?: () => number): Counter {
    return this.add(new Counter(name, help, collect));
  }

  /** gauge registers a value that goes up and down (set directly, or read at scrape time with `collect`). */
  gauge(name: string, help: string, collect?: () => number): Gauge {
    return this.add(new Gauge(name, help, collect));
  }

  /** histogram registers a distribution over fixed upper bounds (`le`), with `_sum` and `_count`. */
  histogram(name: string, help: string, buckets: readonly number[]): Histogram {
    return this.add(new Histogram(name, help, buckets));
  }

  /** expose renders every family, sorted by name, as Prometheus text. */
  expose(): string {
    const out: string[] = [];
    for (const name of [...this.families.keys()].sort()) {
      const f = this.families.get(name);
      if (!f) continue;
      const lines = f.lines();
      if (lines.length === 0) continue;
      out.push(`# HELP ${f.name} ${escapeHelp(f.help)}`, `# TYPE ${f.name} ${f.kind}`, ...lines);
    }
    return out.join("\n") + "\n";
  }

  private add<T extends Family>(f: T): T {
    if (this.families.has(f.name)) throw new Error(`metrics: duplicate metric family ${f.name}`);
    this.families.set(f.name, f);
    return f;
  }
}

/** Counter is a Prometheus counter, optionally with labels. */
export class Counter implements Family {
  readonly kind = "counter";
  private readonly series = new Map<string, { labels: LabelValues; value: number }>();
  constructor(
    readonly name: string,
    readonly help: string,
    private readonly collect?: () => number,
  ) {}

  /** inc adds `by` (default 1; must not be negative) to the series with these labels. */
  inc(by = 1, labels: LabelValues = {}): void {
    if (by < 0) throw new Error(`metrics: counter ${this.name} cannot decrease`);
    const key = labelKey(labels);
    const s = this.series.get(key);
    if (s) s.value += by;
    else this.series.set(key, { labels, value: by });
  }

  /** get reads the value of one series (0 when never incremented; the collected value for a collect-counter). */
  get(labels: LabelValues = {}): number {
    if (this.collect) return this.collect();
    return this.series.get(labelKey(labels))?.value ?? 0;
  }

  lines(): string[] {
    if (this.collect) return [`${this.name} ${formatGoFloat(this.collect())}`];
    if (this.series.size === 0) return [`${this.name} 0`];
    return sortedSeries(this.series).map((s) => `${this.name}${renderLabels(s.labels)} ${formatGoFloat(s.value)}`);
  }
}

/** Gauge is a Prometheus gauge, optionally with labels, or read at scrape time through `collect`. */
export class Gauge implements Family {
  readonly kind = "gauge";
  private readonly series = new Map<string, { labels: LabelValues; value: number }>();
  constructor(
    readonly name: string,
    readonly help: string,
    private readonly collect?: () => number,
  ) {}

  /** set replaces the value of the series with these labels. */
  set(value: number, labels: LabelValues = {}): void {
    this.series.set(labelKey(labels), { labels, value });
  }

  /** add changes the value of the series with these labels by `by` (may be negative). */
  add(by: number, labels: LabelValues = {}): void {
    this.set(this.get(labels) + by, labels);
  }

  /** get reads the value of one series (the collected value for a collect-gauge). */
  get(labels: LabelValues = {}): number {
    if (this.collect) return this.collect();
    return this.series.get(labelKey(labels))?.value ?? 0;
  }

  lines(): string[] {
    if (this.collect) return [`${this.name} ${formatGoFloat(this.collect())}`];
    if (this.series.size === 0) return [`${this.name} 0`];
    return sortedSeries(this.series).map((s) => `${this.name}${renderLabels(s.labels)} ${formatGoFloat(s.value)}`);
  }
}

/** Histogram is a Prometheus histogram with fixed bucket upper bounds, optionally with labels. */
export class Histogram implements Family {
  readonly kind = "histogram";
  private readonly series = new Map<string, { labels: LabelValues; counts: number[]; sum: number; count: number }>();
  constructor(
    readonly name: string,
    readonly help: string,
    readonly buckets: readonly number[],
  ) {
    for (let i = 1; i < buckets.length; i++) {
      if (!((buckets[i] ?? 0) > (buckets[i - 1] ?? 0))) throw new Error(`metrics: ${name} buckets must increase`);
    }
  }

  /** observe records one value (seconds, bytes, ...) in the series with these labels. */
  observe(value: number, labels: LabelValues = {}): void {
    const key = labelKey(labels);
    let s = this.series.get(key);
    if (!s) {
      s = { labels, counts: new Array<number>(this.buckets.length).fill(0), sum: 0, count: 0 };
      this.series.set(key, s);
    }
    s.sum += value;
    s.count++;
    for (let i = 0; i < this.buckets.length; i++) {
      if (value <= (this.buckets[i] ?? Infinity)) {
        s.counts[i] = (s.counts[i] ?? 0) + 1;
        return;
      }
    }
  }

  /** snapshot returns cumulative bucket counts (aligned with `buckets`), the sum and the count of one series. */
  snapshot(labels: LabelValues = {}): { cumulative: number[]; sum: number; count: number } {
    const s = this.series.get(labelKey(labels));
    let acc = 0;
    const cumulative = (s?.counts ?? new Array<number>(this.buckets.length).fill(0)).map((c) => (acc += c));
    return { cumulative, sum: s?.sum ?? 0, count: s?.count ?? 0 };
  }

  /** quantile estimates a quantile (0..1) of one series from its buckets, as PromQL's histogram_quantile does. */
  quantile(q: number, labels: LabelValues = {}): number {
    const { cumulative, count } = this.snapshot(labels);
    if (count === 0) return 0;
    const rank = q * count;
    let prevCount = 0;
    let prevBound = 0;
    for (let i = 0; i < this.buckets.length; i++) {
      const c = cumulative[i] ?? 0;
      const bound = this.buckets[i] ?? 0;
      if (c >= rank) return prevBound + (bound - prevBound) * ((rank - prevCount) / Math.max(1, c - prevCount));
      prevCount = c;
      prevBound = bound;
    }
    return this.buckets[this.buckets.length - 1] ?? 0;
  }

  lines(): string[] {
    const all = this.series.size === 0 ? [{ labels: {} as LabelValues }] : sortedSeries(this.series);
    const out: string[] = [];
    for (const { labels } of all) {
      const { cumulative, sum, count } = this.snapshot(labels);
      const l = renderLabelPairs(labels);
      const pre = l ? `${l},` : "";
      this.buckets.forEach((b, i) =>
        out.push(`${this.name}_bucket{${pre}le="${formatGoFloat(b)}"} ${cumulative[i] ?? 0}`),
      );
      out.push(`${this.name}_bucket{${pre}le="+Inf"} ${count}`);
      out.push(`${this.name}_sum${l ? `{${l}}` : ""} ${formatGoFloat(sum)}`);
      out.push(`${this.name}_count${l ? `{${l}}` : ""} ${count}`);
    }
    return out;
  }
}

/**
 * vector makes a labelled family print nothing until it has a series, as client_golang prints a *Vec (the
 * registry prints a plain family's zero line otherwise). NB: replace with a registry-level vector type.
 */
export function vector<T extends Counter | Gauge | Histogram>(family: T): T {
  const lines = family.lines.bind(family);
  // A labelled family never has an unlabelled series: one printed is the registry's empty default.
  const unlabelled = family.kind === "histogram" ? `${family.name}_count 0` : `${family.name} 0`;
  family.lines = (): string[] => {
    const out = lines();
    return out.includes(unlabelled) ? [] : out;
  };
  return family;
}

/** exponentialBuckets mirrors prometheus.ExponentialBuckets(start, factor, count). */
export function exponentialBuckets(start: number, factor: number, count: number): number[] {
  const out: number[] = [];
  let v = start;
  for (let i = 0; i < count; i++) {
    out.push(v);
    v *= factor;
  }
  return out;
}

/**
 * formatGoFloat prints a number as Go's strconv.FormatFloat(v, 'g', -1, 64), which client_golang uses for
 * every sample: the shortest digits that round-trip, in exponent form when the decimal exponent is < -4 or
 * >= 6 (shortest %g decides with precision 6), e.g. `2.147483648e+09`, `7.896e-06`, `344936`, `0.001`.
 */
export function formatGoFloat(v: number): string {
  if (Number.isNaN(v)) return "NaN";
  if (v === Infinity) return "+Inf";
  if (v === -Infinity) return "-Inf";
  if (v === 0) return Object.is(v, -0) ? "-0" : "0";
  // JS and Go agree on the shortest round-trip digits; only the layout differs.
  const [mant = "", expStr = "0"] = v.toExponential().split("e");
  const exp = Number(expStr);
  if (exp < -4 || exp >= 6) return goExp(mant, exp);
  return v.toString();
}

function goExp(mant: string, exp: number): string {
  const sign = exp < 0 ? "-" : "+";
  const abs = Math.abs(exp);
  return `${mant}e${sign}${abs < 10 ? "0" : ""}${abs}`;
}

function labelKey(labels: LabelValues): string {
  // Most series have no label or one (`To`, `From`): those skip the sort (this runs on every message).
  let only: string | undefined;
  for (const k in labels) {
    if (only !== undefined) return sortedLabelKey(labels);
    only = k;
  }
  return only === undefined ? "" : `${only}\u0000${labels[only] ?? ""}`;
}

function sortedLabelKey(labels: LabelValues): string {
  return Object.keys(labels)
    .sort()
    .map((k) => `${k}\u0000${labels[k] ?? ""}`)
    .join("\u0001");
}

function renderLabelPairs(labels: LabelValues): string {
  return Object.keys(labels)
    .sort()
    .map((k) => `${k}="${escapeLabel(labels[k] ?? "")}"`)
    .join(",");
}

function renderLabels(labels: LabelValues): string {
  const pairs = renderLabelPairs(labels);
  return pairs ? `{${pairs}}` : "";
}

function sortedSeries<T extends { labels: LabelValues }>(m: Map<string, T>): T[] {
  return [...m.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, s]) => s);
}

function escapeLabel(s: string): string {
  return s.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"');
}

function escapeHelp(s: string): string {
  return s.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
}
