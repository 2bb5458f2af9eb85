// parser: a small parser for the subset of the protobuf language our .proto files use — syntax, package,
// import, option, message (nested), enum (nested), oneof, repeated/optional/required labels, field options,
// reserved, service/rpc with stream — keeping leading comments for the generated doc comments. Anything else
// (map, extend, group, extensions) is rejected with file:line:column, never silently dropped.

/** ProtoSyntax is the language version a file declares. */
export type ProtoSyntax = "proto2" | "proto3";

/** FieldDecl is one field as written. */
export interface FieldDecl {
  name: string;
  number: number;
  label: "optional" | "required" | "repeated" | undefined;
  /** typeName is a scalar type name or a (possibly qualified) message/enum reference, as written. */
  typeName: string;
  /** options holds the field options by name (`jstype` → `JS_NUMBER`, `packed` → `true`). */
  options: Record<string, string>;
  /** oneof names the enclosing oneof, if any. */
  oneof: string | undefined;
  comment: string;
  /** where is `file:line:col` of the field, for errors. */
  where: string;
}

/** EnumValueDecl is one enum value. */
export interface EnumValueDecl {
  name: string;
  number: number;
  comment: string;
}

/** EnumDecl is an enum, top-level or nested. */
export interface EnumDecl {
  name: string;
  values: EnumValueDecl[];
  comment: string;
  where: string;
}

/** MessageDecl is a message with its nested declarations. */
export interface MessageDecl {
  name: string;
  fields: FieldDecl[];
  oneofs: string[];
  messages: MessageDecl[];
  enums: EnumDecl[];
  comment: string;
  where: string;
}

/** MethodDecl is one rpc of a service. */
export interface MethodDecl {
  name: string;
  inputType: string;
  outputType: string;
  clientStreaming: boolean;
  serverStreaming: boolean;
  comment: string;
  where: string;
}

/** ServiceDecl is a service. */
export interface ServiceDecl {
  name: string;
  methods: MethodDecl[];
  comment: string;
  where: string;
}

/** ProtoFile is one parsed .proto file. */
export interface ProtoFile {
  /** path is the import path (relative to the proto root), e.g. `etcdserverpb/rpc.proto`. */
  path: string;
  syntax: ProtoSyntax;
  package: string;
  imports: string[];
  messages: MessageDecl[];
  enums: EnumDecl[];
  services: ServiceDecl[];
}

/** ProtoParseError is a syntax error, with the file, line and column in its message. */
export class ProtoParseError extends Error {
  override name = "ProtoParseError";
}

interface Token {
  kind: "ident" | "int" | "float" | "string" | "symbol";
  text: string;
  line: number;
  col: number;
  /** comment is the comment block directly above the token (no blank line in between). */
  comment: string;
}

function tokenize(path: string, src: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  let line = 1;
  let lineStart = 0;
  let pendingComment: string[] = [];
  let lastCommentLine = -1;
  const fail = (msg: string): never => {
    throw new ProtoParseError(`${path}:${line}:${i - lineStart + 1}: ${msg}`);
  };
  while (i < src.length) {
    const c = src[i]!;
    if (c === "\n") {
      line++;
      lineStart = i + 1;
      i++;
      // A blank line detaches the comment above it from what follows.
      if (lastCommentLine >= 0 && line - lastCommentLine > 1) pendingComment = [];
      continue;
    }
    if (c === " " || c === "\t" || c === "\r") {
      i++;
      continue;
    }
    if (src.startsWith("//", i)) {
      const end = src.indexOf("\n", i);
      const text = src.slice(i + 2, end < 0 ? src.length : end).replace(/^ /, "");
      // A trailing comment (code before it on the line) documents that line, not the next token.
      const ownLine = src.slice(lineStart, i).trim() === "";
      if (ownLine) {
        pendingComment.push(text);
        lastCommentLine = line;
      }
      i = end < 0 ? src.length : end;
      continue;
    }
    if (src.startsWith("/*", i)) {
      const end = src.indexOf("*/", i + 2);
      if (end < 0) fail("unterminated /* comment");
      for (let j = i; j < end; j++) {
        if (src[j] === "\n") {
          line++;
          lineStart = j + 1;
        }
      }
      i = end + 2;
      continue;
    }
    const start = i;
    const col = i - lineStart + 1;
    let kind: Token["kind"];
    if (/[A-Za-z_]/.test(c) || (c === "." && /[A-Za-z_]/.test(src[i + 1] ?? ""))) {
      i++;
      while (i < src.length && /[A-Za-z0-9_.]/.test(src[i]!)) i++;
      kind = "ident";
    } else if (/[0-9]/.test(c) || (c === "-" && /[0-9]/.test(src[i + 1] ?? ""))) {
      i++;
      while (i < src.length && /[0-9A-Za-z.+-]/.test(src[i]!)) {
        if ((src[i] === "+" || src[i] === "-") && !/[eE]/.test(src[i - 1]!)) break;
        i++;
      }
      kind = /^-?(0x[0-9a-fA-F]+|[0-9]+)$/.test(src.slice(start, i)) ? "int" : "float";
    } else if (c === '"' || c === "'") {
      i++;
      while (i < src.length && src[i] !== c) {
        if (src[i] === "\\") i++;
        if (src[i] === "\n") fail("newline in string literal");
        i++;
      }
      if (i >= src.length) fail("unterminated string literal");
      i++;
      kind = "string";
    } else if ("{}()[];=<>,".includes(c)) {
      i++;
      kind = "symbol";
    } else {
      return fail(`unexpected character ${JSON.stringify(c)}`);
    }
    tokens.push({ kind, text: src.slice(start, i), line, col, comment: pendingComment.join("\n") });
    pendingComment = [];
    lastCommentLine = -1;
  }
  return tokens;
}

