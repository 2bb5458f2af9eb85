// metav1.Time and metav1.MicroTime in JSON: RFC 3339 in UTC, to the second ("2026-01-12T09:12:00Z") and to
// the microsecond ("2026-01-12T09:12:00.000000Z"). In protobuf both are {seconds = 1, nanos = 2}; Time keeps
// no fraction at all, MicroTime keeps microseconds.

/** rfc3339Layout is Go's time.RFC3339, which parse errors quote. */
const rfc3339Layout = "2006-01-02T15:04:05Z07:00";
const rfc3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/** Instant is a time as seconds since the epoch plus nanoseconds (0 <= nanos < 1e9). */
export interface Instant {
  seconds: number;
  nanos: number;
}

/** TimeError is text that is not an RFC 3339 time. */
export class TimeError extends Error {
  override name = "TimeError";
}

/** rfc3339MicroLayout is metav1.RFC3339Micro, the layout MicroTime parses with. */
const rfc3339MicroLayout = "2006-01-02T15:04:05.000000Z07:00";

/**
 * parseTime reads a time as metav1.Time does (time.RFC3339, any fraction), or with `micro` as MicroTime does
 * (RFC3339Micro: exactly six fractional digits), with Go's parse errors.
 */
export function parseTime(text: string, micro = false): Instant {
  const m = rfc3339.exec(text);
  const layout = micro ? rfc3339MicroLayout : rfc3339Layout;
  if (!m) throw new TimeError(`parsing time "${text}" as "${layout}": cannot parse "${text}" as "2006"`);
  if (micro && m[7]?.length !== 7) {
    const rest = text.slice(19);
    throw new TimeError(
      m[7] && m[7].length > 7
        ? `parsing time "${text}" as "${layout}": cannot parse "${rest.slice(7)}" as "Z07:00"`
        : `parsing time "${text}" as "${layout}": cannot parse "${rest}" as ".000000"`,
    );
  }
  const [, y, mo, d, h, mi, s, frac, , sign, oh, om] = m;
  const date = new Date(0);
  date.setUTCFullYear(Number(y), Number(mo) - 1, Number(d));
  date.setUTCHours(Number(h), Number(mi), Number(s), 0);
  if (date.getUTCDate() !== Number(d) || Number(mo) > 12 || Number(h) > 23 || Number(mi) > 59 || Number(s) > 59)
    throw new TimeError(`parsing time "${text}": day out of range`);
  let seconds = Math.floor(date.getTime() / 1000);
  if (sign) seconds -= (sign === "-" ? -1 : 1) * (Number(oh) * 3600 + Number(om) * 60);
  const nanos = frac ? Number((frac.slice(1) + "000000000").slice(0, 9)) : 0;
  return { seconds, nanos };
}

function utc(seconds: number): string {
  return new Date(seconds * 1000).toISOString().slice(0, 19);
}

/** formatTime prints a metav1.Time. */
export function formatTime(seconds: number): string {
  return `${utc(seconds)}Z`;
}

/** formatMicroTime prints a metav1.MicroTime (nanos truncated to microseconds). */
export function formatMicroTime(t: Instant): string {
  return `${utc(t.seconds)}.${String(Math.floor(t.nanos / 1000)).padStart(6, "0")}Z`;
}

/** zeroTimeSeconds is Go's zero time.Time (0001-01-01T00:00:00Z) in seconds since the epoch. */
export const zeroTimeSeconds = -62135596800;
