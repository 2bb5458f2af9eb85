// Test fixture for lab-loader.test.ts: a valid lab in a directory that does not match its id.
import { defineLab } from "../../../../index.ts";

export default defineLab({
  id: "02-right",
  title: "Right id, wrong directory",
  cluster: { members: 1 },
  tasks: [{ id: "a", title: "A", check: async () => ({ passed: true, message: "ok" }), hints: [], solution: ["true"] }],
});
