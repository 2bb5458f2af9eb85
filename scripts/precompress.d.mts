// Types of scripts/precompress.mjs (a plain ES module the Astro config and the site build load).

/** compressibleExtensions are the text formats worth compressing. */
export const compressibleExtensions: ReadonlySet<string>;
/** minBytes is the smallest file worth a compressed copy. */
export const minBytes: number;
/** precompress writes .br and .gz copies beside every compressible file under dir and says what it wrote. */
export function precompress(dir: string): { files: number; bytes: number; gzipBytes: number; brotliBytes: number };
/** astroPrecompress is the Astro integration that precompresses the built site. */
export function astroPrecompress(): { name: string; hooks: Record<string, (args: never) => void> };
