// The lab format: what a lab/<nn>-<slug>/lab.ts file exports (`export default defineLab({...})`).
// defineLab validates with zod; errors name the field (and, through loadLabModule in the engine, the file).
// Checks grade state — cluster contents, member status, workspace files, the event log — never keystrokes.
// Labs import this file only: it re-exports what a check reads (the contexts, events, status) from the lab
// engine's types/, the bottom of the engine, so that lab/ never depends on the engine that loads it.
import { z } from "zod";
import type { CheckContext, SetupContext } from "../engine/lab-engine/types/check-context.ts";

export type * from "../engine/lab-engine/types/check-context.ts";
export type { Backend, ClusterStatus, MemberStatus } from "../engine/lab-engine/types/status-types.ts";
export { eventsOfType, type LabEvent, type LabEventType } from "../engine/lab-engine/types/event-types.ts";

/** CheckResult is what a task's check returns. `message` is one line for the learner, pass or fail. */
export interface CheckResult {
  passed: boolean;
  message: string;
}

/** CheckFn grades one task from state. It may throw; the engine then reports a failed check with the error. */
export type CheckFn = (ctx: CheckContext) => Promise<CheckResult>;

/** SetupFn prepares a fresh session after the cluster has a leader and the kube seed (if any) is written. */
export type SetupFn = (ctx: SetupContext) => Promise<void>;

const idPattern = /^[a-z0-9][a-z0-9-]{0,63}$/;
const fn = <F>(what: string) => z.custom<F>((v) => typeof v === "function", { message: `expected ${what}` });
const ms = (name: string) =>
  z
    .number({ invalid_type_error: `expected ${name} as a number of milliseconds` })
    .int()
    .min(0)
    .max(3_600_000);

const controlPlaneSchema = z
  .object({
    /** nodeLeaseRenewMs: how often each kubelet renews its node Lease in kube-node-lease (10 s). */
    nodeLeaseRenewMs: ms("nodeLeaseRenewMs").min(100).optional(),
    /** compactionIntervalMs: kube-apiserver's --etcd-compaction-interval (5 min; 0 = never). */
    compactionIntervalMs: ms("compactionIntervalMs").optional(),
  })
  .strict();

/**
 * ControlPlaneOptions tune the simulated control plane (engine/lab-engine/kube/control-plane.ts: the apiserver,
 * kubelets, controller-manager and scheduler); every interval is in milliseconds. A lab that changes one from
 * Kubernetes' default says so on its page.
 */
export type ControlPlaneOptions = z.infer<typeof controlPlaneSchema>;

const kubeSchema = z
  .object({
    /** seed makes names, uids and timestamps reproducible (default 1). */
    seed: z.number().int().min(0).max(0xffffffff).optional(),
    /** encryptSecrets stores secrets as `k8s:enc:aescbc:v1:key1:` + AES-CBC ciphertext. */
    encryptSecrets: z.boolean().optional(),
  })
  .strict();

/** KubeOptions tunes the Kubernetes-shaped seed (engine/lab-engine/kube/seed.ts). */
export type KubeOptions = z.infer<typeof kubeSchema>;

