// schema: links parsed .proto files into one model — every type reference resolved by protobuf's scoping
// rules, TypeScript names assigned (nested `Outer.Inner` → `Outer_Inner`), field presence, packing and JS
// representation decided — so the emitter only has to print.
import {
  isScalarType,
  scalarTypeNames,
  type EnumDecl,
  type FieldDecl,
  type MessageDecl,
  type ProtoFile,
  type ProtoSyntax,
} from "./parser.ts";
import type { PackageOverride } from "./overrides.ts";

/** EnumModel is an enum with its names resolved. */
export interface EnumModel {
  kind: "enum";
  /** fullName is the qualified proto name, e.g. `etcdserverpb.RangeRequest.SortOrder`. */
  fullName: string;
  /** tsName is the TypeScript name inside its package module, e.g. `RangeRequest_SortOrder`. */
  tsName: string;
  pkg: string;
  file: ProtoFile;
  decl: EnumDecl;
  /** external is set when an override maps the enum onto an existing TypeScript enum of that name. */
  external: boolean;
}

/** FieldPresence says when a singular field is written: proto3 scalars only when not the default. */
export type FieldPresence =
  /** proto3 scalar: written when not the default value. */
  | "implicit"
  /** proto2 scalar (etcd's gogoproto nullable=false): always written; bytes only when non-empty. */
  | "always"
  /** message field, oneof member or proto3 `optional`: written when set (not undefined). */
  | "explicit"
  /** message field held by value (override): always present and always written. */
  | "required";

/** FieldModel is a field with its type resolved. */
export interface FieldModel {
  decl: FieldDecl;
  name: string;
  localName: string;
  number: number;
  repeated: boolean;
  kind: "scalar" | "enum" | "message";
  /** scalar is the scalar type name (kind scalar). */
  scalar: string | undefined;
  /** ref is the referenced message or enum. */
  ref: MessageModel | EnumModel | undefined;
  /** long is how a 64-bit scalar is held: bigint unless [jstype = JS_NUMBER]. */
  long: "number" | "bigint" | undefined;
  packed: boolean;
  oneof: string | undefined;
  presence: FieldPresence;
  /** brand is a TypeScript type name that replaces the natural scalar type (override), e.g. `Term`. */
  brand: string | undefined;
}

/** MessageModel is a message with its fields resolved, sorted by field number. */
export interface MessageModel {
  kind: "message";
  fullName: string;
  tsName: string;
  pkg: string;
  file: ProtoFile;
  syntax: ProtoSyntax;
  decl: MessageDecl;
  fields: FieldModel[];
}

/** MethodModel is an rpc with resolved types. */
export interface MethodModel {
  name: string;
  path: string;
  requestType: MessageModel;
  responseType: MessageModel;
  clientStreaming: boolean;
  serverStreaming: boolean;
  comment: string;
}

/** ServiceModel is a service with resolved methods. */
export interface ServiceModel {
  name: string;
  fullName: string;
  comment: string;
  methods: MethodModel[];
}

/** PackageModel is everything generated into one gen/<package>.ts module. */
export interface PackageModel {
  name: string;
  /** moduleName is the file stem and import alias: the package with dots replaced by `_`. */
  moduleName: string;
  files: ProtoFile[];
  messages: MessageModel[];
  enums: EnumModel[];
  services: ServiceModel[];
  /** imports lists the other packages whose types this package uses. */
  imports: Set<string>;
  override: PackageOverride | undefined;
}

/** SchemaError is an error in the .proto sources found while linking (unknown type, name clash, ...). */
export class SchemaError extends Error {
  override name = "SchemaError";
}

/** jsonName converts a proto field name to protoc's JSON name: `range_end` → `rangeEnd`, `member_ID` → `memberID`. */
export function jsonName(protoName: string): string {
  let out = "";
  let upper = false;
  for (const c of protoName) {
    if (c === "_") {
      upper = true;
    } else {
      out += upper ? c.toUpperCase() : c;
      upper = false;
    }
  }
  return out;
}

/** packableScalars: every numeric scalar and bool (strings and bytes are length-delimited already). */
const packableScalars = new Set(scalarTypeNames.filter((t) => t !== "string" && t !== "bytes"));
const longScalars = new Set(["int64", "uint64", "sint64", "fixed64", "sfixed64"]);

