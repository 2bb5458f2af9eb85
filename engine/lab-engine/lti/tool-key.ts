// The tool's own RSA key pair: signs the client assertions of the grade services' token requests, published at
// GET /lti/jwks for the platform to verify them. Made once and kept under the server home (0600), so a platform
// that cached the JWKS keeps trusting the tool across restarts.
import { chmodSync, mkdirSync, readFileSync, writeFileSync, renameSync } from "node:fs";
import { dirname } from "node:path";
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from "jose";

/** toolKeyAlg is the signing algorithm: RS256, the one LTI 1.3 requires every platform to accept. */
export const toolKeyAlg = "RS256";

/** ToolKey is the loaded key pair: the private key for signing and the public JWK (with kid) to publish. */
export interface ToolKey {
  kid: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

/** loadToolKey reads the key pair at `file`, creating it (mode 0600) when the file does not exist. */
export async function loadToolKey(file: string): Promise<ToolKey> {
  let jwk: JWK;
  try {
    jwk = JSON.parse(readFileSync(file, "utf8")) as JWK;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw new Error(`${file}: unreadable tool key: ${err}`);
    const { privateKey } = await generateKeyPair(toolKeyAlg, { modulusLength: 2048, extractable: true });
    jwk = await exportJWK(privateKey);
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(jwk) + "\n", { mode: 0o600 });
    renameSync(tmp, file);
  }
  chmodSync(file, 0o600);
  if (jwk.kty !== "RSA" || !jwk.d) throw new Error(`${file}: not an RSA private key (JWK)`);
  const privateKey = (await importJWK(jwk, toolKeyAlg)) as CryptoKey;
  const publicJwk: JWK = { kty: "RSA", n: jwk.n!, e: jwk.e! };
  const kid = await calculateJwkThumbprint(publicJwk);
  return { kid, privateKey, publicJwk: { ...publicJwk, kid, alg: toolKeyAlg, use: "sig" } };
}
