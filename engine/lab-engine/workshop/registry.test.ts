import { describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { displayName, eventState, WorkshopRegistry } from "./registry.ts";

const home = () => mkdtempSync(join(tmpdir(), "etcd-lab-registry-"));
const hour = 3600_000;

describe("workshop registry", () => {
  it("persists events and learners, the secret and the state readable by the server's user only", async () => {
    const dir = home();
    const a = new WorkshopRegistry(dir);
    const e = a.createEvent({ name: "Day 1", lessons: ["x"], endsAt: new Date(Date.now() + hour).toISOString() }, "t");
    const { learner, resumeCode } = await a.join(e.id, "Ada");
    expect(resumeCode).toMatch(/^[A-Z2-9]{10}$/);
    const state = readFileSync(join(dir, "workshop", "state.json"), "utf8");
    expect(state).not.toContain(resumeCode); // only its scrypt hash
    expect(statSync(join(dir, "workshop", "secret")).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, "workshop", "state.json")).mode & 0o777).toBe(0o600);
    const b = new WorkshopRegistry(dir);
    expect(b.learner(learner.id)?.name).toBe("Ada");
    expect(b.verify(a.cookieValue(learner.id))?.id).toBe(learner.id); // same secret after a restart
    expect((await b.resume(e.id, "ADA", resumeCode.toLowerCase()))?.id).toBe(learner.id);
    expect(await b.resume(e.id, "Ada", "WRONGCODE2")).toBeUndefined();
  });

  it("refuses forged and foreign cookies", async () => {
    const a = new WorkshopRegistry(home());
    const other = new WorkshopRegistry(home());
    const e = a.createEvent({ name: "E", lessons: [], endsAt: new Date(Date.now() + hour).toISOString() }, "t");
    const { learner } = await a.join(e.id, "Ada");
    expect(a.verify(other.cookieValue(learner.id))).toBeUndefined(); // signed with another server's secret
    expect(a.verify(`${learner.id}.`)).toBeUndefined();
    expect(a.verify(learner.id)).toBeUndefined();
    expect(a.verify(`../x.${a.cookieValue(learner.id).split(".")[1]}`)).toBeUndefined();
  });

  it("gives a name to one learner per event and back to the browser that has it", async () => {
    const r = new WorkshopRegistry(home());
    const e = r.createEvent({ name: "E", lessons: [], endsAt: new Date(Date.now() + hour).toISOString() }, "t");
    const { learner } = await r.join(e.id, "Ada");
    await expect(r.join(e.id, "ada")).rejects.toMatchObject({ status: 409, code: "name_taken" });
    expect((await r.join(e.id, "ADA", learner.id)).learner.id).toBe(learner.id);
  });

  it("keeps one event not ended at a time, and an access code that is not the admin token", () => {
    let now = Date.parse("2026-12-02T10:00:00Z");
    const r = new WorkshopRegistry(home(), () => now);
    const endsAt = "2026-12-02T12:00:00Z";
    expect(() => r.createEvent({ name: "E", lessons: [], endsAt, accessCode: "admin-tok" }, "ADMINTOK")).toThrow(
      "accessCode: must not be the admin token",
    );
    const e = r.createEvent({ name: "E", lessons: [], startsAt: "2026-12-02T11:00:00Z", endsAt }, "t");
    expect(eventState(e, now)).toBe("scheduled");
    expect(() => r.createEvent({ name: "F", lessons: [], endsAt }, "t")).toThrow(/is not ended/);
    now = Date.parse("2026-12-02T11:30:00Z");
    expect(eventState(r.event(e.id)!, now)).toBe("open");
    r.extend(e.id, "2026-12-02T13:00:00Z");
    now = Date.parse("2026-12-02T12:30:00Z");
    expect(eventState(r.event(e.id)!, now)).toBe("open");
    r.end(e.id);
    expect(eventState(r.event(e.id)!, now)).toBe("ended");
    expect(r.current()).toBeNull();
    expect(() => r.extend(e.id, "2026-12-02T14:00:00Z")).toThrow(/has ended/);
  });

  it("accepts display names of 1 to 40 printable characters", () => {
    expect(displayName("  Zoë   Smith ")).toBe("Zoë Smith");
    expect(() => displayName("")).toThrow("name: 1 to 40 printable characters");
    expect(() => displayName("a\u0000b")).toThrow();
    expect(() => displayName("x".repeat(41))).toThrow();
    expect(displayName("x".repeat(40))).toHaveLength(40);
  });
});
