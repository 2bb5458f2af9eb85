// The browser's side of a TerminalLink (lib/terminal-link.ts): real WebSockets, timers and randomness. The lesson
// terminal and the board's read-only view both use it.
import type { TerminalLinkOptions } from "../lib/terminal-link.ts";

/** browserLink are the TerminalLinkOptions a page in a browser always gives the same way. */
export const browserLink: Pick<TerminalLinkOptions, "socket" | "schedule" | "random"> = {
  socket: (url, on) => {
    const ws = new WebSocket(url);
    ws.binaryType = "arraybuffer";
    ws.onmessage = (ev) => on.message(ev.data);
    ws.onclose = () => on.close();
    return ws;
  },
  schedule: (fn, ms) => {
    const t = setTimeout(fn, ms);
    return () => clearTimeout(t);
  },
  random: Math.random,
};
