// Tests of our age and age-keygen: round trips and age 1.1.1's texts on their own, then against the real age
// (/usr/bin/age, skipped loudly when absent): the same arguments give the same exit status and error lines, and
// files and keys written by one are read by the other, both ways.

import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memoryIo, requireBinary } from "../cobra/testing.ts";
import { runAge } from "./age.ts";
import { bech32Decode, bech32Encode } from "./bech32.ts";
import { runAgeKeygen } from "./keygen.ts";

const realAge = "/usr/bin/age";
const realKeygen = "/usr/bin/age-keygen";

let dir = "";
let key = "";
let pub = "";
const p = (name: string) => join(dir, name);

async function ours(args: string[], stdin?: string): Promise<{ code: number; out: string; err: string }> {
  const io = memoryIo({ stdin: stdin ?? "", argv: ["age"] });
  const code = await runAge(io, args);
  return { code, out: io.out(), err: io.err() };
}

function real(bin: string, args: string[], stdin?: string): { code: number; out: string; err: string } {
  const r = spawnSync(bin, args, { input: stdin ?? "", encoding: "utf8", argv0: bin.split("/").pop() });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "age-test-"));
  const io = memoryIo();
  expect(await runAgeKeygen(io, ["-o", p("key.txt")])).toBe(0);
  key = readFileSync(p("key.txt"), "utf8");
  pub = /# public key: (age1\S+)/.exec(key)?.[1] ?? "";
  expect(io.err()).toBe(`Public key: ${pub}\n`);
  writeFileSync(p("plain.txt"), "the snapshot\n");
  writeFileSync(p("recipients.txt"), `# backup key\n\n${pub}\n`);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("age on its own", () => {
  it("round-trips binary and armored files, from files and standard input", async () => {
    expect((await ours(["-r", pub, "-o", p("a.age"), p("plain.txt")])).code).toBe(0);
    expect(readFileSync(p("a.age")).subarray(0, 22).toString()).toBe("age-encryption.org/v1\n");
    expect((await ours(["-d", "-i", p("key.txt"), p("a.age")])).out).toBe("the snapshot\n");
    expect((await ours(["-R", p("recipients.txt"), "-a", "-o", p("b.age")], "from stdin")).code).toBe(0);
    expect(readFileSync(p("b.age"), "utf8")).toMatch(/^-----BEGIN AGE ENCRYPTED FILE-----\n/);
    expect((await ours(["--decrypt", "--identity", p("key.txt"), "-o", p("b.txt"), p("b.age")])).code).toBe(0);
    expect(readFileSync(p("b.txt"), "utf8")).toBe("from stdin");
    expect((await ours(["-e", "-i", p("key.txt"), "-o", p("c.age"), p("plain.txt")])).code).toBe(0);
    expect((await ours(["-d", "-i", "-", p("c.age")], key)).out).toBe("the snapshot\n");
  });

  it("prints age's errors with their hints and creates no output file on failure", async () => {
    const r = await ours(["-r", "age1xyz", "-o", p("never.age"), p("plain.txt")]);
    expect(r).toEqual({
      code: 1,
      out: "",
      err:
        `age: error: malformed recipient "age1xyz": separator '1' at invalid position: pos=3, len=7\n` +
        "age: report unexpected or unhelpful errors at https://filippo.io/age/report\n",
    });
    expect(() => statSync(p("never.age"))).toThrow();
    expect((await ours([p("plain.txt")])).err).toContain(
      "age: error: missing recipients\nage: hint: did you forget to specify -r/--recipient, -R/--recipients-file or -p/--passphrase?\n",
    );
    expect((await ours(["-d", "-i", p("key.txt"), p("plain.txt")])).err).toContain(
      'age: error: failed to read header: parsing age header: unexpected intro: "the snapshot\\n"\n',
    );
    const other = memoryIo();
    await runAgeKeygen(other, ["-o", p("other.txt")]);
    expect((await ours(["-d", "-i", p("other.txt"), p("a.age")])).err).toContain(
      "age: error: no identity matched any of the recipients\n",
    );
    expect(await ours(["-x"])).toMatchObject({
      code: 2,
      err: expect.stringMatching(/^flag provided but not defined: -x\nUsage:\n/),
    });
  });

  it("refuses to write binary to a terminal unless -a or -o -", async () => {
    const io = { ...memoryIo({ stdin: "x" }), isTerminal: () => true };
    expect(await runAge(io, ["-r", pub])).toBe(1);
    expect(io.err()).toContain("age: error: refusing to output binary to the terminal\n");
  });

  it("encodes and decodes Bech32 keys as age does", () => {
    const bytes = Uint8Array.from({ length: 32 }, (_, i) => i);
    const s = bech32Encode("AGE-SECRET-KEY-", bytes);
    expect(s).toMatch(/^AGE-SECRET-KEY-1[0-9A-Z]+$/);
    expect(bech32Decode(s)).toEqual({ hrp: "AGE-SECRET-KEY-", data: bytes });
    expect(() => bech32Decode(`${s.slice(0, -1)}Q`)).toThrow("invalid checksum");
    expect(() => bech32Decode("Age1abcdefgh")).toThrow("mixed case");
  });

  it("age-keygen never overwrites, writes 0600 files and converts with -y", async () => {
    const io = memoryIo();
    expect(await runAgeKeygen(io, ["-o", p("key.txt")])).toBe(1);
    expect(io.err()).toBe(
      `age-keygen: error: failed to open output file "${p("key.txt")}": open ${p("key.txt")}: file exists\n` +
        "age-keygen: report unexpected or unhelpful errors at https://filippo.io/age/report\n",
    );
    expect(statSync(p("key.txt")).mode & 0o777).toBe(0o600);
    const y = memoryIo();
    expect(await runAgeKeygen(y, ["-y", p("key.txt")])).toBe(0);
    expect(y.out()).toBe(`${pub}\n`);
  });
});

