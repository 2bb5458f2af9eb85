// Helpers the commands share: the aggregate of errors kubectl prints one per line, reading -f files and
// stdin into objects (multi-document YAML or JSON, kubectl's parse errors), and `See 'kubectl x -h'` hints.

import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import type { KubeObject } from "../../../kube/api/object.ts";
import type { Kube } from "../ctx.ts";
import { KubectlError } from "../errors.ts";

/** MultiError is utilerrors.Aggregate: kubectl prints each error on its own line. */
export class MultiError extends Error {
  override name = "MultiError";
  constructor(readonly errors: unknown[]) {
    super(errors.map((e) => (e instanceof Error ? e.message : String(e))).join(", "));
  }
}

/** FileObject is one object read from -f with where it came from. */
export interface FileObject {
  obj: KubeObject;
  source: string;
}

/** YamlIssue is what the yaml package reports: a code and a 1-based position. */
interface YamlIssue {
  code?: string;
  pos?: [number, number];
  linePos?: { line: number; col: number }[];
}

/** lineOf is the 0-based line of offset i in text. */
function lineOf(text: string, i: number): number {
  let n = 0;
  for (let k = 0; k < i && k < text.length; k++) if (text[k] === "\n") n++;
  return n;
}

/**
 * yamlError words a YAML syntax error as go-yaml v2 (through sigs.k8s.io/yaml) does: its message for the
 * construct, and its line (scanner errors name the 1-based line of the offending character, parser errors
 * the 0-based line of the token that failed, and neither prints a line 0).
 */
function yamlError(text: string, e: YamlIssue): string {
  const line1 = e.linePos?.[0]?.line ?? 1;
  const at = (n: number, what: string) => `yaml: ${n > 0 ? `line ${n}: ` : ""}${what}`;
  const before = text.slice(0, e.pos?.[0] ?? 0);
  switch (e.code) {
    case "BLOCK_AS_IMPLICIT_KEY":
    case "MULTILINE_IMPLICIT_KEY": {
      const start = e.pos?.[0] ?? 0;
      const m = /:(?=[ \t\r\n]|$)/.exec(text.slice(start));
      const l0 = lineOf(text, m ? start + m.index : start);
      return at(l0 === 0 ? 0 : l0 + 1, "mapping values are not allowed in this context");
    }
    case "MISSING_CHAR":
      return at(line1, "found unexpected end of stream");
    case "TAB_AS_INDENT":
      return at(line1, "found a tab character that violates indentation");
    default: {
      const open = [...before].reduce((d, c) => d + (c === "[" || c === "{" ? 1 : c === "]" || c === "}" ? -1 : 0), 0);
      const lastOpen = Math.max(before.lastIndexOf("["), before.lastIndexOf("{"));
      if (open > 0) return at(line1 - 1, `did not find expected ',' or '${before[lastOpen] === "[" ? "]" : "}"}'`);
      const prev = before.replace(/\n+$/, "").split("\n").pop() ?? "";
      const seq = /^\s*- /.test(prev) || /^-( |$)/.test(text);
      return at(line1 - 1, seq ? "did not find expected '-' indicator" : "did not find expected key");
    }
  }
}

/** parseManifest reads objects from the text of one file (YAML documents or JSON). */
export function parseManifest(text: string, source: string): FileObject[] {
  const out: FileObject[] = [];
  const trimmed = text.trimStart();
  if (trimmed.startsWith("{") || trimmed.startsWith("[")) {
    try {
      const v = JSON.parse(text) as KubeObject;
      out.push({ obj: v, source });
      return out;
    } catch {
      // not JSON after all: YAML below
    }
  }
  const docs = parseAllDocuments(text, { uniqueKeys: false });
  for (const d of Array.isArray(docs) ? docs : [docs]) {
    const err = d.errors[0];
    if (err) {
      throw new KubectlError(`error parsing ${source}: error converting YAML to JSON: ${yamlError(text, err)}`);
    }
    const v = d.toJS({ maxAliasCount: -1 }) as unknown;
    if (v === null || v === undefined) continue;
    const obj = v as KubeObject;
    if (typeof obj !== "object" || Array.isArray(obj)) {
      throw new KubectlError(`error validating "${source}": error validating data: invalid object to validate`);
    }
    const missing = [
      ...(obj.apiVersion === undefined || obj.apiVersion === "" ? ["apiVersion not set"] : []),
      ...(obj.kind === undefined || obj.kind === "" ? ["kind not set"] : []),
    ];
    if (missing.length > 0) {
      const what = missing.length === 1 ? missing[0] : `[${missing.join(", ")}]`;
      throw new KubectlError(
        `error validating "${source}": error validating data: ${what}; if you choose to ignore these errors, turn validation off with --validate=false`,
      );
    }
    if (obj.kind.endsWith("List") && Array.isArray(obj["items"])) {
      for (const it of obj["items"] as unknown as KubeObject[]) out.push({ obj: it, source });
    } else out.push({ obj, source });
  }
  return out;
}

/** readFilenames reads every -f argument ("-" is stdin, directories are read for .json/.yaml/.yml). */
export function readFilenames(kube: Kube, files: string[]): FileObject[] {
  const out: FileObject[] = [];
  for (const f of files) {
    if (f === "-") {
      out.push(...parseManifest(Buffer.from(kube.io.readStdin()).toString("utf8"), "STDIN"));
      continue;
    }
    let st;
    try {
      st = statSync(f);
    } catch {
      throw new KubectlError(`the path "${f}" does not exist`);
    }
    if (st.isDirectory()) {
      for (const e of readdirSync(f).sort()) {
        if (/\.(json|ya?ml)$/.test(e)) out.push(...parseManifest(readFileSync(join(f, e), "utf8"), join(f, e)));
      }
    } else out.push(...parseManifest(readFileSync(f, "utf8"), f));
  }
  return out;
}

/** seeHelp is kubectl's usage hint appended to argument errors. */
export function seeHelp(path: string): string {
  return `See '${path} -h' for help and examples`;
}
