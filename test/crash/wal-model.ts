// The parent's model of what the crash child has made durable, and the check after every restart:
//   - every acknowledged save is present (entries with their terms, the hard state), unless a later save that
//     Raft allows to (an overwrite of the uncommitted suffix) replaced part of it;
//   - beyond that, only a prefix of the one save in flight may appear, never a part of an entry (payloads
//     are checked by the child, the CRC by the WAL);
//   - the recovered snapshot is at least the last acknowledged one and vouches (digest) for the exact log
//     it replaced.
import { digestStep } from "./wal-payload.ts";

/** Recovered is the child's RECOVERED report. */
export interface Recovered {
  snap: [number, number, number];
  hs: [number, number];
  runs: [number, number, number][];
}

interface Save {
  first: number;
  last: number;
  term: number;
  commit: number;
}

/** WalModel follows the child's lines and checks each recovery against them. */
export class WalModel {
  /** terms[i - 1] is the term of acknowledged entry i (the whole log, including what snapshots replaced). */
  private terms: number[] = [];
  private commit = 0;
  private hsTerm = 0;
  private snapIndex = 0;
  private inflight: Save | undefined;
  private inflightSnap = 0;
  /** acked counts acknowledged saves (over the whole test). */
  acked = 0;

  /** onLine feeds one stdout line of the child. */
  onLine(line: string): void {
    const [kind, ...rest] = line.split(" ");
    const n = rest.map(Number);
    if (kind === "BEGIN") this.inflight = { first: n[0] ?? 0, last: n[1] ?? 0, term: n[2] ?? 0, commit: n[3] ?? 0 };
    else if (kind === "ACK") {
      this.apply({ first: n[0] ?? 0, last: n[1] ?? 0, term: n[2] ?? 0, commit: n[3] ?? 0 });
      this.inflight = undefined;
      this.acked++;
    } else if (kind === "SNAPBEGIN") this.inflightSnap = n[0] ?? 0;
    else if (kind === "SNAP") {
      this.snapIndex = n[0] ?? 0;
      this.inflightSnap = 0;
    } else if (kind === "BAD") throw new Error(`crash child: ${line}`);
  }

  /** lastIndex is the last acknowledged entry index. */
  get lastIndex(): number {
    return this.terms.length;
  }

  /**
   * verify checks a recovery against the model and then adopts it as the new model (what was recovered is
   * durable now). It throws an Error describing the first violated guarantee.
   */
  verify(r: Recovered): void {
    const [snapIndex, snapTerm, snapDigest] = r.snap;
    const fail = (what: string): never => {
      throw new Error(
        `crash check failed: ${what} (model: last ${this.lastIndex}, commit ${this.commit}, snap ${this.snapIndex}; in flight ${JSON.stringify(this.inflight)})`,
      );
    };
    if (snapIndex < this.snapIndex)
      fail(`recovered snapshot ${snapIndex} is older than acknowledged snapshot ${this.snapIndex}`);
    if (snapIndex > Math.max(this.snapIndex, this.inflightSnap)) fail(`snapshot ${snapIndex} was never taken`);
    if (snapIndex > 0 && this.terms[snapIndex - 1] !== snapTerm) fail(`snapshot term ${snapTerm} at ${snapIndex}`);
    if (snapIndex > 0 && this.digest(snapIndex) !== snapDigest)
      fail(`snapshot ${snapIndex} vouches for a different log`);

    const got = this.terms.slice(0, snapIndex);
    for (const [a, b, t] of r.runs) {
      if (a !== got.length + 1) fail(`recovered entries jump from ${got.length} to ${a}`);
      for (let i = a; i <= b; i++) got.push(t);
    }
    // What the log may be: the acknowledged one, or with a prefix of the in-flight save applied over it.
    const f = this.inflight;
    const okAcked = this.sameAsAcked(got);
    const okInflight = f !== undefined && this.prefixOfInflight(got, f);
    if (!okAcked && !okInflight)
      fail(
        `recovered log (last ${got.length}) is neither the acknowledged log nor that log plus part of the save in flight`,
      );
    const [hsTerm, hsCommit] = r.hs;
    const hsAcked = hsTerm === this.hsTerm && hsCommit === this.commit;
    const hsInflight = f !== undefined && hsTerm === f.term && hsCommit === f.commit;
    if (!hsAcked && !hsInflight) fail(`hard state ${hsTerm}/${hsCommit}, acknowledged ${this.hsTerm}/${this.commit}`);

    this.terms = got;
    this.commit = hsCommit;
    this.hsTerm = hsTerm;
    this.snapIndex = snapIndex;
    this.inflight = undefined;
    this.inflightSnap = 0;
  }

  private apply(s: Save): void {
    this.terms.length = s.first - 1;
    for (let i = s.first; i <= s.last; i++) this.terms.push(s.term);
    this.commit = s.commit;
    this.hsTerm = s.term;
  }

  private sameAsAcked(got: number[]): boolean {
    return got.length === this.terms.length && got.every((t, i) => t === this.terms[i]);
  }

  private prefixOfInflight(got: number[], f: Save): boolean {
    const k = got.length; // entries first..k of the in-flight save landed (k may be first - 1: none did)
    if (k < f.first - 1 || k > f.last) return false;
    for (let i = 1; i <= k; i++) {
      const want = i < f.first ? this.terms[i - 1] : f.term;
      if (got[i - 1] !== want) return false;
    }
    // With none of it landed, the acknowledged entries after first - 1 must still all be there.
    return k >= f.first || this.sameAsAcked(got);
  }

  private digest(upTo: number): number {
    let d = 0;
    for (let i = 1; i <= upTo; i++) d = digestStep(d, i, this.terms[i - 1] ?? 0);
    return d;
  }
}