describe.runIf(requireBinary(realAge, "age 1.1.1"))("age against the real age", () => {
  it("prints what age 1.1.1 prints for the same mistakes", async () => {
    writeFileSync(p("bad-recipients.txt"), "bogus\n");
    const cases: string[][] = [
      [],
      ["-r", "bogus", p("plain.txt")],
      ["-r", "age1xyz", p("plain.txt")],
      ["-r", "age1pq1abc", p("plain.txt")],
      ["-r", pub.toUpperCase(), p("plain.txt")],
      ["-r", `${pub.slice(0, -1)}${pub.endsWith("q") ? "p" : "q"}`, p("plain.txt")],
      [p("plain.txt")],
      ["-r", pub, p("nofile")],
      ["-r", pub, p("plain.txt"), "extra"],
      ["-r", pub, p("plain.txt"), "-o", "x"],
      ["-R", p("nofile"), p("plain.txt")],
      ["-R", p("bad-recipients.txt"), p("plain.txt")],
      ["-r", pub, "-i", p("key.txt"), p("plain.txt")],
      ["-d", "-r", pub, p("plain.txt")],
      ["-d", "-R", p("recipients.txt"), p("plain.txt")],
      ["-e", "-d", p("plain.txt")],
      ["-d", "-a", p("plain.txt")],
      ["-r", pub, "-p", p("plain.txt")],
      ["-d", "-i", p("nofile"), p("a.age")],
      ["-d", "-i", p("plain.txt"), p("a.age")],
      ["-d", "-i", p("recipients.txt"), p("a.age")],
      ["-d", "-i", p("key.txt"), p("plain.txt")],
      ["-d", "-i", p("key.txt"), p("empty")],
      ["-d", "-i", p("other.txt"), p("a.age")],
      ["-d", p("a.age")],
      ["-r", pub, "-o", "/nonexistent/dir/x.age", p("plain.txt")],
      ["-x"],
      ["-o"],
      ["-a=maybe"],
      ["---r"],
      ["-h"],
      ["--version"],
    ];
    writeFileSync(p("empty"), "");
    for (const args of cases) {
      const want = real(realAge, args);
      const got = await ours(args);
      expect({ args, code: got.code, err: got.err }).toEqual({ args, code: want.code, err: want.err });
    }
  });

  it("decrypts what the real age encrypted, and the real age decrypts ours", async () => {
    const big = Buffer.alloc(200_000);
    for (let i = 0; i < big.length; i++) big[i] = (i * 7919) % 251;
    writeFileSync(p("big.bin"), big);
    for (const armor of [[], ["-a"]]) {
      expect(real(realAge, ["-r", pub, ...armor, "-o", p("real.age"), p("big.bin")]).code).toBe(0);
      expect((await ours(["-d", "-i", p("key.txt"), "-o", p("real.out"), p("real.age")])).code).toBe(0);
      expect(readFileSync(p("real.out")).equals(big)).toBe(true);
      expect((await ours(["-r", pub, ...armor, "-o", p("ours.age"), p("big.bin")])).code).toBe(0);
      expect(real(realAge, ["-d", "-i", p("key.txt"), "-o", p("ours.out"), p("ours.age")]).code).toBe(0);
      expect(readFileSync(p("ours.out")).equals(big)).toBe(true);
    }
  });

  it("shares keys with the real age-keygen", async () => {
    const fromReal = real(realKeygen, ["-y", p("key.txt")]);
    expect(fromReal).toEqual({ code: 0, out: `${pub}\n`, err: "" });
    rmSync(p("real-key.txt"), { force: true });
    const gen = real(realKeygen, ["-o", p("real-key.txt")]);
    const realPub = /^Public key: (age1\S+)\n$/.exec(gen.err)?.[1];
    const y = memoryIo();
    expect(await runAgeKeygen(y, ["-y", p("real-key.txt")])).toBe(0);
    expect(y.out()).toBe(`${realPub}\n`);
    for (const args of [
      ["-y", p("plain.txt")],
      ["-y", p("nofile")],
      ["a"],
      ["-y", "a", "b"],
      ["-o", p("key.txt")],
      ["--bogus"],
    ]) {
      const want = real(realKeygen, args);
      const io = memoryIo();
      const code = await runAgeKeygen(io, args);
      expect({ args, code, err: io.err() }).toEqual({ args, code: want.code, err: want.err });
    }
  });
});