const clusterSchema = z
  .object({
    members: z.union([z.literal(1), z.literal(3), z.literal(5)], {
      errorMap: () => ({ message: "expected 1, 3 or 5 members" }),
    }),
    /** quotaBackendBytes is passed as --quota-backend-bytes (etcd's default is 2 GiB). */
    quotaBackendBytes: z
      .number()
      .int()
      .min(1 << 20, "expected at least 1 MiB (1048576)")
      .max(8 * 1024 ** 3, "expected at most 8 GiB (etcd's suggested maximum)")
      .optional(),
    /** kube seeds /registry/... like a small Kubernetes cluster. */
    kube: z.union([z.boolean(), kubeSchema]).optional(),
    /**
     * controlPlane runs the simulated Kubernetes control plane over the seed: kube-apiserver (kubectl's
     * $KUBECONFIG), kubelets renewing node Leases, controller-manager and scheduler. Needs kube.
     */
    controlPlane: z.union([z.boolean(), controlPlaneSchema]).optional(),
    /**
     * restartKilledMembers makes the masters' simulated kubelets restart a member ended by a signal or a lab
     * control (lab stop, lab kill, kill -9), as restartPolicy Always does. Off by default: such a member stays
     * down until `lab start` or a manifest change, which lessons on quorum need. A member that exits with an
     * error (a broken flag in its manifest) is restarted with CrashLoopBackOff either way.
     */
    restartKilledMembers: z.boolean().optional(),
    /**
     * s3 runs the session's S3-compatible endpoint (bucket k8s-etcd-snapshots, engine/lab-engine/s3): the shell's
     * rclone remote `backup:` has the learner's write-only key; checks read the bucket as `ctx.s3`.
     */
    s3: z.boolean().optional(),
    /** backupKey writes an age recipient to ~/keys/backup.pub; the engine keeps the identity (`ctx.backupKey`). */
    backupKey: z.boolean().optional(),
    /**
     * pki writes kubeadm's /etc/kubernetes/pki and kubeadm-config.yaml (and, with encrypted Secrets, the
     * EncryptionConfiguration) under every ~/masters/<m>/etc/kubernetes.
     */
    pki: z.boolean().optional(),
  })
  .strict()
  .refine((c) => !c.controlPlane || c.kube, {
    message: "controlPlane needs kube: the control plane serves and renews the seeded objects",
  });

/** ClusterShape is the cluster a lab starts with. */
export type ClusterShape = z.infer<typeof clusterSchema>;

/** regexSource accepts a string that compiles as a JavaScript regular expression. */
const regexSource = z
  .string({
    required_error: "expected message as a regular expression (source)",
    invalid_type_error: "expected message as a regular expression (source)",
  })
  .min(1, "expected a non-empty regular expression")
  .superRefine((src, ctx) => {
    try {
      new RegExp(src);
    } catch (err) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        message: `expected a valid regular expression: ${(err as Error).message}`,
      });
    }
  });

const antiSolutionSchema = z
  .object({
    /** name says which mistake this is (lower-case letters, digits and dashes), unique in its task. */
    name: z
      .string({ required_error: "expected a name" })
      .regex(idPattern, "expected lower-case letters, digits and dashes"),
    /** commands are typed into a fresh session's shell one by one, after the earlier tasks' solutions. */
    commands: z
      .array(z.string().min(1, "expected a non-empty command"), {
        invalid_type_error: "expected commands as an array of shell commands",
        required_error: "expected commands as an array of shell commands",
      })
      .min(1, "expected at least one command"),
    /** message is the source of a regular expression the check's failing message must match. */
    message: regexSource,
  })
  .strict();

/** AntiSolution is a wrong way to do a task, which its check must refuse with a matching message. */
export type AntiSolution = z.infer<typeof antiSolutionSchema>;

const paramName = /^[A-Z][A-Z0-9_]{0,63}$/;

/**
 * perLearner (an exam's param): the value is derived from the learner instead of drawn per session, the same in
 * every session of theirs and after every reset, and most likely different from their neighbours'
 * (engine/lab-engine/session/params.ts).
 */
const paramBase = z.object({
  perLearner: z.boolean({ invalid_type_error: "expected perLearner as true or false" }).optional(),
});

