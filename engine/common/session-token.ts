// A lab shell's session token: the lab server writes it to a file only the session's user can read
// (<workspace>/.lab/token, mode 0600) and names the file in ETCD_LAB_TOKEN_FILE, so it is in no process's
// environment or argv (both are readable from /proc and `ps`). ETCD_LAB_TOKEN still works for a token given by
// hand (tests, a shell outside the lab).

/** sessionToken reads the session token the environment names; `read` reads a file (null when there is none). */
export function sessionToken(
  env: Readonly<Record<string, string | undefined>>,
  read: (path: string) => string,
): string | null {
  const file = env["ETCD_LAB_TOKEN_FILE"];
  if (file) {
    try {
      return read(file).trim() || null;
    } catch {
      return null;
    }
  }
  return env["ETCD_LAB_TOKEN"] || null;
}
