// Go's encoding/json output for the JSON values the API carries: compact, with the HTML-safe escapes
// json.Marshal and json.Encoder write by default (<, >, & and U+2028/U+2029 as \u escapes).
import type { JsonValue } from "./object.ts";

/** goJson is json.Marshal of v (object keys in their insertion order). */
export function goJson(v: JsonValue): string {
  return JSON.stringify(v).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
