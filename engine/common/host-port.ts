// Go's net.JoinHostPort: `127.0.0.1:2380`, `[::1]:2380` — how Go prints an address in logs and errors.

/** joinHostPort joins a host and a port, bracketing an IPv6 host. */
export function joinHostPort(host: string, port: number): string {
  return `${host.includes(":") ? `[${host}]` : host}:${port}`;
}
