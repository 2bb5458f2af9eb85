// speakeasy.Ask as etcdctl uses it: print the prompt, read a line from the terminal without echo. Standard
// input that is not a terminal fails as the termios ioctl fails in Go.

import type { ReadStream } from "node:tty";
import type { CliIo } from "../cobra/io.ts";

/** askPassword prompts on stdout and reads one line from the terminal on stdin with echo off. */
export async function askPassword(io: CliIo, prompt: string): Promise<string> {
  if (!process.stdin.isTTY) throw new Error("inappropriate ioctl for device");
  io.stdout(prompt);
  const stdin = process.stdin as ReadStream;
  stdin.setRawMode(true);
  try {
    return await new Promise<string>((resolve, reject) => {
      let buf = "";
      const onData = (chunk: Buffer) => {
        for (const ch of chunk.toString("utf8")) {
          if (ch === "\r" || ch === "\n") {
            stdin.off("data", onData);
            resolve(buf);
            return;
          }
          if (ch === "\u0003") {
            stdin.off("data", onData);
            reject(new Error("interrupted"));
            return;
          }
          if (ch === "\u007f" || ch === "\b") buf = buf.slice(0, -1);
          else buf += ch;
        }
      };
      stdin.on("data", onData);
    });
  } finally {
    stdin.setRawMode(false);
    stdin.pause();
    io.stdout("\n");
  }
}