/** scalarTypeNames lists protobuf's scalar types. */
export const scalarTypeNames: readonly string[] = [
  "double",
  "float",
  "int32",
  "int64",
  "uint32",
  "uint64",
  "sint32",
  "sint64",
  "fixed32",
  "fixed64",
  "sfixed32",
  "sfixed64",
  "bool",
  "string",
  "bytes",
];
const scalarTypes = new Set(scalarTypeNames);

/** isScalarType says whether a type name is a protobuf scalar. */
export function isScalarType(name: string): boolean {
  return scalarTypes.has(name);
}

/** parseProto parses one .proto file's text; path is its import path, used in errors and imports. */
export function parseProto(path: string, src: string): ProtoFile {
  const tokens = tokenize(path, src);
  let p = 0;
  const file: ProtoFile = { path, syntax: "proto2", package: "", imports: [], messages: [], enums: [], services: [] };
  let sawSyntax = false;

  const peek = (): Token | undefined => tokens[p];
  const where = (t: Token | undefined): string =>
    t ? `${path}:${t.line}:${t.col}` : `${path}:${tokens.at(-1)?.line ?? 1}: at end of file`;
  const fail = (msg: string, t = peek()): never => {
    throw new ProtoParseError(`${where(t)}: ${msg}`);
  };
  const next = (): Token => {
    const t = tokens[p++];
    if (!t) return fail("unexpected end of file");
    return t;
  };
  const expect = (text: string): Token => {
    const t = next();
    if (t.text !== text) fail(`expected "${text}", found "${t.text}"`, t);
    return t;
  };
  const accept = (text: string): boolean => {
    if (peek()?.text === text) {
      p++;
      return true;
    }
    return false;
  };
  const ident = (what: string): Token => {
    const t = next();
    if (t.kind !== "ident") fail(`expected ${what}, found "${t.text}"`, t);
    return t;
  };
  const int = (what: string): number => {
    const t = next();
    if (t.kind !== "int") fail(`expected ${what} (an integer), found "${t.text}"`, t);
    return Number(t.text.startsWith("-0x") ? -Number(t.text.slice(1)) : t.text);
  };
  const stringLit = (): string => {
    const t = next();
    if (t.kind !== "string") fail(`expected a string, found "${t.text}"`, t);
    return JSON.parse(t.text[0] === "'" ? `"${t.text.slice(1, -1).replace(/"/g, '\\"')}"` : t.text) as string;
  };
  /** constant reads an option value: identifier, number, string or a {...} aggregate (skipped). */
  const constant = (): string => {
    const t = peek();
    if (t?.text === "{") {
      let depth = 0;
      do {
        const x = next();
        if (x.text === "{") depth++;
        if (x.text === "}") depth--;
      } while (depth > 0);
      return "{...}";
    }
    if (t?.kind === "string") return stringLit();
    return next().text;
  };
  /** optionName reads `name` or `(custom.name).sub`. */
  const optionName = (): string => {
    let name = "";
    if (accept("(")) {
      name = `(${ident("an option name").text})`;
      expect(")");
      if (peek()?.kind === "ident" && peek()!.text.startsWith(".")) name += next().text;
    } else {
      name = ident("an option name").text;
    }
    return name;
  };
  const optionStatement = (): void => {
    expect("option");
    optionName();
    expect("=");
    constant();
    expect(";");
  };
  const reserved = (): void => {
    expect("reserved");
    while (!accept(";")) next();
  };

  const parseField = (
    first: Token,
    syntax: ProtoSyntax,
    oneof: string | undefined,
    into: FieldDecl[],
    label: FieldDecl["label"],
  ): void => {
    const typeTok = first;
    if (typeTok.text === "map") fail("map fields are not supported by this parser", typeTok);
    if (typeTok.text === "group") fail("groups are not supported by this parser", typeTok);
    const name = ident("a field name").text;
    expect("=");
    const number = int("a field number");
    if (number < 1 || number > 536870911 || (number >= 19000 && number <= 19999)) {
      fail(`field number ${number} of "${name}" is out of range`, typeTok);
    }
    const options: Record<string, string> = {};
    if (accept("[")) {
      do {
        const key = optionName();
        expect("=");
        options[key] = constant();
      } while (accept(","));
      expect("]");
    }
    expect(";");
    if (syntax === "proto3" && label === "required") fail(`required fields are not allowed in proto3`, typeTok);
    into.push({
      name,
      number,
      label,
      typeName: typeTok.text,
      options,
      oneof,
      comment: typeTok.comment,
      where: where(typeTok),
    });
  };

  const parseEnum = (): EnumDecl => {
    const kw = expect("enum");
    const nameTok = ident("an enum name");
    const decl: EnumDecl = { name: nameTok.text, values: [], comment: kw.comment, where: where(kw) };
    expect("{");
    while (!accept("}")) {
      const t = peek();
      if (t?.text === "option") optionStatement();
      else if (t?.text === "reserved") reserved();
      else if (accept(";")) continue;
      else {
        const v = ident("an enum value name");
        expect("=");
        const number = int("an enum value number");
        if (accept("[")) {
          do {
            optionName();
            expect("=");
            constant();
          } while (accept(","));
          expect("]");
        }
        expect(";");
        decl.values.push({ name: v.text, number, comment: v.comment });
      }
    }
    if (file.syntax === "proto3" && decl.values[0]?.number !== 0) {
      fail(`the first value of proto3 enum ${decl.name} must be 0`, nameTok);
    }
    return decl;
  };

  const parseMessage = (): MessageDecl => {
    const kw = expect("message");
    const nameTok = ident("a message name");
    const decl: MessageDecl = {
      name: nameTok.text,
      fields: [],
      oneofs: [],
      messages: [],
      enums: [],
      comment: kw.comment,
      where: where(kw),
    };
    expect("{");
    while (!accept("}")) {
      const t = peek();
      if (!t) fail(`unterminated message ${decl.name}`);
      if (accept(";")) continue;
      switch (t!.text) {
        case "message":
          decl.messages.push(parseMessage());
          break;
        case "enum":
          decl.enums.push(parseEnum());
          break;
        case "option":
          optionStatement();
          break;
        case "reserved":
          reserved();
          break;
        case "extensions":
        case "extend":
          fail(`"${t!.text}" is not supported by this parser`);
          break;
        case "oneof": {
          next();
          const oneofName = ident("a oneof name").text;
          decl.oneofs.push(oneofName);
          expect("{");
          while (!accept("}")) {
            if (peek()?.text === "option") {
              optionStatement();
              continue;
            }
            parseField(ident("a field type"), file.syntax, oneofName, decl.fields, undefined);
          }
          break;
        }
        default: {
          let label: FieldDecl["label"];
          if (t!.text === "repeated" || t!.text === "optional" || t!.text === "required") {
            label = next().text as FieldDecl["label"];
          } else if (file.syntax === "proto2") {
            fail(`proto2 field needs a label (optional, required or repeated)`);
          }
          parseField(ident("a field type"), file.syntax, undefined, decl.fields, label);
        }
      }
    }
    const seen = new Map<number, string>();
    for (const f of decl.fields) {
      const prior = seen.get(f.number);
      if (prior !== undefined) fail(`field number ${f.number} used by both "${prior}" and "${f.name}"`, nameTok);
      seen.set(f.number, f.name);
    }
    return decl;
  };

  const parseService = (): ServiceDecl => {
    const kw = expect("service");
    const decl: ServiceDecl = {
      name: ident("a service name").text,
      methods: [],
      comment: kw.comment,
      where: where(kw),
    };
    expect("{");
    while (!accept("}")) {
      if (accept(";")) continue;
      if (peek()?.text === "option") {
        optionStatement();
        continue;
      }
      const rpc = expect("rpc");
      const name = ident("a method name").text;
      expect("(");
      const clientStreaming = accept("stream");
      const inputType = ident("a request type").text;
      expect(")");
      expect("returns");
      expect("(");
      const serverStreaming = accept("stream");
      const outputType = ident("a response type").text;
      expect(")");
      if (accept("{")) {
        while (!accept("}")) {
          if (accept(";")) continue;
          optionStatement();
        }
      } else {
        expect(";");
      }
      decl.methods.push({
        name,
        inputType,
        outputType,
        clientStreaming,
        serverStreaming,
        comment: rpc.comment,
        where: where(rpc),
      });
    }
    return decl;
  };

  while (p < tokens.length) {
    const t = peek()!;
    switch (t.text) {
      case "syntax": {
        if (p !== 0) fail(`syntax must be the first statement`);
        next();
        expect("=");
        const s = stringLit();
        if (s !== "proto2" && s !== "proto3") fail(`unknown syntax "${s}"`, t);
        file.syntax = s as ProtoSyntax;
        sawSyntax = true;
        expect(";");
        break;
      }
      case "package":
        next();
        file.package = ident("a package name").text;
        expect(";");
        break;
      case "import":
        next();
        if (!accept("public")) accept("weak");
        file.imports.push(stringLit());
        expect(";");
        break;
      case "option":
        optionStatement();
        break;
      case "message":
        file.messages.push(parseMessage());
        break;
      case "enum":
        file.enums.push(parseEnum());
        break;
      case "service":
        file.services.push(parseService());
        break;
      case ";":
        next();
        break;
      default:
        fail(`unexpected "${t.text}" at top level`);
    }
  }
  if (!sawSyntax) throw new ProtoParseError(`${path}:1:1: missing syntax statement (we require it explicitly)`);
  return file;
}