const paramSchema = z
  .discriminatedUnion(
    "kind",
    [
      /** member: one of the cluster's members at creation (m1 … mN). */
      paramBase.extend({ kind: z.literal("member") }).strict(),
      /** int: an integer in [min, max], both included. */
      paramBase.extend({ kind: z.literal("int"), min: z.number().int(), max: z.number().int() }).strict(),
      /** token: `length` random lower-case letters and digits (default 8). */
      paramBase.extend({ kind: z.literal("token"), length: z.number().int().min(1).max(64).optional() }).strict(),
      /** choice: one of `values`. */
      paramBase
        .extend({
          kind: z.literal("choice"),
          values: z.array(z.string().min(1, "expected a non-empty value")).min(1, "expected at least one value"),
        })
        .strict(),
    ],
    {
      errorMap: (issue, ctx) =>
        issue.code === "invalid_union_discriminator"
          ? { message: 'expected kind "member", "int", "token" or "choice"' }
          : { message: ctx.defaultError },
    },
  )
  .superRefine((p, ctx) => {
    if (p.kind === "int" && p.min > p.max) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: ["max"], message: `expected max >= min (${p.min})` });
    }
  });

/**
 * ParamSpec declares one per-session random value, or with perLearner one per learner (lab param NAME;
 * ctx.params.NAME; {{NAME}} in goals).
 */
export type ParamSpec = z.infer<typeof paramSchema>;

const paramsSchema = z.record(
  z.string().regex(paramName, "expected a param name in upper case (letters, digits, _), like TARGET_MEMBER"),
  paramSchema,
  { invalid_type_error: "expected params as an object { NAME: { kind, ... } }" },
);

const taskSchema = z
  .object({
    /** id is unique in the lab: lower-case letters, digits and dashes. */
    id: z.string().regex(idPattern, "expected lower-case letters, digits and dashes"),
    title: z.string().min(1, "expected a non-empty title"),
    check: fn<CheckFn>("check as a function (ctx) => Promise<{ passed, message }>"),
    /** hints are revealed one at a time, mildest first. */
    hints: z.array(z.string().min(1, "expected a non-empty hint"), {
      invalid_type_error: "expected hints as an array of strings",
      required_error: "expected hints as an array of strings",
    }),
    /** solution lists shell commands run one by one in the session's shell; afterwards the check must pass. */
    solution: z
      .array(z.string().min(1, "expected a non-empty command"), {
        invalid_type_error: "expected solution as an array of shell commands",
        required_error: "expected solution as an array of shell commands",
      })
      .min(1, "expected at least one solution command"),
    /**
     * goal states the deliverable in one or two sentences of Markdown (which key, file or state to produce).
     * `{{NAME}}` is replaced by the session's param NAME in what the session API returns.
     */
    goal: z
      .string({ invalid_type_error: "expected goal as a string of Markdown" })
      .min(1, "expected a non-empty goal")
      .optional(),
    /**
     * antiSolutions are wrong ways the proof tries (test/lab/labs.test.ts): each on its own fresh session, after
     * the earlier tasks' solutions, its commands must leave the check failing with a message matching `message`.
     */
    antiSolutions: z
      .array(antiSolutionSchema, {
        invalid_type_error: "expected antiSolutions as an array of { name, commands, message }",
      })
      .optional(),
  })
  .strict()
  .superRefine((task, ctx) => {
    const seen = new Set<string>();
    (task.antiSolutions ?? []).forEach((a, i) => {
      if (seen.has(a.name)) {
        ctx.addIssue({
          code: z.ZodIssueCode.custom,
          path: ["antiSolutions", i, "name"],
          message: `duplicate anti-solution name "${a.name}"`,
        });
      }
      seen.add(a.name);
    });
  });

/** TaskDefinition is one checked exercise. */
export type TaskDefinition = z.infer<typeof taskSchema>;

