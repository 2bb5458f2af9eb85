// Encryption at rest as kube-apiserver does it, from a real EncryptionConfiguration
// (apiserver.config.k8s.io/v1, --encryption-provider-config). Each provider is a prefix on the stored value:
//   aescbc     "k8s:enc:aescbc:v1:<key name>:" + 16-byte IV + AES-CBC (PKCS#7) of the value
//   aesgcm     "k8s:enc:aesgcm:v1:<key name>:" + 12-byte nonce + AES-GCM (the etcd key as additional data)
//   secretbox  "k8s:enc:secretbox:v1:<key name>:" + 24-byte nonce + XSalsa20-Poly1305 box (tag first)
//   identity   the value as it is
// Writes use the first provider's first key; reads try every provider and key whose prefix matches, in
// order, and are "stale" when it was not the first (the apiserver then rewrites the object). Facts, messages
// and validation rules from k8s.io/apiserver pkg/storage/value, pkg/server/options/encryptionconfig and
// pkg/apis/apiserver/validation.
import { createCipheriv, createDecipheriv, randomBytes, type CipherGCMTypes } from "node:crypto";
import { xsalsa20poly1305 } from "@noble/ciphers/salsa.js";
import { parse } from "yaml";

/** aescbcPrefix starts an aescbc-encrypted value; the key name and a colon follow. */
export const aescbcPrefix = "k8s:enc:aescbc:v1:";
const aesgcmPrefix = "k8s:enc:aesgcm:v1:";
const secretboxPrefix = "k8s:enc:secretbox:v1:";
const encryptedPrefix = "k8s:enc:";

/** Random fills n bytes (IVs and nonces); tests pass a fixed one. */
export type Random = (n: number) => Uint8Array;
const cryptoRandom: Random = (n) => new Uint8Array(randomBytes(n));

/** FromStorage is a read value: the plain bytes and whether it should be rewritten with the first provider. */
export interface FromStorage {
  plain: Uint8Array;
  stale: boolean;
}

/** Transformer turns a resource's values into what etcd stores and back. `key` is the etcd key (aesgcm's AAD). */
export interface Transformer {
  toStorage(plain: Uint8Array, key?: string): Uint8Array;
  /** fromStorage throws TransformError when no provider can read the value. */
  fromStorage(value: Uint8Array, key?: string): FromStorage;
}

/** TransformError is a stored value no provider could read (the message is the apiserver's). */
export class TransformError extends Error {
  override name = "TransformError";
}

/** EncryptionConfigError is a configuration kube-apiserver refuses to start with (its message). */
export class EncryptionConfigError extends Error {
  override name = "EncryptionConfigError";
}

const te = new TextEncoder();
const hasPrefix = (v: Uint8Array, p: Uint8Array) => v.length >= p.length && p.every((b, i) => v[i] === b);
const concat = (...parts: Uint8Array[]) => new Uint8Array(Buffer.concat(parts));

/** Prefixed is one choice of a prefix transformer list: a prefix and what reads/writes after it. */
interface Prefixed {
  prefix: Uint8Array;
  t: Transformer;
}

/** prefixTransformers is value.NewPrefixTransformers: write with the first, read with any matching prefix. */
function prefixTransformers(noMatch: string, list: Prefixed[]): Transformer {
  return {
    toStorage(plain, key) {
      const first = list[0] as Prefixed;
      return concat(first.prefix, first.t.toStorage(plain, key));
    },
    fromStorage(value, key) {
      const errs: string[] = [];
      for (const [i, { prefix, t }] of list.entries()) {
        if (!hasPrefix(value, prefix)) continue;
        try {
          const out = t.fromStorage(value.subarray(prefix.length), key);
          return { plain: out.plain, stale: out.stale || i !== 0 };
        } catch (e) {
          if (!(e instanceof TransformError)) throw e;
          if (prefix.length > 0) errs.push(e.message); // identity's "encrypted data" error lets later ones try
        }
      }
      if (errs.length === 1) throw new TransformError(errs[0]);
      if (errs.length > 1) throw new TransformError(`[${errs.join(", ")}]`);
      throw new TransformError(noMatch);
    },
  };
}

