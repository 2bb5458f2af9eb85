import { describe, expect, it } from "vitest";
import type { FetchLike } from "./api-client.ts";
import { ApiFailure, failureFrom, LabApi } from "./api-client.ts";

function fake(status: number, body: unknown) {
  const calls: Array<{ url: string; init: Parameters<FetchLike>[1] }> = [];
  const fetchFn: FetchLike = async (url, init) => {
    calls.push({ url, init });
    return {
      status,
      ok: status >= 200 && status < 300,
      text: async () => (body === undefined ? "" : JSON.stringify(body)),
    };
  };
  return { calls, api: new LabApi(fetchFn) };
}

describe("LabApi", () => {
  it("opens a session with a JSON body and the cookie", async () => {
    const { calls, api } = fake(201, { id: "s1", lab: "02-raft-and-quorum" });
    const session = await api.openSession("02-raft-and-quorum");
    expect(session.id).toBe("s1");
    expect(calls[0]).toEqual({
      url: "/api/sessions",
      init: {
        method: "POST",
        credentials: "same-origin",
        headers: { Accept: "application/json", "Content-Type": "application/json" },
        body: '{"lab":"02-raft-and-quorum"}',
      },
    });
  });

  it("builds the control paths of API.md, escaping names", async () => {
    const { calls, api } = fake(200, { ok: true, event: {} });
    await api.memberControl("s 1", "m2", "kill");
    await api.memberControl("s1", "m3", "slow-disk", { ms: 100 });
    await api.heal("s1");
    expect(calls.map((c) => [c.url, c.init.body])).toEqual([
      ["/api/sessions/s%201/members/m2/kill", "{}"],
      ["/api/sessions/s1/members/m3/slow-disk", '{"ms":100}'],
      ["/api/sessions/s1/heal", "{}"],
    ]);
  });

  it("unwraps list answers", async () => {
    expect(await fake(200, { labs: [{ id: "a" }] }).api.labs()).toEqual([{ id: "a" }]);
    expect(await fake(200, { tasks: [{ task: "t" }] }).api.tasks("s1")).toEqual([{ task: "t" }]);
  });

  it("accepts an empty 204 answer", async () => {
    await expect(fake(204, undefined).api.auth("tok")).resolves.toBeUndefined();
  });

  it("rejects with the server's code and one-line message", async () => {
    const { api } = fake(429, { error: { code: "session_limit", message: "too many sessions: close one of a, b" } });
    await expect(api.openSession("x")).rejects.toMatchObject({
      name: "ApiFailure",
      status: 429,
      code: "session_limit",
      message: "too many sessions: close one of a, b",
    });
  });

  it("turns a network failure into a readable error", async () => {
    const api = new LabApi(async () => {
      throw new TypeError("Failed to fetch");
    });
    await expect(api.labs()).rejects.toEqual(
      new ApiFailure(0, "network", "cannot reach the lab server: is `npm start` still running?"),
    );
  });
});

describe("failureFrom", () => {
  it("copes with a body that is not the error shape", () => {
    expect(failureFrom(502, "<html>Bad gateway</html>").message).toBe("the lab server answered 502");
    expect(failureFrom(500, '{"error":{"message":"boom"}}').code).toBe("unknown");
  });
});
