import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { wrapObject } from "./envelope.ts";
import {
  decryptAescbc,
  encryptAescbc,
  EncryptionConfigError,
  identity,
  loadEncryptionConfig,
  TransformError,
  type Random,
} from "./encryption.ts";

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

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

const fixed =
  (byte: number): Random =>
  (n) =>
    new Uint8Array(n).fill(byte);
const b64 = (b: Uint8Array | number[]) =>
  Buffer.from(b instanceof Uint8Array ? b : new Uint8Array(b)).toString("base64");
const utf8 = (s: string) => new TextEncoder().encode(s);
const key32 = (byte: number) => b64(new Uint8Array(32).fill(byte));

function config(providers: string, resources = "secrets"): string {
  return [
    "apiVersion: apiserver.config.k8s.io/v1",
    "kind: EncryptionConfiguration",
    "resources:",
    `  - resources: [${resources}]`,
    "    providers:",
    ...providers.split("\n").map((l) => `      ${l}`),
    "",
  ].join("\n");
}

const loadError = (yamlText: string) => {
  try {
    loadEncryptionConfig(yamlText, { path: "/etc/kubernetes/enc.yaml" });
  } catch (e) {
    expect(e).toBeInstanceOf(EncryptionConfigError);
    return (e as Error).message;
  }
  throw new Error("loaded");
};

