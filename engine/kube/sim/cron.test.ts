import { describe, expect, it } from "vitest";
import { CronError, parseSchedule, validTimeZone } from "./cron.ts";

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();

describe("cron schedules", () => {
  it("finds the next hourly time at a fixed minute, strictly after the given time", () => {
    const s = parseSchedule("17 * * * *");
    expect(iso(s.next(at("2026-12-02T03:10:00Z")))).toBe("2026-12-02T03:17:00.000Z");
    expect(iso(s.next(at("2026-12-02T03:17:00Z")))).toBe("2026-12-02T04:17:00.000Z");
  });

  it("reads lists, ranges, steps, names and descriptors", () => {
    expect(iso(parseSchedule("*/15 9-17 * * mon-fri").next(at("2026-12-05T10:00:00Z")))).toBe(
      "2026-12-07T09:00:00.000Z",
    );
    expect(iso(parseSchedule("0 0 1 jan,jul *").next(at("2026-02-01T00:00:00Z")))).toBe("2026-07-01T00:00:00.000Z");
    expect(iso(parseSchedule("@daily").next(at("2026-12-02T03:10:00Z")))).toBe("2026-12-03T00:00:00.000Z");
    expect(iso(parseSchedule("@every 90s").next(at("2026-12-02T03:10:00.500Z")))).toBe("2026-12-02T03:11:30.000Z");
  });

  it("ORs day of month and day of week unless one is *", () => {
    // 2026-12-02 is a Wednesday: the 10th, or any Friday, whichever comes first.
    expect(iso(parseSchedule("0 0 10 * fri").next(at("2026-12-02T00:00:00Z")))).toBe("2026-12-04T00:00:00.000Z");
    expect(iso(parseSchedule("0 0 10 * *").next(at("2026-12-02T00:00:00Z")))).toBe("2026-12-10T00:00:00.000Z");
  });

  it("matches wall-clock time in the CronJob's time zone", () => {
    // 02:30 in Berlin (UTC+1 in December) is 01:30 UTC.
    expect(iso(parseSchedule("30 2 * * *", "Europe/Berlin").next(at("2026-12-02T00:00:00Z")))).toBe(
      "2026-12-02T01:30:00.000Z",
    );
    expect(validTimeZone("Etc/UTC")).toBe(true);
    expect(validTimeZone("Mars/Olympus")).toBe(false);
  });

  it("rejects what robfig/cron rejects, with its text", () => {
    const err = (s: string) => {
      try {
        parseSchedule(s);
        return "";
      } catch (e) {
        expect(e).toBeInstanceOf(CronError);
        return (e as Error).message;
      }
    };
    expect(err("17 * * *")).toBe("expected exactly 5 fields, found 4: [17 * * *]");
    expect(err("61 * * * *")).toBe("end of range (61) above maximum (59): 61");
    expect(err("x * * * *")).toBe('failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax');
    expect(err("@sometimes")).toBe("unrecognized descriptor: @sometimes");
  });
});
