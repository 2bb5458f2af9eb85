// What the REST API accepts (API.md §3): each body and query schema once, by name. Handlers take
// z.infer<typeof schema>; a message says what was expected and the router prefixes the field ("ms: …").
import { z } from "zod";

/** memberName is a member's name in a path or a body (m1 … m99). */
export const memberName = z.string().regex(/^m\d{1,2}$/, "expected a member name like m1");

const controlMs = z.number({ invalid_type_error: "expected milliseconds as a number" }).int().min(0).max(60_000);
const terminalId = /^[a-z0-9-]{1,32}$/;
const afterSeq = "expected a non-negative integer";

/** eventsQuery is GET .../events?after=<seq>: Number() of the raw value, so "" and absent are 0. */
export const eventsQuery = z.object({
  after: z.coerce.number({ invalid_type_error: afterSeq }).int(afterSeq).min(0, afterSeq).default(0),
});

/** openSessionBody is POST /api/sessions. */
export const openSessionBody = z.object({
  lab: z.string({ required_error: "expected the lab id" }),
  backend: z.enum(["ours", "real"]).optional(),
});

/** resetBody is POST .../reset. */
export const resetBody = z.object({ clearProgress: z.boolean().optional() });

/** delayBody is POST .../members/:member/delay. */
export const delayBody = z.object({ peers: z.array(memberName).min(1, "expected at least one peer"), ms: controlMs });

/** slowDiskBody is POST .../members/:member/slow-disk. */
export const slowDiskBody = z.object({ ms: controlMs });

/** partitionBody is POST .../partition. */
export const partitionBody = z.object({ groups: z.array(z.array(memberName)).min(1, "expected at least one group") });

/** solveBody is POST .../tasks/:task/solve. */
export const solveBody = z.object({
  terminal: z.string().regex(terminalId, "expected a terminal id").optional(),
  /** antiSolution types that anti-solution's commands instead and reports whether the check refused them. */
  antiSolution: z.string({ invalid_type_error: "expected an anti-solution name" }).optional(),
});

/** openTerminalBody is POST .../terminals. */
export const openTerminalBody = z.object({ id: z.string().regex(terminalId, "expected [a-z0-9-]{1,32}").optional() });
