// The scripted test format (after cockroachdb/datadriven, as etcd-io/raft uses it): blocks of
//
//   # prose about the scenario
//   command arg key=value key=(a,b)
//   ----
//   expected output
//   <blank line>
//
// parseScript reads a script; renderScript writes it back with actual outputs (UPDATE=1).

/** CommandArg is one argument: `key` alone, `key=value`, or `key=(v1,v2)`. */
export interface CommandArg {
  key: string;
  values: string[];
}

/** ScriptCommand is one command block of a script. */
export interface ScriptCommand {
  /** line is the 1-based line of the command in its file. */
  line: number;
  /** prose are the `#` lines (and blank lines between them) right before the command. */
  prose: string[];
  text: string;
  name: string;
  args: CommandArg[];
  expected: string;
}

/** ParsedScript is a script's commands plus any prose after the last one. */
export interface ParsedScript {
  commands: ScriptCommand[];
  trailer: string[];
}

/** parseArgs splits `a b=1 c=(x,y)` into CommandArgs. */
export function parseArgs(s: string): CommandArg[] {
  const out: CommandArg[] = [];
  const re = /(\S+?)=\(([^)]*)\)|(\S+?)=(\S+)|(\S+)/g;
  for (const m of s.matchAll(re)) {
    if (m[1] !== undefined)
      out.push({
        key: m[1],
        values: m[2]!
          .split(",")
          .map((v) => v.trim())
          .filter((v) => v !== ""),
      });
    else if (m[3] !== undefined) out.push({ key: m[3], values: [m[4]!] });
    else out.push({ key: m[5]!, values: [] });
  }
  return out;
}

/** parseScript parses a script file's text. Throws with the line number on a malformed block. */
export function parseScript(text: string, file: string): ParsedScript {
  const lines = text.split("\n");
  const commands: ScriptCommand[] = [];
  let prose: string[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (line.startsWith("#") || line.trim() === "") {
      prose.push(line);
      i++;
      continue;
    }
    const cmdLine = i + 1;
    const cmd = line.trim();
    i++;
    if (lines[i] !== "----") throw new Error(`${file}:${cmdLine}: expected "----" after command "${cmd}"`);
    i++;
    const out: string[] = [];
    while (i < lines.length && lines[i] !== "") out.push(lines[i++]!);
    const sp = cmd.indexOf(" ");
    const name = sp < 0 ? cmd : cmd.slice(0, sp);
    // Leading blank lines between blocks are layout, not prose.
    while (prose.length > 0 && prose[0]!.trim() === "") prose.shift();
    while (prose.length > 0 && prose[prose.length - 1]!.trim() === "") prose.pop();
    commands.push({
      line: cmdLine,
      prose,
      text: cmd,
      name,
      args: parseArgs(sp < 0 ? "" : cmd.slice(sp + 1)),
      expected: out.join("\n"),
    });
    prose = [];
  }
  while (prose.length > 0 && prose[prose.length - 1]!.trim() === "") prose.pop();
  while (prose.length > 0 && prose[0]!.trim() === "") prose.shift();
  return { commands, trailer: prose };
}

/** renderScript writes a script with the given outputs (one per command). */
export function renderScript(script: ParsedScript, outputs: readonly string[]): string {
  const blocks: string[] = [];
  script.commands.forEach((c, k) => {
    const head = c.prose.length > 0 ? c.prose.join("\n") + "\n" : "";
    blocks.push(`${head}${c.text}\n----\n${outputs[k] ?? ""}`);
  });
  let s = blocks.join("\n\n") + "\n";
  if (script.trailer.length > 0) s += "\n" + script.trailer.join("\n") + "\n";
  return s;
}
