// The command list of the kubectl differential test. Read-only cases run concurrently against the seeded
// cluster; mutating cases run in order, each kubectl on its own objects (`{S}` becomes `zr` for real kubectl
// and `zo` for ours), with the manifests below written into each side's working directory.

/** Case is one kubectl invocation. */
export interface Case {
  args: string[];
  stdin?: string;
  /** shows is text real kubectl's output must contain (the case is about that error). */
  shows?: string;
}

/** readOnly are the cases that change nothing. */
export const readOnly: Case[] = [
  { args: ["get", "pods", "-A"] },
  { args: ["get", "nodes"] },
  { args: ["get", "nodes", "-o", "wide"] },
  { args: ["get", "all", "-A"] },
  { args: ["get", "all", "-n", "web"] },
  { args: ["get", "deploy", "-A", "-o", "wide"] },
  { args: ["get", "pods", "-n", "kube-system", "-o", "yaml"] },
  { args: ["get", "pods", "-n", "web", "-o", "json"] },
  { args: ["get", "pods", "-A", "-o", "name"] },
  { args: ["get", "svc", "-A", "--show-labels"] },
  { args: ["get", "ns", "--show-labels"] },
  { args: ["get", "cm", "-A", "--no-headers"] },
  { args: ["get", "po", "-n", "web", "-l", "app=web"] },
  { args: ["get", "pods", "-A", "--field-selector", "status.phase=Running", "-o", "name"] },
  { args: ["get", "pods", "-n", "web", "-o", "jsonpath={.items[*].metadata.name}"] },
  {
    args: [
      "get",
      "pods",
      "-n",
      "web",
      "-o",
      'jsonpath={range .items[*]}{.metadata.name}{"\\t"}{.status.phase}{"\\n"}{end}',
    ],
  },
  { args: ["get", "nodes", "-o", 'jsonpath={.items[*].status.conditions[?(@.type=="Ready")].status}'] },
  { args: ["get", "pods", "-A", "-o", "jsonpath={..image}"] },
  { args: ["get", "deploy", "web", "-n", "web", "-o", "jsonpath-as-json={.spec.replicas}"] },
  { args: ["get", "pods", "-n", "web", "-o", "custom-columns=NAME:.metadata.name,NODE:.spec.nodeName"] },
  { args: ["get", "deployment.apps/coredns", "-n", "kube-system", "-o", "yaml"] },
  { args: ["get", "svc", "kubernetes", "-o", "json"] },
  { args: ["get", "foo"] },
  { args: ["get", "pods", "-o", "bar"] },
  { args: ["get", "pods", "nope"] },
  { args: ["get", "pods", "nope", "nope2", "-o", "name"] },
  { args: ["get", "pods"] },
  { args: ["get", "pods,svc", "-n", "web"] },
  { args: ["get", "crd"] },
  { args: ["get", "ippools", "-o", "yaml"] },
  { args: ["get", "--raw", "/api/v1/namespaces/web/services/web"] },
  { args: ["get", "--raw", "/apis/apps/v1/namespaces/nope/deployments/x"] },
  {
    // 410: a watch from a resourceVersion the watch cache no longer has (the stream's ERROR event).
    args: ["get", "--raw", "/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=1", "--request-timeout=5s"],
    shows: '"reason":"Expired","code":410',
  },
  { args: ["get", "cm", "kube-root-ca.crt", "-o", "jsonpath={.data[0]}"] },
  { args: ["get", "cm", "-o", "jsonpath={.items["] },
  { args: ["get", "events", "-A"] },
  { args: ["get", "leases", "-A"] },
  { args: ["api-resources"] },
  { args: ["api-resources", "--namespaced=false"] },
  { args: ["version"] },
  { args: ["config", "view"] },
  { args: ["config", "current-context"] },
  { args: ["config", "use-context", "nope"] },
  { args: ["create", "configmap", "x", "--from-literal=a=b", "--from-literal=n=1", "--dry-run=client", "-o", "yaml"] },
  { args: ["create", "secret", "generic", "s", "--from-literal=p=q", "--dry-run=client", "-o", "json"] },
  { args: ["get", "--bogus"] },
  { args: ["bogus"] },
  { args: ["scale", "deploy/web"] },
  { args: ["logs"] },
  { args: ["logs", "-n", "web", "web-k544hf55md-5l2xj", "--tail=3"] },
  { args: ["logs", "-n", "web", "deployment/web"] },
  { args: ["logs", "-n", "web", "job/nope"] },
  { args: ["logs", "pod/nope"] },
  { args: ["get", "pods", "-n", "web", "-o", "yaml", "--show-managed-fields"] },
  { args: ["wait", "--for=jsonpath={.status.phase}=Running", "pod/web-k544hf55md-5l2xj", "-n", "web"] },
  { args: ["wait", "--for=condition=Ready", "pod/nope", "--timeout=1s"] },
  { args: ["describe", "pod", "-n", "web", "web-k544hf55md-5l2xj"] },
  { args: ["describe", "pods", "-n", "kube-system"] },
  { args: ["describe", "pod", "-n", "kube-system", "coredns"] },
  { args: ["describe", "nodes"] },
  { args: ["describe", "node", "nope"] },
  { args: ["get"] },
  { args: ["get", "pods", "-A", "--sort-by=.metadata.uid"] },
  { args: ["get", "pods", "-A", "-L", "k8s-app", "--no-headers"] },
  { args: ["api-resources", "-o", "wide"] },
  { args: ["get", "pod", "nope", "-w", "--request-timeout=2s"] },
];