describe("EncryptionConfiguration", () => {
  it("secretbox writes prefix + nonce + the NaCl box (the reference vector)", () => {
    const cfg = loadEncryptionConfig(config(`- secretbox:\n    keys:\n      - {name: k, secret: ${key32(1)}}`), {
      random: fixed(2),
    });
    const t = cfg.transformerFor("secrets");
    const v = t.toStorage(new Uint8Array(64).fill(3));
    expect(Buffer.from(v.subarray(0, 23)).toString()).toBe("k8s:enc:secretbox:v1:k:");
    expect(Buffer.from(v.subarray(23, 47))).toEqual(Buffer.alloc(24, 2));
    expect(Buffer.from(v.subarray(47)).toString("hex")).toBe(
      "8442bc313f4626f1359e3b50122b6ce6fe66ddfe7d39d14e637eb4fd5b45beadab55198df6ab5368439792a23c87db70acb6156dc5ef957ac04f6276cf6093b84be77ff0849cc33e34b7254d5a8f65ad",
    );
    expect(t.fromStorage(v)).toEqual({ plain: new Uint8Array(64).fill(3), stale: false });
    const tampered = v.slice();
    tampered[60] = (tampered[60] as number) ^ 1;
    expect(() => t.fromStorage(tampered)).toThrow(
      new TransformError("output array was not large enough for encryption"),
    );
  });

  it("aescbc and aesgcm write what decryptAescbc / AES-GCM with the etcd key as AAD read", () => {
    const key = new Uint8Array(32).map((_, i) => i);
    const cfg = loadEncryptionConfig(
      config(`- aescbc:\n    keys:\n      - {name: key1, secret: ${b64(key)}}`, "secrets, configmaps"),
      { random: fixed(7) },
    );
    const plain = utf8("k8s\u0000 a secret");
    const v = cfg.transformerFor("configmaps").toStorage(plain);
    expect(hex(v)).toBe(hex(encryptAescbc(plain, key, "key1", new Uint8Array(16).fill(7))));
    expect(decryptAescbc(v, key)).toEqual({ keyName: "key1", plain });
    const g = loadEncryptionConfig(
      config(`- aesgcm:\n    keys:\n      - {name: g, secret: ${b64(key.subarray(0, 16))}}`),
    );
    const t = g.transformerFor("secrets");
    const sealed = t.toStorage(plain, "/registry/secrets/web/a");
    expect(Buffer.from(sealed.subarray(0, 18)).toString()).toBe("k8s:enc:aesgcm:v1:");
    expect(sealed.length).toBe("k8s:enc:aesgcm:v1:g:".length + 12 + plain.length + 16);
    expect(t.fromStorage(sealed, "/registry/secrets/web/a").plain).toEqual(plain);
    expect(() => t.fromStorage(sealed, "/registry/secrets/web/b")).toThrow("cipher: message authentication failed");
  });

  it("reads any provider by prefix, marks non-first ones stale, and words failures as the apiserver does", () => {
    const cfg = loadEncryptionConfig(
      config(
        [
          "- secretbox:",
          `    keys: [{name: new, secret: ${key32(9)}}]`,
          "- aescbc:",
          "    keys:",
          `      - {name: k2, secret: ${key32(2)}}`,
          `      - {name: k1, secret: ${key32(1)}}`,
          "- identity: {}",
        ].join("\n"),
      ),
    );
    const t = cfg.transformerFor("secrets");
    const plain = utf8("value");
    expect(Buffer.from(t.toStorage(plain).subarray(0, 25)).toString()).toBe("k8s:enc:secretbox:v1:new:");
    expect(t.fromStorage(t.toStorage(plain))).toEqual({ plain, stale: false });
    const old = encryptAescbc(plain, new Uint8Array(32).fill(1), "k1");
    expect(t.fromStorage(old)).toEqual({ plain, stale: true });
    expect(t.fromStorage(plain)).toEqual({ plain, stale: true });
    expect(() => t.fromStorage(encryptAescbc(plain, new Uint8Array(32).fill(1), "k3"))).toThrow(
      "no matching key was found for the provided AES transformer",
    );
    expect(() => t.fromStorage(encryptAescbc(plain, new Uint8Array(32).fill(5), "k1"))).toThrow(TransformError);
    expect(() => t.fromStorage(utf8("k8s:enc:kms:v2:x:abc"))).toThrow("no matching prefix found");
    const noIdentity = loadEncryptionConfig(config(`- aescbc:\n    keys: [{name: k, secret: ${key32(1)}}]`));
    expect(() => noIdentity.transformerFor("secrets").fromStorage(plain)).toThrow("no matching prefix found");
    expect(noIdentity.transformerFor("configmaps")).toBe(identity);
    expect(() => identity.fromStorage(old)).toThrow("identity transformer tried to read encrypted data");
  });

  it("applies a rule to its resource, then *.<group>, then *.*", () => {
    const yamlText = [
      "apiVersion: apiserver.config.k8s.io/v1",
      "kind: EncryptionConfiguration",
      "resources:",
      "  - resources: [secrets]",
      `    providers: [{aescbc: {keys: [{name: a, secret: ${key32(1)}}]}}]`,
      "  - resources: ['*.apps']",
      `    providers: [{secretbox: {keys: [{name: s, secret: ${key32(2)}}]}}]`,
      "  - resources: ['*.*']",
      "    providers: [{identity: {}}]",
    ].join("\n");
    const cfg = loadEncryptionConfig(yamlText);
    const prefix = (r: string) =>
      Buffer.from(cfg.transformerFor(r).toStorage(utf8("x")).subarray(0, 20)).toString("latin1");
    expect(prefix("secrets")).toMatch(/^k8s:enc:aescbc:v1:a/);
    expect(prefix("deployments.apps")).toBe("k8s:enc:secretbox:v1");
    expect(prefix("configmaps")).toBe("x");
    const masked = [
      "apiVersion: apiserver.config.k8s.io/v1",
      "kind: EncryptionConfiguration",
      "resources:",
      "  - {resources: ['*.'], providers: [{identity: {}}]}",
      "  - {resources: [configmaps], providers: [{identity: {}}]}",
    ].join("\n");
    expect(loadError(masked)).toBe(
      'error while building transformers: resource "configmaps" is masked by earlier rule "*."',
    );
  });

  it("refuses configurations kube-apiserver refuses, with its messages", () => {
    expect(loadError(config(`- aescbc:\n    keys: [{name: k, secret: ${b64([1, 2, 3, 4, 5, 6, 7, 8])}}]`))).toBe(
      'error while parsing file: resources[0].providers[0].aescbc.keys[0].secret: Invalid value: "REDACTED": secret is not of the expected length, got 8, expected one of [16 24 32]',
    );
    expect(loadError(config(`- secretbox:\n    keys: [{name: k, secret: ${b64(new Uint8Array(16))}}]`))).toBe(
      'error while parsing file: resources[0].providers[0].secretbox.keys[0].secret: Invalid value: "REDACTED": secret is not of the expected length, got 16, expected one of [32]',
    );
    expect(loadError(config("- aescbc:\n    keys: [{name: '', secret: 'not*base64'}]"))).toBe(
      'error while parsing file: [resources[0].providers[0].aescbc.keys[0].name: Required value: name is a mandatory field for a key, resources[0].providers[0].aescbc.keys[0].secret: Invalid value: "REDACTED": secrets must be base64 encoded]',
    );
    expect(loadError(config("- aescbc:\n    keys: []"))).toBe(
      "error while parsing file: resources[0].providers[0].aescbc.keys: Required value: at least one keys is required",
    );
    expect(loadError(config(`- aescbc:\n    keyz: []`))).toBe(
      'error while parsing file: error decoding encryption provider configuration file "/etc/kubernetes/enc.yaml": strict decoding error: unknown field "resources[0].providers[0].aescbc.keyz"',
    );
    expect(loadError(config("- identity: {}", "secrets, secrets"))).toBe(
      'error while parsing file: resources[0].resources: Invalid value: []string{"secrets", "secrets"}: the same resource cannot be specified multiple times',
    );
    expect(loadError(config("- identity: {}", "Secrets"))).toBe(
      'error while parsing file: resources[0].resources[0]: Invalid value: "Secrets": resource name should not contain capital letters',
    );
    expect(loadError(config("[]"))).toBe(
      "error while parsing file: resources[0].providers: Required value: at least one resources[0].providers is required",
    );
    expect(loadError("apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfig\n")).toBe(
      'error while parsing file: error decoding encryption provider configuration file "/etc/kubernetes/enc.yaml": no kind "EncryptionConfig" is registered for version "apiserver.config.k8s.io/v1" in scheme "k8s.io/apiserver/pkg/server/options/encryptionconfig/config.go:142"',
    );
    expect(loadError("")).toBe(
      'error while parsing file: error while loading file: encryption provider configuration file "/etc/kubernetes/enc.yaml" is empty',
    );
    expect(loadError("apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\n")).toBe(
      "error while parsing file: resources: Required value: at least one resources is required",
    );
  });
});
