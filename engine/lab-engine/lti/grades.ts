// Grades out: which learner × lab goes to which platform line item (a GradeLink, made by a launch and kept in
// <home>/lti/links.json so grades still flow after a restart), the score of a lab's progress, and the poster that
// sends it as tasks pass. Posting never blocks the caller: a progress change only marks the link dirty; one
// worker per link posts the newest score, retrying network errors and 5xx with exponential backoff.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { LabDefinition } from "../../../lab/lab-format.ts";
import type { LabProgress } from "../types/api-types.ts";
import { AgsClient, AgsError, agsScopes, type Score } from "./ags.ts";
import type { Platform } from "./lti-config.ts";
import type { ToolKey } from "./tool-key.ts";

/** GradeLink says where one learner's grade for one lab goes: a resource link of a platform. */
export interface GradeLink {
  learner: string;
  lab: string;
  issuer: string;
  clientId: string;
  /** sub is the platform's user id (the score's userId). */
  sub: string;
  resourceLinkId: string;
  scope: string[];
  lineitems: string | null;
  /** lineitem is the line item's URL: given by the launch, or found/made on the first post. */
  lineitem: string | null;
}

/** ScoreOf is the grade of a lab's progress, without userId and timestamp. */
export type LabScore = Omit<Score, "userId" | "timestamp">;

/** Grading is how credit is counted (the registration file's hint_weight and solve_credit). */
export interface Grading {
  hintWeight: number;
  solveCredit: number;
}

/**
 * scoreOf grades a learner's progress in a lab: a task the learner passed earns 1 − hintWeight × (hints revealed /
 * hints of the task), one passed by the Solve button solveCredit × that, a task not passed 0; scoreGiven is their
 * sum (two decimals), scoreMaximum the number of tasks.
 * Progress is truthful to AGS' meanings: nothing passed yet is Started/NotReady (no score), some passed is
 * InProgress/Pending (a partial score that will be updated without anyone's intervention), all passed is
 * Completed/FullyGraded.
 */
export function scoreOf(lab: LabDefinition, progress: LabProgress, g: Grading): LabScore {
  let given = 0;
  let passed = 0;
  for (const t of lab.tasks) {
    const p = progress.tasks[t.id];
    if (!p?.passed) continue;
    passed++;
    const hints = t.hints.length;
    const credit = hints === 0 ? 1 : 1 - g.hintWeight * (Math.min(p.hintsRevealed, hints) / hints);
    given += p.solvedBy === "solve" ? g.solveCredit * credit : credit;
  }
  const max = lab.tasks.length;
  if (passed === 0) return { activityProgress: "Started", gradingProgress: "NotReady" };
  const scoreGiven = Math.round(given * 100) / 100;
  if (passed === max)
    return { scoreGiven, scoreMaximum: max, activityProgress: "Completed", gradingProgress: "FullyGraded" };
  return { scoreGiven, scoreMaximum: max, activityProgress: "InProgress", gradingProgress: "Pending" };
}

/** LinkStatus is what GET /lti/status says of one link. */
export interface LinkStatus {
  learner: string;
  lab: string;
  issuer: string;
  resourceLinkId: string;
  lineitem: string | null;
  state: "idle" | "posting" | "retrying" | "failed";
  attempts: number;
  lastPosted: (LabScore & { timestamp: string }) | null;
  error: string | null;
}

interface LinkState {
  link: GradeLink;
  status: LinkStatus;
  /** dirty: a post of the current score is due. */
  dirty: boolean;
  running: boolean;
  lastTimestampMs: number;
  timer: NodeJS.Timeout | null;
}

/** GradeBookOptions wire a GradeBook. */
export interface GradeBookOptions {
  file: string;
  platforms: readonly Platform[];
  key: ToolKey;
  grading: Grading;
  lab(id: string): LabDefinition | undefined;
  progress(learner: string, lab: string): LabProgress;
  /** retryBaseMs is the first retry's delay (doubled each time, at most retryMaxMs). */
  retryBaseMs?: number;
  retryMaxMs?: number;
  /** attemptsMax is how many times a score is tried before its link is marked failed (until the next change). */
  attemptsMax?: number;
}

/** GradeBook keeps the grade links and posts scores. */
export class GradeBook {
  private readonly links = new Map<string, LinkState>();
  private readonly clients = new Map<string, AgsClient>();
  private closed = false;

  constructor(private readonly o: GradeBookOptions) {
    for (const link of readLinks(o.file)) this.links.set(linkKey(link), newState(link));
  }

  /** link records (or refreshes) where a learner's grade for a lab goes, and posts the current score. */
  link(link: GradeLink): void {
    const key = linkKey(link);
    const old = this.links.get(key);
    if (old) old.link = { ...link, lineitem: link.lineitem ?? (sameTarget(old.link, link) ? old.link.lineitem : null) };
    else this.links.set(key, newState(link));
    this.save();
    this.touch(key);
  }

  /** changed is the ProgressStore listener: a task of a lab changed for a learner (a cleared lab is not posted). */
  changed(learner: string, lab: string, task: string | null): void {
    if (task === null) return; // Start over: the LMS keeps the last grade until a task passes again
    for (const [key, s] of this.links) if (s.link.learner === learner && s.link.lab === lab) this.touch(key);
  }

  /** status lists every link's state. */
  status(): LinkStatus[] {
    return [...this.links.values()].map((s) => ({ ...s.status, lineitem: s.link.lineitem }));
  }

