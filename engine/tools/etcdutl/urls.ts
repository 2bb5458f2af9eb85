// Peer URL lists as etcd's client/pkg/types parses them (NewURLs, NewURLsMap) and the bootstrap checks
// `snapshot restore` runs on them (server/config VerifyBootstrap): the local name is in --initial-cluster,
// its URLs equal --initial-advertise-peer-urls (after resolving host names, as netutil.URLStringsEqual
// does), and no URL appears twice.

import { lookup } from "node:dns/promises";
import { goQuote } from "../../go/go-strconv.ts";

/** UrlError is a URL list error with etcd's text. */
export class UrlError extends Error {
  override name = "UrlError";
}

/** PeerUrl is a parsed http(s)/unix(s) URL. */
export interface PeerUrl {
  scheme: string;
  host: string;
  /** text is url.URL.String(). */
  text: string;
}

/** goScheme is net/url's getScheme: the scheme, or "" when the text has none; undefined for "missing protocol scheme". */
function goScheme(raw: string): { scheme: string; rest: string } | undefined {
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i] as string;
    if (/[a-zA-Z]/.test(c)) continue;
    if (/[0-9+.-]/.test(c)) {
      if (i === 0) return { scheme: "", rest: raw };
      continue;
    }
    if (c === ":") return i === 0 ? undefined : { scheme: raw.slice(0, i).toLowerCase(), rest: raw.slice(i + 1) };
    return { scheme: "", rest: raw };
  }
  return { scheme: "", rest: raw };
}

