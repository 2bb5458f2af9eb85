import { describe, expect, it } from "vitest";
import type { TaskResult } from "../../../engine/lab-engine/index.ts";
import { describeResult, whenInWords } from "./task-result.ts";

const tz = "Europe/Berlin";
const now = new Date("2026-12-01T21:30:00Z"); // 22:30 in Berlin
const base: TaskResult = {
  task: "t",
  title: "T",
  goal: null,
  passed: false,
  message: "Not checked yet.",
  passedAt: null,
  checkedAt: null,
  current: null,
};

describe("whenInWords", () => {
  it("says today, yesterday or the date, at the local time", () => {
    expect(whenInWords(new Date("2026-12-01T20:20:00Z"), now, tz)).toBe("today at 21:20");
    expect(whenInWords(new Date("2026-11-30T08:05:00Z"), now, tz)).toBe("yesterday at 09:05");
    expect(whenInWords(new Date("2026-11-20T08:05:00Z"), now, tz)).toBe("on 20 Nov at 09:05");
    expect(whenInWords(new Date("2025-11-20T08:05:00Z"), now, tz)).toBe("on 20 Nov 2025 at 09:05");
  });
});

describe("describeResult", () => {
  const session = { createdAt: Date.parse("2026-12-01T19:00:00Z"), resetAt: Date.parse("2026-12-01T20:30:00Z") };

  it("hides a never-checked failure and shows a checked one", () => {
    expect(describeResult(base, session, now, tz)).toMatchObject({ passed: false, status: "Not done yet", kind: null });
    const failed = { ...base, message: "`/lab/x` does not exist", checkedAt: "2026-12-01T21:00:00Z" };
    expect(describeResult(failed, session, now, tz)).toMatchObject({
      kind: "fail",
      text: "Not yet: `/lab/x` does not exist",
    });
  });

  it("says a pass from before the reset in words and local time, and asks for a Check", () => {
    const r = { ...base, passed: true, passedAt: "2026-12-01T20:20:00.000Z", message: "Passed earlier (...)" };
    expect(describeResult(r, session, now, tz)).toEqual({
      passed: true,
      status: "Done",
      kind: "earlier",
      text: "Passed before the reset, today at 21:20. Check grades the cluster you have now.",
    });
    const regraded = { ...r, current: { passed: false, message: "no key yet" }, checkedAt: now.toISOString() };
    expect(describeResult(regraded, session, now, tz).text).toBe(
      "Passed before the reset, today at 21:20. On this cluster it does not pass now: no key yet",
    );
    const again = { ...r, current: { passed: true, message: "Right: 14 pods" } };
    expect(describeResult(again, session, now, tz)).toMatchObject({ kind: "pass", text: "Passed: Right: 14 pods" });
  });

  it("tells a pass of an earlier session from one of this session", () => {
    const old = { ...base, passed: true, passedAt: "2026-11-30T08:05:00Z" };
    expect(describeResult(old, session, now, tz).text).toMatch(/^Passed in an earlier session, yesterday at 09:05\./);
    const fresh = { ...base, passed: true, passedAt: "2026-12-01T21:00:00Z" };
    expect(describeResult(fresh, session, now, tz).text).toMatch(/^Passed earlier, today at 22:00\./);
  });
});
