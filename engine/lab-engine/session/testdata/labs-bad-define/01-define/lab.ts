// Test fixture for lab-loader.test.ts: defineLab refuses this lab while the module is imported.
import { defineLab, type LabDefinition } from "../../../../index.ts";

export default defineLab({
  id: "01-define",
  title: "Bad at import",
  cluster: { members: 2 },
  tasks: [],
} as unknown as LabDefinition);
