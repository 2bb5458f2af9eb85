// Test fixture for lab-loader.test.ts: a lab whose second task has no hints and whose cluster is wrong.
export default {
  id: "01-bad",
  title: "Bad",
  cluster: { members: 4 },
  tasks: [
    { id: "a", title: "A", check: async () => ({ passed: true, message: "" }), hints: [], solution: ["true"] },
    { id: "b", title: "B", check: async () => ({ passed: true, message: "" }), solution: ["true"] },
  ],
};
