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

/** yamlError words a YAML syntax error as sigs.k8s.io/yaml's go-yaml does (`yaml: line N: ...`). */
function yamlError(e: { message: string; linePos?: { line: number }[]; code?: string }): string {
  const line = e.linePos?.[0]?.line ?? 1;
  const codes: Record<string, string> = {
    BAD_INDENT: "did not find expected key",
    BLOCK_AS_IMPLICIT_KEY: "mapping values are not allowed in this context",
    MULTILINE_IMPLICIT_KEY: "could not find expected ':'",
    TAB_AS_INDENT: "found character that cannot start any token",
    UNEXPECTED_TOKEN: "did not find expected node content",
    MISSING_CHAR: "did not find expected ',' or ']'",
    DUPLICATE_KEY: "mapping key already defined",
  };
  const what = codes[e.code ?? ""] ?? "mapping values are not allowed in this context";
  return `yaml: line ${line}: ${what}`;
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
      throw new KubectlError(`error parsing ${source}: error converting YAML to JSON: ${yamlError(err)}`);
    }
    const v = d.toJS({ maxAliasCount: -1 }) as unknown;
    if (v === null || v === undefined) continue;
    const obj = v as KubeObject;
    if (typeof obj !== "object" || Array.isArray(obj)) {
      throw new KubectlError(`error validating "${source}": error validating data: invalid object to validate`);
    }
    if (obj.kind === undefined || obj.kind === "") {
      throw new KubectlError(`error validating "${source}": error validating data: kind not set`);
    }
    if (obj.apiVersion === undefined || obj.apiVersion === "") {
      throw new KubectlError(`error validating "${source}": error validating data: apiVersion not set`);
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
