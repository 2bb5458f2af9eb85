// The shell's prompt marker: every prompt ends with ESC ] 6973 ; prompt ; <exit code> ; <prompt number> BEL
// (PROMPT_COMMAND saves $? and counts prompts; PS1 prints the marker last, so it arrives once the prompt is
// drawn). Readline redraws the prompt on a resize without running PROMPT_COMMAND, so a redraw repeats the
// number and is not a new prompt. xterm.js ignores unknown OSC sequences; the engine reads them to know
// when a command finished (solutions run command by command) and with which exit code.

/** markerPrefix starts the private OSC sequence. */
export const markerPrefix = "\x1b]6973;prompt;";

/** promptCommand is the bash PROMPT_COMMAND that keeps the last exit code for the marker. */
export const promptCommand = "__etcd_lab_rc=$?; __etcd_lab_n=$((__etcd_lab_n+1))";

/** ps1Marker ends PS1: the marker, wrapped in \\[ \\] so readline knows it takes no room on screen. */
export const ps1Marker = "\\[\\e]6973;prompt;${__etcd_lab_rc};${__etcd_lab_n}\\a\\]";

/** PromptMark is one marker: the last command's exit code and the prompt's number (1 = first prompt). */
export interface PromptMark {
  code: number;
  n: number;
}

const prefix = Buffer.from(markerPrefix, "latin1");
const carryMax = 64;

/** PromptMarkerScanner finds markers in a stream of chunks, also when one is split across chunks. */
export class PromptMarkerScanner {
  private carry = Buffer.alloc(0);

  /** scan returns the markers completed by this chunk, in order. */
  scan(chunk: Buffer): PromptMark[] {
    const buf = this.carry.length ? Buffer.concat([this.carry, chunk]) : chunk;
    const codes: PromptMark[] = [];
    let from = 0;
    for (;;) {
      const at = buf.indexOf(prefix, from);
      if (at < 0) break;
      const end = buf.indexOf(0x07, at + prefix.length);
      if (end < 0) {
        from = at;
        this.carry = Buffer.from(buf.subarray(at, Math.min(buf.length, at + carryMax)));
        return codes;
      }
      const [code, n] = buf
        .subarray(at + prefix.length, end)
        .toString("latin1")
        .split(";")
        .map(Number);
      codes.push({ code: Number.isInteger(code) ? (code as number) : -1, n: Number.isInteger(n) ? (n as number) : 0 });
      from = end + 1;
    }
    // Keep a tail that could be the start of a marker split across chunks.
    const tailFrom = Math.max(from, buf.length - (prefix.length - 1));
    const tail = buf.subarray(tailFrom);
    const esc = tail.indexOf(0x1b);
    this.carry = esc >= 0 ? Buffer.from(tail.subarray(esc)) : Buffer.alloc(0);
    return codes;
  }
}
