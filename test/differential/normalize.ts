// Normalising what real etcdctl 3.4 prints so that a run against our cluster and a run against a real etcd
// 3.4 cluster compare: ids (member, cluster, lease), ports, versions, sizes, raft terms and indexes, and
// timings become placeholders; everything else — keys, values, revisions, hashes, texts, exit codes — stays.
// Members are named by their member name (<m1>), other ids by order of first appearance (<ID1>, ...).

/** KnownIds seeds names for ids the harness already knows (member and cluster ids). */
export type KnownIds = ReadonlyMap<bigint, string>;

/** Normalizer keeps one run's numbering of ids and ports. */
export class Normalizer {
  private readonly ids = new Map<bigint, string>();
  private readonly ports = new Map<string, string>();
  private unknownIds = 0;
  private unknownPorts = 0;

  constructor(
    private readonly dir: string,
    known: KnownIds,
    /** memberPorts maps member names to their client, peer and metrics ports. */
    memberPorts: ReadonlyMap<string, { client: number; peer: number; metrics: number }>,
  ) {
    for (const [id, name] of known) this.ids.set(id, `<${name}>`);
    for (const [name, p] of memberPorts) {
      const n = name.replace(/^m/, "");
      this.ports.set(String(p.client), `<C${n}>`);
      this.ports.set(String(p.peer), `<P${n}>`);
      this.ports.set(String(p.metrics), `<M${n}>`);
    }
  }

  /** learn names an id (a member added during the scenario). */
  learn(id: bigint, name: string): void {
    this.ids.set(id, `<${name}>`);
  }

  private id(v: bigint): string {
    let name = this.ids.get(v);
    if (!name) {
      name = `<ID${++this.unknownIds}>`;
      this.ids.set(v, name);
    }
    return name;
  }

  private port(p: string): string {
    let name = this.ports.get(p);
    if (!name) {
      name = `<PORT${++this.unknownPorts}>`;
      this.ports.set(p, name);
    }
    return name;
  }

  /** normalize rewrites one rendered result; `sort` sorts its lines afterwards. */
  normalize(text: string, sort = false): string {
    let s = text.split(this.dir).join("<DIR>");
    s = this.logLines(s);
    s = s.replace(/(127\.0\.0\.1|localhost):(\d{2,5})\b/g, (_m, host: string, p: string) => `${host}:${this.port(p)}`);
    // ids: decimal (JSON, alarm list) are 15+ digits, hex ones 12..16 hex digits with a letter (or known). A hex
    // id without a letter (1 in ~2,000 member ids) also reads as decimal: a known id read as hex wins.
    s = s.replace(/(?<![0-9a-zA-Z.])(\d{15,20})(?![0-9a-zA-Z.])/g, (m, v: string) => {
      const n = BigInt(v);
      const hex = v.length <= 16 ? BigInt(`0x${v}`) : undefined;
      if (hex !== undefined && !this.ids.has(n) && this.ids.has(hex)) return this.id(hex);
      return n < 1n << 64n ? this.id(n) : m;
    });
    s = s.replace(/(?<![0-9a-zA-Z\\<])([0-9a-f]{12,16})(?![0-9a-zA-Z>])/g, (m, h: string) => {
      const n = BigInt(`0x${h}`);
      return this.ids.has(n) || /[a-f]/.test(h) ? this.id(n) : m;
    });
    // etcdctl prints ids with %16x: an id with fewer hex digits is padded with spaces.
    s = s.replace(/(\S) {2,}(<(?:m\d+|cluster|ID\d+)>)/g, "$1 $2");
    s = s.replace(/(?<![0-9.])3\.(4\.23|6\.\d+)(?![0-9.])/g, "<VERSION>");
    s = s.replace(/\b\d+(?:\.\d+)? (?:B|kB|MB|GB)\b/g, "<SIZE>");
    s = s.replace(/"(dbSize|dbSizeInUse|raftIndex|raftTerm|raftAppliedIndex|raft_term)":\d+/g, '"$1":<N>');
    s = s.replace(/"(DBSize|DBSizeInUse|RaftIndex|RaftTerm|RaftAppliedIndex)" : \d+/g, '"$1" : <N>');
    s = s.replace(/took = [0-9.]+(?:ns|µs|ms|s|m[0-9.]+s)/g, "took = <DURATION>");
    s = s.replace(/remaining\(\d+s\)/g, "remaining(<N>s)").replace(/"ttl":\d+/g, '"ttl":<N>');
    s = statusRows(s);
    if (sort) s = s.split("\n").sort().join("\n");
    return s;
  }

  /** logLines reduces etcdctl's own zap lines to level, message and error, and folds repeats. */
  private logLines(s: string): string {
    const out: string[] = [];
    for (const line of s.split("\n")) {
      const m = /^\{"level":"(\w+)","ts":[^,]+,(.*)\}$/.exec(line);
      let l = line;
      if (m) {
        const rest = m[2] ?? "";
        const msg = /"msg":"((?:[^"\\]|\\.)*)"/.exec(rest)?.[1] ?? "";
        const err = /"error":"((?:[^"\\]|\\.)*)"/.exec(rest)?.[1];
        l = `<log ${m[1] ?? ""}: ${msg}${err === undefined ? "" : ` (${err})`}>`;
      }
      if (out[out.length - 1] === l && l.startsWith("<log ")) continue;
      out.push(l);
    }
    return out.join("\n");
  }
}

/** statusRows blanks the raft term, index and applied index of `endpoint status` rows (simple and table). */
function statusRows(s: string): string {
  s = s.replace(
    /^(127\.0\.0\.1:<C\d+>, <[^>]+>, <VERSION>, <SIZE>, (?:true|false), (?:true|false)), \d+, \d+, \d+, /gm,
    "$1, <N>, <N>, <N>, ",
  );
  s = s.replace(
    /^(\| 127\.0\.0\.1:<C\d+> +\| +<[^>]+> +\| +<VERSION> +\| +<SIZE> +\| +(?:true|false) +\| +(?:true|false) +\|) +\d+ +\| +\d+ +\| +\d+ +\|/gm,
    "$1 <N> | <N> | <N> |",
  );
  // Column widths follow the values: compare table cells, not their padding.
  s = s.replace(/^\|.*\|$/gm, (row) => row.replace(/ {2,}/g, " "));
  s = s.replace(/^\+[-+]+\+$/gm, "+---+");
  return s;
}