  /** close stops the retries (a post in flight finishes on its own). */
  close(): void {
    this.closed = true;
    for (const s of this.links.values()) if (s.timer) clearTimeout(s.timer);
  }

  private touch(key: string): void {
    const s = this.links.get(key);
    if (!s || this.closed) return;
    s.dirty = true;
    s.status.attempts = 0;
    if (s.timer) {
      clearTimeout(s.timer);
      s.timer = null;
    }
    if (!s.running) void this.run(s);
  }

  /** run posts until the link's score is no longer dirty (or it failed, or a retry was scheduled). */
  private async run(s: LinkState): Promise<void> {
    s.running = true;
    try {
      while (s.dirty && !this.closed) {
        s.dirty = false;
        s.status.state = "posting";
        s.status.attempts++;
        try {
          await this.post(s);
          s.status.state = "idle";
          s.status.error = null;
          s.status.attempts = 0;
        } catch (err) {
          const e = err instanceof AgsError ? err : new AgsError((err as Error).message, false);
          s.status.error = e.message;
          if (s.dirty) continue; // a newer score is due: try that at once
          const attemptsMax = this.o.attemptsMax ?? 8;
          if (!e.retry || s.status.attempts >= attemptsMax) {
            s.status.state = "failed";
            console.error(`lti: grade of ${s.link.learner} in ${s.link.lab} not posted: ${e.message}`);
            return;
          }
          s.status.state = "retrying";
          const base = this.o.retryBaseMs ?? 1000;
          const delay = Math.min(this.o.retryMaxMs ?? 60_000, base * 2 ** (s.status.attempts - 1));
          s.timer = setTimeout(() => {
            s.timer = null;
            s.dirty = true;
            void this.run(s);
          }, delay);
          s.timer.unref();
          return;
        }
      }
    } finally {
      s.running = false;
    }
  }

  private async post(s: LinkState): Promise<void> {
    const link = s.link;
    const lab = this.o.lab(link.lab);
    if (!lab) throw new AgsError(`lab ${link.lab} is no longer loaded`, false);
    const client = this.client(link);
    if (!link.lineitem) {
      if (!link.lineitems || !link.scope.includes(agsScopes.lineitem))
        throw new AgsError("the launch named no line item and did not grant the lineitem scope to make one", false);
      link.lineitem = await client.findOrCreateLineItem(link.lineitems, {
        scoreMaximum: lab.tasks.length,
        label: lab.title,
        resourceId: lab.id,
        resourceLinkId: link.resourceLinkId,
        tag: "etcd-lab",
      });
      this.save();
    }
    if (!link.scope.includes(agsScopes.score)) throw new AgsError("the launch did not grant the score scope", false);
    const score = scoreOf(lab, this.o.progress(link.learner, link.lab), this.o.grading);
    const last = s.status.lastPosted;
    if (last && sameScore(last, score)) return;
    // AGS: a platform ignores a score older than the last one it took, so timestamps only increase.
    const at = Math.max(Date.now(), s.lastTimestampMs + 1);
    const timestamp = new Date(at).toISOString();
    await client.postScore(link.lineitem, { userId: link.sub, ...score, timestamp });
    s.lastTimestampMs = at;
    s.status.lastPosted = { ...score, timestamp };
  }

  private client(link: GradeLink): AgsClient {
    const key = `${link.issuer}\0${link.clientId}`;
    let c = this.clients.get(key);
    if (!c) {
      const p = this.o.platforms.find((x) => x.issuer === link.issuer && x.clientId === link.clientId);
      if (!p) throw new AgsError(`platform ${link.issuer} is no longer registered (--lti-config)`, false);
      c = new AgsClient(p, this.o.key);
      this.clients.set(key, c);
    }
    return c;
  }

  private save(): void {
    mkdirSync(dirname(this.o.file), { recursive: true, mode: 0o700 });
    const tmp = `${this.o.file}.${process.pid}.tmp`;
    writeFileSync(
      tmp,
      JSON.stringify(
        [...this.links.values()].map((s) => s.link),
        null,
        2,
      ) + "\n",
      { mode: 0o600 },
    );
    renameSync(tmp, this.o.file);
  }
}

function linkKey(l: GradeLink): string {
  return [l.learner, l.lab, l.issuer, l.clientId, l.resourceLinkId].join("\0");
}

function sameTarget(a: GradeLink, b: GradeLink): boolean {
  return a.lineitems === b.lineitems;
}

function sameScore(a: LabScore, b: LabScore): boolean {
  return (
    a.scoreGiven === b.scoreGiven &&
    a.scoreMaximum === b.scoreMaximum &&
    a.activityProgress === b.activityProgress &&
    a.gradingProgress === b.gradingProgress
  );
}

function newState(link: GradeLink): LinkState {
  return {
    link,
    status: {
      learner: link.learner,
      lab: link.lab,
      issuer: link.issuer,
      resourceLinkId: link.resourceLinkId,
      lineitem: link.lineitem,
      state: "idle",
      attempts: 0,
      lastPosted: null,
      error: null,
    },
    dirty: false,
    running: false,
    lastTimestampMs: 0,
    timer: null,
  };
}

function readLinks(file: string): GradeLink[] {
  try {
    const v = JSON.parse(readFileSync(file, "utf8")) as unknown;
    return Array.isArray(v) ? (v as GradeLink[]) : [];
  } catch {
    return [];
  }
}
