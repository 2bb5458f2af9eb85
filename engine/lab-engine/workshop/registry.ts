// A workshop's state: its events and their learners, persisted in <home>/workshop/state.json (written
// atomically, mode 0600). A learner is a display name in one event; the browser holds a cookie naming it,
// signed with a secret kept in <home>/workshop/secret (0600, made once); the resume code a learner gets on
// joining is shown once and stored only as an scrypt hash.
import { randomBytes, randomInt, scrypt, timingSafeEqual } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { ApiHttpError } from "../web/api-error.ts";
import { LearnerSigner } from "../web/learner-cookie.ts";
import type { EventAdmin, EventPublic, EventState, HelpRequest } from "../types/workshop-types.ts";

const scryptAsync = promisify(scrypt) as (password: string, salt: Buffer, keylen: number) => Promise<Buffer>;

/** WorkshopEvent is one event as stored. */
export interface WorkshopEvent {
  id: string;
  name: string;
  lessons: string[];
  startsAt: string;
  endsAt: string;
  accessCode: string;
  createdAt: string;
  /** endedAt is when the instructor ended it early (null: it ends at endsAt). */
  endedAt: string | null;
}

/** WorkshopLearner is one learner of one event. */
export interface WorkshopLearner {
  id: string;
  eventId: string;
  name: string;
  joinedAt: string;
  /** resumeHash is `scrypt$<salt>$<hash>` (base64url) of the resume code. */
  resumeHash: string;
  help: HelpRequest | null;
  /** lastLab is the lab of the learner's last opened session (null: none yet). */
  lastLab: string | null;
  /** lastActivity is when the learner last called the API (ms since the epoch). */
  lastActivity: number;
}

interface StateFile {
  events: WorkshopEvent[];
  learners: WorkshopLearner[];
}

/** NewEvent is what the instructor gives to create an event. */
export interface NewEvent {
  name: string;
  lessons: string[];
  startsAt?: string | undefined;
  endsAt: string;
  accessCode?: string | undefined;
}

/** learnerNameMax bounds a display name. */
export const learnerNameMax = 40;
/** codeAlphabet has no look-alikes (0/O, 1/I/L): codes are read aloud and typed. */
const codeAlphabet = "ABCDEFGHJKMNPQRSTUVWXYZ23456789";

/** randomCode returns `n` characters of codeAlphabet. */
export function randomCode(n: number): string {
  let s = "";
  for (let i = 0; i < n; i++) s += codeAlphabet[randomInt(codeAlphabet.length)];
  return s;
}

/** normalCode is a typed code as compared: upper case, without spaces and dashes. */
export function normalCode(code: string): string {
  return code.toUpperCase().replace(/[\s-]/g, "");
}

/** displayName checks and tidies a display name (1–40 printable characters), or throws 400. */
export function displayName(name: unknown): string {
  const s = typeof name === "string" ? name.normalize("NFC").trim().replace(/\s+/g, " ") : "";
  if (!s || [...s].length > learnerNameMax || /\p{C}/u.test(s))
    throw new ApiHttpError(400, "bad_request", `name: 1 to ${learnerNameMax} printable characters`);
  return s;
}

/** nameKey is what two names are compared by (case and accents of the same letters aside). */
function nameKey(name: string): string {
  return name.normalize("NFKC").toLocaleLowerCase("en");
}

/** eventState says where an event is at `now`. */
export function eventState(e: WorkshopEvent, now = Date.now()): EventState {
  if (e.endedAt !== null || now >= Date.parse(e.endsAt)) return "ended";
  return now < Date.parse(e.startsAt) ? "scheduled" : "open";
}

/** publicEvent is the learners' view of an event. */
export function publicEvent(e: WorkshopEvent, now = Date.now()): EventPublic {
  return {
    id: e.id,
    name: e.name,
    lessons: [...e.lessons],
    startsAt: e.startsAt,
    endsAt: e.endsAt,
    state: eventState(e, now),
  };
}

