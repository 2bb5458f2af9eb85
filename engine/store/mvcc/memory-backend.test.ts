import { describeBackendContract } from "../backend/backend-contract.ts";
import { MemoryBackend } from "./memory-backend.ts";

describeBackendContract("MemoryBackend", () => {
  const backend = new MemoryBackend();
  return {
    backend,
    crash: () => {
      backend.crash();
      return backend;
    },
    cleanup: () => {},
  };
});
