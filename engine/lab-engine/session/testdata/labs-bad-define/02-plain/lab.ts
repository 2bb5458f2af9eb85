// Test fixture for lab-loader.test.ts: a plain object the loader's own validation refuses.
export default { id: "02-plain", title: "Bad", cluster: { members: 1 }, tasks: "none" };
