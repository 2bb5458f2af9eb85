// rclone's configuration as rclone 1.60 finds it: the config file (--config, $RCLONE_CONFIG, else
// $XDG_CONFIG_HOME/rclone/rclone.conf or ~/.config/rclone/rclone.conf, or the legacy ~/.rclone.conf when it
// exists), an INI file of [remote] sections, overridden by RCLONE_CONFIG_<REMOTE>_<OPTION> environment variables;
// a remote exists when the file has its section or the environment has its _TYPE.

import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** RcloneConfig is the loaded config file and environment. */
export class RcloneConfig {
  private readonly sections = new Map<string, Map<string, string>>();
  /** found says whether the config file exists (else rclone's NOTICE). */
  readonly found: boolean;

  constructor(
    readonly path: string,
    private readonly getenv: (k: string) => string,
    private readonly environ: readonly string[],
  ) {
    this.found = existsSync(path);
    if (!this.found) return;
    let current: Map<string, string> | undefined;
    for (const raw of readFileSync(path, "utf8").split(/\r?\n/)) {
      const line = raw.trim();
      if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
      const sec = /^\[(.*)\]$/.exec(line);
      if (sec) {
        current = new Map();
        this.sections.set(sec[1] as string, current);
        continue;
      }
      const eq = line.indexOf("=");
      if (eq > 0 && current) current.set(line.slice(0, eq).trim(), line.slice(eq + 1).trim());
    }
  }

  private envName(remote: string, key: string): string {
    return `RCLONE_CONFIG_${`${remote}_${key}`.toUpperCase().replace(/-/g, "_")}`;
  }

  /** has says whether `remote` is configured (a section, or RCLONE_CONFIG_<REMOTE>_TYPE). */
  has(remote: string): boolean {
    return this.sections.has(remote) || this.environ.some((e) => e.startsWith(`${this.envName(remote, "type")}=`));
  }

  /** get is one option of a remote: the environment's value, else the file's, else "". */
  get(remote: string, key: string): string {
    const envKey = this.envName(remote, key);
    if (this.environ.some((e) => e.startsWith(`${envKey}=`))) return this.getenv(envKey);
    return this.sections.get(remote)?.get(key) ?? "";
  }
}

/** defaultConfigPath is where rclone looks for its config file when neither --config nor $RCLONE_CONFIG says. */
export function defaultConfigPath(getenv: (k: string) => string): string {
  const home = getenv("HOME");
  const legacy = join(home, ".rclone.conf");
  const xdg = getenv("XDG_CONFIG_HOME");
  const modern = join(xdg !== "" ? xdg : join(home, ".config"), "rclone", "rclone.conf");
  if (!existsSync(modern) && existsSync(legacy)) return legacy;
  return modern;
}
