import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { wrapObject } from "./envelope.ts";
import { decryptAescbc, encryptAescbc } from "./encryption.ts";

describe("encryption at rest", () => {
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