/** sideFiles are the manifests each side's directory holds ({S} is the side marker). */
export const sideFiles: Record<string, string> = {
  "app.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: app-{S}
  labels:
    app: demo
data:
  greeting: hello
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: dep-{S}
spec:
  replicas: 1
  selector:
    matchLabels:
      app: dep-{S}
  template:
    metadata:
      labels:
        app: dep-{S}
    spec:
      containers:
      - name: web
        image: nginx:1.27
`,
  "app2.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: app-{S}
  labels:
    app: demo
data:
  greeting: bonjour
`,
  "cronjob.yaml": `apiVersion: batch/v1
kind: CronJob
metadata:
  name: nightly-{S}
spec:
  schedule: "0 3 * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers:
          - name: task
            image: busybox
            command: ["true"]
`,
  "cm.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: cm-{S}
data:
  a: b
`,
  "stale.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: cm-{S}
  resourceVersion: "2"
data:
  a: stale
`,
  "invalid.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: Bad_Name-{S}
`,
  "broken.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: broken
   labels: {}
data:
  a: b
`,
};

/** mutating are run in order, each kubectl on its own objects. */
export const mutating: Case[] = [
  { args: ["create", "-f", "cm.yaml"] },
  { args: ["create", "-f", "cm.yaml"] },
  { args: ["get", "cm", "cm-{S}", "-o", "yaml"] },
  { args: ["apply", "-f", "app.yaml"] },
  { args: ["apply", "-f", "app.yaml"] },
  { args: ["apply", "-f", "app2.yaml"] },
  { args: ["get", "cm", "app-{S}", "-o", "yaml"] },
  { args: ["apply", "-f", "broken.yaml"] },
  { args: ["apply", "-f", "invalid.yaml"], shows: "is invalid" },
  { args: ["apply", "-f", "cm.yaml"], shows: "last-applied-configuration annotation" },
  { args: ["patch", "cm", "cm-{S}", "-p", "{bad"] },
  { args: ["patch", "cm", "cm-{S}", "--type", "json", "-p", '[{"op":"bogus"}]'] },
  { args: ["scale", "--replicas=1", "deployment/nope-{S}"] },
  { args: ["patch", "cm", "cm-{S}", "--type", "merge", "-p", '{"data":{"b":"c"}}'] },
  { args: ["patch", "cm", "cm-{S}", "--type", "merge", "-p", '{"data":{"b":"c"}}'] },
  { args: ["patch", "deploy", "dep-{S}", "-p", '{"spec":{"replicas":2}}'] },
  { args: ["scale", "--replicas=3", "deployment/dep-{S}"] },
  { args: ["get", "deploy", "dep-{S}", "-o", "jsonpath={.spec.replicas}"] },
  // 409: replace with the stale resourceVersion written in stale.yaml.
  { args: ["replace", "-f", "stale.yaml"], shows: "Error from server (Conflict)" },
  { args: ["apply", "-f", "cronjob.yaml"] },
  { args: ["get", "cronjobs"] },
  { args: ["create", "-f", "-"], stdin: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: in-{S}\ndata:\n  k: v\n" },
  { args: ["delete", "cm", "in-{S}"] },
  { args: ["delete", "cm", "in-{S}"] },
  { args: ["delete", "-f", "app.yaml"] },
  { args: ["wait", "--for=delete", "cm/app-{S}", "--timeout=5s"] },
];

/**
 * typedCreates are kubectl's generators, which send their objects through the typed client (protobuf bodies
 * in kubectl 1.32); they run when the apiserver accepts such bodies.
 */
export const typedCreates: Case[] = [
  { args: ["create", "configmap", "gen-{S}", "--from-literal=a=b"] },
  { args: ["create", "configmap", "gen-{S}", "--from-literal=a=b"] },
  { args: ["create", "secret", "generic", "gen-{S}", "--from-literal=p=q"] },
  { args: ["create", "job", "run-{S}", "--from=cronjob/nightly-{S}"] },
  { args: ["get", "job", "run-{S}", "-o", "jsonpath={.metadata.ownerReferences[0].kind}"] },
];
