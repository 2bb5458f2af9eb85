import { describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { decryptAescbc, encryptAescbc, protoPrefix, unwrapObject, wrapObject } from "./envelope.ts";
import { Reader } from "../../store/proto/wire.ts";
import { pod } from "./k8s-objects.ts";

describe("k8s envelope", () => {
  it("wraps raw protobuf in k8s\\0 + runtime.Unknown with apiVersion and kind visible", () => {
    const raw = new Uint8Array([0x0a, 0x03, 0x66, 0x6f, 0x6f]);
    const v = wrapObject({ apiVersion: "apps/v1", kind: "Deployment" }, raw);
    expect([...v.subarray(0, 4)]).toEqual([...protoPrefix]);
    // Unknown{typeMeta{apiVersion,kind}, raw, contentEncoding "", contentType ""}: ends with 1a 00 22 00.
    expect([...v.subarray(-4)]).toEqual([0x1a, 0x00, 0x22, 0x00]);
    expect(Buffer.from(v).toString("latin1")).toContain("apps/v1");
    expect(unwrapObject(v)).toEqual({ apiVersion: "apps/v1", kind: "Deployment", raw });
    expect(unwrapObject(new TextEncoder().encode('{"kind":"IPPool"}'))).toBeNull();
  });

  it("encodes a Pod whose metadata decodes back (name 1, namespace 3, uid 5)", () => {
    const v = pod(
      { name: "web-1", namespace: "web", uid: "u-1", created: 1_768_209_120 },
      { containers: [{ name: "nginx", image: "nginx:1.27" }], nodeName: "worker-1" },
      { phase: "Running", hostIP: "10.0.0.11", podIP: "10.244.1.2", started: 1_768_209_121 },
    );
    const env = unwrapObject(v);
    expect(env?.kind).toBe("Pod");
    const r = new Reader(env!.raw);
    expect(r.uint32()).toBe((1 << 3) | 2); // metadata
    const end = r.uint32() + r.pos;
    const meta: Record<number, string> = {};
    while (r.pos < end) {
      const tag = r.uint32();
      if ((tag & 7) === 2 && [1, 3, 5].includes(tag >>> 3)) meta[tag >>> 3] = r.string();
      else r.skip(tag & 7);
    }
    expect(meta).toEqual({ 1: "web-1", 3: "web", 5: "u-1" });
  });

  it("encrypts like the aescbc provider: prefix, IV, AES-256-CBC; openssl decrypts it", () => {
    const key = new Uint8Array(32).map((_, i) => i);
    const iv = Buffer.alloc(16, 7);
    const plain = wrapObject({ apiVersion: "v1", kind: "Secret" }, new Uint8Array([1, 2, 3]));
    const enc = encryptAescbc(plain, key, "key1", iv);
    expect(Buffer.from(enc.subarray(0, 23)).toString()).toBe("k8s:enc:aescbc:v1:key1:");
    expect(Buffer.from(enc.subarray(23, 39))).toEqual(iv);
    expect(decryptAescbc(enc, key)).toEqual({ keyName: "key1", plain });
    if (!existsSync("/usr/bin/openssl"))
      return console.warn("!!! SKIPPING the openssl cross-check: no /usr/bin/openssl");
    const out = execFileSync(
      "/usr/bin/openssl",
      ["enc", "-d", "-aes-256-cbc", "-K", Buffer.from(key).toString("hex"), "-iv", iv.toString("hex")],
      { input: enc.subarray(39) },
    );
    expect(new Uint8Array(out)).toEqual(plain);
  });
});
