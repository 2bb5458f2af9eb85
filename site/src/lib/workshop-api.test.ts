import { describe, expect, it } from "vitest";
import type { FetchLike } from "./api-client.ts";
import { ApiFailure } from "./api-client.ts";
import { boardSocketPath, exportCsvPath, joinProblem, terminalViewPath, WorkshopApi } from "./workshop-api.ts";

function fake(status: number, body: unknown) {
  const calls: Array<{ url: string; method: string; body: string | undefined }> = [];
  const fetchFn: FetchLike = async (url, init) => {
    calls.push({ url, method: init.method, body: init.body });
    return {
      status,
      ok: status >= 200 && status < 300,
      text: async () => (body === undefined ? "" : JSON.stringify(body)),
    };
  };
  return { calls, api: new WorkshopApi(fetchFn) };
}

const err = (code: string, message = "m") => ({ error: { code, message } });

describe("WorkshopApi", () => {
  it("reads workshop mode, and 404 as not in workshop mode", async () => {
    const info = { workshop: true, event: null, full: false };
    expect(await fake(200, info).api.info()).toEqual(info);
    expect(await fake(404, err("not_found")).api.info()).toBeNull();
    await expect(fake(500, err("internal")).api.info()).rejects.toMatchObject({ status: 500 });
  });

  it("treats 401 on /me as not joined", async () => {
    expect(await fake(401, err("unauthenticated")).api.me()).toBeNull();
    await expect(fake(403, err("forbidden")).api.me()).rejects.toBeInstanceOf(ApiFailure);
  });

  it("sends the contract's paths, methods and bodies", async () => {
    const { calls, api } = fake(200, { event: { id: "e1" }, events: [], learner: {}, resumeCode: "r" });
    await api.join("CODE", "Ada");
    await api.resume("CODE", "Ada", "R-1");
    await api.askHelp("stuck on task 2");
    await api.askHelp();
    await api.cancelHelp();
    await api.adminLogin("tok");
    await api.createEvent({ name: "W", lessons: ["what-lives-in-etcd"], endsAt: "2026-12-02T18:00:00.000Z" });
    await api.extendEvent("e 1", "2026-12-02T18:15:00.000Z");
    await api.endEvent("e1");
    await api.resetLearner("l/1", "02-raft-and-quorum");
    await api.endLearner("l1");
    await api.clearHelp("l1");
    expect(calls.map((c) => [c.method, c.url, c.body])).toEqual([
      ["POST", "/api/workshop/join", '{"code":"CODE","name":"Ada"}'],
      ["POST", "/api/workshop/resume", '{"code":"CODE","name":"Ada","resumeCode":"R-1"}'],
      ["POST", "/api/workshop/help", '{"message":"stuck on task 2"}'],
      ["POST", "/api/workshop/help", "{}"],
      ["DELETE", "/api/workshop/help", undefined],
      ["POST", "/api/workshop/admin/login", '{"token":"tok"}'],
      [
        "POST",
        "/api/workshop/events",
        '{"name":"W","lessons":["what-lives-in-etcd"],"endsAt":"2026-12-02T18:00:00.000Z"}',
      ],
      ["PATCH", "/api/workshop/events/e%201", '{"endsAt":"2026-12-02T18:15:00.000Z"}'],
      ["POST", "/api/workshop/events/e1/end", "{}"],
      ["POST", "/api/workshop/learners/l%2F1/reset", '{"lab":"02-raft-and-quorum"}'],
      ["POST", "/api/workshop/learners/l1/end", "{}"],
      ["DELETE", "/api/workshop/learners/l1/help", undefined],
    ]);
  });

  it("unwraps the event and event list answers", async () => {
    expect(await fake(201, { event: { id: "e1" } }).api.createEvent({ name: "W", lessons: [], endsAt: "x" })).toEqual({
      id: "e1",
    });
    expect(await fake(200, { events: [{ id: "e2" }] }).api.events()).toEqual([{ id: "e2" }]);
  });

  it("builds the stream, terminal and export paths, escaping ids", () => {
    expect(boardSocketPath("e&1")).toBe("/ws/workshop/board?event=e%261");
    expect(terminalViewPath("s1", "main", 100, 30)).toBe(
      "/ws/workshop/terminal?session=s1&terminal=main&cols=100&rows=30",
    );
    expect(exportCsvPath("e/1")).toBe("/api/workshop/events/e%2F1/export.csv");
  });
});

describe("joinProblem", () => {
  const f = (status: number, code: string, message = "server says") => new ApiFailure(status, code, message);

  it("gives every error code of join and resume its own state", () => {
    expect(joinProblem(f(403, "bad_code"))).toMatchObject({
      kind: "field",
      message: expect.stringMatching(/access code/),
    });
    expect(joinProblem(f(403, "event_closed", "the event has ended"))).toEqual({
      kind: "other",
      message: "The workshop is not open: the event has ended",
    });
    expect(joinProblem(f(409, "name_taken")).kind).toBe("resume");
    expect(joinProblem(f(503, "workshop_full", "The workshop is full"))).toEqual({
      kind: "full",
      message: "The workshop is full",
    });
    expect(joinProblem(f(403, "bad_resume")).message).toMatch(/resume code/);
    expect(joinProblem(f(400, "bad_request", "name must be 1-40 printable characters"))).toEqual({
      kind: "field",
      message: "name must be 1-40 printable characters",
    });
  });

  it("says rate limiting in words whatever the code", () => {
    expect(joinProblem(f(429, "rate_limited")).kind).toBe("wait");
    expect(joinProblem(f(429, "busy")).message).toMatch(/Wait a minute/);
  });

  it("passes a network failure's message on", () => {
    expect(joinProblem(f(0, "network", "cannot reach the lab server"))).toEqual({
      kind: "other",
      message: "cannot reach the lab server",
    });
    expect(joinProblem(new Error("boom"))).toEqual({ kind: "other", message: "boom" });
  });
});