/** buildSchema links files (all of them, imports included) into packages. */
export function buildSchema(files: ProtoFile[], overrides: Record<string, PackageOverride>): Map<string, PackageModel> {
  const byPath = new Map(files.map((f) => [f.path, f]));
  const types = new Map<string, MessageModel | EnumModel>();
  const packages = new Map<string, PackageModel>();

  const pkgOf = (file: ProtoFile): PackageModel => {
    if (!file.package) throw new SchemaError(`${file.path}: a package statement is required`);
    let pkg = packages.get(file.package);
    if (!pkg) {
      pkg = {
        name: file.package,
        moduleName: file.package.replace(/\./g, "_"),
        files: [],
        messages: [],
        enums: [],
        services: [],
        imports: new Set(),
        override: overrides[file.package],
      };
      packages.set(file.package, pkg);
    }
    return pkg;
  };

  const tsNames = new Map<string, string>();
  const claim = (pkg: PackageModel, tsName: string, fullName: string, where: string): void => {
    const key = `${pkg.name}/${tsName}`;
    const prior = tsNames.get(key);
    if (prior)
      throw new SchemaError(`${where}: ${fullName} and ${prior} both become ${tsName} in gen/${pkg.moduleName}.ts`);
    tsNames.set(key, fullName);
  };

  // Pass 1: declare every type.
  const declareEnum = (file: ProtoFile, pkg: PackageModel, decl: EnumDecl, scope: string, tsPrefix: string): void => {
    const fullName = `${scope}.${decl.name}`;
    const tsName = tsPrefix + decl.name;
    const external = pkg.override?.enums.includes(tsName) ?? false;
    claim(pkg, tsName, fullName, decl.where);
    const model: EnumModel = { kind: "enum", fullName, tsName, pkg: pkg.name, file, decl, external };
    types.set(fullName, model);
    pkg.enums.push(model);
  };
  const declareMessage = (file: ProtoFile, pkg: PackageModel, decl: MessageDecl, scope: string, tsPrefix: string) => {
    const fullName = `${scope}.${decl.name}`;
    const tsName = tsPrefix + decl.name;
    claim(pkg, tsName, fullName, decl.where);
    const model: MessageModel = {
      kind: "message",
      fullName,
      tsName,
      pkg: pkg.name,
      file,
      syntax: file.syntax,
      decl,
      fields: [],
    };
    types.set(fullName, model);
    pkg.messages.push(model);
    for (const e of decl.enums) declareEnum(file, pkg, e, fullName, `${tsName}_`);
    for (const m of decl.messages) declareMessage(file, pkg, m, fullName, `${tsName}_`);
  };
  for (const file of files) {
    const pkg = pkgOf(file);
    pkg.files.push(file);
    for (const e of file.enums) declareEnum(file, pkg, e, file.package, "");
    for (const m of file.messages) declareMessage(file, pkg, m, file.package, "");
  }

  // Which files each file may see: itself and its direct imports.
  const visible = (file: ProtoFile): Set<ProtoFile> => {
    const set = new Set([file]);
    for (const imp of file.imports) {
      const f = byPath.get(imp);
      if (!f) throw new SchemaError(`${file.path}: import "${imp}" not found`);
      set.add(f);
    }
    return set;
  };

  /** resolve finds a type name the way protoc does: innermost scope first, then outwards. */
  const resolve = (name: string, scope: string, from: ProtoFile, where: string): MessageModel | EnumModel => {
    let found: MessageModel | EnumModel | undefined;
    if (name.startsWith(".")) {
      found = types.get(name.slice(1));
    } else {
      const parts = scope.split(".");
      for (let n = parts.length; n >= 0 && !found; n--) {
        const candidate = [...parts.slice(0, n), name].join(".");
        found = types.get(candidate);
      }
    }
    if (!found) throw new SchemaError(`${where}: unknown type "${name}"`);
    if (!visible(from).has(found.file)) {
      throw new SchemaError(`${where}: "${name}" is defined in ${found.file.path}, which ${from.path} does not import`);
    }
    return found;
  };

  // Pass 2: resolve fields and services.
  for (const pkg of packages.values()) {
    const ov = pkg.override;
    for (const msg of pkg.messages) {
      const shortPath = msg.fullName.slice(pkg.name.length + 1);
      msg.fields = [...msg.decl.fields]
        .sort((a, b) => a.number - b.number)
        .map((decl): FieldModel => {
          const repeated = decl.label === "repeated";
          const scalar = isScalarType(decl.typeName) ? decl.typeName : undefined;
          const ref = scalar ? undefined : resolve(decl.typeName, msg.fullName, msg.file, decl.where);
          if (ref && ref.pkg !== pkg.name) pkg.imports.add(ref.pkg);
          const kind = scalar ? "scalar" : ref!.kind;
          const jstype = decl.options["jstype"];
          if (jstype !== undefined && jstype !== "JS_NUMBER" && jstype !== "JS_NORMAL") {
            throw new SchemaError(`${decl.where}: jstype ${jstype} is not supported (use JS_NUMBER or JS_NORMAL)`);
          }
          if (jstype !== undefined && !(scalar && longScalars.has(scalar))) {
            throw new SchemaError(`${decl.where}: jstype only applies to 64-bit integer fields`);
          }
          const long = scalar && longScalars.has(scalar) ? (jstype === "JS_NUMBER" ? "number" : "bigint") : undefined;
          const packable = repeated && (kind === "enum" || (scalar !== undefined && packableScalars.has(scalar)));
          const packedOpt = decl.options["packed"];
          if (packedOpt !== undefined && !packable)
            throw new SchemaError(`${decl.where}: [packed] on a non-packable field`);
          const packed = packable && (packedOpt !== undefined ? packedOpt === "true" : msg.syntax === "proto3");
          const key = `${shortPath}.${decl.name}`;
          const required = ov?.required.includes(key) ?? false;
          if (required && (kind !== "message" || repeated || decl.oneof)) {
            throw new SchemaError(`${decl.where}: override "required" applies to singular message fields only`);
          }
          let presence: FieldPresence;
          if (required) presence = "required";
          else if (kind === "message" || decl.oneof !== undefined) presence = "explicit";
          else if (msg.syntax === "proto3") presence = decl.label === "optional" ? "explicit" : "implicit";
          else presence = "always";
          const brand = ov?.types[key];
          if (brand !== undefined && kind === "message")
            throw new SchemaError(`${decl.where}: cannot brand a message field`);
          return {
            decl,
            name: decl.name,
            localName: jsonName(decl.name),
            number: decl.number,
            repeated,
            kind,
            scalar,
            ref,
            long,
            packed,
            oneof: decl.oneof,
            presence,
            brand,
          };
        });
      const locals = new Set<string>();
      for (const f of msg.fields) {
        if (locals.has(f.localName))
          throw new SchemaError(`${f.decl.where}: two fields of ${msg.fullName} map to ${f.localName}`);
        locals.add(f.localName);
      }
    }
    for (const file of pkg.files) {
      for (const svc of file.services) {
        const fullName = `${pkg.name}.${svc.name}`;
        claim(pkg, `${svc.name}Service`, fullName, svc.where);
        pkg.services.push({
          name: svc.name,
          fullName,
          comment: svc.comment,
          methods: svc.methods.map((m) => {
            const asMessage = (name: string): MessageModel => {
              const t = resolve(name, pkg.name, file, m.where);
              if (t.kind !== "message") throw new SchemaError(`${m.where}: ${name} is not a message`);
              if (t.pkg !== pkg.name) pkg.imports.add(t.pkg);
              return t;
            };
            return {
              name: m.name,
              path: `/${fullName}/${m.name}`,
              requestType: asMessage(m.inputType),
              responseType: asMessage(m.outputType),
              clientStreaming: m.clientStreaming,
              serverStreaming: m.serverStreaming,
              comment: m.comment,
            };
          }),
        });
      }
    }
  }
  for (const [name, ov] of Object.entries(overrides)) {
    const pkg = packages.get(name);
    if (!pkg) throw new SchemaError(`override for unknown package ${name}`);
    for (const e of ov.enums) {
      if (!pkg.enums.some((m) => m.tsName === e)) throw new SchemaError(`override: ${name} has no enum ${e}`);
    }
    const fieldKeys = new Set(
      pkg.messages.flatMap((m) => m.fields.map((f) => `${m.fullName.slice(name.length + 1)}.${f.name}`)),
    );
    for (const key of [...Object.keys(ov.types), ...ov.required]) {
      if (!fieldKeys.has(key)) throw new SchemaError(`override: ${name} has no field ${key}`);
    }
  }
  return packages;
}
