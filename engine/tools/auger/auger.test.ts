import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { encodeObject } from "../../kube/api/codec.ts";
import { encryptAescbc } from "../../kube/api/encryption.ts";
import { unwrapObject } from "../../kube/api/envelope.ts";
import { builtinResources, crdResource } from "../../kube/api/resources.ts";
import { memoryIo } from "../cobra/testing.ts";
import { runAuger } from "./auger.ts";

/** auger runs `auger <args>` with `stdin` as its standard input (raw bytes). */
async function auger(stdin: Uint8Array, ...args: string[]) {
  const base = memoryIo({ argv: ["auger", ...args] });
  const chunks: Uint8Array[] = [];
  const io = {
    ...base,
    readStdin: () => stdin,
    stdout: (s: string | Uint8Array) => {
      chunks.push(typeof s === "string" ? new TextEncoder().encode(s) : s);
    },
  };
  const code = await runAuger(io, args);
  const raw = Buffer.concat(chunks);
  return { code, out: raw.toString("utf8"), raw: new Uint8Array(raw), err: base.err() };
}

/** printed is a stored value as `etcdctl get --print-value-only` prints it: the bytes and a newline. */
const printed = (v: Uint8Array) => new Uint8Array(Buffer.concat([v, Buffer.from("\n")]));
const configMaps = builtinResources.find((r) => r.kind === "ConfigMap")!;

const cm = encodeObject(configMaps, {
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: {
    name: "web-config",
    namespace: "web",
    uid: "0c3a7a52-6a44-4f5e-9d5e-2b8e0f0a1c11",
    creationTimestamp: "2026-01-12T09:12:00Z",
    labels: { app: "web" },
  },
  data: { "nginx.conf": "server {\n  listen 80;\n}\n", port: "80" },
});

