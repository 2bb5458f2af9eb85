// Test fixture: a throwaway CA, a server certificate for 127.0.0.1/localhost and a client certificate,
// made with the openssl CLI in a temp dir. Test-only.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** TestCerts holds PEM texts and the files they were written to. */
export interface TestCerts {
  dir: string;
  ca: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
  files: { ca: string; serverCert: string; serverKey: string; clientCert: string; clientKey: string };
}

/** opensslAvailable says whether the openssl CLI can be run. */
export function opensslAvailable(): boolean {
  try {
    execFileSync("openssl", ["version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** makeTestCerts creates a CA and CA-signed server and client certificates (EC P-256, 1 day). */
export function makeTestCerts(): TestCerts {
  const dir = mkdtempSync(join(tmpdir(), "etcd-lab-certs-"));
  const f = (n: string) => join(dir, n);
  const ossl = (...args: string[]) => execFileSync("openssl", args, { cwd: dir, stdio: "pipe" });
  ossl(
    "req",
    "-x509",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:P-256",
    "-nodes",
    "-days",
    "1",
    "-subj",
    "/CN=etcd-lab test CA",
    "-keyout",
    "ca.key",
    "-out",
    "ca.pem",
  );
  writeFileSync(f("server.ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth,clientAuth\n");
  writeFileSync(f("client.ext"), "extendedKeyUsage=clientAuth\n");
  for (const who of ["server", "client"]) {
    ossl(
      "req",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:P-256",
      "-nodes",
      "-subj",
      `/CN=${who}`,
      "-keyout",
      `${who}.key`,
      "-out",
      `${who}.csr`,
    );
    ossl(
      "x509",
      "-req",
      "-in",
      `${who}.csr`,
      "-CA",
      "ca.pem",
      "-CAkey",
      "ca.key",
      "-CAcreateserial",
      "-days",
      "1",
      "-extfile",
      `${who}.ext`,
      "-out",
      `${who}.pem`,
    );
  }
  const files = {
    ca: f("ca.pem"),
    serverCert: f("server.pem"),
    serverKey: f("server.key"),
    clientCert: f("client.pem"),
    clientKey: f("client.key"),
  };
  const read = (p: string) => readFileSync(p, "utf8");
  return {
    dir,
    ca: read(files.ca),
    serverCert: read(files.serverCert),
    serverKey: read(files.serverKey),
    clientCert: read(files.clientCert),
    clientKey: read(files.clientKey),
    files,
  };
}
