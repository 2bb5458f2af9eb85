// Test fixture for lab-loader.test.ts: a lab module that throws something other than a format error.
throw new Error("03-throws fails on purpose");
