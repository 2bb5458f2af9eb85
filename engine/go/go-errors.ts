// Go's os errors as they print: `open /x.db.part: no such file or directory` (*PathError) and
// `rename a b: ...` (*LinkError), from Node's errno codes.

const messages: Record<string, string> = {
  ENOENT: "no such file or directory",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EEXIST: "file exists",
  EISDIR: "is a directory",
  ENOTDIR: "not a directory",
  ENOSPC: "no space left on device",
  EBADF: "bad file descriptor",
  EROFS: "read-only file system",
  ENOTEMPTY: "directory not empty",
  EBUSY: "device or resource busy",
  EAGAIN: "resource temporarily unavailable",
  EMFILE: "too many open files",
  EXDEV: "invalid cross-device link",
  EADDRINUSE: "address already in use",
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection reset by peer",
  EHOSTUNREACH: "no route to host",
  ENETUNREACH: "network is unreachable",
  EADDRNOTAVAIL: "cannot assign requested address",
};

/** errnoText is Go's syscall.Errno text for a Node error code. */
export function errnoText(e: unknown): string {
  const code = (e as NodeJS.ErrnoException)?.code;
  if (code !== undefined && code in messages) return messages[code] as string;
  return e instanceof Error ? e.message : String(e);
}

/** goFsError formats a failed file operation as Go's *PathError (or *LinkError with a second path). */
export function goFsError(e: unknown, op: string, path: string, newPath?: string): string {
  return newPath === undefined ? `${op} ${path}: ${errnoText(e)}` : `${op} ${path} ${newPath}: ${errnoText(e)}`;
}
