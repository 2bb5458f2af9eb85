// Opening a backend file the way etcdutl's commands do (backend.New): a file that is not a database makes
// etcd's backend log "failed to open database" at panic level and panic; we print the same.

import { LmdbBackend, LmdbFileError } from "../../../store/offline.ts";
import { goPanic } from "../../cobra/go-panic.ts";
import type { CliIo } from "../../cobra/io.ts";
import type { ZapLogger } from "../../../go/zap.ts";

const openFrames = [
  [
    "go.etcd.io/etcd/server/v3/storage/backend.newBackend",
    "go.etcd.io/etcd/server/v3@v3.6.14/storage/backend/backend.go:205",
  ],
  ["go.etcd.io/etcd/server/v3/storage/backend.New", "go.etcd.io/etcd/server/v3@v3.6.14/storage/backend/backend.go:167"],
] as const;

/**
 * openBackendOrPanic opens `path` (shown as `shownPath`); a non-database file panics as etcd does, with
 * the panic-level log line first when the command has a logger (etcdutl defrag) and none otherwise.
 */
export function openBackendOrPanic(io: CliIo, path: string, shownPath: string, lg?: ZapLogger): LmdbBackend {
  try {
    return LmdbBackend.open({ path, ...(lg ? { logger: lg } : {}) });
  } catch (e) {
    if (!(e instanceof LmdbFileError)) throw e;
    lg?.panic("backend/backend.go:205", "failed to open database", { path: shownPath, error: "invalid database" });
    return goPanic(io, "failed to open database", openFrames);
  }
}
