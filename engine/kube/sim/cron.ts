// Cron schedules as the CronJob controller reads them (robfig/cron's ParseStandard): five fields (minute, hour,
// day of month, month, day of week) with lists, ranges, steps, `*`/`?` and month and weekday names, or one of
// the descriptors @yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly, @every <duration>. Day of
// month and day of week are ORed unless one of them is `*`. Times are matched as wall-clock time in an IANA
// time zone (spec.timeZone; the controller-manager's local zone, UTC here, when unset).

/** Schedule is a parsed cron schedule. */
export interface Schedule {
  /** next is the first matching time strictly after `ms` (ms since the epoch, whole minutes), in `zone`. */
  next(ms: number): number;
}

const fieldRanges: [min: number, max: number][] = [
  [0, 59],
  [0, 23],
  [1, 31],
  [1, 12],
  [0, 6],
];
const monthNames = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const dayNames = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];

/** CronError is a schedule robfig/cron rejects; the message is its text. */
export class CronError extends Error {
  override name = "CronError";
}

function number(s: string, field: number): number {
  const lower = s.toLowerCase();
  if (field === 3 && monthNames.includes(lower)) return monthNames.indexOf(lower) + 1;
  if (field === 4 && dayNames.includes(lower)) return dayNames.indexOf(lower);
  if (!/^\d+$/.test(s))
    throw new CronError(`failed to parse int from ${s}: strconv.Atoi: parsing "${s}": invalid syntax`);
  return Number(s);
}

/** parseField returns the allowed values of one field and whether it was `*` or `?`. */
function parseField(text: string, field: number): { values: Set<number>; star: boolean } {
  const [min, max] = fieldRanges[field] as [number, number];
  const values = new Set<number>();
  let star = false;
  for (const part of text.split(",")) {
    const [range = "", stepText, extra] = part.split("/");
    if (extra !== undefined) throw new CronError(`too many slashes: ${part}`);
    let lo: number;
    let hi: number;
    if (range === "*" || range === "?") {
      [lo, hi] = [min, max];
      if (stepText === undefined) star = true;
    } else {
      const [a = "", b, more] = range.split("-");
      if (more !== undefined) throw new CronError(`too many hyphens: ${range}`);
      lo = number(a, field);
      hi = b === undefined ? (stepText === undefined ? lo : max) : number(b, field);
    }
    const step = stepText === undefined ? 1 : number(stepText, field);
    if (lo < min) throw new CronError(`beginning of range (${lo}) below minimum (${min}): ${part}`);
    if (hi > max) throw new CronError(`end of range (${hi}) above maximum (${max}): ${part}`);
    if (lo > hi) throw new CronError(`beginning of range (${lo}) beyond end of range (${hi}): ${part}`);
    if (step === 0) throw new CronError(`step of range should be a positive number: ${part}`);
    for (let v = lo; v <= hi; v += step) values.add(v);
  }
  return { values, star };
}

const descriptors: Record<string, string> = {
  "@yearly": "0 0 1 1 *",
  "@annually": "0 0 1 1 *",
  "@monthly": "0 0 1 * *",
  "@weekly": "0 0 * * 0",
  "@daily": "0 0 * * *",
  "@midnight": "0 0 * * *",
  "@hourly": "0 * * * *",
};

/** WallClock is a time's fields in a zone. */
interface WallClock {
  minute: number;
  hour: number;
  day: number;
  month: number;
  weekday: number;
}

/** zoneFields returns a function giving the wall-clock fields of a time in `zone` (throws on an unknown zone). */
export function zoneFields(zone: string): (ms: number) => WallClock {
  const fmt = new Intl.DateTimeFormat("en-US", {
    timeZone: zone,
    hourCycle: "h23",
    month: "numeric",
    day: "numeric",
    hour: "numeric",
    minute: "numeric",
    weekday: "short",
  });
  return (ms) => {
    const parts: Record<string, string> = {};
    for (const p of fmt.formatToParts(ms)) parts[p.type] = p.value;
    return {
      minute: Number(parts["minute"]),
      hour: Number(parts["hour"]),
      day: Number(parts["day"]),
      month: Number(parts["month"]),
      weekday: dayNames.indexOf((parts["weekday"] ?? "").toLowerCase()),
    };
  };
}

/** validTimeZone is whether `zone` is a time zone Go's time.LoadLocation would load. */
export function validTimeZone(zone: string): boolean {
  if (zone === "" || zone.toLowerCase() === "local") return false;
  try {
    zoneFields(zone);
    return true;
  } catch {
    return false;
  }
}

const minute = 60_000;

/** parseSchedule parses a CronJob's spec.schedule for `zone` (default UTC); it throws CronError. */
export function parseSchedule(schedule: string, zone = "UTC"): Schedule {
  const text = schedule.trim();
  if (text === "") throw new CronError("empty spec string");
  if (text.startsWith("@every ")) {
    const every = parseEvery(text.slice(7).trim());
    return { next: (ms) => Math.floor(ms / 1000) * 1000 + every };
  }
  const expanded = text.startsWith("@") ? descriptors[text] : text;
  if (expanded === undefined) throw new CronError(`unrecognized descriptor: ${text}`);
  const fields = expanded.split(/\s+/);
  if (fields.length !== 5)
    throw new CronError(`expected exactly 5 fields, found ${fields.length}: [${fields.join(" ")}]`);
  const [mins, hours, doms, months, dows] = fields.map((f, i) => parseField(f, i)) as [
    ReturnType<typeof parseField>,
    ReturnType<typeof parseField>,
    ReturnType<typeof parseField>,
    ReturnType<typeof parseField>,
    ReturnType<typeof parseField>,
  ];
  const wall = zoneFields(zone);
  const dayMatches = (w: WallClock) =>
    doms.star || dows.star
      ? doms.values.has(w.day) && dows.values.has(w.weekday)
      : doms.values.has(w.day) || dows.values.has(w.weekday);
  return {
    next(ms) {
      let t = Math.floor(ms / minute) * minute + minute;
      // Skip whole days, then hours, then minutes that cannot match (at most ~5 years ahead, as robfig does).
      for (let guard = 0; guard < 600_000; guard++) {
        const w = wall(t);
        if (!months.values.has(w.month) || !dayMatches(w)) {
          t += ((23 - w.hour) * 60 + (60 - w.minute)) * minute;
        } else if (!hours.values.has(w.hour)) {
          t += (60 - w.minute) * minute;
        } else if (!mins.values.has(w.minute)) {
          t += minute;
        } else {
          return t;
        }
      }
      throw new CronError(`no time matches the schedule ${JSON.stringify(schedule)}`);
    },
  };
}

function parseEvery(d: string): number {
  const m = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/.exec(d);
  if (!m || d === "") throw new CronError(`failed to parse duration @every ${d}: time: invalid duration "${d}"`);
  const ms = (Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3] ?? 0)) * 1000;
  return Math.max(1000, ms);
}