const labSchema = z
  .object({
    /** id must equal the lab's directory name under lab/. */
    id: z.string().regex(idPattern, "expected lower-case letters, digits and dashes, like 01-what-lives-in-etcd"),
    title: z.string().min(1, "expected a non-empty title"),
    summary: z.string().optional(),
    cluster: clusterSchema,
    /** params are drawn per session with crypto randomness (or derived per learner), kept across `lab reset`. */
    params: paramsSchema.optional(),
    setup: fn<SetupFn>("setup as a function (ctx) => Promise<void>").optional(),
    tasks: z.array(taskSchema).min(1, "expected at least one task"),
  })
  .strict()
  .superRefine((lab, ctx) => {
    const seen = new Set<string>();
    lab.tasks.forEach((t, i) => {
      if (seen.has(t.id)) {
        ctx.addIssue({ code: z.ZodIssueCode.custom, path: ["tasks", i, "id"], message: `duplicate task id "${t.id}"` });
      }
      seen.add(t.id);
    });
  });

/** LabDefinition is a whole lab, the type of labSchema. Its id must equal its directory name under lab/. */
export type LabDefinition = z.infer<typeof labSchema>;

/** LabFormatError reports an invalid lab definition; each problem names a field path like `tasks[1].hints`. */
export class LabFormatError extends Error {
  override name = "LabFormatError";
  constructor(
    readonly problems: string[],
    readonly file?: string,
  ) {
    super(`${file ? `${file}: ` : ""}invalid lab definition:\n  ${problems.join("\n  ")}`);
  }

  /** inFile returns the same error naming `file`. */
  inFile(file: string): LabFormatError {
    return new LabFormatError(this.problems, file);
  }
}

/** fieldPath renders a zod path as `tasks[1].hints`. */
export function fieldPath(path: readonly (string | number)[]): string {
  let out = "";
  for (const p of path) out += typeof p === "number" ? `[${p}]` : out ? `.${p}` : p;
  return out || "(the lab object)";
}

function issueMessage(issue: z.ZodIssue): string {
  if (issue.code === z.ZodIssueCode.unrecognized_keys) {
    return `unknown field${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((k) => `"${k}"`).join(", ")}`;
  }
  return issue.message;
}

/** validateLab checks an unknown value against the lab format and returns it typed, or throws LabFormatError. */
export function validateLab(value: unknown): LabDefinition {
  const parsed = labSchema.safeParse(value);
  if (!parsed.success) {
    throw new LabFormatError(parsed.error.issues.map((i) => `${fieldPath(i.path)}: ${issueMessage(i)}`));
  }
  // zod checked every field, so `value` is a LabDefinition. parsed.data is a copy: the caller's own object is
  // returned (defineLab returns its argument unchanged).
  return value as LabDefinition;
}

/** defineLab validates a lab definition and returns it unchanged: `export default defineLab({ ... })`. */
export function defineLab(lab: LabDefinition): LabDefinition {
  return validateLab(lab);
}

/** Resolved is options with every field set (zod's optional fields may also be explicitly undefined). */
export type Resolved<T> = { [K in keyof T]-?: Exclude<T[K], undefined> };

/** controlPlaneOptions resolves a lab's controlPlane setting to full options (null = no control plane). */
export function controlPlaneOptions(shape: ClusterShape): Resolved<ControlPlaneOptions> | null {
  if (!shape.controlPlane) return null;
  const c = shape.controlPlane === true ? {} : shape.controlPlane;
  return {
    nodeLeaseRenewMs: c.nodeLeaseRenewMs ?? 10_000,
    compactionIntervalMs: c.compactionIntervalMs ?? 300_000,
  };
}

/** kubeOptions resolves a lab's kube setting to full options (null = no seed). */
export function kubeOptions(shape: ClusterShape): Resolved<KubeOptions> | null {
  if (!shape.kube) return null;
  const k = shape.kube === true ? {} : shape.kube;
  return { seed: k.seed ?? 1, encryptSecrets: k.encryptSecrets ?? false };
}

/** fillPlaceholders replaces each `{{NAME}}` with params[NAME]; unknown names stay as written. */
export function fillPlaceholders(text: string, params: Readonly<Record<string, string>>): string {
  return text.replace(/\{\{\s*([A-Z][A-Z0-9_]*)\s*\}\}/g, (whole, name: string) => params[name] ?? whole);
}