describe("auger decode", () => {
  it("prints a stored object as YAML (keys sorted, sequences flush with their key)", async () => {
    const r = await auger(printed(cm), "decode");
    expect(r).toMatchObject({ code: 0, err: "" });
    expect(r.out).toBe(
      [
        "apiVersion: v1",
        "data:",
        "  nginx.conf: |",
        "    server {",
        "      listen 80;",
        "    }",
        '  port: "80"',
        "kind: ConfigMap",
        "metadata:",
        '  creationTimestamp: "2026-01-12T09:12:00Z"',
        "  labels:",
        "    app: web",
        "  name: web-config",
        "  namespace: web",
        "  uid: 0c3a7a52-6a44-4f5e-9d5e-2b8e0f0a1c11",
        "",
      ].join("\n"),
    );
  });

  it("prints JSON as the apiserver's serializer does, and the raw protobuf payload", async () => {
    const json = await auger(printed(cm), "decode", "-o", "json");
    expect(json.out).toBe(
      '{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"web-config","namespace":"web","uid":"0c3a7a52-6a44-4f5e-9d5e-2b8e0f0a1c11","creationTimestamp":"2026-01-12T09:12:00Z","labels":{"app":"web"}},"data":{"nginx.conf":"server {\\n  listen 80;\\n}\\n","port":"80"}}\n',
    );
    const proto = await auger(printed(cm), "decode", "--output=proto");
    expect(Buffer.from(proto.raw)).toEqual(Buffer.from(unwrapObject(cm)!.raw));
    expect((await auger(printed(cm), "decode", "--meta-only")).out).toBe(
      "TypeMeta.APIVersion: v1\nTypeMeta.Kind: ConfigMap\n",
    );
  });

  it("finds the value after the key line etcdctl prints without --print-value-only", async () => {
    const withKey = new Uint8Array(Buffer.concat([Buffer.from("/registry/configmaps/web/web-config\n"), printed(cm)]));
    expect((await auger(withKey, "decode", "-o", "json")).out).toBe(
      (await auger(printed(cm), "decode", "-o", "json")).out,
    );
  });

  it("passes custom resources' JSON through, and converts it to YAML", async () => {
    const r = crdResource({
      group: "crd.projectcalico.org",
      version: "v1",
      scope: "Cluster",
      names: { kind: "IPPool", plural: "ippools" },
    });
    const stored = encodeObject(r, {
      apiVersion: "crd.projectcalico.org/v1",
      kind: "IPPool",
      metadata: { name: "default-ipv4-ippool" },
      spec: { cidr: "10.244.0.0/16", natOutgoing: true, blockSize: 26 },
    });
    expect((await auger(printed(stored), "decode", "-o", "json")).out).toBe(new TextDecoder().decode(stored));
    expect((await auger(printed(stored), "decode")).out).toBe(
      "apiVersion: crd.projectcalico.org/v1\nkind: IPPool\nmetadata:\n  name: default-ipv4-ippool\nspec:\n  blockSize: 26\n  cidr: 10.244.0.0/16\n  natOutgoing: true\n",
    );
    expect(await auger(printed(stored), "decode", "-o", "proto")).toMatchObject({
      code: 1,
      out: 'error decoding from application/json: no kind "IPPool" is registered for version "crd.projectcalico.org/v1" in scheme "github.com/etcd-io/auger/pkg/scheme/init.go:27"\n',
    });
  });

  it("cannot read an encrypted value: auger's error, cobra's usage, and main printing it again", async () => {
    const enc = encryptAescbc(cm, new Uint8Array(32).fill(1), "key1", new Uint8Array(16));
    const r = await auger(printed(enc), "decode");
    const msg = "error reading input, does not appear to contain valid JSON or binary data";
    expect(r.code).toBe(1);
    expect(r.out).toBe(`${msg}\n`);
    expect(r.err).toMatch(new RegExp(`^Error: ${msg}\nUsage:\n  auger decode \\[flags\\]\n\nExamples:\n`));
    expect(r.err).toContain('  -o, --output string   Output format. One of: json|yaml|proto (default "yaml")\n');
  });

  it("words bad flags and empty input as auger does", async () => {
    expect((await auger(printed(cm), "decode", "-o", "xml")).out).toBe("unrecognized 'out' flag value: xml\n");
    expect((await auger(new Uint8Array(), "decode")).out).toBe("no input data\n");
    expect((await auger(printed(new Uint8Array()), "decode")).out).toBe("no input data\n");
    const dir = mkdtempSync(join(tmpdir(), "auger-"));
    try {
      writeFileSync(join(dir, "v"), printed(cm));
      expect((await auger(new Uint8Array(), "decode", "--file", join(dir, "v"), "--meta-only")).out).toBe(
        "TypeMeta.APIVersion: v1\nTypeMeta.Kind: ConfigMap\n",
      );
      expect((await auger(new Uint8Array(), "decode", "--file", join(dir, "nope"))).out).toBe(
        `error reading input file ${join(dir, "nope")}: open ${join(dir, "nope")}: no such file or directory\n`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("decodes hex values one a line with --batch-process (etcd-dump-logs' decoder)", async () => {
    const lines = `${Buffer.from(cm).toString("hex")}\n${Buffer.from("plain").toString("hex")}\n`;
    const r = await auger(new TextEncoder().encode(lines), "decode", "--batch-process", "--meta-only");
    expect(r.out).toBe(
      "OK|TypeMeta.APIVersion: v1\nTypeMeta.Kind: ConfigMap\n\nERROR:error reading input, does not appear to contain valid JSON or binary data|\n",
    );
    const bad = await auger(new TextEncoder().encode("zz\n"), "decode", "--batch-process");
    expect(bad.out).toBe(
      "error decoding input on line 0 of --batch-process input: encoding/hex: invalid byte: U+007A 'z'\n",
    );
  });

  it("prints cobra's help with the long description", async () => {
    const r = await auger(new Uint8Array(), "--help");
    expect(r.code).toBe(0);
    expect(
      r.out.startsWith(
        "Inspect and analyze kubernetes objects in binary storage\nencoding used with etcd 3+ and boltdb.\n\nUsage:\n  auger [command]\n",
      ),
    ).toBe(true);
    expect(r.out).toContain("  decode      Decode objects from the kubernetes binary key-value store encoding.\n");
  });
});