/** identity is the identity provider: values as they are, refusing to "read" encrypted ones. */
export const identity: Transformer = {
  toStorage: (plain) => plain,
  fromStorage(value) {
    if (hasPrefix(value, te.encode(encryptedPrefix)))
      throw new TransformError("identity transformer tried to read encrypted data");
    return { plain: value, stale: false };
  },
};

const cbcName = (key: Uint8Array) => `aes-${key.length * 8}-cbc`;
const gcmName = (key: Uint8Array) => `aes-${key.length * 8}-gcm` as CipherGCMTypes;
const isSet = (v: unknown) => v !== undefined && v !== null;

function cbc(key: Uint8Array, random: Random): Transformer {
  return {
    toStorage(plain) {
      const iv = random(16);
      const c = createCipheriv(cbcName(key), key, iv);
      return concat(iv, c.update(plain), c.final());
    },
    fromStorage(data) {
      if (data.length < 16) throw new TransformError("the stored data was shorter than the required size");
      const body = data.subarray(16);
      if (body.length % 16 !== 0) throw new TransformError("the stored data is not a multiple of the block size");
      const d = createDecipheriv(cbcName(key), key, data.subarray(0, 16)).setAutoPadding(false);
      const out = concat(d.update(body), d.final());
      const pad = out.length > 0 ? (out[out.length - 1] as number) : 0;
      if (pad === 0 || pad > out.length) throw new TransformError("invalid PKCS7 data (empty or not padded)");
      for (let i = out.length - pad; i < out.length; i++)
        if (out[i] !== pad) throw new TransformError("invalid padding on input");
      return { plain: out.subarray(0, out.length - pad), stale: false };
    },
  };
}

function gcm(key: Uint8Array, random: Random): Transformer {
  return {
    toStorage(plain, etcdKey = "") {
      const nonce = random(12);
      const c = createCipheriv(gcmName(key), key, nonce);
      c.setAAD(te.encode(etcdKey));
      return concat(nonce, c.update(plain), c.final(), c.getAuthTag());
    },
    fromStorage(data, etcdKey = "") {
      if (data.length < 12 + 16) throw new TransformError("the stored data was shorter than the required size");
      const d = createDecipheriv(gcmName(key), key, data.subarray(0, 12));
      d.setAAD(te.encode(etcdKey));
      d.setAuthTag(data.subarray(data.length - 16));
      try {
        return { plain: concat(d.update(data.subarray(12, data.length - 16)), d.final()), stale: false };
      } catch {
        throw new TransformError("cipher: message authentication failed");
      }
    },
  };
}

function secretbox(key: Uint8Array, random: Random): Transformer {
  return {
    toStorage(plain) {
      const nonce = random(24);
      return concat(nonce, xsalsa20poly1305(key, nonce).encrypt(plain));
    },
    fromStorage(data) {
      if (data.length < 16 + 24) throw new TransformError("the stored data was shorter than the required size");
      try {
        return { plain: xsalsa20poly1305(key, data.subarray(0, 24)).decrypt(data.subarray(24)), stale: false };
      } catch {
        throw new TransformError("output array was not large enough for encryption");
      }
    },
  };
}

/** encryptAescbc encrypts a stored value the way the aescbc provider does with one key (random IV). */
export function encryptAescbc(plain: Uint8Array, key: Uint8Array, keyName: string, iv?: Uint8Array): Uint8Array {
  if (![16, 24, 32].includes(key.length))
    throw new RangeError(`aescbc key must be 16, 24 or 32 bytes, got ${key.length}`);
  return concat(te.encode(`${aescbcPrefix}${keyName}:`), cbc(key, (n) => iv ?? cryptoRandom(n)).toStorage(plain));
}

/** decryptAescbc reverses encryptAescbc; null when the value is not aescbc-encrypted. */
export function decryptAescbc(value: Uint8Array, key: Uint8Array): { keyName: string; plain: Uint8Array } | null {
  const head = Buffer.from(value.subarray(0, 64)).toString("latin1");
  if (!head.startsWith(aescbcPrefix)) return null;
  const colon = head.indexOf(":", aescbcPrefix.length);
  if (colon < 0) return null;
  const { plain } = cbc(key, cryptoRandom).fromStorage(value.subarray(colon + 1));
  return { keyName: head.slice(aescbcPrefix.length, colon), plain };
}

// ---- the configuration ----

