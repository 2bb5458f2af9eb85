// Every page: the API client, and the token hand-off for `astro dev`. Under `npm start` the lab server turns
// ?token=... into a cookie itself (302); under `astro dev` the page is served by Astro, so the page posts the
// token to /api/auth (proxied to the lab server) and removes it from the address bar.
import { LabApi } from "../lib/api-client.ts";
import { WorkshopApi } from "../lib/workshop-api.ts";

/** api is the page's lab server client. */
export const api = new LabApi((url, init) => fetch(url, init));

/** workshop is the page's client for the workshop endpoints (join page, board, lesson pages in workshop mode). */
export const workshop = new WorkshopApi((url, init) => fetch(url, init));

/** authReady resolves once a ?token= in the address has been exchanged for the cookie (or there was none). */
export const authReady: Promise<void> = exchangeToken();

async function exchangeToken(): Promise<void> {
  const url = new URL(location.href);
  const token = url.searchParams.get("token");
  if (!token) return;
  url.searchParams.delete("token");
  history.replaceState(history.state, "", `${url.pathname}${url.search}${url.hash}`);
  try {
    await api.auth(token);
  } catch (err) {
    setPageStatus(`Sign-in failed: ${(err as Error).message}`, "error");
  }
}

/** setPageStatus writes the header's one-line lab status ("Starting your cluster…", errors). */
export function setPageStatus(text: string, kind: "info" | "ok" | "error" = "info"): void {
  const el = document.querySelector<HTMLElement>("[data-session-status]");
  if (!el) return;
  el.textContent = text;
  el.dataset["kind"] = kind;
}

/** wsUrl turns a path into a ws:// (or wss://) URL on this page's host. */
export function wsUrl(path: string): string {
  return `${location.protocol === "https:" ? "wss:" : "ws:"}//${location.host}${path}`;
}
