// resource.Quantity as k8s.io/apimachinery parses and prints it: "<number><suffix>" with a binary (Ki..Ei),
// decimal SI (n u m "" k M G T P E) or exponent (e3) suffix, rounded up to nano precision, printed in
// canonical form (the largest exponent that is a multiple of 3, or of 1024 for binary values that are whole
// and at least 1024). The apiserver stores and serves the canonical form: "0.5" is stored as "500m".

/** quantityFormatError is the message ParseQuantity gives for text that is not a quantity. */
export const quantityFormatError =
  "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

type Format = "BinarySI" | "DecimalSI" | "DecimalExponent";

const decimalSuffixes: Record<string, number> = { n: -9, u: -6, m: -3, "": 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const binarySuffixes: Record<string, number> = { Ki: 1, Mi: 2, Gi: 3, Ti: 4, Pi: 5, Ei: 6 };
const decimalNames = Object.fromEntries(Object.entries(decimalSuffixes).map(([k, v]) => [v, k]));
const binaryNames = Object.fromEntries(Object.entries(binarySuffixes).map(([k, v]) => [v, k]));

/** QuantityError is text that is not a quantity (the message is ParseQuantity's). */
export class QuantityError extends Error {
  override name = "QuantityError";
}

/** canonicalQuantity parses a quantity and returns its canonical text; it throws QuantityError. */
export function canonicalQuantity(text: string): string {
  const m = /^([+-]?)(\d*)(?:\.(\d*))?(.*)$/.exec(text.trim());
  if (!text.trim() || !m) throw new QuantityError(quantityFormatError);
  const [, sign = "", whole = "", frac = "", suffix = ""] = m;
  if (!whole && !frac) throw new QuantityError(quantityFormatError);
  if (!/^[eEinumkKMGTP]*[-+]?[0-9]*$/.test(suffix)) throw new QuantityError(quantityFormatError);
  let format: Format;
  let exp10 = 0;
  let pow2 = 0;
  if (suffix in decimalSuffixes) {
    format = "DecimalSI";
    exp10 = decimalSuffixes[suffix] as number;
  } else if (suffix in binarySuffixes) {
    format = "BinarySI";
    pow2 = 10 * (binarySuffixes[suffix] as number);
  } else if (suffix.length > 1 && (suffix[0] === "e" || suffix[0] === "E") && /^[-+]?\d+$/.test(suffix.slice(1))) {
    format = "DecimalExponent";
    exp10 = Number(suffix.slice(1));
  } else {
    throw new QuantityError("unable to parse quantity's suffix");
  }
  // value = mantissa * 10^scale, exact.
  let mantissa = BigInt(whole + frac || "0") * (1n << BigInt(pow2));
  let scale = exp10 - frac.length;
  // Round up (away from zero) to nano precision, as the Quantity's inf.Dec does.
  if (scale < -9) {
    const div = 10n ** BigInt(-9 - scale);
    mantissa = (mantissa + div - 1n) / div;
    scale = -9;
  }
  if (mantissa === 0n) return "0";
  const neg = sign === "-";
  while (mantissa % 10n === 0n) {
    mantissa /= 10n;
    scale++;
  }
  if (format === "BinarySI") {
    const whole1024 = scale >= 0 ? mantissa * 10n ** BigInt(scale) : null;
    if (whole1024 !== null && whole1024 >= 1024n) {
      let n = whole1024;
      let e = 0;
      while (n % 1024n === 0n && e < 6) {
        n /= 1024n;
        e++;
      }
      return `${neg ? "-" : ""}${n}${binaryNames[e] ?? ""}`;
    }
    format = "DecimalSI";
  }
  let e = Math.floor(scale / 3) * 3;
  if (format === "DecimalSI") e = Math.min(18, Math.max(-9, e));
  const n = mantissa * 10n ** BigInt(scale - e);
  const tail = format === "DecimalSI" ? (decimalNames[e] ?? "") : e === 0 ? "" : `e${e}`;
  return `${neg ? "-" : ""}${n}${tail}`;
}
