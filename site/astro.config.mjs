// @ts-check
// The course site: a static Astro build (site/dist) that the lab server serves, or `astro dev` with a proxy
// to a running lab server (npm run dev; see site/scripts/dev.mjs). Lessons live outside the project root, in
// ../lessons, so Vite is allowed to read the repository root.
import mdx from "@astrojs/mdx";
import { defineConfig } from "astro/config";
import { fileURLToPath } from "node:url";
import { astroPrecompress } from "../scripts/precompress.mjs";

const repoRoot = fileURLToPath(new URL("..", import.meta.url));
// The lessons folder, absolute. ETCD_LAB_LESSONS_DIR overrides it (the build-failure test points it at a
// fixture). It is written back to the environment because the content config and the pages (prerendered in
// this same process) read it from there.
process.env.ETCD_LAB_LESSONS_DIR = process.env.ETCD_LAB_LESSONS_DIR ?? `${repoRoot}lessons`;
/** labServerUrl is where `astro dev` forwards /api and /ws (the dev script starts a lab server there). */
const labServerUrl = process.env.ETCD_LAB_SERVER_URL ?? "http://127.0.0.1:4322";

/**
 * sameOrigin makes a proxied request look same-origin to the lab server, which rejects foreign Origins: the
 * browser's Origin is the dev server's, so it is rewritten to the lab server's own.
 * @param {import("http-proxy").Server} proxy
 */
function sameOrigin(proxy) {
  const rewrite = (/** @type {import("node:http").ClientRequest} */ req) => {
    if (req.getHeader("origin")) req.setHeader("origin", labServerUrl);
  };
  proxy.on("proxyReq", rewrite);
  proxy.on("proxyReqWs", rewrite);
}

export default defineConfig({
  output: "static",
  ...(process.env.ETCD_LAB_SITE_OUT_DIR ? { outDir: process.env.ETCD_LAB_SITE_OUT_DIR } : {}),
  // A separate cache (content store) for test builds, so they never race the real one.
  ...(process.env.ETCD_LAB_ASTRO_CACHE_DIR ? { cacheDir: process.env.ETCD_LAB_ASTRO_CACHE_DIR } : {}),
  trailingSlash: "ignore",
  build: { format: "directory" },
  // astroPrecompress leaves .br and .gz copies beside the built text files for the lab server to send.
  integrations: [mdx(), astroPrecompress()],
  devToolbar: { enabled: false },
  server: { host: "127.0.0.1", port: Number(process.env.ETCD_LAB_DEV_PORT ?? 4321) },
  markdown: {
    shikiConfig: { themes: { light: "github-light", dark: "github-dark-dimmed" }, wrap: false },
  },
  vite: {
    server: {
      fs: { allow: [repoRoot] },
      proxy: {
        "/api": { target: labServerUrl, configure: sameOrigin },
        "/ws": { target: labServerUrl, ws: true, configure: sameOrigin },
      },
    },
    build: { chunkSizeWarningLimit: 600 },
  },
});
