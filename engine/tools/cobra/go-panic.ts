// A Go runtime panic as a terminal shows it: `panic: <value>`, the goroutine header and a stack, then exit
// status 2. etcdctl 3.6 still panics on some inputs (`value("k") == "v"`, any `lease(...)` compare), and the
// lab reproduces that rather than inventing a friendlier error. Frames carry function and file:line but no
// arguments or PC offsets, which differ between builds anyway.

import type { CliIo } from "./io.ts";
import { exitWith } from "./io.ts";

/** GoPanicFrame is one stack frame: the Go function and its `module@version/file.go:line`. */
export type GoPanicFrame = readonly [func: string, location: string];

/** goPanic prints a Go panic to stderr and exits with status 2. */
export function goPanic(io: CliIo, value: string, frames: readonly GoPanicFrame[]): never {
  let out = `panic: ${value}\n\ngoroutine 1 [running]:\n`;
  for (const [fn, loc] of frames) out += `${fn}(...)\n\t${loc}\n`;
  io.stderr(out);
  return exitWith(2);
}
