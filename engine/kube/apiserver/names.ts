// Object name validation as the apiserver's ValidateObjectMeta does it: most resources need a DNS-1123
// subdomain, namespaces a DNS-1123 label, services a DNS-1035 label; generateName gets five random
// characters from k8s's rand.String alphabet. The messages are apimachinery's validation texts.
import type { KubeObject } from "../api/object.ts";
import type { ResourceInfo } from "../api/resources.ts";
import type { FieldError } from "./status.ts";

const subdomainRe = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const labelRe = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const label1035Re = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

const subdomainMsg =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const labelMsg =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const label1035Msg =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

/** nameErrors validates a name for a resource (the detail strings of IsDNS1123Subdomain and friends). */
export function nameErrors(r: ResourceInfo, name: string): string[] {
  const errs: string[] = [];
  if (r.resource === "namespaces") {
    if (name.length > 63) errs.push("must be no more than 63 characters");
    if (!labelRe.test(name)) errs.push(labelMsg);
  } else if (r.resource === "services") {
    if (name.length > 63) errs.push("must be no more than 63 characters");
    if (!label1035Re.test(name)) errs.push(label1035Msg);
  } else {
    if (name.length > 253) errs.push("must be no more than 253 characters");
    if (!subdomainRe.test(name)) errs.push(subdomainMsg);
  }
  return errs;
}

/** metaErrors are the ObjectMeta errors of an object about to be created. */
export function metaErrors(r: ResourceInfo, obj: KubeObject): FieldError[] {
  const name = obj.metadata.name ?? "";
  if (name === "")
    return [{ type: "FieldValueRequired", field: "metadata.name", detail: "name or generateName is required" }];
  return nameErrors(r, name).map((detail) => ({
    type: "FieldValueInvalid",
    field: "metadata.name",
    value: name,
    detail,
  }));
}

const alphabet = "bcdfghjklmnpqrstvwxz2456789";

/** randomSuffix is k8s's rand.String(n). */
export function randomSuffix(n: number, random: () => number = Math.random): string {
  let s = "";
  for (let i = 0; i < n; i++) s += alphabet[Math.floor(random() * alphabet.length)];
  return s;
}

/** generateName is the name the apiserver's names.SimpleNameGenerator makes (base cut to 58 characters). */
export function generateName(base: string): string {
  return (base.length > 58 ? base.slice(0, 58) : base) + randomSuffix(5);
}