/** adminEvent is the instructor's view of an event. */
export function adminEvent(e: WorkshopEvent, now = Date.now()): EventAdmin {
  return { ...publicEvent(e, now), accessCode: e.accessCode };
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

async function hashCode(code: string): Promise<string> {
  const salt = randomBytes(16);
  return `scrypt$${salt.toString("base64url")}$${(await scryptAsync(code, salt, 32)).toString("base64url")}`;
}

async function codeMatches(code: string, stored: string): Promise<boolean> {
  const [kind, salt, hash] = stored.split("$");
  if (kind !== "scrypt" || !salt || !hash) return false;
  const got = await scryptAsync(code, Buffer.from(salt, "base64url"), 32);
  const want = Buffer.from(hash, "base64url");
  return got.length === want.length && timingSafeEqual(got, want);
}

/** WorkshopRegistry holds the events and learners and signs the learners' cookies. */
export class WorkshopRegistry {
  private readonly dir: string;
  /** signer signs the learners' cookies (web/learner-cookie.ts) with <home>/workshop/secret. */
  readonly signer: LearnerSigner;
  private state: StateFile;
  private readonly listeners = new Set<(eventId: string) => void>();

  constructor(
    home: string,
    private readonly now: () => number = Date.now,
  ) {
    this.dir = join(home, "workshop");
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    this.signer = new LearnerSigner(join(this.dir, "secret"));
    this.state = this.load();
  }

  // ---- events ---------------------------------------------------------------------------------------------

  /** events lists every event, oldest first. */
  events(): WorkshopEvent[] {
    return this.state.events.map((e) => ({ ...e }));
  }

  /** event finds one event. */
  event(id: string): WorkshopEvent | undefined {
    const e = this.state.events.find((x) => x.id === id);
    return e && { ...e };
  }

  /** current is the event not ended yet (scheduled or open), null when there is none. */
  current(): WorkshopEvent | null {
    const e = this.state.events.find((x) => eventState(x, this.now()) !== "ended");
    return e ? { ...e } : null;
  }

  /** createEvent adds an event; one that is not ended must not exist, and the access code is not `adminToken`. */
  createEvent(n: NewEvent, adminToken: string): WorkshopEvent {
    const other = this.current();
    if (other)
      throw new ApiHttpError(409, "invalid_state", `event "${other.name}" (${other.id}) is not ended: end it first`);
    const name = displayNameOfEvent(n.name);
    const startsAt = n.startsAt === undefined ? new Date(this.now()).toISOString() : isoTime(n.startsAt, "startsAt");
    const endsAt = isoTime(n.endsAt, "endsAt");
    if (Date.parse(endsAt) <= Math.max(Date.parse(startsAt), this.now()))
      throw new ApiHttpError(400, "bad_request", "endsAt: must be after startsAt and in the future");
    let accessCode = n.accessCode === undefined ? "" : normalCode(n.accessCode);
    if (n.accessCode !== undefined && !/^[A-Z0-9]{4,32}$/.test(accessCode))
      throw new ApiHttpError(400, "bad_request", "accessCode: 4 to 32 letters and digits");
    if (accessCode && sameText(accessCode, normalCode(adminToken)))
      throw new ApiHttpError(400, "bad_request", "accessCode: must not be the admin token");
    if (!accessCode) accessCode = randomCode(8);
    const e: WorkshopEvent = {
      id: `ev-${randomBytes(6).toString("base64url").replace(/[-_]/g, "x")}`,
      name,
      lessons: n.lessons.map(String),
      startsAt,
      endsAt,
      accessCode,
      createdAt: new Date(this.now()).toISOString(),
      endedAt: null,
    };
    this.state.events.push(e);
    this.save(e.id);
    return { ...e };
  }

  /** extend moves an event's end (it must not have ended). */
  extend(id: string, endsAt: string): WorkshopEvent {
    const e = this.eventOrThrow(id);
    if (eventState(e, this.now()) === "ended") throw new ApiHttpError(409, "invalid_state", `event ${id} has ended`);
    const t = isoTime(endsAt, "endsAt");
    if (Date.parse(t) <= this.now()) throw new ApiHttpError(400, "bad_request", "endsAt: must be in the future");
    e.endsAt = t;
    this.save(id);
    return { ...e };
  }

  /** end ends an event now (idempotent). */
  end(id: string): WorkshopEvent {
    const e = this.eventOrThrow(id);
    if (eventState(e, this.now()) !== "ended") {
      e.endedAt = new Date(this.now()).toISOString();
      this.save(id);
    }
    return { ...e };
  }

  // ---- learners -------------------------------------------------------------------------------------------

  /** learners lists an event's learners in joining order. */
  learners(eventId: string): WorkshopLearner[] {
    return this.state.learners.filter((l) => l.eventId === eventId).map((l) => ({ ...l }));
  }

  /** learnerCount counts the learners of every event not ended. */
  activeLearnerCount(): number {
    const live = new Set(this.state.events.filter((e) => eventState(e, this.now()) !== "ended").map((e) => e.id));
    return this.state.learners.filter((l) => live.has(l.eventId)).length;
  }

  /** learner finds a learner by id. */
  learner(id: string): WorkshopLearner | undefined {
    const l = this.state.learners.find((x) => x.id === id);
    return l && { ...l };
  }

  /** byName finds an event's learner by display name (compared case-insensitively). */
  byName(eventId: string, name: string): WorkshopLearner | undefined {
    const key = nameKey(name);
    const l = this.state.learners.find((x) => x.eventId === eventId && nameKey(x.name) === key);
    return l && { ...l };
  }

  /**
   * join adds a learner to an event, or gives back `mine` (the learner the browser's cookie names) when it has
   * this name; another learner of that name is 409 name_taken. The resume code is new each time (shown once).
   */
  async join(eventId: string, name: string, mine?: string): Promise<{ learner: WorkshopLearner; resumeCode: string }> {
    const resumeCode = randomCode(10);
    const resumeHash = await hashCode(resumeCode);
    const taken = this.byName(eventId, name);
    if (taken && taken.id !== mine)
      throw new ApiHttpError(
        409,
        "name_taken",
        `someone already joined as "${taken.name}": if that was you in another browser, use your resume code`,
      );
    if (taken) {
      const l = this.mutable(taken.id);
      l.resumeHash = resumeHash;
      this.save(eventId);
      return { learner: { ...l }, resumeCode };
    }
    const l: WorkshopLearner = {
      id: randomBytes(12).toString("base64url"),
      eventId,
      name,
      joinedAt: new Date(this.now()).toISOString(),
      resumeHash,
      help: null,
      lastLab: null,
      lastActivity: this.now(),
    };
    this.state.learners.push(l);
    this.save(eventId);
    return { learner: { ...l }, resumeCode };
  }

  /** resume finds the learner of this name whose resume code this is (undefined otherwise). */
  async resume(eventId: string, name: string, resumeCode: string): Promise<WorkshopLearner | undefined> {
    const l = this.byName(eventId, name);
    // A missing name costs the same scrypt as a wrong code: timing says nothing about who joined.
    const ok = await codeMatches(normalCode(resumeCode), l?.resumeHash ?? "scrypt$AAAAAAAAAAAAAAAAAAAAAA$AAAA");
    return ok ? l : undefined;
  }

  /** setHelp raises (message) or lowers (null) a learner's hand. */
  setHelp(id: string, message: string | null): void {
    const l = this.mutable(id);
    l.help = message === null ? null : { at: new Date(this.now()).toISOString(), message };
    this.save(l.eventId);
  }

  /** touch records a learner's activity (and the lab of a session it opened); kept in memory until the next save. */
  touch(id: string, lab?: string): void {
    const l = this.state.learners.find((x) => x.id === id);
    if (!l) return;
    l.lastActivity = this.now();
    if (lab !== undefined && l.lastLab !== lab) {
      l.lastLab = lab;
      this.save(l.eventId);
    }
  }

  // ---- cookies --------------------------------------------------------------------------------------------

  /** cookieValue is the signed value of the learner cookie for `id`. */
  cookieValue(id: string): string {
    return this.signer.value(id);
  }

  /** verify returns the learner a cookie value names when its signature holds and the learner exists. */
  verify(value: string | undefined): WorkshopLearner | undefined {
    const id = this.signer.verify(value);
    return id === undefined ? undefined : this.learner(id);
  }

  /** onChange calls `fn` with the event id after every change to an event or its learners. */
  onChange(fn: (eventId: string) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  // ---- internals ------------------------------------------------------------------------------------------

  private eventOrThrow(id: string): WorkshopEvent {
    const e = this.state.events.find((x) => x.id === id);
    if (!e) throw new ApiHttpError(404, "not_found", `no event "${id}"`);
    return e;
  }

  private mutable(id: string): WorkshopLearner {
    const l = this.state.learners.find((x) => x.id === id);
    if (!l) throw new ApiHttpError(404, "not_found", `no learner "${id}"`);
    return l;
  }

  private load(): StateFile {
    try {
      const parsed = JSON.parse(readFileSync(join(this.dir, "state.json"), "utf8")) as Partial<StateFile>;
      return { events: parsed.events ?? [], learners: parsed.learners ?? [] };
    } catch {
      return { events: [], learners: [] };
    }
  }

  private save(eventId: string): void {
    const path = join(this.dir, "state.json");
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(this.state, null, 2) + "\n", { mode: 0o600 });
    renameSync(tmp, path);
    for (const l of this.listeners) l(eventId);
  }
}

function displayNameOfEvent(name: unknown): string {
  const s = typeof name === "string" ? name.trim() : "";
  if (!s || s.length > 100 || /\p{C}/u.test(s))
    throw new ApiHttpError(400, "bad_request", "name: 1 to 100 printable characters");
  return s;
}

function isoTime(v: string, field: string): string {
  const t = Date.parse(v);
  if (!Number.isFinite(t)) throw new ApiHttpError(400, "bad_request", `${field}: expected an ISO 8601 time`);
  return new Date(t).toISOString();
}