interface Key {
  name?: string;
  secret?: string;
}
interface Provider {
  aescbc?: { keys?: Key[] };
  aesgcm?: { keys?: Key[] };
  secretbox?: { keys?: Key[] };
  identity?: Record<string, never>;
  kms?: { name?: string; apiVersion?: string; endpoint?: string };
}
interface ResourceConfig {
  resources?: string[];
  providers?: Provider[];
}

/** EncryptionConfig is a loaded EncryptionConfiguration. */
export interface EncryptionConfig {
  /**
   * transformerFor is the transformer of a resource ("secrets", "deployments.apps"): its own rule, else its
   * group's "*.<group>", else "*.*", else identity (unencrypted).
   */
  transformerFor(resource: string): Transformer;
}

const allowed: Record<string, string[]> = {
  "": ["apiVersion", "kind", "resources"],
  "resources[]": ["resources", "providers"],
  "resources[].providers[]": ["aescbc", "aesgcm", "secretbox", "identity", "kms"],
  "resources[].providers[].aescbc": ["keys"],
  "resources[].providers[].aesgcm": ["keys"],
  "resources[].providers[].secretbox": ["keys"],
  "resources[].providers[].identity": [],
  "resources[].providers[].kms": ["apiVersion", "name", "cachesize", "endpoint", "timeout"],
  "resources[].providers[].aescbc.keys[]": ["name", "secret"],
  "resources[].providers[].aesgcm.keys[]": ["name", "secret"],
  "resources[].providers[].secretbox.keys[]": ["name", "secret"],
};

/** unknownConfigFields is strict decoding of the configuration: the paths of fields it does not have. */
function unknownConfigFields(v: unknown, shape: string, path: string, out: string[]): void {
  if (Array.isArray(v)) {
    v.forEach((item, i) => unknownConfigFields(item, `${shape}[]`, `${path}[${i}]`, out));
    return;
  }
  if (v === null || typeof v !== "object") return;
  const keys = allowed[shape];
  if (!keys) return;
  for (const [k, child] of Object.entries(v)) {
    const p = path ? `${path}.${k}` : k;
    if (!keys.includes(k)) out.push(p);
    else unknownConfigFields(child, shape ? `${shape}.${k}` : k, p, out);
  }
}

/** goBase64 decodes base64.StdEncoding (padding required); null when it is not valid. */
function goBase64(s: string): Uint8Array | null {
  if (s.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(s)) return null;
  return new Uint8Array(Buffer.from(s, "base64"));
}

const quoteGo = (s: string) => JSON.stringify(s);
const goStrings = (v: string[]) => `[]string{${v.map(quoteGo).join(", ")}}`;

