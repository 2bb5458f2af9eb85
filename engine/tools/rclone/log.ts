// rclone's log lines on standard error, as rclone 1.60 prints them without a log file: Go's log date and time,
// the level padded to six (`ERROR : `, `NOTICE: `, `INFO  : `, `DEBUG : `), the object the message is about
// (`f.txt: `, or `: ` for the root "") and the message; fatal lines (`Failed to copyto: …`) have no level.

import type { CliIo } from "../cobra/io.ts";

/** Level is a log level; messages above the configured one are dropped. */
export const Level = { error: 3, notice: 5, info: 6, debug: 7 } as const;
export type LevelName = keyof typeof Level;

const labels: Record<LevelName, string> = {
  error: "ERROR : ",
  notice: "NOTICE: ",
  info: "INFO  : ",
  debug: "DEBUG : ",
};

/** goLogTime is Go's log timestamp (LstdFlags) in the local zone: 2026/12/02 03:08:29. */
export function goLogTime(ms: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}/${p(d.getMonth() + 1)}/${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/** RcloneLog writes rclone's log lines at or under `level`. */
export class RcloneLog {
  constructor(
    private readonly io: CliIo,
    readonly level: number,
  ) {}

  /** log writes one message; `object` undefined prints none, "" prints rclone's empty object ": ". */
  log(level: LevelName, object: string | undefined, message: string): void {
    if (Level[level] > this.level) return;
    const about = object === undefined ? "" : `${object}: `;
    this.io.stderr(`${goLogTime(this.io.nowMs())} ${labels[level]}${about}${message}\n`);
  }

  /** fatal writes a line without a level (log.Fatalf in rclone's cmd package). */
  fatal(message: string): void {
    this.io.stderr(`${goLogTime(this.io.nowMs())} ${message}\n`);
  }
}
