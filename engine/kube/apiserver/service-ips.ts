// The service ClusterIP allocator: kubeadm's default service CIDR 10.96.0.0/12, the first address kept for
// the `kubernetes` service and the rest handed out at random among the free ones (the allocator's random
// scan), skipping addresses already used by services in etcd.

/** ClusterIpAllocator allocates service cluster IPs. */
export class ClusterIpAllocator {
  private readonly used = new Set<string>();

  constructor(private readonly random: () => number = Math.random) {}

  /** markUsed records addresses taken by existing services. */
  markUsed(ips: Iterable<string>): void {
    for (const ip of ips) this.used.add(ip);
  }

  /** allocate returns a free address of 10.96.0.0/12. */
  allocate(): string {
    const size = 1 << 20;
    for (;;) {
      const n = 2 + Math.floor(this.random() * (size - 3));
      const ip = `10.${96 + (n >> 16)}.${(n >> 8) & 0xff}.${n & 0xff}`;
      if (!this.used.has(ip)) {
        this.used.add(ip);
        return ip;
      }
    }
  }
}