/** validate is ValidateEncryptionConfiguration: field errors as field.Error prints them. */
function validate(resources: ResourceConfig[] | undefined): string[] {
  const errs: string[] = [];
  const required = (path: string, detail: string) => errs.push(`${path}: Required value: ${detail}`);
  const invalid = (path: string, value: string, detail: string) =>
    errs.push(`${path}: Invalid value: ${value}: ${detail}`);
  if (!resources || resources.length === 0) {
    required("resources", "at least one resources is required");
    return errs;
  }
  resources.forEach((conf, i) => {
    const r = `resources[${i}].resources`;
    const p = `resources[${i}].providers`;
    const names = conf.resources ?? [];
    if (names.length === 0) required(r, `at least one ${r} is required`);
    validateOverlap(names, r, invalid);
    names.forEach((res, j) => {
      const at = `${r}[${j}]`;
      const [resource, group = ""] = splitGroupResource(res);
      if (/[A-Z]/.test(res)) invalid(at, quoteGo(res), "resource name should not contain capital letters");
      else if (res === "*")
        invalid(
          at,
          quoteGo(res),
          "use '*.' to encrypt all the resources from core API group or *.* to encrypt all resources",
        );
      else if (["apiserveripinfo", "serviceipallocations", "servicenodeportallocations"].includes(res))
        invalid(at, quoteGo(res), "resources which do not have REST API/s cannot be encrypted");
      else if (group === "events.k8s.io")
        invalid(
          at,
          quoteGo(res),
          "'*.events.k8s.io' objects are stored using the 'events' API group in etcd. Use 'events' instead in the config file",
        );
      else if (group === "extensions")
        invalid(at, quoteGo(res), "'extensions' group has been removed and cannot be used for encryption");
      else if (group === "*" && resource !== "*")
        invalid(at, quoteGo(res), "encrypting the same resource across groups is not supported");
    });
    const providers = conf.providers ?? [];
    if (providers.length === 0) required(p, `at least one ${p} is required`);
    providers.forEach((provider, j) => {
      const at = `${p}[${j}]`;
      const kinds = (["kms", "aesgcm", "aescbc", "secretbox", "identity"] as const).filter((k) => isSet(provider[k]));
      if (kinds.length !== 1) {
        const detail =
          kinds.length === 0
            ? "provider does not contain any of the expected providers: KMS, AESGCM, AESCBC, Secretbox, Identity"
            : "more than one provider specified in a single element, should split into different list elements";
        errs.push(`${at}: Invalid value: ${goProvider(provider)}: ${detail}`);
      }
      for (const kind of ["aesgcm", "aescbc", "secretbox"] as const) {
        const keys = provider[kind]?.keys;
        if (!provider[kind]) continue;
        const sizes = kind === "secretbox" ? [32] : [16, 24, 32];
        const kp = `${at}.${kind}.keys`;
        if (!keys || keys.length === 0) {
          required(kp, "at least one keys is required");
          continue;
        }
        keys.forEach((key, n) => {
          if (!key.name) required(`${kp}[${n}].name`, "name is a mandatory field for a key");
          if (!key.secret) return void required(`${kp}[${n}].secret`, "secret is a mandatory field for a key");
          const secret = goBase64(key.secret);
          if (!secret) return void invalid(`${kp}[${n}].secret`, '"REDACTED"', "secrets must be base64 encoded");
          if (!sizes.includes(secret.length))
            invalid(
              `${kp}[${n}].secret`,
              '"REDACTED"',
              `secret is not of the expected length, got ${secret.length}, expected one of [${sizes.join(" ")}]`,
            );
        });
      }
    });
  });
  return errs;
}

/** goProvider prints a ProviderConfiguration as %#v does (abridged: which providers are set). */
function goProvider(p: Provider): string {
  const set = (k: keyof Provider, type: string) =>
    `${type}:${!isSet(p[k]) ? "(*apiserver." + type + "Configuration)(nil)" : "(*apiserver." + type + "Configuration)(0x0)"}`;
  return `apiserver.ProviderConfiguration{${[
    set("aesgcm", "AESGCM"),
    set("aescbc", "AESCBC"),
    set("secretbox", "Secretbox"),
    set("identity", "Identity"),
    set("kms", "KMS"),
  ].join(", ")}}`;
}

function validateOverlap(names: string[], path: string, invalid: (p: string, v: string, d: string) => void): void {
  if (names.length < 2) return;
  const grs = names.map((n) => splitGroupResource(n));
  let duplicate = false;
  let overlap = false;
  grs.forEach(([r1, g1], i) =>
    grs.forEach(([r2, g2], j) => {
      if (i === j) return;
      if (r1 === r2 && g1 === g2 && !duplicate) {
        duplicate = true;
        return;
      }
      if (overlap) return;
      if (r1 === "*" && g1 === "*") overlap = true;
      else if (g1 === g2 && (r1 === "*" || r2 === "*")) overlap = true;
    }),
  );
  if (duplicate) invalid(path, goStrings(names), "the same resource cannot be specified multiple times");
  if (overlap)
    invalid(
      path,
      goStrings(names),
      "using overlapping resources such as 'secrets' and '*.' in the same resource list is not allowed as they will be masked",
    );
}

/** splitGroupResource is schema.ParseGroupResource: "deployments.apps" → ["deployments", "apps"]. */
function splitGroupResource(s: string): [resource: string, group: string] {
  const dot = s.indexOf(".");
  return dot < 0 ? [s, ""] : [s.slice(0, dot), s.slice(dot + 1)];
}

function keyed(kind: "aescbc" | "aesgcm" | "secretbox", keys: Key[], random: Random): Prefixed {
  const make = { aescbc: cbc, aesgcm: gcm, secretbox }[kind];
  const list = keys.map((k) => ({
    prefix: te.encode(`${k.name}:`),
    t: make(goBase64(k.secret ?? "") as Uint8Array, random),
  }));
  const noMatch = `no matching key was found for the provided ${kind === "secretbox" ? "Secretbox" : "AES"} transformer`;
  const prefix = { aescbc: aescbcPrefix, aesgcm: aesgcmPrefix, secretbox: secretboxPrefix }[kind];
  return { prefix: te.encode(prefix), t: prefixTransformers(noMatch, list) };
}

