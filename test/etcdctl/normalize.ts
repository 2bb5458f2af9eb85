// Normalising command output so that runs on different clusters (and different server implementations)
// compare: member, cluster and lease IDs, ports, versions, sizes, raft terms/indexes, timings and log
// timestamps become stable placeholders. IDs are numbered in order of first appearance in a script, so the
// same ID keeps the same name whether printed in hex or decimal.

/** Normalizer keeps the ID and port numbering of one script run. */
export class Normalizer {
  private readonly ids = new Map<bigint, string>();
  private readonly ports = new Map<string, string>();
  /**
   * knownIds are the cluster's and members' ids, asked of the cluster at start: one whose hex form happens to
   * have no letter is still an id (the letter rule alone would leave it alone as a number).
   */
  readonly knownIds = new Set<bigint>();

  /**
   * dir is the cluster's scratch directory; memberPorts lists each member's client and peer port, which
   * become `<CLIENT1>`, `<PEER1>`, ... (other OS-assigned ports are numbered `<P1>`, ... as they appear).
   */
  constructor(
    private readonly dir: string,
    memberPorts: readonly { client: number; peer: number }[] = [],
  ) {
    memberPorts.forEach((m, i) => {
      this.ports.set(String(m.client), `<CLIENT${i + 1}>`);
      this.ports.set(String(m.peer), `<PEER${i + 1}>`);
    });
  }

  private id(v: bigint): string {
    let name = this.ids.get(v);
    if (!name) {
      name = `<ID${this.ids.size + 1}>`;
      this.ids.set(v, name);
    }
    return name;
  }

  private port(p: string): string {
    let name = this.ports.get(p);
    // Fixed ports in help texts and scripts (2379, 3000, 1) stay; OS-assigned ones (Linux hands out
    // 32768-60999) differ between runs and are numbered.
    if (!name && Number(p) < 32768) return p;
    if (!name) {
      name = `<P${[...this.ports.values()].filter((v) => v.startsWith("<P")).length + 1}>`;
      this.ports.set(p, name);
    }
    return name;
  }

  /**
   * normalize rewrites one rendered result. crossCheck additionally reduces log lines to their message and
   * error, whose other fields differ between etcdctl 3.4 and 3.6 by design (caller, logger, peer, target).
   */
  normalize(text: string, crossCheck = false): string {
    let s = text.split(this.dir).join("<DIR>");
    // zap JSON log lines
    s = s.replace(/^\{"level":"(\w+)","ts":(?:"[^"]*"|[0-9.e+]+),(.*)\}$/gm, (_m, level: string, rest: string) => {
      if (crossCheck) {
        const msg = /"msg":"((?:[^"\\]|\\.)*)"/.exec(rest)?.[1] ?? "";
        return `<log ${level}: ${msg}>`;
      }
      const r = rest
        .replace(/"target":"etcd-endpoints:\/\/0x[0-9a-f]+\//, '"target":"etcd-endpoints://<PTR>/')
        .replace(/'127\.0\.0\.1:\d+'/g, "'<ADDR>'")
        .replace(/"took":"[^"]*"/, '"took":"<DURATION>"');
      return `{"level":"${level}","ts":"<TS>",${r}}`;
    });
    // zap console lines (etcdutl)
    s = s.replace(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d)\t/gm, "<TS>\t");
    // ports
    s = s.replace(/(127\.0\.0\.1|localhost):(\d{2,5})\b/g, (_m, host: string, p: string) => `${host}:${this.port(p)}`);
    // decimal IDs in JSON and fields output
    s = s.replace(
      /("(?:cluster_id|member_id|leader|ID|id|memberID)":|"(?:ClusterID|MemberID|Leader|ID)" : )(\d{6,})/g,
      (_m, pre: string, v: string) => pre + this.id(BigInt(v)),
    );
    s = s.replace(/(memberID:)(\d{6,})/g, (_m, pre: string, v: string) => pre + this.id(BigInt(v)));
    // hex IDs (member, cluster, lease): 12..16 hex digits containing a letter
    // (%16x pads shorter IDs with spaces: one space stands for any padding, so the run of spaces is matched
    // from its start)
    s = s.replace(/( {1,4}|(?<![0-9a-zA-Z\\ ]))([0-9a-f]{12,16})(?![0-9a-zA-Z])/g, (m, sp: string, h: string) =>
      /[a-f]/.test(h) || this.knownIds.has(BigInt(`0x${h}`))
        ? (sp.length > 0 ? " " : "") + this.id(BigInt(`0x${h}`))
        : m,
    );
    // versions
    s = s
      .replace(/\b3\.(4\.23|6\.\d+)\b/g, "<VERSION>")
      .replace(/"storageVersion":"[^"]*"/g, '"storageVersion":"<VERSION>"');
    s = s.replace(/\bAPI version: 3\.[46]\b/g, "API version: <API>");
    // sizes, terms, indexes
    s = s.replace(/\b\d+(?:\.\d)? (?:B|kB|MB|GB)\b/g, "<SIZE>");
    s = s.replace(/"(dbSize|dbSizeInUse|dbSizeQuota|raftIndex|raftTerm|raftAppliedIndex|raft_term)":\d+/g, '"$1":<N>');
    s = s.replace(/"(DBSize|DBSizeInUse|DBSizeQuota|RaftIndex|RaftTerm|RaftAppliedIndex)" : \d+/g, '"$1" : <N>');
    s = s.replace(/\b\d{1,3}%/g, "<PCT>");
    // timings
    s = s.replace(/(took =? ?|"took":"|"Took" : )[0-9.]+(?:ns|µs|ms|s|m[0-9.]+s)/g, "$1<DURATION>");
    s = s.replace(/remaining\(\d+s\)/g, "remaining(<N>s)").replace(/"ttl":\d+/g, '"ttl":<N>');
    // Server-dependent values: raft term/index/applied index, storage version and quota (absent from a
    // 3.4 server), the hash revision (3.4 servers send none). Simple rows, table rows, JSON and fields.
    s = s.replace(/^(.+?, <ID\d+>, .*)$/gm, (row) => {
      const parts = row.split(", ");
      if (parts.length === 16) {
        for (const i of [10, 11, 12]) if (/^\d+$/.test(parts[i] ?? "")) parts[i] = "<N>";
        parts[3] = "<SV>";
      }
      return parts.join(", ");
    });
    s = s.replace(/^\|.*\|$/gm, (row) => {
      const cells = row.split("|");
      if (cells.length === 18 && !row.includes("ENDPOINT")) {
        for (const i of [11, 12, 13]) if (/^\s*\d+\s*$/.test(cells[i] ?? "")) cells[i] = " <N> ";
        cells[4] = " <SV> ";
      }
      if (cells.length === 5 && /^\s*\d+\s*$/.test(cells[3] ?? "") && /^\s*\d+\s*$/.test(cells[2] ?? ""))
        cells[3] = " <N> ";
      return cells.join("|");
    });
    s = s.replace(/^(\S+, \d+), \d+$/gm, "$1, <N>");
    s = s.replace(/"StorageVersion" : "[^"]*"/g, '"StorageVersion" : "<SV>"');
    s = s.replace(/"(hash_revision|HashRevision)"( : |:)\d+/g, '"$1"$2<N>');
    // tables: column widths follow the normalised values, so compare cells, not padding
    s = s.replace(/^\|.*\|$/gm, (row) => row.replace(/ {2,}/g, " "));
    s = s.replace(/^\+[-+]+\+$/gm, "<rule>");
    return s;
  }
}
