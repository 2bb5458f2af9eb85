// TLS settings from etcd's flags (--cert-file, --key-file, --trusted-ca-file, --client-cert-auth and their
// --peer-* twins) turned into node:tls options, read once at start.
import { readFileSync } from "node:fs";
import type { SecureContextOptions } from "node:tls";

/** TlsFlags are one side's TLS flags as MemberConfig holds them. */
export interface TlsFlags {
  certFile: string;
  keyFile: string;
  trustedCaFile: string;
  clientCertAuth: boolean;
}

/** TlsOptions are node:tls options for both ends of a connection. */
export type TlsOptions = SecureContextOptions & { requestCert: boolean; rejectUnauthorized: boolean };

/**
 * tlsOptions reads the certificate, key and CA files; undefined when no certificate is configured. With
 * client-cert-auth, connecting peers must present a certificate signed by the trusted CA; the CA (when
 * given) also verifies the servers this side connects to.
 */
export function tlsOptions(f: TlsFlags): TlsOptions | undefined {
  if (f.certFile === "" || f.keyFile === "") return undefined;
  return {
    cert: readFileSync(f.certFile),
    key: readFileSync(f.keyFile),
    ...(f.trustedCaFile !== "" ? { ca: readFileSync(f.trustedCaFile) } : {}),
    requestCert: f.clientCertAuth,
    // A server only checks client certificates it requested; a client always checks the server's.
    rejectUnauthorized: true,
  };
}