/**
 * loadEncryptionConfig parses and validates an EncryptionConfiguration as kube-apiserver does at start-up
 * and builds its transformers. It throws EncryptionConfigError with the apiserver's message; `path` is the
 * file name the messages quote.
 */
export function loadEncryptionConfig(
  yamlText: string,
  opts: { path?: string; random?: Random } = {},
): EncryptionConfig {
  const path = opts.path ?? "/etc/kubernetes/enc/encryption-config.yaml";
  const fail = (msg: string): never => {
    throw new EncryptionConfigError(`error while parsing file: ${msg}`);
  };
  const decodeFail = (msg: string) => fail(`error decoding encryption provider configuration file "${path}": ${msg}`);
  if (yamlText.length === 0)
    fail(`error while loading file: encryption provider configuration file "${path}" is empty`);
  let doc: unknown;
  try {
    doc = parse(yamlText);
  } catch (e) {
    decodeFail(`error converting YAML to JSON: yaml: ${(e as Error).message.split("\n")[0]}`);
  }
  const o = (doc ?? {}) as { apiVersion?: unknown; kind?: unknown; resources?: ResourceConfig[] };
  if (typeof o !== "object" || Array.isArray(o) || !o.kind)
    decodeFail(`Object 'Kind' is missing in '${JSON.stringify(doc)}'`);
  if (o.apiVersion !== "apiserver.config.k8s.io/v1" || o.kind !== "EncryptionConfiguration")
    decodeFail(
      `no kind "${String(o.kind)}" is registered for version "${String(o.apiVersion ?? "")}" in scheme "k8s.io/apiserver/pkg/server/options/encryptionconfig/config.go:142"`,
    );
  const unknown: string[] = [];
  unknownConfigFields(doc, "", "", unknown);
  if (unknown.length > 0) decodeFail(`strict decoding error: ${unknown.map((f) => `unknown field "${f}"`).join(", ")}`);
  const errs = validate(o.resources);
  if (errs.length === 1) fail(errs[0] as string);
  if (errs.length > 1) fail(`[${errs.join(", ")}]`);

  const random = opts.random ?? cryptoRandom;
  const rules = new Map<string, Prefixed[]>();
  for (const conf of o.resources ?? []) {
    const list = (conf.providers ?? []).map((p): Prefixed => {
      if (isSet(p.identity)) return { prefix: new Uint8Array(), t: identity };
      if (isSet(p.kms))
        throw new EncryptionConfigError(
          `error while building transformers: could not configure KMS plugin "${p.kms.name ?? ""}": KMS plugins are not simulated in this lab`,
        );
      const kind = p.aescbc ? "aescbc" : p.aesgcm ? "aesgcm" : "secretbox";
      return keyed(kind, p[kind]?.keys ?? [], random);
    });
    for (const res of conf.resources ?? []) {
      const [resource, group] = splitGroupResource(res);
      const masks = [`*.${group}`, "*.*"].filter((m) => rules.has(m));
      if (masks.length > 0)
        throw new EncryptionConfigError(
          `error while building transformers: resource "${yamlGr(resource, group)}" is masked by earlier rule "${yamlGr(...splitGroupResource(masks[0] as string))}"`,
        );
      const k = `${resource}.${group}`;
      rules.set(k, [...(rules.get(k) ?? []), ...list]);
    }
  }
  const transformers = new Map(
    [...rules].map(([k, list]) => [k, prefixTransformers("no matching prefix found", list)]),
  );
  return {
    transformerFor(resource) {
      const [r, g] = splitGroupResource(resource);
      return transformers.get(`${r}.${g}`) ?? transformers.get(`*.${g}`) ?? transformers.get("*.*") ?? identity;
    },
  };
}

/** yamlGr prints a group resource as the config file names it ("secrets", "*.", "deployments.apps"). */
function yamlGr(resource: string, group: string): string {
  return group === "" ? (resource === "*" ? "*." : resource) : `${resource}.${group}`;
}
