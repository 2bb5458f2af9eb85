import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ConnectionOverrides } from "./kubeconfig.ts";
import { kubeconfigPaths, loadKubeconfig, restConfig } from "./kubeconfig.ts";

const none: ConnectionOverrides = {
  kubeconfig: "",
  context: "",
  cluster: "",
  user: "",
  namespace: "",
  server: "",
  token: "",
  insecureSkipTlsVerify: false,
  certificateAuthority: "",
  clientCertificate: "",
  clientKey: "",
};

function files(): { a: string; b: string } {
  const dir = mkdtempSync(join(tmpdir(), "kubeconfig-test-"));
  const a = join(dir, "a");
  const b = join(dir, "b");
  writeFileSync(
    a,
    [
      "apiVersion: v1",
      "kind: Config",
      "current-context: lab",
      "clusters:",
      "- name: lab",
      "  cluster:",
      "    server: https://10.0.0.1:6443",
      `    certificate-authority-data: ${Buffer.from("CA").toString("base64")}`,
      "contexts:",
      "- name: lab",
      "  context: {cluster: lab, user: admin, namespace: web}",
      "users:",
      "- name: admin",
      "  user: {token: secret-token}",
      "",
    ].join("\n"),
  );
  writeFileSync(
    b,
    [
      "current-context: other",
      "clusters:",
      "- name: lab",
      "  cluster: {server: http://ignored:1}",
      "- name: plain",
      "  cluster: {server: 'http://127.0.0.1:8080', insecure-skip-tls-verify: true}",
      "contexts:",
      "- name: plain",
      "  context: {cluster: plain, user: nobody}",
      "",
    ].join("\n"),
  );
  return { a, b };
}

describe("kubeconfig", () => {
  it("merges $KUBECONFIG files with the first file winning, and resolves the current context", () => {
    const { a, b } = files();
    const paths = kubeconfigPaths((k) => (k === "KUBECONFIG" ? `${a}:${b}` : ""), "");
    const cfg = loadKubeconfig(paths, false);
    expect(cfg["current-context"]).toBe("lab");
    const rc = restConfig(cfg, none);
    expect(rc).toMatchObject({
      server: "https://10.0.0.1:6443",
      namespace: "web",
      token: "secret-token",
      insecure: false,
    });
    expect(rc.ca?.toString()).toBe("CA");
  });

  it("applies --context, -n, -s and --insecure-skip-tls-verify; defaults to localhost:8080 and namespace default", () => {
    const { a, b } = files();
    const cfg = loadKubeconfig([a, b], false);
    const plain = restConfig(cfg, { ...none, context: "plain" });
    expect(plain).toMatchObject({ server: "http://127.0.0.1:8080", namespace: "default", insecure: true });
    expect(plain.token).toBeUndefined();
    expect(restConfig(cfg, { ...none, namespace: "kube-system", server: "http://x:1" })).toMatchObject({
      server: "http://x:1",
      namespace: "kube-system",
      explicitNamespace: true,
    });
    expect(() => restConfig(cfg, { ...none, context: "nope" })).toThrow(
      "context was not found for specified context: nope",
    );
    expect(restConfig(loadKubeconfig([join(tmpdir(), "missing-kubeconfig")], false), none).server).toBe(
      "http://localhost:8080",
    );
  });
});
