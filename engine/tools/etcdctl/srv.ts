// DNS SRV discovery of client endpoints (client/pkg/srv GetClient): `_etcd-client-ssl._tcp.<domain>` for
// https and `_etcd-client._tcp.<domain>` for http (with `-<name>` appended for --discovery-srv-name).

function service(scheme: "https" | "http", name: string): string {
  const base = scheme === "https" ? "etcd-client-ssl" : "etcd-client";
  return name !== "" ? `${base}-${name}` : base;
}

/** discoverEndpoints returns `https://host.:port` / `http://host.:port` URLs, or throws when both lookups fail. */
export async function discoverEndpoints(domain: string, serviceName: string): Promise<string[]> {
  const out: string[] = [];
  const errors: string[] = [];
  for (const scheme of ["https", "http"] as const) {
    const fqdn = `_${service(scheme, serviceName)}._tcp.${domain}`;
    try {
      // Loaded on demand: most runs never resolve SRV records, and start-up time matters.
      const dns = (await import("node:dns")).promises;
      for (const r of await dns.resolveSrv(fqdn)) out.push(`${scheme}://${r.name}.:${r.port}`);
    } catch (e) {
      errors.push(
        `lookup ${fqdn}: ${(e as NodeJS.ErrnoException).code === "ENOTFOUND" ? "no such host" : (e as Error).message}`,
      );
    }
  }
  if (errors.length === 2) throw new Error(`dns lookup errors: ${errors[0]} and ${errors[1]}`);
  return out;
}