/** parseUrl is url.Parse for the shapes peer URLs take, with net/url's error texts. */
function parseUrl(raw: string): { scheme: string; host: string; path: string } {
  const s = goScheme(raw);
  if (!s) throw new UrlError(`parse ${goQuote(raw)}: missing protocol scheme`);
  let rest = s.rest.replace(/[?#].*$/s, "");
  if (s.scheme === "") {
    const firstSegment = rest.split("/")[0] as string;
    if (firstSegment.includes(":")) {
      throw new UrlError(`parse ${goQuote(raw)}: first path segment in URL cannot contain colon`);
    }
    return { scheme: "", host: "", path: rest };
  }
  if (!rest.startsWith("//")) return { scheme: s.scheme, host: "", path: rest };
  rest = rest.slice(2);
  const slash = rest.indexOf("/");
  const authority = slash < 0 ? rest : rest.slice(0, slash);
  const host = authority.slice(authority.lastIndexOf("@") + 1);
  if (host.startsWith("[") && !host.includes("]")) throw new UrlError(`parse ${goQuote(raw)}: missing ']' in host`);
  return { scheme: s.scheme, host, path: slash < 0 ? "" : rest.slice(slash) };
}

/** validHostPort is net.SplitHostPort's acceptance: `host:port` or `[v6]:port`. */
function validHostPort(hostport: string): boolean {
  if (hostport.startsWith("[")) return /^\[[^\]]*\]:[^:]*$/.test(hostport);
  return /^[^:[\]]*:[^:[\]]*$/.test(hostport);
}

/** newUrls is types.NewURLs: parse, validate and sort a URL list. */
export function newUrls(strs: readonly string[]): PeerUrl[] {
  if (strs.length === 0) throw new UrlError("no valid URLs given");
  const all = strs.map((raw) => {
    const input = raw.trim();
    const u = parseUrl(input);
    switch (u.scheme) {
      case "http":
      case "https":
        if (!validHostPort(u.host)) throw new UrlError(`URL address does not have the form "host:port": ${input}`);
        if (u.path !== "") throw new UrlError(`URL must not contain a path: ${input}`);
        break;
      case "unix":
      case "unixs":
        break;
      default:
        throw new UrlError(`URL scheme must be http, https, unix, or unixs: ${input}`);
    }
    return { scheme: u.scheme, host: u.host, text: `${u.scheme}://${u.host}${u.path}` };
  });
  return all.sort((a, b) => (a.text < b.text ? -1 : a.text > b.text ? 1 : 0));
}

/** UrlsMap is types.URLsMap: member name → its sorted URLs. */
export type UrlsMap = Map<string, PeerUrl[]>;

/** newUrlsMap is types.NewURLsMap: `name=url,name=url` (a name may repeat). */
export function newUrlsMap(s: string): UrlsMap {
  const raw = new Map<string, string[]>();
  for (const part of s.split(",")) {
    if (part === "") continue;
    const eq = part.indexOf("=");
    const [name, value] = eq >= 0 ? [part.slice(0, eq), part.slice(eq + 1)] : [part, ""];
    raw.set(name, [...(raw.get(name) ?? []), value]);
  }
  const out: UrlsMap = new Map();
  for (const [name, urls] of raw) out.set(name, newUrls(urls));
  return out;
}

/** urlsMapString is URLsMap.String(): sorted `name=url` pairs joined by commas. */
export function urlsMapString(m: UrlsMap): string {
  const pairs: string[] = [];
  for (const [name, urls] of m) for (const u of urls) pairs.push(`${name}=${u.text}`);
  return pairs.sort().join(",");
}

function goQuoteList(list: readonly string[]): string {
  return `[${list.map((s) => goQuote(s)).join(" ")}]`;
}

/** resolveHost is net.ResolveTCPAddr's host part: IP literals stay, names resolve to their first IPv4 address. */
async function resolveHost(host: string): Promise<string> {
  const bare = host.replace(/^\[|\]$/g, "");
  if (/^[0-9.]+$/.test(bare) || bare.includes(":")) return host;
  const r = await lookup(bare, { family: 4 });
  return r.address;
}

async function resolved(u: PeerUrl): Promise<string> {
  if (u.scheme !== "http" && u.scheme !== "https") return u.text;
  const colon = u.host.lastIndexOf(":");
  const host = await resolveHost(u.host.slice(0, colon));
  return `${u.scheme}://${host}${u.host.slice(colon)}`;
}

/** urlStringsEqual is netutil.URLStringsEqual: equal as written, or after resolving host names. */
async function urlStringsEqual(a: readonly PeerUrl[], b: readonly PeerUrl[]): Promise<string | undefined> {
  if (a.length !== b.length)
    return `len(${goQuoteList(a.map((u) => u.text))}) != len(${goQuoteList(b.map((u) => u.text))})`;
  if (a.every((u, i) => u.text === b[i]?.text)) return undefined;
  let ra: string[];
  let rb: string[];
  try {
    ra = (await Promise.all(a.map(resolved))).sort();
    rb = (await Promise.all(b.map(resolved))).sort();
  } catch (e) {
    return (e as Error).message;
  }
  for (let i = 0; i < ra.length; i++) {
    if (ra[i] !== rb[i]) return `resolved urls: ${goQuote(ra[i] as string)} != ${goQuote(rb[i] as string)}`;
  }
  return undefined;
}

/** verifyBootstrap is ServerConfig.VerifyBootstrap for a restore (no discovery). */
export async function verifyBootstrap(name: string, peerUrls: readonly PeerUrl[], cluster: UrlsMap): Promise<void> {
  const local = cluster.get(name);
  if (!local) throw new UrlError(`couldn't find local name ${goQuote(name)} in the initial cluster configuration`);
  const err = await urlStringsEqual(peerUrls, local);
  if (err !== undefined) {
    const ap = peerUrls.map((u) => u.text).sort();
    const apSet = new Set(ap);
    const initSet = new Set(local.map((u) => u.text));
    const missing = [...initSet].filter((u) => !apSet.has(u));
    if (missing.length > 0) {
      throw new UrlError(
        `--initial-cluster has ${missing.map((u) => `${name}=${u}`).join(",")} but missing from --initial-advertise-peer-urls=${ap.join(",")} (${err})`,
      );
    }
    const own = urlsMapString(new Map([[name, [...peerUrls]]]));
    const extra = [...apSet].filter((u) => !initSet.has(u));
    if (extra.length > 0) {
      throw new UrlError(
        `--initial-advertise-peer-urls has ${extra.join(",")} but missing from --initial-cluster=${own}`,
      );
    }
    throw new UrlError(`failed to resolve ${ap.join(",")} to match --initial-cluster=${own} (${err})`);
  }
  const seen = new Set<string>();
  for (const urls of cluster.values()) {
    for (const u of urls) {
      if (seen.has(u.text)) throw new UrlError(`initial cluster ${urlsMapString(cluster)} has duplicate url`);
      seen.add(u.text);
    }
  }
  if (urlsMapString(cluster) === "") throw new UrlError("initial cluster unset and no discovery URL found");
}
