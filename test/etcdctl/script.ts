// The scripted test format (raft's testdata style): `# prose`, then a command (one or more shell lines,
// e.g. a heredoc), `----`, then the expected output. Output that contains blank lines is fenced by
// `----\n----` ... `----\n----`. A `# diff: <id>` line before a command names a documented 3.4-vs-3.6
// difference, which exempts the case from the cross-check against the real etcdctl 3.4.

/** Case is one command and its expectation. */
export interface Case {
  /** prose are the comment lines before the command (without the leading "# "). */
  prose: string[];
  /** diff is the id of a documented 3.4/3.6 difference, if the case is exempt from the cross-check. */
  diff: string | undefined;
  command: string;
  expected: string;
  /** line is the 1-based line of the command in the file (for failure messages). */
  line: number;
}

/** parseScript reads a script file. */
export function parseScript(text: string): Case[] {
  const lines = text.split("\n");
  const cases: Case[] = [];
  let i = 0;
  while (i < lines.length) {
    const prose: string[] = [];
    let diff: string | undefined;
    while (i < lines.length && ((lines[i] as string).startsWith("#") || (lines[i] as string).trim() === "")) {
      const l = lines[i] as string;
      const m = /^# diff: (\S+)\s*$/.exec(l);
      if (m) diff = m[1];
      else if (l.startsWith("#")) prose.push(l.replace(/^# ?/, ""));
      i++;
    }
    if (i >= lines.length) break;
    const line = i + 1;
    const cmd: string[] = [];
    while (i < lines.length && lines[i] !== "----") cmd.push(lines[i++] as string);
    if (i >= lines.length) throw new Error(`line ${line}: command without ---- separator`);
    i++;
    let expected = "";
    if (lines[i] === "----") {
      i++;
      const out: string[] = [];
      while (i < lines.length && !(lines[i] === "----" && lines[i + 1] === "----")) out.push(lines[i++] as string);
      if (i >= lines.length) throw new Error(`line ${line}: unterminated ----/---- block`);
      i += 2;
      expected = out.join("\n");
    } else {
      const out: string[] = [];
      while (i < lines.length && (lines[i] as string) !== "") out.push(lines[i++] as string);
      expected = out.join("\n");
    }
    cases.push({ prose, diff, command: cmd.join("\n"), expected, line });
  }
  return cases;
}

/** formatScript writes cases back (UPDATE=1), keeping prose and diff tags. */
export function formatScript(cases: readonly Case[]): string {
  const parts = cases.map((c) => {
    let s = "";
    for (const p of c.prose) s += p === "" ? "#\n" : `# ${p}\n`;
    if (c.diff) s += `# diff: ${c.diff}\n`;
    s += `${c.command}\n----\n`;
    if (
      c.expected !== "" &&
      (c.expected.split("\n").some((l) => l === "") || c.expected.split("\n").includes("----"))
    ) {
      s += `----\n${c.expected}\n----\n----\n`;
    } else {
      s += c.expected === "" ? "" : `${c.expected}\n`;
    }
    return s;
  });
  return parts.join("\n");
}

/** Result is what running a command produced. */
export interface Result {
  stdout: string;
  stderr: string;
  code: number;
}

/** renderResult turns a run into the text a script expects: stdout, `[stderr]` section, `[exit N]`. */
export function renderResult(r: Result): string {
  let s = r.stdout;
  if (s !== "" && !s.endsWith("\n")) s += "\n[no eol]\n";
  if (r.stderr !== "") {
    s += "[stderr]\n" + r.stderr;
    if (!r.stderr.endsWith("\n")) s += "\n[no eol]\n";
  }
  if (r.code !== 0) s += `[exit ${r.code}]\n`;
  return s.replace(/\n$/, "");
}
