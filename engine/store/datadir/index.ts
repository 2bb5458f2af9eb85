// engine/store/datadir: the member's data dir (layout, creation, locking) and the start-up bootstrap of its durable
// state. The member's flag handling and the server driver import from here.
export { dataDirLayout } from "./layout.ts";
export type { DataDirLayout } from "./layout.ts";
export { DataDirError, ensureLayout, isEmptyDir, touchDirAll } from "./create.ts";
export { DirLockedError, LOCKED_TEXT, lockDir } from "./lock.ts";
export type { DirLock } from "./lock.ts";
export { decodeMemberMetadata, encodeMemberMetadata } from "./member-metadata.ts";
export type { MemberMetadata } from "./member-metadata.ts";
export { createMemberStorage, isMemberInitialized, loadIntoStorage, restartMemberStorage } from "./bootstrap.ts";
export type { MemberStorage, RaftStorageSink, RestartedStorage, StorageOptions } from "./bootstrap.ts";
export { writeRestoredLog } from "./restore.ts";
export type { RestoredLog, RestorePeer } from "./restore.ts";
