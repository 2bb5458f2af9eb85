// Encryption at rest as kube-apiserver does it. With the aescbc provider a stored value is
// "k8s:enc:aescbc:v1:<key name>:" + a random 16-byte IV + AES-256-CBC (PKCS#7 padded) of the plain value.
// Facts from k8s.io/apiserver pkg/storage/value/encrypt/aes.
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

/** aescbcPrefix starts an aescbc-encrypted value; the key name and a colon follow. */
export const aescbcPrefix = "k8s:enc:aescbc:v1:";

/** encryptAescbc encrypts a stored value the way the aescbc provider does (AES-256-CBC, random IV). */
export function encryptAescbc(plain: Uint8Array, key: Uint8Array, keyName: string, iv = randomBytes(16)): Uint8Array {
  if (key.length !== 32) throw new RangeError(`aescbc key must be 32 bytes, got ${key.length}`);
  const cipher = createCipheriv("aes-256-cbc", key, iv);
  const body = Buffer.concat([cipher.update(plain), cipher.final()]);
  return Buffer.concat([Buffer.from(`${aescbcPrefix}${keyName}:`), iv, body]);
}

/** decryptAescbc reverses encryptAescbc; it returns null when the value is not aescbc-encrypted. */
export function decryptAescbc(value: Uint8Array, key: Uint8Array): { keyName: string; plain: Uint8Array } | null {
  const head = Buffer.from(value.subarray(0, 64)).toString("latin1");
  if (!head.startsWith(aescbcPrefix)) return null;
  const colon = head.indexOf(":", aescbcPrefix.length);
  if (colon < 0) return null;
  const keyName = head.slice(aescbcPrefix.length, colon);
  const iv = value.subarray(colon + 1, colon + 17);
  const decipher = createDecipheriv("aes-256-cbc", key, iv);
  const plain = Buffer.concat([decipher.update(value.subarray(colon + 17)), decipher.final()]);
  return { keyName, plain: new Uint8Array(plain) };
}
