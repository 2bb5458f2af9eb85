// The differential scenario format: cases separated by a line `====`. A case is prose (`# ...`), optional
// directives (`# diff: <id>` names an intentional difference listed in docs/etcd-differences.md; `# sort`
// sorts the output lines after normalising), the command (`$ ` first line, `> ` continuation lines, run by
// bash), then the expected normalised output verbatim. A `# diff:` case holds two outputs: the real etcd
// 3.4 one first, then after a line `---- ours` the one our server gives (what etcd 3.6 gives).

/** Case is one scripted step. */
export interface Case {
  prose: string[];
  diff: string | undefined;
  sort: boolean;
  command: string;
  /** expected is the normalised output of real etcd 3.4 (and of ours, unless diff is set). */
  expected: string;
  /** expectedOurs is our normalised output for a `# diff:` case. */
  expectedOurs: string | undefined;
  /** line is the 1-based line of the command (for failure messages). */
  line: number;
}

const separator = "====";
const oursMarker = "---- ours";

/** parseScenario reads a scenario file. */
export function parseScenario(text: string): Case[] {
  const cases: Case[] = [];
  const lines = text.split("\n");
  let block: string[] = [];
  let blockStart = 1;
  const flush = (): void => {
    const c = parseCase(block, blockStart);
    if (c) cases.push(c);
  };
  lines.forEach((l, i) => {
    if (l === separator) {
      flush();
      block = [];
      blockStart = i + 2;
    } else {
      block.push(l);
    }
  });
  if (block.some((l) => l.trim() !== "")) flush();
  return cases;
}

function parseCase(block: string[], firstLine: number): Case | undefined {
  let i = 0;
  const prose: string[] = [];
  let diff: string | undefined;
  let sort = false;
  while (i < block.length && ((block[i] as string).startsWith("#") || (block[i] as string).trim() === "")) {
    const l = block[i] as string;
    const m = /^# diff: (\S+)\s*$/.exec(l);
    if (m) diff = m[1];
    else if (l === "# sort") sort = true;
    else if (l.startsWith("#")) prose.push(l.replace(/^# ?/, ""));
    i++;
  }
  if (i >= block.length) return undefined;
  if (!(block[i] as string).startsWith("$ ")) {
    throw new Error(`scenario line ${firstLine + i}: a command starts with "$ ", got ${JSON.stringify(block[i])}`);
  }
  const line = firstLine + i;
  const cmd: string[] = [(block[i++] as string).slice(2)];
  while (i < block.length && ((block[i] as string).startsWith("> ") || block[i] === ">")) {
    cmd.push((block[i++] as string).slice(2));
  }
  const out = block.slice(i);
  while (out.length > 0 && out[out.length - 1] === "") out.pop();
  const marker = out.indexOf(oursMarker);
  const expected = (marker >= 0 ? out.slice(0, marker) : out).join("\n");
  const expectedOurs = marker >= 0 ? out.slice(marker + 1).join("\n") : undefined;
  if (expectedOurs !== undefined && diff === undefined) {
    throw new Error(`scenario line ${line}: "${oursMarker}" needs a "# diff: <id>" line`);
  }
  return { prose, diff, sort, command: cmd.join("\n"), expected, expectedOurs, line };
}

/** formatScenario writes cases back (UPDATE=1). */
export function formatScenario(cases: readonly Case[]): string {
  return (
    cases
      .map((c) => {
        let s = "";
        for (const p of c.prose) s += p === "" ? "#\n" : `# ${p}\n`;
        if (c.diff) s += `# diff: ${c.diff}\n`;
        if (c.sort) s += "# sort\n";
        s += c.command
          .split("\n")
          .map((l, i) => (i === 0 ? `$ ${l}` : l === "" ? ">" : `> ${l}`))
          .join("\n");
        s += "\n";
        if (c.expected !== "") s += `${c.expected}\n`;
        if (c.expectedOurs !== undefined) s += `${oursMarker}\n${c.expectedOurs === "" ? "" : `${c.expectedOurs}\n`}`;
        return s;
      })
      .join(`${separator}\n`) + ""
  );
}

/** Result is what a command produced. */
export interface Result {
  stdout: string;
  stderr: string;
  code: number;
}

/** renderResult turns a run into text: stdout, then `[stderr]` and its lines, then `[exit N]` when not 0. */
export function renderResult(r: Result): string {
  let s = r.stdout;
  if (s !== "" && !s.endsWith("\n")) s += "\n[no eol]\n";
  if (r.stderr !== "") {
    s += "[stderr]\n" + r.stderr;
    if (!r.stderr.endsWith("\n")) s += "\n[no eol]\n";
  }
  if (r.code !== 0) s += `[exit ${r.code}]\n`;
  return s.replace(/\n+$/, "");
}
