import { afterEach, describe, expect, it } from "vitest";
import { markerEnv } from "./watchdog.ts";
import { memberEnv } from "./member-process.ts";

describe("memberEnv", () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
  });

  it("drops ETCD_*, ETCDCTL_* and NODE_EXTRA_CA_CERTS, keeps the rest, and adds the spec's env and the run marker", () => {
    process.env["ETCD_NAME"] = "learner-typed-this";
    process.env["ETCDCTL_ENDPOINTS"] = "127.0.0.1:1";
    process.env["NODE_EXTRA_CA_CERTS"] = "/etc/ssl/certs/ca-certificates.crt";
    process.env["LANG"] = "C.UTF-8";
    const guard = { runId: "run-1", adopt: () => undefined, release: () => undefined };
    const env = memberEnv({ ETCD_LAB_CONTROL_SOCKET: "/tmp/x.sock" }, guard);
    expect(env["ETCD_NAME"]).toBeUndefined();
    expect(env["ETCDCTL_ENDPOINTS"]).toBeUndefined();
    expect(env["NODE_EXTRA_CA_CERTS"]).toBeUndefined();
    expect(env["LANG"]).toBe("C.UTF-8");
    expect(env["ETCD_LAB_CONTROL_SOCKET"]).toBe("/tmp/x.sock");
    expect(env[markerEnv]).toBe("run-1");
  });
});
